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
	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/cpu"
	_ "github.com/amtstudio/amt/engine/nn/cuda" // registers "cuda"
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
