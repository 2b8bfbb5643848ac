package arrange

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

const fakeJig = `X:1
T:Test Jig
M:6/8
L:1/8
K:G
d|"G"gdB "D7"cAF|"G"G3 G2:|
`

// writeFakeNottingham makes a Nottingham-like folder: abc/jigs.abc with
// fakeJig and jigs1.mid as the converter renders it: 1024 ticks per beat,
// no tempo (120 bpm), 6/8, the pickup d at the end of a bar of rests, the
// melody in eighths and the chord track holding each chord (root position)
// until the next.
func writeFakeNottingham(t *testing.T, root string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, "abc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "abc", "jigs.abc"), []byte(fakeJig), 0o644); err != nil {
		t.Fatal(err)
	}
	const q = 1024
	// Played through: d | G D7 | G :| d | G D7 | G — pickup 0.5 quarter at
	// 2.5; chords G at 3, D7 at 4.5, G at 6, G at 9, D7 at 10.5, G at 12;
	// the end at 14.5 quarters.
	chords := []struct {
		at  float64
		pcs []uint8
	}{{3, []uint8{43, 47, 50}}, {4.5, []uint8{38, 42, 45, 48}}, {6, []uint8{43, 47, 50}},
		{9, []uint8{43, 47, 50}}, {10.5, []uint8{38, 42, 45, 48}}, {12, []uint8{43, 47, 50}}}
	var mel, chd midi.Track
	chd.Channel = 0
	for at := 2.5; at < 14.5-1e-9; at += 0.5 {
		mel.Notes = append(mel.Notes, midi.Note{Tick: int64(at * q), Dur: q / 2, Pitch: uint8(67 + int(at*2)%5), Velocity: 90})
	}
	for i, c := range chords {
		end := 14.5
		if i+1 < len(chords) {
			end = chords[i+1].at
		}
		for _, p := range c.pcs {
			chd.Notes = append(chd.Notes, midi.Note{Tick: int64(c.at * q), Dur: int64((end - c.at) * q), Pitch: p, Velocity: 90})
		}
	}
	slices.SortStableFunc(chd.Notes, func(a, b midi.Note) int { return int(a.Tick - b.Tick) })
	sc := &midi.Score{TicksPerBeat: q, Meters: []midi.MeterChange{{Tick: 0, Num: 6, Den: 8}},
		Keys: []midi.KeyChange{{Tick: 0, Sharps: 1}}, Tracks: []midi.Track{mel, chd}}
	if err := midi.WriteFile(filepath.Join(root, "jigs1.mid"), sc); err != nil {
		t.Fatal(err)
	}
}

func TestLoadNottinghamFake(t *testing.T) {
	root := t.TempDir()
	writeFakeNottingham(t, root)
	books, err := NottinghamBooks(filepath.Join(root, "abc"))
	if err != nil {
		t.Fatal(err)
	}
	s, c, err := LoadNottingham(filepath.Join(root, "jigs1.mid"), books)
	if err != nil {
		t.Fatal(err)
	}
	if c.Matched != 6 || c.ABC != 6 || c.MIDI != 6 {
		t.Fatalf("chord check %+v", c)
	}
	// 14.5 quarters = 4.83 bars of 3 → 5 bars, the first a pickup bar.
	if s.Bars != 5 || s.Pickup != 1 || s.BarTicks != 3072 || s.Kind != "jig" || s.Title != "Test Jig" || s.Class() != "6/8" {
		t.Fatalf("source %+v", s)
	}
	if want := []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}}; !slices.Equal(s.Score.Tempos, want) {
		t.Fatalf("tempos %v", s.Score.Tempos)
	}
	var got []int64
	for _, ch := range s.Chords {
		got = append(got, ch.Tick)
	}
	// G at 3 q, D7 at 4.5, G at 6 (the repeat of G at 9 merges into the G
	// in force), D7 at 10.5, G at 12.
	if want := []int64{3072, 4608, 6144, 10752, 12288}; !slices.Equal(got, want) {
		t.Fatalf("chord ticks %v, want %v", got, want)
	}
	// A chord track that disagrees is skipped.
	bad := strings.Replace(fakeJig, `"D7"cAF`, `"Em"cAF`, 1)
	os.WriteFile(filepath.Join(root, "abc", "jigs.abc"), []byte(bad), 0o644)
	books, _ = NottinghamBooks(filepath.Join(root, "abc"))
	if _, c, err := LoadNottingham(filepath.Join(root, "jigs1.mid"), books); err == nil || c.Matched != 4 {
		t.Fatalf("mismatching chords: %v %+v", err, c)
	}
}

// fakeCorpus makes a data folder with one POP909-like song and one
// Nottingham-like jig.
func fakeCorpus(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	pop := filepath.Join(root, "pop909")
	writeFakePOP909(t, pop, "001")
	os.WriteFile(filepath.Join(pop, "index.csv"), []byte(
		"song_id,name,artist,modify_times,num_beats_per_measure,num_quavers_per_beat\n001,Fake Song,Nobody,1,2,2\n"), 0o644)
	writeFakeNottingham(t, filepath.Join(root, "nottingham"))
	return root
}

// TestBuildIsDeterministic runs the whole build twice on the fake corpus,
// with one and with two mma processes, and wants byte-identical files; it
// also checks every piece against its source.
func TestBuildIsDeterministic(t *testing.T) {
	if _, err := LookMMA(""); err != nil {
		t.Skipf("%v; skipping", err)
	}
	data := fakeCorpus(t)
	out1, out2 := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	rep1, err := Build(context.Background(), Options{Data: data, Out: out1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	rep2, err := Build(context.Background(), Options{Data: data, Out: out2, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep1.Failed) > 0 {
		t.Fatalf("failed: %v", rep1.Failed)
	}
	// The fake song at 150 bpm gets 4 grooves, the jig 3.
	if rep1.Pieces != 7 || rep1.BySource["pop909"] != 4 || rep1.BySource["nottingham"] != 3 || rep1.PianoKept != 1 {
		t.Fatalf("report %+v", rep1)
	}
	if rep1.BarsNoDrums != 0 || rep1.TempoMismatch != 0 || rep1.MeterMismatch != 0 || rep1.MaxPrograms > 4 {
		t.Fatalf("checks: %+v", rep1)
	}
	files := 0
	err = filepath.WalkDir(out1, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out1, p)
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(out2, rel))
		if err != nil {
			t.Errorf("%s only in the first build", rel)
			return nil
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between builds", rel)
		}
		files++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files != 2*7+1 {
		t.Fatalf("%d files, want 7 MIDI + 7 sidecars + report.json", files)
	}
	if rep2.Key != rep1.Key {
		t.Fatalf("build keys differ")
	}
	// A second build into the same folder reuses it.
	rep3, err := Build(context.Background(), Options{Data: data, Out: out1, Jobs: 2})
	if err != nil || !rep3.Reused || rep3.Pieces != 7 {
		t.Fatalf("rebuild: %v %+v", err, rep3)
	}
	if _, err := os.Stat(out1 + ".partial"); !os.IsNotExist(err) {
		t.Fatalf("partial folder left behind: %v", err)
	}

	// Each jig piece: 6/8, 120 bpm, the key signature of the tune, drums in
	// bars 1–4 and none in the pickup bar, the melody intact.
	jigs, _ := filepath.Glob(filepath.Join(out1, "nottingham", "jigs1-*.mid"))
	if len(jigs) != 3 {
		t.Fatalf("jig pieces %v", jigs)
	}
	for _, p := range jigs {
		sc, err := midi.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.Meters) != 1 || sc.Meters[0].Num != 6 || sc.Meters[0].Den != 8 || sc.Tempos[0].MicrosPerBeat != 500000 ||
			len(sc.Keys) != 1 || sc.Keys[0].Sharps != 1 {
			t.Fatalf("%s: meters %v tempos %v keys %v", p, sc.Meters, sc.Tempos, sc.Keys)
		}
		var mel, drums *midi.Track
		for i := range sc.Tracks {
			switch {
			case sc.Tracks[i].IsDrum:
				drums = &sc.Tracks[i]
			case sc.Tracks[i].Name == "Melody":
				mel = &sc.Tracks[i]
			}
		}
		if mel == nil || len(mel.Notes) != 24 || mel.Notes[0].Tick != 2560 {
			t.Fatalf("%s: melody %+v", p, mel)
		}
		if drums == nil || drums.Notes[0].Tick < 3072 {
			t.Fatalf("%s: drums start at %d, inside the pickup bar", p, drums.Notes[0].Tick)
		}
		var side Sidecar
		b, _ := os.ReadFile(strings.TrimSuffix(p, ".mid") + ".json")
		if err := json.Unmarshal(b, &side); err != nil || side.Genre == "" || side.Title != "Test Jig" ||
			!slices.Contains(side.Tags, "arranged with MMA") || !strings.Contains(side.Description, "MMA") {
			t.Fatalf("%s: sidecar %+v (%v)", p, side, err)
		}
		if k := midi.EstimateKey(sc); math.IsNaN(k.Confidence) {
			t.Fatalf("%s: key %v", p, k)
		}
	}
}
