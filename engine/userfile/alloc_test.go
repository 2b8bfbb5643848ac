package userfile

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// ReadRegular reads a file into one buffer of about its size: with the
// buffer sized to the file plus one byte, the end-of-file read (which
// asks for 512 bytes free) doubled a buffer that had less room left (a
// file of 819,000 bytes took 3 bytes of memory per byte and returned a
// buffer of twice its size, kept by whoever keeps the bytes: a
// SoundFont's samples).
func TestReadRegularAllocatesOnce(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 4096, 819_000, 819_199, 1 << 20, 3<<20 - 100} {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := ReadRegular(context.Background(), p, 1<<30)
		if err != nil || len(b) != n {
			t.Fatalf("%d bytes: read %d, %v", n, len(b), err)
		}
		if c := cap(b); c > n+n/32+8192 {
			t.Errorf("%d bytes read into a buffer of %d", n, c)
		}
	}
}
