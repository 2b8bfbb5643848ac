// Package device picks the compute backend for the app: it links both
// backends (engine/nn/cpu and engine/nn/cuda, which registers itself),
// registers the CPU one, and opens what a --device cpu|cuda|auto value asks
// for, saying why ("cpu (cuda unavailable: no NVIDIA driver: libcuda.so.1 not
// found)"). The CLI and the UI call Open; engine packages take an nn.Backend
// and never import this one.
//
// It must never import app/, ui/ or storage/.
package device

import (
	"errors"
	"fmt"
	"strings"

	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/cpu"
	"github.com/amtstudio/amt/engine/nn/cuda" // registers "cuda"
)

func init() {
	// engine/nn/cpu does not register itself (yet); if it ever does, its
	// registration wins.
	if !nn.IsRegistered("cpu") {
		nn.RegisterBackend("cpu", 0, func() (nn.Backend, error) { return cpu.New(), nil })
	}
}

// Names are the accepted --device values.
func Names() []string { return append([]string{"auto"}, nn.BackendNames()...) }

// Open opens the backend for a --device value ("", "auto", "cpu", "cuda").
// With auto, CUDA is used when it loads and works, else the CPU, and
// Choice.Reason says why. Naming cuda on a machine without it is an error.
func Open(name string) (nn.Backend, nn.Choice, error) { return nn.OpenBackend(name) }

// ErrPrecisionOnCPU is returned when a matrix-product precision is asked of
// the CPU, which computes in fp32.
var ErrPrecisionOnCPU = errors.New("device: a precision applies to the GPU; the CPU computes in fp32")

// OpenWith opens the backend a --device value asks for ("", "cpu", "cuda"
// or "gpu", "auto") with a CPU of workers threads (0: one per core) and the
// GPU's matrix-product precision ("bf16", "tf32", "fp32"; "": the default
// or AMT_CUDA_PRECISION). The CUDA libraries come from the loader's path or
// AMT_CUDA_DRIVER / AMT_CUBLAS (the emulator's, in tests). With auto, a
// GPU that does not open falls back to the CPU and Choice.Reason says why;
// cuda named is an error then. For front ends that cannot link app/ (the
// static trainmodel binary carried to a GPU machine); app.OpenDeviceWith
// is the app's own.
func OpenWith(name string, workers int, precision string) (nn.Backend, nn.Choice, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	switch name {
	case "", "cpu":
		if precision != "" {
			return nil, nn.Choice{Requested: "cpu"}, fmt.Errorf("%w (--precision %s)", ErrPrecisionOnCPU, precision)
		}
		if workers > 0 {
			return cpu.NewWorkers(workers), nn.Choice{Requested: "cpu", Name: "cpu", Reason: fmt.Sprintf("cpu (%d workers)", workers)}, nil
		}
		return cpu.New(), nn.Choice{Requested: "cpu", Name: "cpu", Reason: "cpu"}, nil
	case "gpu":
		name = "cuda"
	case "auto", "cuda":
	default:
		return nil, nn.Choice{Requested: name}, fmt.Errorf("%w %q (one of %s, gpu)", nn.ErrUnknownDevice, name, strings.Join(Names(), ", "))
	}
	p, err := cuda.ParsePrecision(precision)
	if err != nil {
		return nil, nn.Choice{Requested: name}, err
	}
	o, err := cuda.OptionsFromEnv()
	if err != nil {
		return nil, nn.Choice{Requested: name}, err
	}
	if precision != "" {
		o.Precision = p
	}
	g, err := cuda.Open(o)
	if err == nil {
		return g, nn.Choice{Requested: name, Name: "cuda", Reason: g.Describe()}, nil
	}
	if name != "auto" {
		return nil, nn.Choice{Requested: name}, fmt.Errorf("device %s: %w", name, err)
	}
	c := cpu.New()
	reason := "cpu"
	if workers > 0 {
		c = cpu.NewWorkers(workers)
		reason = fmt.Sprintf("cpu (%d workers)", workers)
	}
	return c, nn.Choice{Requested: name, Name: "cpu", Reason: fmt.Sprintf("%s (cuda unavailable: %v)", reason, err), Skipped: []error{err}}, nil
}
