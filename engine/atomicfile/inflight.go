package atomicfile

import (
	"errors"
	"os"
	"sort"
	"sync"
)

// The temporary files and folders of this process that are still being
// written, so that a process about to exit before its writers finish (a
// second Ctrl-C, a stop that outlived its grace period: app.RunCommand)
// removes them instead of leaving them behind. WriteTemp registers its
// file until Commit renames it or it is removed; other code registers
// the scratch folders it builds (Track).
var inflight struct {
	sync.Mutex
	paths     map[string]int
	abandoned bool
}

// ErrAbandoned is returned by WriteTemp (and so Write) once Abandon has
// run: the process is exiting and must not start a new file.
var ErrAbandoned = errors.New("atomicfile: the process is stopping")

func track(p string) bool {
	inflight.Lock()
	defer inflight.Unlock()
	if inflight.abandoned {
		return false
	}
	if inflight.paths == nil {
		inflight.paths = map[string]int{}
	}
	inflight.paths[p]++
	return true
}

func untrack(p string) {
	inflight.Lock()
	defer inflight.Unlock()
	if inflight.paths[p] <= 1 {
		delete(inflight.paths, p)
	} else {
		inflight.paths[p]--
	}
}

// Track registers a temporary file or folder made outside this package (a
// folder of pieces being assembled, a scratch folder in the system's temp
// directory) so that Abandon removes it; call the returned function once
// it is removed or renamed into place. After Abandon, Track removes path
// at once and returns ErrAbandoned.
func Track(path string) (forget func(), err error) {
	if !track(path) {
		os.RemoveAll(path)
		return func() {}, ErrAbandoned
	}
	var once sync.Once
	return func() { once.Do(func() { untrack(path) }) }, nil
}

// Discard removes a temporary file from WriteTemp that will not be
// committed.
func Discard(tmp string) {
	os.Remove(tmp)
	untrack(tmp)
}

// Rename is Commit without syncing the folder, for a caller renaming
// several temporary files into place and syncing the folder once
// (SyncDir). On failure the temporary file is removed.
func Rename(tmp, path string) error {
	if err := os.Rename(tmp, path); err != nil {
		Discard(tmp)
		return err
	}
	untrack(tmp)
	return nil
}

// InFlight returns the temporary files and folders registered now, sorted.
func InFlight() []string {
	inflight.Lock()
	defer inflight.Unlock()
	out := make([]string, 0, len(inflight.paths))
	for p := range inflight.paths {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Abandon removes every temporary file and folder in flight and makes
// later WriteTemp and Track calls fail with ErrAbandoned (a writer still
// running may go on writing into a file no longer linked anywhere; the
// space returns when the process exits). It returns what it removed. The
// targets the temporary files were to replace are untouched.
func Abandon() []string {
	inflight.Lock()
	inflight.abandoned = true
	paths := make([]string, 0, len(inflight.paths))
	for p := range inflight.paths {
		paths = append(paths, p)
	}
	inflight.paths = nil
	inflight.Unlock()
	sort.Strings(paths)
	for _, p := range paths {
		os.RemoveAll(p)
	}
	return paths
}
