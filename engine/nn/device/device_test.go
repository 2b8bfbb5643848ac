package device

import (
	"errors"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/cuda"
)

func TestAutoFallsBackToCPUWithReason(t *testing.T) {
	t.Setenv("AMT_CUDA_DRIVER", "/nonexistent/libcuda.so.1")
	be, ch, err := Open("auto")
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	if be.Name() != "cpu" || ch.Name != "cpu" {
		t.Fatalf("picked %s", be.Name())
	}
	if len(ch.Skipped) != 1 || !errors.Is(ch.Skipped[0], cuda.ErrNoDriver) {
		t.Fatalf("skipped = %v", ch.Skipped)
	}
	want := "cpu (cuda unavailable: no NVIDIA driver: /nonexistent/libcuda.so.1 not found"
	if !strings.HasPrefix(ch.Reason, want) {
		t.Errorf("reason = %q, want prefix %q", ch.Reason, want)
	}
}

func TestNamedDeviceDoesNotFallBack(t *testing.T) {
	t.Setenv("AMT_CUDA_DRIVER", "/nonexistent/libcuda.so.1")
	_, _, err := Open("cuda")
	if !errors.Is(err, cuda.ErrNoDriver) {
		t.Fatalf("err = %v, want ErrNoDriver", err)
	}
	be, ch, err := Open("CPU")
	if err != nil || be.Name() != "cpu" || ch.Reason != "cpu" {
		t.Fatalf("cpu: %v %+v", err, ch)
	}
	be.Close()
}

func TestUnknownDevice(t *testing.T) {
	_, _, err := Open("tpu")
	if !errors.Is(err, nn.ErrUnknownDevice) || !strings.Contains(err.Error(), "auto, cuda, cpu") {
		t.Fatalf("err = %v", err)
	}
	if got := strings.Join(Names(), ","); got != "auto,cuda,cpu" {
		t.Errorf("Names = %s", got)
	}
}

// OpenWith: the CPU refuses a precision, auto falls back with the reason,
// cuda named does not, and bad names and precisions are refused by name.
func TestOpenWith(t *testing.T) {
	t.Setenv("AMT_CUDA_DRIVER", "/nonexistent/libcuda.so.1")
	if _, _, err := OpenWith("cpu", 0, "bf16"); !errors.Is(err, ErrPrecisionOnCPU) || !strings.Contains(err.Error(), "bf16") {
		t.Errorf("cpu with bf16: %v", err)
	}
	be, ch, err := OpenWith("cpu", 2, "")
	if err != nil || be.Name() != "cpu" || ch.Reason != "cpu (2 workers)" {
		t.Fatalf("cpu: %v %+v", err, ch)
	}
	be.Close()
	be, ch, err = OpenWith("auto", 0, "tf32")
	if err != nil || ch.Name != "cpu" || !strings.Contains(ch.Reason, "cuda unavailable: ") || len(ch.Skipped) != 1 || !errors.Is(ch.Skipped[0], cuda.ErrNoDriver) {
		t.Fatalf("auto: %v %+v", err, ch)
	}
	be.Close()
	if _, _, err := OpenWith("gpu", 0, ""); !errors.Is(err, cuda.ErrNoDriver) {
		t.Errorf("gpu: %v, want ErrNoDriver", err)
	}
	if _, _, err := OpenWith("tpu", 0, ""); !errors.Is(err, nn.ErrUnknownDevice) || !strings.Contains(err.Error(), `"tpu"`) {
		t.Errorf("tpu: %v", err)
	}
	if _, _, err := OpenWith("cuda", 0, "fp8"); err == nil || !strings.Contains(err.Error(), `"fp8"`) {
		t.Errorf("fp8: %v", err)
	}
}
