//go:build cuda && cgo && linux

package train

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/cpu"
	"github.com/amtstudio/amt/engine/nn/cuda"
)

// Run on the GPU backend (the CUDA emulator under `make test`; a real GPU
// with AMT_GPU_REQUIRED=1 elsewhere): the loss curve is the CPU's, the
// batches are prefetched, and the stage chart's times are the device's,
// host→device copies included.
func TestRunOnGPUTracksCPU(t *testing.T) {
	o := cuda.Options{Precision: cuda.FP32}
	if d := os.Getenv("AMT_CUDA_EMU"); d != "" {
		o.DriverPath, o.CublasPath = filepath.Join(d, "libcuda.so.1"), filepath.Join(d, "libcublas.so.12")
		t.Setenv("AMT_EMU_LAZY", "0") // a lazy compute stream: copies must still be ordered
	}
	g, err := cuda.Open(o)
	if err != nil {
		if os.Getenv("AMT_CUDA_EMU") == "" && os.Getenv("AMT_GPU_REQUIRED") != "1" {
			t.Skipf("no GPU: %v", err)
		}
		t.Fatal(err)
	}
	defer g.Close()
	c := cpu.NewWorkers(2)
	defer c.Close()
	ds := NewDataset(patterned(20, 40, 24))
	run := func(be nn.Backend) Result {
		cfg, _ := gpt.Preset("tiny", 24)
		m, err := gpt.New(be, cfg)
		if err != nil {
			t.Fatal(err)
		}
		m.Init(3)
		res, err := Run(context.Background(), m, ds, baseOpts(t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	want, got := run(c), run(g)
	for i := range want.Losses {
		if math.Abs(got.Losses[i]-want.Losses[i]) > 2e-3 {
			t.Errorf("step %d: gpu loss %.5f, cpu %.5f", i+1, got.Losses[i], want.Losses[i])
		}
	}
	if math.Abs(got.ValLoss-want.ValLoss) > 2e-3 {
		t.Errorf("val loss: gpu %.5f, cpu %.5f", got.ValLoss, want.ValLoss)
	}
	s := got.Stage
	if !s.Device || s.H2D <= 0 || s.Forward <= 0 || s.Backward <= 0 || s.Optimizer <= 0 {
		t.Errorf("GPU stages %+v: want device times for every stage", s)
	}
	if want.Stage.Device {
		t.Errorf("CPU stages marked as device times: %+v", want.Stage)
	}
}
