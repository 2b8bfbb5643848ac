// Package atomicfile writes files so that a crash, a full disk or a killed
// process leaves either the old file or the complete new one, never a torn
// one: the content goes to a temporary file in the same folder, which is
// synced, closed and renamed over the target, and the folder is synced so
// the rename itself survives a power cut.
//
// Temporary files are named "." + base + "." + PID + "-*" + TempSuffix, so
// a store can recognise and remove those a crash left behind, and
// CleanStale those of a process no longer running anywhere else. This package imports only
// the standard library; every package that writes a file that matters uses
// it (storage, midi, token, text, audio, pipeline, gpt, ui).
package atomicfile

import (
	"os"
	"path/filepath"
	"strconv"
)

// TempSuffix ends the name of every temporary file this package creates.
const TempSuffix = ".tmp"

// Write writes path atomically with the content that write puts into the temporary file (an *os.File, so encoders
// that seek can use it). On any error the temporary file is removed and the
// old content of path, if any, is untouched. Errors are the os package's,
// which name the file; callers add their own prefix.
func Write(path string, write func(f *os.File) error) error {
	tmp, err := WriteTemp(path, write)
	if err != nil {
		return err
	}
	return Commit(tmp, path)
}

// WriteFile is Write for content already in memory.
func WriteFile(path string, data []byte) error {
	return Write(path, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// WriteTemp is the first half of Write: it writes and syncs a temporary
// file beside path (whose folder must exist) and returns its name, for callers that must have several
// files complete before renaming any (a shard's .bin and .idx).
func WriteTemp(path string, write func(f *os.File) error) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"."+strconv.Itoa(os.Getpid())+"-*"+TempSuffix)
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	if !track(tmp) { // Abandon ran: the process is exiting
		f.Close()
		os.Remove(tmp)
		return "", ErrAbandoned
	}
	err = f.Chmod(0o644) // CreateTemp makes 0600; these are ordinary user files
	if err == nil {
		err = write(f)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		Discard(tmp)
		return "", err
	}
	return tmp, nil
}

// Commit renames a temporary file from WriteTemp over path and syncs the
// folder. On failure the temporary file is removed.
func Commit(tmp, path string) error {
	if err := os.Rename(tmp, path); err != nil {
		Discard(tmp)
		return err
	}
	untrack(tmp)
	SyncDir(filepath.Dir(path))
	return nil
}

// SyncDir makes renames in dir durable; best effort (some file systems
// cannot sync a folder, and the rename has already happened).
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
