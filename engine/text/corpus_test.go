package text

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/midi"
)

// TestRealCorporaCaptions builds captions for every file of the three real
// corpora and checks that at least 95% of each get a title from real
// metadata (not the file name), and spot-checks titles against the source
// files read independently here.
func TestRealCorporaCaptions(t *testing.T) {
	cases := []struct {
		name   string
		source string // expected TitleSource
		spot   map[string]PieceInfo
	}{
		{corpus.POP909, "table", map[string]PieceInfo{
			"001/001.mid": {Title: "123我爱你", Artist: "新乐尘符"},
			"004/004.mid": {Title: "Dear Friend", Artist: "顺子"},
		}},
		{corpus.Nottingham, "abc", map[string]PieceInfo{
			"jigs2.mid":      {Title: "Abacus", Genre: "jig", Meter: "6/8", Key: "G major"},
			"reelsh-l33.mid": {Title: "J.B. Milne", Genre: "reel"},
			"reelsh-l51.mid": {Genre: "reel"}, // X: numbers skip 48–50: the file number is X, not the ordinal
			"hpps1.mid":      {Genre: "hornpipe"},
			"waltzes1.mid":   {Genre: "waltz"},
		}},
		{corpus.OpenMSX, "obm", map[string]PieceInfo{
			"tttheme2.mid":              {Title: "OpenTTD journey", Collection: "OpenMSX"},
			"careless_perc_redfarn.mid": {Title: "Careless Love"},
		}},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := corpus.Path(t, tc.name)
			files := corpus.MIDIFiles(t, tc.name)
			c, err := NewCollector(dir, CollectorOptions{})
			if err != nil {
				t.Fatal(err)
			}
			titled := 0
			var example string
			for i, f := range files {
				s, err := midi.ReadFile(f)
				if err != nil {
					t.Logf("%s: %v (captioned without the score)", f, err)
					s = nil
				}
				info := c.Info(ctx, f, s)
				if info.HasTitle() && info.TitleSource == tc.source {
					titled++
				}
				var m midi.Metadata
				if s != nil {
					m = midi.Analyze(s)
				}
				capt := Caption(info, m)
				if info.Title != "" && !strings.Contains(capt, info.Title) {
					t.Errorf("%s: caption %q lacks title %q", f, capt, info.Title)
				}
				if i == len(files)/2 {
					example = capt
				}
				rel, _ := filepath.Rel(dir, f)
				if want, ok := tc.spot[filepath.ToSlash(rel)]; ok {
					checkInfo(t, rel, info, want)
				}
			}
			share := float64(titled) / float64(len(files))
			t.Logf("%s: %d/%d files titled from %s (%.1f%%); e.g. %s", tc.name, titled, len(files), tc.source, 100*share, example)
			if share < 0.95 {
				t.Errorf("%s: only %.1f%% of files have a real title, want ≥ 95%%", tc.name, 100*share)
			}
		})
	}
}

func checkInfo(t *testing.T, name string, got, want PieceInfo) {
	t.Helper()
	check := func(field, g, w string) {
		if w != "" && g != w {
			t.Errorf("%s: %s = %q, want %q", name, field, g, w)
		}
	}
	check("title", got.Title, want.Title)
	check("artist", got.Artist, want.Artist)
	check("genre", got.Genre, want.Genre)
	check("meter", got.Meter, want.Meter)
	check("key", got.Key, want.Key)
	check("collection", got.Collection, want.Collection)
}

// TestNottinghamTitlesMatchABC reads the X:/T: pairs of every abc book with
// a plain line scan (independent of parseABC) and checks every MIDI file
// STEM+X gets that tune's first title.
func TestNottinghamTitlesMatchABC(t *testing.T) {
	dir := corpus.Path(t, corpus.Nottingham)
	books, _ := filepath.Glob(filepath.Join(dir, "abc", "*.abc"))
	if len(books) == 0 {
		t.Skip("no abc books beside the Nottingham corpus")
	}
	c, err := NewCollector(dir, CollectorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, b := range books {
		data, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		stem := strings.TrimSuffix(filepath.Base(b), ".abc")
		x := ""
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimRight(line, "\r ")
			switch {
			case strings.HasPrefix(line, "X:"):
				x = strings.TrimSpace(line[2:])
			case strings.HasPrefix(line, "T:") && x != "":
				f := filepath.Join(dir, stem+x+".mid")
				x = ""
				if _, err := os.Stat(f); err != nil {
					continue
				}
				want := strings.ReplaceAll(strings.TrimSpace(line[2:]), `\&`, "&")
				if got := c.Info(context.Background(), f, nil).Title; got != want {
					t.Errorf("%s: title %q, want %q", filepath.Base(f), got, want)
				}
				checked++
			}
		}
	}
	if checked < 1000 {
		t.Errorf("checked only %d tunes", checked)
	}
}
