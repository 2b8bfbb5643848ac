//go:build cuda && cgo && linux

package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app/internal/testfiles"
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

// A model moved to the GPU samples, greedily, the CPU's tokens.
func TestGPUGenerateMatchesCPU(t *testing.T) {
	useGPU(t)
	dir := t.TempDir()
	if err := WriteRandomModel(dir, "tiny", 3); err != nil {
		t.Fatal(err)
	}
	tokens := func(device string) []uint16 {
		m, err := LoadModel(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		g, ch, err := m.OnDevice(device)
		if err != nil {
			t.Fatal(err)
		}
		if g != m {
			defer g.Close()
		}
		if want := map[string]string{"cpu": "cpu", "cuda": "cuda"}[device]; ch.Name != want {
			t.Fatalf("device %s opened %q", device, ch.Name)
		}
		gen, err := GenerateScore(context.Background(), g, nil, SampleSettings{MaxTokens: 120, Temperature: 0}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return gen.Tokens
	}
	if cpu, gpu := tokens("cpu"), tokens("cuda"); !slices.Equal(cpu, gpu) {
		t.Errorf("greedy tokens differ:\ncpu %v\ngpu %v", cpu, gpu)
	}
}

// `amt bench train --compare` of the CPU and the GPU on the same data:
// the GPU's stage times are the device's, host→device copies included.
func TestGPUBenchTrainCompare(t *testing.T) {
	useGPU(t)
	data := t.TempDir()
	testfiles.Shard(t, data)
	r, err := BenchTrain(context.Background(), data, "tiny", 32, 3, 1, 1, 1, []TrainBenchConfig{
		{Batch: 2, Accum: 1, Prefetch: 2, LoaderWorkers: 1, Device: "cpu"},
		{Batch: 2, Accum: 1, Prefetch: 2, LoaderWorkers: 1, Device: "cuda", Precision: "bf16"},
	})
	if err != nil {
		t.Fatal(err)
	}
	a, b := r.Runs[0], r.Runs[1]
	if a.Stage.Device || !b.Stage.Device || b.Stage.H2D <= 0 || b.Stage.Forward <= 0 || !strings.Contains(b.Device, "bf16") {
		t.Errorf("cpu %+v\ngpu %+v", a, b)
	}
	if r.Speedup <= 0 {
		t.Errorf("speed-up %v", r.Speedup)
	}
}
