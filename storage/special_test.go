//go:build unix

package storage

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesSpecialDatabase: a data folder whose amt.db is a named
// pipe (open(2) would wait for a writer forever) or a symlink to
// /dev/zero is refused as damaged, at once, and left as it was.
func TestOpenRefusesSpecialDatabase(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(p string) error
		kind fs.FileMode
	}{
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o644) }, fs.ModeNamedPipe},
		{"zero", func(p string) error { return os.Symlink("/dev/zero", p) }, fs.ModeSymlink},
	} {
		dir := t.TempDir()
		db := filepath.Join(dir, DBFile)
		if err := c.make(db); err != nil {
			t.Skip(err)
		}
		done := make(chan error, 1)
		go func() {
			s, err := Open(dir)
			if s != nil {
				s.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s: %v, want ErrCorrupt", c.name, err)
			}
		case <-time.After(20 * time.Second): // generous: nothing here waits
			t.Fatalf("%s: Open blocked", c.name)
		}
		if fi, err := os.Lstat(db); err != nil || fi.Mode().Type() != c.kind {
			t.Errorf("%s: amt.db was replaced (%v)", c.name, err)
		}
	}
}
