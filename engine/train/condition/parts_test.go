package condition

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// band is 8 bars of 4/4 (480 ticks a beat): a flute tune on every beat
// (72–79), a piano chord (48, 52, 55) on every downbeat, a bass (32) on
// beats 1 and 3 (36–43), and a violin (40) playing one note on the last
// eighth of bar 3, where no other part starts a note.
func band() *midi.Score {
	const tpb = 480
	s := &midi.Score{TicksPerBeat: tpb, Tempos: []midi.TempoChange{{MicrosPerBeat: 500000}}, Meters: []midi.MeterChange{{Num: 4, Den: 4}}}
	fl, pn, bs := midi.Track{Channel: 0, Program: 73}, midi.Track{Channel: 1, Program: 0}, midi.Track{Channel: 2, Program: 32}
	for bar := int64(0); bar < 8; bar++ {
		t0 := bar * 4 * tpb
		for b := int64(0); b < 4; b++ {
			fl.Notes = append(fl.Notes, midi.Note{Tick: t0 + b*tpb, Dur: tpb, Pitch: uint8(72 + (bar+b)%8), Velocity: 90})
		}
		for _, p := range []uint8{48, 52, 55} {
			pn.Notes = append(pn.Notes, midi.Note{Tick: t0, Dur: 4 * tpb, Pitch: p, Velocity: 70})
		}
		bs.Notes = append(bs.Notes, midi.Note{Tick: t0, Dur: tpb, Pitch: uint8(36 + bar%8), Velocity: 80},
			midi.Note{Tick: t0 + 2*tpb, Dur: tpb, Pitch: uint8(43 - bar%8), Velocity: 80})
	}
	vn := midi.Track{Channel: 3, Program: 40, Notes: []midi.Note{{Tick: 2*4*tpb + 3*tpb + tpb/2, Dur: tpb / 2, Pitch: 81, Velocity: 60}}}
	s.Tracks = []midi.Track{fl, pn, bs, vn}
	s.EndTick = 8 * 4 * tpb
	return s
}

// plain are options that show a piece's opening as it is: no
// transposition, tempo scaling, re-voicing or dropout.
func plain() Options {
	return Options{StartProb: 1, RichWeight: 1}
}

// Under RealParts the violin's one note leaves the example (its onset
// with it: nothing else starts there) and the list names the three parts;
// without it the violin is listed. The example stays grammatical and the
// other parts keep every note.
func TestRealPartsOption(t *testing.T) {
	v := token.DefaultVocab()
	piece, _, err := v.AppendEncodeMeasured(nil, band(), midi.Analyze(band()))
	if err != nil {
		t.Fatal(err)
	}
	for _, real := range []bool{false, true} {
		o := plain()
		o.RealParts = real
		ex, err := New(v, o).Example(piece, rand.New(rand.NewPCG(1, 2)), 1025)
		if err != nil {
			t.Fatal(err)
		}
		g := v.NewGrammar()
		for i, tk := range ex {
			if err := g.Push(tk); err != nil {
				t.Fatalf("real parts %v: token %d: %v", real, i, err)
			}
		}
		want := []int{0, 32, 40, 73}
		if real {
			want = []int{0, 32, 73}
		}
		if got := attrs(t, v, ex).Programs; !slices.Equal(got, want) {
			t.Errorf("real parts %v: listed %v, want %v", real, got, want)
		}
		s := mustDecode(t, v, ex)
		notes := map[int]int{}
		for _, tr := range s.Tracks {
			notes[tr.Program] += len(tr.Notes)
		}
		if notes[73] != 32 || notes[0] != 24 || notes[32] != 16 || (notes[40] == 1) == real {
			t.Errorf("real parts %v: notes by program %v", real, notes)
		}
	}
}

// cameos judges on complete bars only, and never leaves a window without
// a pitched part.
func TestCameos(t *testing.T) {
	v := token.DefaultVocab()
	body := func(names ...string) []uint16 {
		var out []uint16
		for _, n := range names {
			tk, ok := v.Lookup(n)
			if !ok {
				t.Fatalf("no token %s", n)
			}
			out = append(out, tk)
		}
		return out
	}
	note := []string{"Pitch_60", "Velocity_20", "Duration_12"}
	bar := func(progs ...string) []string {
		out := []string{"Bar", "Position_0"}
		for _, p := range progs {
			out = append(append(out, p), note...)
		}
		return out
	}
	join := func(parts ...[]string) []string { return slices.Concat(parts...) }
	// Three complete bars and an open fourth: the flute in all, the violin
	// in the open one only (not counted: a cameo), the piano in one of
	// three (a cameo).
	b := body(join([]string{"Bar", "TimeSig_4/4", "Tempo_120-125", "Position_0", "Program_0"}, note, []string{"Program_73"}, note,
		bar("Program_73"), bar("Program_73"), bar("Program_40", "Program_73"))...)
	drop, any := cameos(v, b)
	if !any || !drop[0] || drop[73] || !drop[40] {
		t.Errorf("cameos %v %v: want the piano and the violin", any, []bool{drop[0], drop[40], drop[73]})
	}
	// One complete bar: nothing judged.
	if _, any := cameos(v, body(join([]string{"Bar", "TimeSig_4/4", "Tempo_120-125", "Position_0", "Program_0"}, note, bar("Program_73"))...)); any {
		t.Error("one complete bar judged")
	}
	// Every part a cameo: none dropped.
	if _, any := cameos(v, body(join([]string{"Bar", "TimeSig_4/4", "Tempo_120-125", "Position_0", "Program_0"}, note, []string{"Bar", "Bar", "Bar"})...)); any {
		t.Error("the only part dropped")
	}
}

// RevoiceRoles: the flute carrying the tune moves only to programs that
// carry tunes, the bass to basses, the piano to programs that accompany;
// plain re-voicing, by range alone, puts the tune elsewhere.
func TestRevoiceRoles(t *testing.T) {
	v := token.DefaultVocab()
	piece, _, err := v.AppendEncodeMeasured(nil, band(), midi.Analyze(band()))
	if err != nil {
		t.Fatal(err)
	}
	body := piece[v.SepIndex(piece)+1:]
	if r := roles(v, body); r[73] != voiceMelody || r[32] != voiceBass || r[0] != voiceHarmony || r[40] != voiceHarmony {
		t.Fatalf("roles %v", r)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	elsewhere := 0
	for i := 0; i < 300; i++ {
		m := revoiceMap(v, body, rng, 1, true)
		if r := midi.TuneRank(m[73]); r > 1 {
			t.Fatalf("the tune moved to %d (rank %d)", m[73], r)
		}
		if r := midi.TuneRank(m[32]); r != 4 {
			t.Fatalf("the bass moved to %d (rank %d)", m[32], r)
		}
		if r := midi.TuneRank(m[0]); r < 1 || r > 3 {
			t.Fatalf("the piano moved to %d (rank %d)", m[0], r)
		}
		if midi.TuneRank(revoiceMap(v, body, rng, 1, false)[73]) > 1 {
			elsewhere++
		}
	}
	if elsewhere == 0 {
		t.Error("plain re-voicing never moved the tune to an accompanying program: the test cannot tell")
	}
	// A one-program piano body split into parts: its melody goes to a tune
	// program too.
	var one []uint16
	for _, tk := range body {
		if k, x := v.Kind(tk); k == token.KindProgram && x != 0 {
			tk, _ = v.Token(token.KindProgram, 0)
		}
		one = append(one, tk)
	}
	for i := 0; i < 50; i++ {
		out, ok := splitVoices(v, one, rng, true)
		if !ok {
			t.Fatal("not split")
		}
		for p, r := range roles(v, out) {
			if r == voiceMelody && midi.TuneRank(p) > 1 {
				t.Fatalf("split melody on %d", p)
			}
		}
	}
}

func TestSetParts(t *testing.T) {
	var o Options
	for _, c := range []struct {
		s           string
		real, roles bool
		bad         bool
	}{{"", false, false, false}, {"none", false, false, false}, {"real", true, false, false}, {"roles, real", true, true, false}, {"all", false, false, true}} {
		err := o.SetParts(c.s)
		if (err != nil) != c.bad || err == nil && (o.RealParts != c.real || o.RevoiceRoles != c.roles) {
			t.Errorf("SetParts(%q): %+v, %v", c.s, o, err)
		}
	}
}
