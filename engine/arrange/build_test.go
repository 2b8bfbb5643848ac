package arrange

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

// fakeCorpus makes a data folder with one POP909-like song, one
// Nottingham-like jig and one EWLD-like lead sheet (and, with groove, a
// Groove MIDI-like folder).
func fakeCorpus(t *testing.T, groove bool) string {
	t.Helper()
	root := t.TempDir()
	pop := filepath.Join(root, "pop909")
	writeFakePOP909(t, pop, "001")
	os.WriteFile(filepath.Join(pop, "index.csv"), []byte(
		"song_id,name,artist,modify_times,num_beats_per_measure,num_quavers_per_beat\n001,Fake Song,Nobody,1,2,2\n"), 0o644)
	writeFakeNottingham(t, filepath.Join(root, "nottingham"))
	writeFakeEWLD(t, filepath.Join(root, "ewld"))
	if groove {
		writeFakeGroove(t, filepath.Join(root, "groove"))
	}
	return root
}

// fakeBeatVelocity is the velocity of hit i of bar b of the fake
// performances: distinct enough to trace a piece's drums back to them.
func fakeBeatVelocity(b, i int) uint8 { return uint8(20 + (7*b+3*i)%100) }

// writeFakeGroove writes a Groove MIDI-like folder: 8-bar 4/4 beats of
// many styles at 120 and 150 bpm on the TD-11 map (kick and snare on the
// beats, closed hi-hat edge, note 22, on the eighths 7 ticks late), and
// one-bar fills of toms ending on a crash (edge, note 55).
func writeFakeGroove(t *testing.T, root string) {
	t.Helper()
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	const q = 480
	var meta strings.Builder
	meta.WriteString("file,title,artist,style,instruments,licence,source_path,bpm,beat_type,time_signature,duration_s,split,session\n")
	n := 0
	for _, style := range []string{"rock", "pop", "funk", "latin", "jazz", "country", "soul", "gospel", "dance", "reggae", "neworleans/secondline"} {
		for _, bpm := range []int{120, 150} {
			n++
			var beat, fill midi.Track
			beat.Channel, beat.IsDrum, fill.Channel, fill.IsDrum = 9, true, 9, true
			for b := 0; b < 8; b++ {
				for i := 0; i < 8; i++ {
					tick := int64(b*4*q + i*q/2)
					p := uint8(22)
					switch {
					case i%4 == 0:
						p = 36
					case i%4 == 2:
						p = 38
					default:
						tick += 7
					}
					beat.Notes = append(beat.Notes, midi.Note{Tick: tick, Dur: 60, Pitch: p, Velocity: fakeBeatVelocity(b, i)})
				}
			}
			for i := 0; i < 16; i++ {
				fill.Notes = append(fill.Notes, midi.Note{Tick: int64(i * q / 4), Dur: 60, Pitch: 48, Velocity: 100})
			}
			fill.Notes = append(fill.Notes, midi.Note{Tick: 4 * q, Dur: 240, Pitch: 55, Velocity: 120})
			name := strings.ReplaceAll(style, "/", "-")
			for _, f := range []struct {
				kind string
				tr   midi.Track
			}{{"beat", beat}, {"fill", fill}} {
				file := fmt.Sprintf("drummer%d_session1_%d_%s_%d_%s_4-4.mid", n%3+1, n, name, bpm, f.kind)
				sc := &midi.Score{TicksPerBeat: q, Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 60000000 / bpm}},
					Meters: []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}}, Tracks: []midi.Track{f.tr}}
				if err := midi.WriteFile(filepath.Join(root, file), sc); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&meta, "%s,x,drummer%d,%s,drum kit,CC-BY-4.0,x,%d,%s,4-4,20,train,s\n", file, n%3+1, style, bpm, f.kind)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(root, "metadata.csv"), []byte(meta.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBuildIsDeterministic runs the whole build twice on the fake corpus,
// with one and with two mma processes, and wants byte-identical files; it
// also checks every piece against its source, and the human drums laid
// under the pieces against the performances they come from.
func TestBuildIsDeterministic(t *testing.T) {
	if _, err := LookMMA(""); err != nil {
		t.Skipf("%v; skipping", err)
	}
	data := fakeCorpus(t, true)
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
	// The fake song at 150 bpm gets 4 grooves, the jig 3, the lead sheet
	// 4. The jig (6/8 at 120) finds no drummer: only 4/4 beats; the song
	// and the lead sheet find one under every groove the fake styles
	// cover.
	if rep1.Pieces != 11 || rep1.BySource["pop909"] != 4 || rep1.BySource["nottingham"] != 3 || rep1.BySource["ewld"] != 4 ||
		rep1.PianoKept != 1 {
		t.Fatalf("report %+v", rep1)
	}
	if rep1.HumanDrums < 6 || rep1.HumanDrums > 8 || rep1.MMADrumsKept == nil || rep1.Fills == 0 ||
		rep1.EWLDNotesMatched != 9 || rep1.EWLDChords != 8 {
		t.Fatalf("human drums %d (kept MMA's: %v), fills %d; lead sheet notes %d, chords %d", rep1.HumanDrums,
			rep1.MMADrumsKept, rep1.Fills, rep1.EWLDNotesMatched, rep1.EWLDChords)
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
	if files != 2*11+1 {
		t.Fatalf("%d files, want 11 MIDI + 11 sidecars + report.json", files)
	}
	if rep2.Key != rep1.Key {
		t.Fatalf("build keys differ")
	}
	// A second build into the same folder reuses it.
	rep3, err := Build(context.Background(), Options{Data: data, Out: out1, Jobs: 2})
	if err != nil || !rep3.Reused || rep3.Pieces != 11 {
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

	// Every piece whose sidecar names human drums plays only the fake
	// performances' hits, on General MIDI drums (the hi-hat edge 22 as 42,
	// the tom 48 as 50, the crash edge 55 as 49), with their velocities;
	// each bar after the pickup has drums.
	human := 0
	vels := map[uint8]bool{100: true, 120: true}
	for b := 0; b < 8; b++ {
		for i := 0; i < 8; i++ {
			vels[fakeBeatVelocity(b, i)] = true
		}
	}
	sides, _ := filepath.Glob(filepath.Join(out1, "*", "*.json"))
	for _, sp := range sides {
		var side Sidecar
		b, _ := os.ReadFile(sp)
		if err := json.Unmarshal(b, &side); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(side.Drums, "human: ") {
			continue
		}
		human++
		if !slices.Contains(side.Tags, "human drums") || !strings.Contains(side.Licence, "CC BY 4.0") {
			t.Fatalf("%s: sidecar %+v", sp, side)
		}
		sc, err := midi.ReadFile(strings.TrimSuffix(sp, ".json") + ".mid")
		if err != nil {
			t.Fatal(err)
		}
		drums := 0
		for _, tr := range sc.Tracks {
			if !tr.IsDrum {
				continue
			}
			drums++
			for _, n := range tr.Notes {
				if !slices.Contains([]uint8{36, 38, 42, 50, 49}, n.Pitch) || !vels[n.Velocity] {
					t.Fatalf("%s: drum note %+v is not the performances'", sp, n)
				}
			}
		}
		if drums != 1 {
			t.Fatalf("%s: %d drum tracks", sp, drums)
		}
	}
	if human != rep1.HumanDrums {
		t.Fatalf("%d sidecars name human drums, the report %d", human, rep1.HumanDrums)
	}
}
