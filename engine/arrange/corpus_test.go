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

// TestEWLDLinesUp reads every EWLD lead sheet against its MIDI melody and
// logs what lines up, what is skipped and why.
func TestEWLDLinesUp(t *testing.T) {
	dir := corpus.Path(t, "ewld")
	songs, err := ReadEWLDIndex(filepath.Join(dir, "metadata.csv"))
	if err != nil {
		t.Fatal(err)
	}
	ok, expanded, shifted, chords, tones, beats := 0, 0, 0, 0, 0, 0
	reasons := map[string]int{}
	var worst []string
	for _, s := range songs {
		src, c, err := LoadEWLD(dir, s)
		if err != nil {
			if !errors.Is(err, ErrSkip) {
				t.Errorf("%s: %v", s.File, err)
				continue
			}
			reasons[reason(err)]++
			worst = append(worst, err.Error())
			continue
		}
		ok++
		if c.Expanded {
			expanded++
		}
		if c.Shift > 0 {
			shifted++
		}
		chords += c.Chords
		tones += c.ChordTones
		beats += c.BeatNotes
		if src.Bars <= src.Pickup {
			t.Errorf("%s: %d bars, pickup %d", s.File, src.Bars, src.Pickup)
		}
	}
	t.Logf("%d of %d lead sheets line up (%d with repeats played through, %d with a padded pickup); %d chords; on-beat melody notes that are chord tones %d of %d",
		ok, len(songs), expanded, shifted, chords, tones, beats)
	t.Logf("skipped: %v", reasons)
	sort.Strings(worst)
	for i, w := range worst {
		if i < 60 {
			t.Log(w)
		}
	}
}
