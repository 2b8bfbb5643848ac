package atomicfile

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
)

// A temporary file's name carries the PID of the process writing it:
// "." + base + "." + PID + "-" + random + TempSuffix. A process killed
// during a write (kill -9, a crash, a power cut) leaves it behind;
// CleanStale recognises such files by their PID no longer running.
var (
	staleName = regexp.MustCompile(`^\..+\.(\d+)-\d+` + regexp.QuoteMeta(TempSuffix) + `$`)
	// Names this package gave before the PID was added.
	legacyName = regexp.MustCompile(`^\..+\.\d+` + regexp.QuoteMeta(TempSuffix) + `$`)
)

// LegacyAge is how old a temporary file named without a PID must be before
// CleanStale takes it for abandoned.
const LegacyAge = time.Hour

// CleanStale removes, in dir, the temporary files of this package whose
// writer is gone: those named with the PID of a process that no longer
// runs, and those named without one (older builds) last modified more than
// LegacyAge ago. Other files, and temporary files of running processes,
// are kept. It returns the paths removed; a folder that cannot be read
// removes nothing. Commands that write into a folder outside the store
// (a model folder, a WAV's folder) call it first, so what kill -9 left
// (a 44 MB checkpoint, a 464 MB WAV) does not pile up.
func CleanStale(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || len(name) < len(TempSuffix)+2 || name[0] != '.' {
			continue
		}
		p := filepath.Join(dir, name)
		if m := staleName.FindStringSubmatch(name); m != nil {
			pid, err := strconv.Atoi(m[1])
			if err != nil || pid == os.Getpid() || processAlive(pid) {
				continue
			}
		} else if legacyName.MatchString(name) {
			fi, err := e.Info()
			if err != nil || time.Since(fi.ModTime()) < LegacyAge {
				continue
			}
		} else {
			continue
		}
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}
