package text

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

// writeTree writes files (path → content) under a temp root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestCollectorSources(t *testing.T) {
	root := writeTree(t, map[string]string{
		// An index.csv whose song_id column matches the folders (POP909 layout).
		"pop/index.csv":   "song_id,name,artist,modify_times\n001,First Song,Singer A,3\n002,\"Second, Song\",Singer B,1\n",
		"pop/001/001.mid": "",
		"pop/002/002.mid": "",
		// A user mapping with a different key column, BOM and semicolons.
		"meta/my.csv":          "\ufefffile;title;composer;genre;mood\nsonata.mid;Sonata in C;Mozart;classical;bright, gentle\n",
		"classic/sonata.mid":   "",
		"classic/nocturne.mid": "",
		// Sidecars: key-value text, JSON, free text.
		"classic/nocturne.txt":     "Title: Nocturne No. 2\nComposer: Chopin\nA dreamy night piece.\n",
		"side/etude.mid":           "",
		"side/etude.json":          `{"title": "Etude", "artist": "Someone", "tags": ["fast", "virtuosic"], "year": 1833}`,
		"side/prelude.mid":         "",
		"side/prelude.mid.txt":     "Just a short prelude for a rainy day.",
		"side/broken.mid":          "",
		"side/broken.json":         "{not json",
		"side/unrelated.txt":       "no MIDI file of this name",
		"folk/abc/jigs.abc":        "X: 1\nT:First Jig\nT:Alternative Name\n% Test Book\nS:via someone\nM:6/8\nK:Em\nabc|def|\n\nX: 3\nT:Third Jig \\& More\nR:Slide\nM:12/8\nK:F#m\nabc|\n",
		"folk/jigs1.mid":           "",
		"folk/jigs3.mid":           "",
		"folk/jigs2.mid":           "", // no X: 2 in the book
		"set/music.obm":            "[metadata]\nname = TestSet\n[files]\ntheme = theme_x.mid\n[names]\ntheme_x.mid = The Grand Theme\n",
		"set/theme_x.mid":          "",
		"misc/keep_on_rolling.mid": "",
		"misc/007.mid":             "",
	})
	c, err := NewCollector(root, CollectorOptions{MappingCSV: "meta/my.csv"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	info := func(p string, s *midi.Score) PieceInfo {
		return c.Info(ctx, filepath.Join(root, filepath.FromSlash(p)), s)
	}
	cases := []struct {
		path string
		want PieceInfo
	}{
		{"pop/001/001.mid", PieceInfo{Title: "First Song", TitleSource: "table", Artist: "Singer A"}},
		{"pop/002/002.mid", PieceInfo{Title: "Second, Song", TitleSource: "table", Artist: "Singer B"}},
		{"classic/sonata.mid", PieceInfo{Title: "Sonata in C", TitleSource: "table", Composer: "Mozart", Genre: "classical", Tags: []string{"bright", "gentle"}}},
		{"classic/nocturne.mid", PieceInfo{Title: "Nocturne No. 2", TitleSource: "sidecar", Composer: "Chopin", Description: "A dreamy night piece."}},
		{"side/etude.mid", PieceInfo{Title: "Etude", TitleSource: "sidecar", Artist: "Someone", Year: "1833", Tags: []string{"fast", "virtuosic"}}},
		{"side/prelude.mid", PieceInfo{Title: "Prelude", TitleSource: "file name", Description: "Just a short prelude for a rainy day."}},
		{"folk/jigs1.mid", PieceInfo{Title: "First Jig", TitleSource: "abc", AltTitles: []string{"Alternative Name"}, Genre: "jig", Meter: "6/8", Key: "E minor", Origin: "via someone", Collection: "Test Book"}},
		{"folk/jigs3.mid", PieceInfo{Title: "Third Jig & More", TitleSource: "abc", Genre: "slide", Meter: "12/8", Key: "F# minor"}},
		{"folk/jigs2.mid", PieceInfo{Title: "Jigs2", TitleSource: "file name"}},
		{"set/theme_x.mid", PieceInfo{Title: "The Grand Theme", TitleSource: "obm", Collection: "TestSet"}},
		{"misc/keep_on_rolling.mid", PieceInfo{Title: "Keep on rolling", TitleSource: "file name"}},
		{"misc/007.mid", PieceInfo{}},
	}
	for _, tc := range cases {
		got := info(tc.path, nil)
		w := tc.want
		for _, f := range []struct{ name, got, want string }{
			{"title", got.Title, w.Title}, {"source", got.TitleSource, w.TitleSource}, {"artist", got.Artist, w.Artist},
			{"composer", got.Composer, w.Composer}, {"genre", got.Genre, w.Genre}, {"meter", got.Meter, w.Meter},
			{"key", got.Key, w.Key}, {"origin", got.Origin, w.Origin}, {"collection", got.Collection, w.Collection},
			{"description", got.Description, w.Description}, {"year", got.Year, w.Year},
			{"tags", strings.Join(got.Tags, "|"), strings.Join(w.Tags, "|")},
			{"alt", strings.Join(got.AltTitles, "|"), strings.Join(w.AltTitles, "|")},
		} {
			if f.got != f.want {
				t.Errorf("%s: %s = %q, want %q", tc.path, f.name, f.got, f.want)
			}
		}
	}
	// A broken sidecar is a warning, not a failure.
	b := info("side/broken.mid", nil)
	if len(b.Warnings) != 1 || !strings.Contains(b.Warnings[0], "broken.json") || !strings.Contains(b.Warnings[0], "invalid JSON") {
		t.Errorf("broken sidecar warnings %q", b.Warnings)
	}
	// Titles inside the file: generic track names are skipped.
	s := &midi.Score{Title: "Track 1", Tracks: []midi.Track{{Name: "MELODY"}, {Name: "Lead Fiddle Part"}, {Name: "Piano"}}}
	if got := info("misc/007.mid", s); got.Title != "" || strings.Join(got.TrackNames, "|") != "Lead Fiddle Part" {
		t.Errorf("generic names: title %q tracks %q", got.Title, got.TrackNames)
	}
	s.Title = "Moonlight Serenade"
	if got := info("misc/007.mid", s); got.Title != "Moonlight Serenade" || got.TitleSource != "midi" {
		t.Errorf("midi title: %q from %q", got.Title, got.TitleSource)
	}
	// A file name title gives way to the title in the file.
	if got := info("misc/keep_on_rolling.mid", s); got.Title != "Moonlight Serenade" {
		t.Errorf("title in file should beat the file name: %q", got.Title)
	}

	// Concurrent use.
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, tc := range cases {
				if got := info(tc.path, nil); got.Title != tc.want.Title {
					t.Errorf("concurrent %s: %q", tc.path, got.Title)
				}
			}
		}()
	}
	wg.Wait()
}

func TestCollectorErrors(t *testing.T) {
	if _, err := NewCollector(filepath.Join(t.TempDir(), "missing"), CollectorOptions{}); !errors.Is(err, ErrNoRoot) {
		t.Errorf("missing root: %v", err)
	}
	root := writeTree(t, map[string]string{
		"a.mid":     "",
		"index.csv": "x,y\n1,2\n", // matches nothing: skipped with a note
		"map.csv":   "file,title\na.mid,Alpha\n",
		"bad.abc":   "no tunes here\n",
	})
	if _, err := NewCollector(root, CollectorOptions{MappingCSV: "nope.csv"}); !errors.Is(err, ErrMapping) || !strings.Contains(err.Error(), "nope.csv") {
		t.Errorf("missing mapping: %v", err)
	}
	if _, err := NewCollector(root, CollectorOptions{MappingCSV: "map.csv", KeyColumn: "song"}); !errors.Is(err, ErrMapping) || !strings.Contains(err.Error(), `"song"`) {
		t.Errorf("bad key column: %v", err)
	}
	c, err := NewCollector(root, CollectorOptions{MappingCSV: "map.csv", KeyColumn: "FILE"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Info(context.Background(), filepath.Join(root, "a.mid"), nil); got.Title != "Alpha" {
		t.Errorf("mapping title %q", got.Title)
	}
	notes := strings.Join(c.Notes(), "\n")
	if !strings.Contains(notes, "index.csv") || !strings.Contains(notes, "bad.abc") {
		t.Errorf("notes %q should name index.csv and bad.abc", notes)
	}
}

func TestCaption(t *testing.T) {
	info := PieceInfo{Title: "Jenny Lind", Genre: "reel", Collection: "Nottingham Music Database", Tags: []string{"lively"}}
	minor := midi.Key{Tonic: 2, Minor: false, Confidence: 0.8}
	m := midi.Metadata{MedianTempoBPM: 140, TempoBPM: 100, Key: minor, MeterNum: 4, MeterDen: 4, Bars: 31.6,
		DurationSeconds: 65, Notes: 300, Programs: []int{0, 40, 42}, HasDrums: true}
	got := Caption(info, m)
	want := `"Jenny Lind". A reel. From Nottingham Music Database. Mood and style: lively. ` +
		`Fast (allegro) tempo, 140 bpm, in D major, 4/4 time, 32 bars, 1:05 long. ` +
		`Played on acoustic grand piano, violin and cello (piano and strings), with drums.`
	if got != want {
		t.Errorf("caption\n got %s\nwant %s", got, want)
	}
	// Nothing known, nothing measured.
	if got := Caption(PieceInfo{}, midi.Metadata{}); got != "An untitled piece." {
		t.Errorf("empty caption %q", got)
	}
	// Artist, composer, an estimate with no correlation is left out, drums only.
	got = Caption(PieceInfo{Title: "X", Artist: "A", Composer: "C", Genre: "organ piece"},
		midi.Metadata{Notes: 5, Key: midi.Key{Tonic: 0}, HasDrums: true})
	if got != `"X" by A, composed by C. An organ piece. Drums only.` {
		t.Errorf("caption %q", got)
	}
}
