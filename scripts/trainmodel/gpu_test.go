//go:build cuda && cgo && linux

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/nn/cuda"
)

// gpuEnv points the CUDA backend at the emulator (AMT_CUDA_EMU, as `make
// gpu-emu` sets it) with its reports in a file of the test, failing the test
// on any misuse or fault report. Without the emulator the real driver is
// used; no GPU skips unless AMT_GPU_REQUIRED=1.
func gpuEnv(t *testing.T) {
	d := os.Getenv("AMT_CUDA_EMU")
	if d == "" {
		return
	}
	t.Setenv("AMT_CUDA_DRIVER", filepath.Join(d, "libcuda.so.1"))
	t.Setenv("AMT_CUBLAS", filepath.Join(d, "libcublas.so.12"))
	log := filepath.Join(t.TempDir(), "emu.log")
	t.Setenv("AMT_EMU_LOG", log)
	t.Cleanup(func() {
		b, _ := os.ReadFile(log)
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, " misuse: ") || strings.Contains(line, " fault: ") {
				t.Errorf("emulator report: %s", line)
			}
		}
	})
}

// trainmodel --device cuda (the default model's second-run recipe on the
// tiny preset, a few steps) tracks the CPU run's losses: fp32 within 2e-3 a
// step, bf16 within 5e-2 (engine/nn/cuda's tolerances), the validation loss
// too; loader workers and prefetch are sized for the GPU.
func TestTrainmodelOnGPUTracksCPU(t *testing.T) {
	gpuEnv(t)
	data := testShards(t)
	want, err := run(context.Background(), tinyConfig(t, data, "cpu"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		precision string
		tol       float64
	}{{"fp32", 2e-3}, {"bf16", 5e-2}} {
		cfg := tinyConfig(t, data, "cuda")
		cfg.Precision = c.precision
		var out bytes.Buffer
		got, err := run(context.Background(), cfg, &out)
		if err != nil {
			if os.Getenv("AMT_CUDA_EMU") == "" && os.Getenv("AMT_GPU_REQUIRED") != "1" && (errors.Is(err, cuda.ErrNoDriver) || errors.Is(err, cuda.ErrNoDevice)) {
				t.Skipf("no GPU: %v", err)
			}
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "device: cuda") {
			t.Errorf("%s: printed %q, want the CUDA device", c.precision, out.String())
		}
		if len(got.Losses) != len(want.Losses) {
			t.Fatalf("%s: %d steps, cpu %d", c.precision, len(got.Losses), len(want.Losses))
		}
		for i := range want.Losses {
			if math.Abs(got.Losses[i]-want.Losses[i]) > c.tol {
				t.Errorf("%s step %d: gpu loss %.5f, cpu %.5f (tolerance %g)", c.precision, i+1, got.Losses[i], want.Losses[i], c.tol)
			}
		}
		if math.Abs(got.ValLoss-want.ValLoss) > c.tol {
			t.Errorf("%s: val loss gpu %.5f, cpu %.5f", c.precision, got.ValLoss, want.ValLoss)
		}
		if !got.Stage.Device {
			t.Errorf("%s: stages %+v are not the device's", c.precision, got.Stage)
		}
		t.Logf("%s: losses gpu %.4f, cpu %.4f", c.precision, got.Losses, want.Losses)
	}
}
