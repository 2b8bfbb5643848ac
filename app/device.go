package app

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/cpu"
	"github.com/amtstudio/amt/engine/nn/device"
)

// ErrBadDevice is returned for a --device value that names no backend.
var ErrBadDevice = errors.New("unknown device")

// DeviceNames are the accepted --device values.
func DeviceNames() []string { return device.Names() }

// OpenDevice opens the compute backend a --device value asks for: "" or
// "cpu" (with workers > 0, a CPU backend of that many workers), "cuda"
// ("gpu" is the same; an error saying why when it cannot open), or "auto"
// (CUDA when it opens, else the CPU; Choice.Reason says why).
func OpenDevice(name string, workers int) (nn.Backend, nn.Choice, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	switch name {
	case "", "cpu":
		if workers > 0 {
			return cpu.NewWorkers(workers), nn.Choice{Requested: "cpu", Name: "cpu", Reason: fmt.Sprintf("cpu (%d workers)", workers)}, nil
		}
		name = "cpu"
	case "gpu":
		name = "cuda"
	case "auto", "cuda":
	default:
		return nil, nn.Choice{}, fmt.Errorf("device %q: %w (one of %s)", name, ErrBadDevice, strings.Join(DeviceNames(), ", "))
	}
	be, ch, err := device.Open(name)
	if err != nil {
		return nil, ch, fmt.Errorf("device %s: %w", name, err)
	}
	return be, ch, nil
}

// gpuCheck opens CUDA once per process to learn whether it works.
var gpuCheck = sync.OnceValues(func() (string, error) {
	be, ch, err := device.Open("cuda")
	if err != nil {
		return "", err
	}
	be.Close()
	return ch.Reason, nil
})

// GPUAvailable reports whether the CUDA backend opens on this machine,
// with its description ("cuda: NVIDIA H100 …") or why not. The first call
// tries to open it (loading the driver can take a while); later calls
// return the same answer.
func GPUAvailable() (ok bool, reason string) {
	r, err := gpuCheck()
	if err != nil {
		return false, err.Error()
	}
	return true, r
}
