package arrange

import (
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
)

func TestNottinghamChordsLineUp(t *testing.T) {
	dir := corpus.Path(t, corpus.Nottingham)
	books, err := NottinghamBooks(filepath.Join(dir, "abc"))
	if err != nil {
		t.Fatal(err)
	}
	files := corpus.MIDIFiles(t, corpus.Nottingham)
	ok, byParts := 0, 0
	reasons := map[string]int{}
	var worst []string
	for _, f := range files {
		s, c, err := LoadNottingham(f, books)
		if err != nil {
			if !errors.Is(err, ErrSkip) {
				t.Errorf("%s: %v", f, err)
				continue
			}
			r := err.Error()
			if i := strings.Index(r, ": "); i >= 0 {
				r = r[i+2:]
			}
			key := r
			if strings.Contains(r, "line up") {
				key = "chords do not line up"
				worst = append(worst, r)
			}
			if strings.Contains(r, "meter") {
				key = "meter"
			}
			reasons[key]++
			continue
		}
		_ = s
		ok++
		if c.ByParts {
			byParts++
		}
	}
	t.Logf("%d of %d tunes line up (%d in Y: part order); skipped: %v", ok, len(files), byParts, reasons)
	sort.Strings(worst)
	for i, w := range worst {
		if i < 40 {
			t.Log(w)
		}
	}
}
