//go:build cuda && cgo && linux

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app"
)

// useGPU points the backend registry at the CUDA emulator (make gpu-emu
// sets AMT_CUDA_EMU), or at a real GPU when AMT_GPU_REQUIRED=1; otherwise
// the test skips.
func useGPU(t *testing.T) {
	t.Helper()
	if d := os.Getenv("AMT_CUDA_EMU"); d != "" {
		t.Setenv("AMT_CUDA_DRIVER", filepath.Join(d, "libcuda.so.1"))
		t.Setenv("AMT_CUBLAS", filepath.Join(d, "libcublas.so.12"))
	} else if os.Getenv("AMT_GPU_REQUIRED") != "1" {
		t.Skip("no GPU to test on (AMT_CUDA_EMU or AMT_GPU_REQUIRED=1)")
	}
	t.Setenv("AMT_CUDA_PRECISION", "fp32") // greedy choices equal to the CPU's
}

// The model-only form of `amt generate --device cuda` samples on the GPU
// and says so (app's TestGPUGenerateMatchesCPU holds its tokens equal to
// the CPU's).
func TestGPUGenerateCommand(t *testing.T) {
	useGPU(t)
	dir := t.TempDir()
	if err := app.WriteRandomModel(dir, "tiny", 3); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "g.mid")
	code, so, se := runCLI("generate", "--model", dir, "-o", out, "--tokens", "40", "--device", "cuda")
	if code != 0 || !strings.Contains(so, "on cuda: AMT CUDA emulator") && os.Getenv("AMT_CUDA_EMU") != "" {
		t.Errorf("exit %d: %s %s", code, so, se)
	}
}
