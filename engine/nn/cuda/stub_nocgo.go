//go:build !cgo || !linux

package cuda

import (
	"fmt"
	"runtime"

	"github.com/amtstudio/amt/engine/nn"
)

// Backend is absent from builds without cgo (or off Linux): Open says so.
type Backend struct{ nn.Backend }

// DeviceInfo describes the GPU a backend runs on.
type DeviceInfo struct {
	Ordinal       int
	Name          string
	Major, Minor  int
	SMs           int
	TotalMemory   uint64
	DriverVersion int
	CublasVersion int
	CublasLt      int
	CublasPath    string
}

// Open always fails in this build.
func Open(Options) (*Backend, error) {
	return nil, fmt.Errorf("%w: this build has no cgo (%s/%s, CGO_ENABLED=0), so libcuda.so.1 cannot be loaded", ErrNoDriver, runtime.GOOS, runtime.GOARCH)
}
