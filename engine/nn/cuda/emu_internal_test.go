//go:build cuda && cgo && linux

package cuda

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A kernel's 32-bit argument out of range is an error, not a silent
// truncation (a shape of 2³¹ rows would have become a negative one).
func TestEmuArgIntRange(t *testing.T) {
	d := os.Getenv("AMT_CUDA_EMU")
	if d == "" {
		t.Skip("needs the CUDA emulator (AMT_CUDA_EMU; make gpu-emu)")
	}
	b, err := Open(Options{DriverPath: filepath.Join(d, "libcuda.so.1"), CublasPath: filepath.Join(d, "libcublas.so.12"), Precision: FP32})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.begin()
	b.argInt(1<<31 - 1)
	if b.Err() != nil {
		t.Fatalf("2³¹-1 refused: %v", b.Err())
	}
	b.begin()
	b.argInt(-1 << 31)
	b.argInt(1 << 31)
	if !errors.Is(b.Err(), ErrUnsupported) {
		t.Errorf("argInt(2³¹): Err = %v, want ErrUnsupported", b.Err())
	}
}
