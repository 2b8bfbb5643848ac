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
