//go:build !unix

package train

import (
	"os"
	"path/filepath"
	"sync"
)

// Without flock the lock holds within this process only (a lock file
// whose holder died could not be told from a live one, and must never
// block a run).
var locked sync.Map // absolute path → struct{}

// lockFile takes path's lock within this process, creating the file; held
// is true when another run of this process holds it.
func lockFile(path string) (f *os.File, held bool, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, false, err
	}
	if _, loaded := locked.LoadOrStore(abs, struct{}{}); loaded {
		return nil, true, nil
	}
	f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		locked.Delete(abs)
		return nil, false, err
	}
	return f, false, nil
}

// unlockFile closes and removes the lock file and lets the path go.
func unlockFile(path string, f *os.File) {
	f.Close()
	os.Remove(path)
	if abs, err := filepath.Abs(path); err == nil {
		locked.Delete(abs)
	}
}

// lockHeld reports whether a run of this process holds path's lock.
func lockHeld(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	_, held := locked.Load(abs)
	return held
}
