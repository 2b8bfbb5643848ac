// Package corpus locates the real MIDI corpora (POP909, Nottingham, OpenMSX,
// Freedoom and the seven of issue 35: lieder, quartets, mutopia, pianomidi,
// groove, ewld, irish) that tests and benchmarks read from ../shared/data
// beside the checkout. A user's clone has no ../shared: tests then skip with a message
// that says so.
//
// The corpora are never copied into the repository. List and ListSkipping
// also serve app's folder readers (amt eval, bench midi): they take
// regular files only.
package corpus

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/amtstudio/amt/engine/userfile"
)

// Names of the corpora under the data directory (../shared/data/README.md
// says what each holds, its metadata.csv columns and its licence).
const (
	POP909     = "pop909"
	Nottingham = "nottingham"
	OpenMSX    = "openmsx"
	Freedoom   = "freedoom"
	// Rendered from notation (quantized, flat velocities; docs/DATA.md):
	// OpenScore art songs and string quartets, Mutopia's LilyPond scores,
	// OpenEWLD's lead-sheet melodies, Irish dance tunes.
	Lieder   = "lieder"
	Quartets = "quartets"
	Mutopia  = "mutopia"
	EWLD     = "ewld"
	Irish    = "irish"
	// Played by people: classical piano sequenced with expression
	// (piano-midi.de) and the Groove MIDI Dataset's drummers.
	PianoMIDI = "pianomidi"
	Groove    = "groove"
)

// Dir returns the data directory (the folder holding pop909/, nottingham/,
// openmsx/): $AMT_SHARED_DATA if set, else the first shared/data found
// walking up from the working directory. It returns "" when there is none.
func Dir() string {
	if d := os.Getenv("AMT_SHARED_DATA"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "shared", "data")
		if st, err := os.Stat(filepath.Join(cand, POP909)); err == nil && st.IsDir() {
			return cand
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// Path returns the folder of one corpus, or skips the test (or benchmark)
// with a clear message when the real data is not present.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	d := Dir()
	if d == "" {
		tb.Skipf("real corpus %s not found: it lives in ../shared/data beside the checkout (or set AMT_SHARED_DATA); skipping", name)
	}
	p := filepath.Join(d, name)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("real corpus %s not found at %s; skipping", name, p)
	}
	return p
}

// MIDIFiles returns the sorted paths of all .mid/.midi files under the
// corpus folder (recursively), skipping the test when the corpus is absent.
func MIDIFiles(tb testing.TB, name string) []string {
	tb.Helper()
	files, err := List(Path(tb, name))
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// List returns the sorted paths of all .mid/.midi files under dir:
// regular files and symlinks to regular files (ListSkipping names the
// others).
func List(dir string) ([]string, error) {
	out, _, err := ListSkipping(dir)
	return out, err
}

// Skipped is an entry named like a MIDI file that a listing left out, and
// what it is ("named pipe (FIFO)", "symlink to a character device",
// "dangling symlink", …: userfile.Skip).
type Skipped struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
}

// ListSkipping is List, also returning the entries named like MIDI files
// that are not regular files, sorted by path. They are never opened: a
// named pipe would wait for a writer forever, /dev/zero never ends.
func ListSkipping(dir string) ([]string, []Skipped, error) {
	var out []string
	var skipped []Skipped
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch filepath.Ext(d.Name()) {
		case ".mid", ".MID", ".midi", ".MIDI":
			if why, _ := userfile.Skip(p, d); why != "" {
				skipped = append(skipped, Skipped{Path: p, Kind: why})
				return nil
			}
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
	return out, skipped, err
}
