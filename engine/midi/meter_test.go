package midi

import (
	"slices"
	"testing"
)

// ev is a note of a hand-made piece: onset and length in beats (quarter
// notes).
type ev struct {
	beat, dur float64
	pitch     uint8
	vel       uint8
}

// piece builds a score at 480 ticks per beat from pitched events, drum
// events and a declared meter map (nil: no time signature).
func piece(pitched, drums []ev, meters []MeterChange) *Score {
	const tpb = 480
	s := &Score{Format: 1, TicksPerBeat: tpb, Meters: meters,
		Tempos: []TempoChange{{Tick: 0, MicrosPerBeat: 500000}}}
	conv := func(es []ev) []Note {
		var out []Note
		for _, e := range es {
			t := int64(e.beat * tpb)
			out = append(out, Note{Tick: t, Dur: int64(e.dur * tpb), Pitch: e.pitch, Velocity: e.vel})
			s.EndTick = max(s.EndTick, t+int64(e.dur*tpb))
		}
		slices.SortStableFunc(out, func(a, b Note) int { return int(a.Tick - b.Tick) })
		return out
	}
	s.Tracks = append(s.Tracks, Track{Name: "music", Program: 0, Notes: conv(pitched)})
	if len(drums) > 0 {
		s.Tracks = append(s.Tracks, Track{Name: "drums", Channel: 9, IsDrum: true, Notes: conv(drums)})
	}
	s.ComputeSeconds()
	return s
}

// chords are the roots (pitch classes) of a I–IV–V–I–vi–IV–V–I progression,
// one per bar.
var roots = []uint8{0, 5, 7, 0, 9, 5, 7, 0}

// triadOf returns the pitches of the major (or minor, for vi) triad on root
// above base.
func triadOf(root, base uint8) []uint8 {
	third := uint8(4)
	if root == 9 {
		third = 3
	}
	return []uint8{base + root, base + root + third, base + root + 7}
}

// waltz: bass on 1, chord on 2 and 3 (oom-pah-pah), a melody of a half and a
// quarter note, then a dotted half, two bars at a time; start is the beat of
// the first downbeat.
func waltz(bars int, start float64) []ev {
	var es []ev
	for b := 0; b < bars; b++ {
		r := roots[b%len(roots)]
		t := start + 3*float64(b)
		es = append(es, ev{t, 1, 36 + r, 96})
		for _, beat := range []float64{1, 2} {
			for _, p := range triadOf(r, 52)[1:] {
				es = append(es, ev{t + beat, 0.9, p, 70})
			}
		}
		ch := triadOf(r, 72)
		if b%2 == 0 {
			es = append(es, ev{t, 2, ch[2], 90}, ev{t + 2, 1, ch[1], 80})
		} else {
			es = append(es, ev{t, 3, ch[0], 90})
		}
	}
	return es
}

// fourFour: a pop groove, bass on 1 and 3 (root, fifth), a whole-bar chord,
// a melody of quarter and eighth notes, and (with drums) kick on 1 and 3,
// snare on 2 and 4, hi-hat eighths. start is the beat of the first
// downbeat; with pickup, one melody quarter note comes before it.
func fourFour(bars int, start float64, pickup bool) (pitched, drums []ev) {
	if pickup {
		pitched = append(pitched, ev{start - 1, 1, 79, 80})
	}
	for b := 0; b < bars; b++ {
		r := roots[b%len(roots)]
		t := start + 4*float64(b)
		pitched = append(pitched, ev{t, 2, 36 + r, 100}, ev{t + 2, 2, 43 + r, 85})
		for _, p := range triadOf(r, 55) {
			pitched = append(pitched, ev{t, 4, p, 75})
		}
		ch := triadOf(r, 72)
		pitched = append(pitched, ev{t, 1.5, ch[0], 95}, ev{t + 1.5, 0.5, ch[1], 80}, ev{t + 2, 1, ch[2], 85},
			ev{t + 3, 1, ch[1], 80})
		for k := 0; k < 8; k++ {
			drums = append(drums, ev{t + float64(k)/2, 0.25, 42, 70})
		}
		drums = append(drums, ev{t, 0.5, 36, 110}, ev{t + 2, 0.5, 36, 100}, ev{t + 1, 0.5, 38, 100}, ev{t + 3, 0.5, 38, 100})
	}
	return pitched, drums
}

// jig: 6/8, running eighths in long-short pairs (quarter + eighth) on each
// dotted-quarter beat, bass on beat 1 and a chord on beat 2 of each bar.
func jig(bars int, start float64) []ev {
	var es []ev
	for b := 0; b < bars; b++ {
		r := roots[b%len(roots)]
		t := start + 3*float64(b)
		ch := triadOf(r, 67)
		es = append(es, ev{t, 1, ch[0], 95}, ev{t + 1, 0.5, ch[1], 75},
			ev{t + 1.5, 0.5, ch[2], 85}, ev{t + 2, 0.5, ch[1], 70}, ev{t + 2.5, 0.5, ch[0], 70})
		es = append(es, ev{t, 1.5, 38 + r, 90})
		for _, p := range triadOf(r, 50) {
			es = append(es, ev{t + 1.5, 1.5, p, 70})
		}
	}
	return es
}

// handMade are small pieces with known meter and downbeats.
type handCase struct {
	name  string
	score func() *Score
	num   int
	den   int
	phase int64
	keep  bool // the declared meter is kept
}

func handMade() []handCase {
	fp, fd := fourFour(16, 1, true)
	np, nd := fourFour(16, 0, false)
	lp, ld := fourFour(16, 1, false)
	return []handCase{
		// A quarter-note pickup: the first downbeat is one beat in.
		{"pickup bar, no time signature", func() *Score { return piece(fp, fd, nil) }, 4, 4, 480, false},
		{"4/4 groove with drums, no time signature", func() *Score { return piece(np, nd, nil) }, 4, 4, 0, false},
		{"waltz declared 1/4", func() *Score { return piece(waltz(16, 0), nil, []MeterChange{{0, 1, 4}}) }, 3, 4, 0, false},
		{"waltz declared 3/4 (kept)", func() *Score { return piece(waltz(16, 0), nil, []MeterChange{{0, 3, 4}}) }, 3, 4, 0, true},
		{"jig declared 4/4 (contradicted)", func() *Score { return piece(jig(16, 0), nil, []MeterChange{{0, 4, 4}}) }, 6, 8, 0, false},
		{"4/4 groove declared 3/4 (contradicted)", func() *Score { return piece(np, nd, []MeterChange{{0, 3, 4}}) }, 4, 4, 0, false},
		{"4/4 groove a beat after the declared bar lines (contradicted)", func() *Score { return piece(lp, ld, []MeterChange{{0, 4, 4}}) }, 4, 4, 480, false},
		{"jig, no time signature", func() *Score { return piece(jig(16, 0), nil, nil) }, 6, 8, 0, false},
		{"jig after an eighth-note pickup", func() *Score { return piece(append(jig(16, 0.5), ev{0, 0.5, 62, 70}), nil, nil) }, 6, 8, 240, false},
	}
}

// ok reports whether g is what the case wants.
func (c handCase) ok(g MeterGuess) bool {
	return g.Num == c.num && g.Den == c.den && g.Phase == c.phase && g.Replace == !c.keep && g.Irregular == 0
}

func TestInferMeterHandMade(t *testing.T) {
	for _, c := range handMade() {
		t.Run(c.name, func(t *testing.T) {
			g := InferMeter(c.score())
			if !c.ok(g) {
				t.Errorf("got %s phase %d replace %v irregular %d (%s; confidence %.2f, bars %v), want %d/%d phase %d replace %v",
					g, g.Phase, g.Replace, g.Irregular, g.Reason, g.Confidence, g.Bars, c.num, c.den, c.phase, !c.keep)
			}
		})
	}
}

// TestInferMeterOffGrid: notes 40 ticks after the file's beats (POP909's
// files are like this) are found on their own grid, and re-barring puts
// them back on the file's grid, the first downbeat on a bar line.
func TestInferMeterOffGrid(t *testing.T) {
	p, d := fourFour(16, 1, false)
	s := piece(p, d, []MeterChange{{0, 4, 4}})
	for ti := range s.Tracks {
		for i := range s.Tracks[ti].Notes {
			s.Tracks[ti].Notes[i].Tick += 40
		}
	}
	g := InferMeter(s)
	if g.String() != "4/4" || g.Offset != 40 || g.Phase != 520 || !g.Replace {
		t.Fatalf("got %s offset %d phase %d replace %v (%s), want 4/4 offset 40 phase 520 replace true", g, g.Offset, g.Phase, g.Replace, g.Reason)
	}
	shift := Rebar(s, g)
	if shift != 1920-520 {
		t.Fatalf("shift %d, want %d", shift, 1920-520)
	}
	// The first downbeat (beat 1 + 40 ticks) is now at the second bar line.
	if first := s.Tracks[0].Notes[0].Tick; first != 1920 {
		t.Errorf("first note at %d, want 1920", first)
	}
	for _, n := range s.Tracks[0].Notes {
		if n.Tick%240 != 0 {
			t.Fatalf("note at %d is off the eighth grid after re-barring", n.Tick)
		}
	}
}

// TestRebar checks the shift on every kind of event by hand.
func TestRebar(t *testing.T) {
	s := &Score{TicksPerBeat: 100,
		Tracks:  []Track{{Notes: []Note{{Tick: 0, Dur: 50, Pitch: 60, Velocity: 64}, {Tick: 150, Dur: 100, Pitch: 62, Velocity: 64}}}},
		Tempos:  []TempoChange{{0, 500000}, {300, 250000}},
		Keys:    []KeyChange{{0, 1, false}, {500, -2, true}},
		Meters:  []MeterChange{{0, 1, 4}},
		EndTick: 1000,
	}
	// 3/4 (300 ticks) with the first downbeat at 150 and a 2/4 bar at 750.
	g := MeterGuess{Num: 3, Den: 4, Phase: 150, Replace: true,
		Bars: []MeterChange{{150, 3, 4}, {750, 2, 4}, {950, 3, 4}}}
	if shift := Rebar(s, g); shift != 150 {
		t.Fatalf("shift %d, want 150", shift)
	}
	if got := []int64{s.Tracks[0].Notes[0].Tick, s.Tracks[0].Notes[1].Tick}; got[0] != 150 || got[1] != 300 {
		t.Errorf("notes at %v, want [150 300]", got)
	}
	if s.Tempos[0].Tick != 0 || s.Tempos[1].Tick != 450 || s.Keys[0].Tick != 0 || s.Keys[1].Tick != 650 || s.EndTick != 1150 {
		t.Errorf("tempos %v keys %v end %d, want tempo changes at 0 and 450, keys at 0 and 650, end 1150", s.Tempos, s.Keys, s.EndTick)
	}
	want := []MeterChange{{0, 3, 4}, {900, 2, 4}, {1100, 3, 4}}
	if !slices.Equal(s.Meters, want) {
		t.Errorf("meters %v, want %v", s.Meters, want)
	}
	// 150 ticks at 120 bpm (100 ticks per beat) is 0.75 s.
	if st := s.Tracks[0].Notes[0].Start; st != 0.75 {
		t.Errorf("first note starts at %v s, want 0.75", st)
	}
	if lines := barLines(s.Meters, 100, 1400); !slices.Equal(lines, []int64{0, 300, 600, 900, 1100}) {
		t.Errorf("bar lines %v", lines)
	}
	// Not replaced: nothing moves.
	before := s.Tracks[0].Notes[0].Tick
	if Rebar(s, MeterGuess{Bars: g.Bars}) != 0 || s.Tracks[0].Notes[0].Tick != before {
		t.Error("Rebar moved a score whose guess keeps the declared meter")
	}
}

// TestInferMeterBounded: a file whose few notes are hours apart is not
// inferred (its grid would be huge) and a near-empty one neither.
func TestInferMeterBounded(t *testing.T) {
	s := piece([]ev{{0, 1, 60, 64}, {1 << 22, 1, 62, 64}}, nil, []MeterChange{{0, 3, 4}})
	for i := 0; i < 10; i++ {
		s.Tracks[0].Notes = append(s.Tracks[0].Notes, Note{Tick: int64(i) * 480, Dur: 480, Pitch: 60, Velocity: 64})
	}
	slices.SortFunc(s.Tracks[0].Notes, func(a, b Note) int { return int(a.Tick - b.Tick) })
	g := InferMeter(s)
	if g.Replace || g.String() != "3/4" || g.Reason == "" {
		t.Errorf("got %s replace %v (%s), want the declared 3/4 kept with a reason", g, g.Replace, g.Reason)
	}
	g = InferMeter(piece([]ev{{0, 1, 60, 64}}, nil, nil))
	if g.Replace || g.Reason == "" {
		t.Errorf("one note: replace %v (%s)", g.Replace, g.Reason)
	}
	if g := InferMeter(&Score{}); g.Replace {
		t.Errorf("empty score: replace %v", g.Replace)
	}
}

// TestPrepare: metadata keeps both meters.
func TestPrepare(t *testing.T) {
	s := piece(waltz(16, 0), nil, []MeterChange{{0, 1, 4}})
	m := Prepare(s)
	if m.DeclaredMeter != "1/4" || m.InferredMeter != "3/4" || !m.Rebarred || m.TimeSignature != "3/4" {
		t.Errorf("declared %q inferred %q rebarred %v time signature %q, want 1/4, 3/4, true, 3/4",
			m.DeclaredMeter, m.InferredMeter, m.Rebarred, m.TimeSignature)
	}
	if m.Bars != 16 {
		t.Errorf("%v bars, want 16", m.Bars)
	}
}
