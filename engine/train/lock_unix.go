//go:build unix

package train

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on path, creating the file; held is
// true when another open file (another run, in this process or another)
// holds it.
func lockFile(path string) (*os.File, bool, error) {
	for range 8 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, false, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, true, nil
			}
			return nil, false, err
		}
		// The run before may have removed the file as it let go
		// (unlockFile): a lock on a removed file guards nothing, so the
		// file now at path is tried instead.
		fi, ferr := f.Stat()
		pi, perr := os.Stat(path)
		if ferr == nil && perr == nil && os.SameFile(fi, pi) {
			return f, false, nil
		}
		f.Close()
	}
	return nil, false, fmt.Errorf("the file keeps being replaced")
}

// unlockFile removes the lock file, then drops the lock (closing the file
// releases it).
func unlockFile(path string, f *os.File) {
	os.Remove(path)
	f.Close()
}

// lockHeld reports whether a run holds the lock file at path, without
// creating it (a model folder read as a fine-tune's base is not ours to
// write in).
func lockHeld(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
