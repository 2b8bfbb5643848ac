package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/nn/cpu"
)

func TestOpenDevice(t *testing.T) {
	be, ch, err := OpenDevice("cpu", 2)
	if cb, ok := be.(*cpu.Backend); err != nil || ch.Name != "cpu" || !ok || cb.Workers() != 2 {
		t.Fatalf("cpu with 2 workers: %v %+v", err, ch)
	}
	be.Close()
	if _, _, err := OpenDevice("tpu", 0); !errors.Is(err, ErrBadDevice) {
		t.Errorf("tpu: %v, want ErrBadDevice", err)
	}
	be, ch, err = OpenDevice("auto", 0)
	if err != nil || ch.Reason == "" {
		t.Fatalf("auto: %v %+v", err, ch)
	}
	be.Close()
	ok, why := GPUAvailable()
	be, ch, err = OpenDevice("gpu", 0)
	if ok != (err == nil) || why == "" {
		t.Fatalf("gpu: GPUAvailable %v (%s) but OpenDevice: %v", ok, why, err)
	}
	if err == nil {
		be.Close()
		if ch.Name != "cuda" {
			t.Errorf("gpu opened %q", ch.Name)
		}
	} else if !strings.Contains(err.Error(), "cuda") {
		t.Errorf("gpu error does not say why: %v", err)
	}
}
