package arrange

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

func TestGMDrum(t *testing.T) {
	// The TD-11 notes of the Magenta GMD documentation and the GM drum each
	// sounds as; 39 (hand clap) and 60 are not on the kit.
	cases := map[uint8]uint8{36: 36, 38: 38, 40: 40, 37: 37, 48: 50, 50: 50, 45: 47, 47: 47, 43: 43, 58: 43,
		46: 46, 26: 46, 42: 42, 22: 42, 44: 44, 49: 49, 55: 49, 57: 57, 52: 57, 51: 51, 59: 59, 53: 53}
	for in, want := range cases {
		if got, ok := GMDrum(in); !ok || got != want {
			t.Errorf("GMDrum(%d) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []uint8{39, 60, 21, 35} {
		if _, ok := GMDrum(in); ok {
			t.Errorf("GMDrum(%d) mapped; it is not on the kit", in)
		}
	}
}

// TestPerformanceCut cuts a hand-made performance: a count-in bar of one
// stick click, four bars of eight hits (one played 20 ticks before its bar
// line), and a last bar holding one crash.
func TestPerformanceCut(t *testing.T) {
	const q = 480
	var notes []midi.Note
	notes = append(notes, midi.Note{Tick: 0, Dur: 60, Pitch: 37, Velocity: 40})
	for b := int64(1); b <= 4; b++ {
		for i := int64(0); i < 8; i++ {
			tick := b*4*q + i*q/2
			pitch := uint8(22) // closed hi-hat edge
			if i == 0 {
				pitch = 36
			}
			if b == 3 && i == 0 {
				tick -= 20 // early
			}
			notes = append(notes, midi.Note{Tick: tick, Dur: 60, Pitch: pitch, Velocity: uint8(60 + i)})
		}
	}
	notes = append(notes, midi.Note{Tick: 5 * 4 * q, Dur: 60, Pitch: 49, Velocity: 127})
	notes = append(notes, midi.Note{Tick: 2*4*q + 100, Dur: 60, Pitch: 39, Velocity: 50}) // off the kit
	slices.SortStableFunc(notes, func(a, b midi.Note) int { return int(a.Tick - b.Tick) })
	sc := &midi.Score{TicksPerBeat: q, Tracks: []midi.Track{{Channel: 9, IsDrum: true, Notes: notes}}}
	p := &Performance{Num: 4, Den: 4}
	if un := p.cut(sc); un != 1 {
		t.Fatalf("unmapped %d, want 1", un)
	}
	// Bars 1–4: the count-in (1 hit) and the crash bar (1 hit) hold less
	// than max(2, 8/4) hits.
	if len(p.Bars) != 4 {
		t.Fatalf("%d bars, want 4", len(p.Bars))
	}
	b2 := p.Bars[2]
	if len(b2) != 8 || b2[0].Pitch != 36 || math.Abs(b2[0].At-(-20.0/q)) > 1e-12 {
		t.Fatalf("bar 3: %+v; want the kick 20 ticks (%.4f beats) early", b2, -20.0/q)
	}
	if h := p.Bars[0][3]; h.Pitch != 42 || h.At != 1.5 || h.Vel != 63 || h.Dur != 0.125 {
		t.Fatalf("bar 1 hit 4: %+v, want closed hi-hat at 1.5 beats, velocity 63, 1/8 beat", h)
	}
	if p.Triplet {
		t.Fatal("straight eighths measured as triplet")
	}

	// A fill: the last bar whose hits go past its first 32nd, and the
	// crash on the next downbeat as its landing.
	f := &Performance{Num: 4, Den: 4, Fill: true}
	f.cut(sc)
	if len(f.Bars) != 1 || len(f.Bars[0]) != 8 || f.Bars[0][0].Pitch != 36 || len(f.Landing) != 1 || f.Landing[0].Pitch != 49 ||
		f.Start != 0 {
		t.Fatalf("fill bars %v landing %v start %v", f.Bars, f.Landing, f.Start)
	}

	// A fill of 16ths on a tom from beat 3 to beat 5.75, no landing: its
	// bar is beats 2–6, the fill starting 1 beat in.
	var tom []midi.Note
	for i := int64(0); i < 12; i++ {
		tom = append(tom, midi.Note{Tick: 3*q + i*q/4, Dur: 30, Pitch: 48, Velocity: 90})
	}
	short := &Performance{Num: 4, Den: 4, Fill: true}
	short.cut(&midi.Score{TicksPerBeat: q, Tracks: []midi.Track{{Channel: 9, IsDrum: true, Notes: tom}}})
	if len(short.Bars) != 1 || len(short.Bars[0]) != 12 || short.Start != 1 || short.Bars[0][11].At != 3.75 ||
		short.Bars[0][0].Pitch != 50 || len(short.Landing) != 0 {
		t.Fatalf("short fill %+v", short)
	}
}

// TestTripletFeel: hits on 1/3 and 2/3 of the beat swing, on 1/2 and 1/4
// do not.
func TestTripletFeel(t *testing.T) {
	at := func(pos ...float64) map[int][]Hit {
		var hs []Hit
		for _, p := range pos {
			hs = append(hs, Hit{At: p})
		}
		return map[int][]Hit{0: hs}
	}
	if !tripletFeel(at(0, 0.67, 1, 1.66, 2, 2.68, 3, 3.33)) {
		t.Error("swung eighths not triplet")
	}
	if tripletFeel(at(0, 0.5, 1, 1.52, 2, 2.25, 2.5, 2.75)) {
		t.Error("straight eighths and 16ths triplet")
	}
	// Late 16ths near 0.7 alone, with the 1/4s: more straight than triplet.
	if tripletFeel(at(0, 0.25, 0.5, 0.7, 1, 1.25, 1.5, 1.7)) {
		t.Error("samba-like late 16ths read as triplet")
	}
}

// layFixture is a 6-bar 4/4 source at 96 ticks per quarter note whose
// bar 0 is a pickup, and a plan with a two-bar beat and one fill.
func layFixture() (*Source, *DrumPlan) {
	s := &Source{ID: "test/lay", Num: 4, Den: 4, BarTicks: 384, Bars: 6, Pickup: 1,
		Score: &midi.Score{TicksPerBeat: 96, Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}}}}
	beat := &Performance{File: "b.mid", Num: 4, Den: 4, BPM: 120, Bars: [][]Hit{
		{{At: 0, Dur: 0.25, Pitch: 36, Vel: 100}, {At: 1, Dur: 0.25, Pitch: 38, Vel: 90}},
		{{At: -0.05, Dur: 0.25, Pitch: 36, Vel: 80}, {At: 2.5, Dur: 0.25, Pitch: 42, Vel: 60}},
	}}
	fill := &Performance{File: "f.mid", Num: 4, Den: 4, BPM: 120, Fill: true,
		Bars:    [][]Hit{{{At: 3.5, Dur: 0.25, Pitch: 47, Vel: 110}}},
		Landing: []Hit{{At: 0, Dur: 0.5, Pitch: 49, Vel: 120}, {At: 0.02, Dur: 0.25, Pitch: 36, Vel: 100}}}
	return s, &DrumPlan{Beat: beat, Fills: []*Performance{fill}, Sections: []int{3}, K: 1, Stretch: 1}
}

func TestLayHandComputed(t *testing.T) {
	s, d := layFixture()
	notes, fills := d.Lay(s)
	type hit struct {
		tick  int64
		pitch uint8
		vel   uint8
	}
	var got []hit
	for _, n := range notes {
		got = append(got, hit{n.Tick, n.Pitch, n.Velocity})
	}
	// Slots of 384 ticks from the first downbeat (384). Slot 0: beat bar
	// A. Slot 1 ends on bar 3's line (1152): the fill (tom at 768+3.5×96).
	// Slot 2: bar A again (the loop is 2 bars), its kick at 0 replaced by
	// the landing's kick at 0.02 beats (1154) and crash. Slot 3: bar B, its
	// kick 0.05 beats (4.8 → 5 ticks) early. Slot 4: bar A.
	want := []hit{{384, 36, 100}, {480, 38, 90}, {1104, 47, 110}, {1152, 49, 120}, {1154, 36, 100},
		{1248, 38, 90}, {1531, 36, 80}, {1776, 42, 60}, {1920, 36, 100}, {2016, 38, 90}}
	if !slices.Equal(got, want) || fills != 1 {
		t.Fatalf("laid %v (%d fills)\nwant %v (1 fill)", got, fills, want)
	}
	if notes[0].Dur != 24 {
		t.Fatalf("kick lasts %d ticks, want 0.25 × 96", notes[0].Dur)
	}

	// A fill that comes in at beat 3.5 lets the beat (bar B, the slot's)
	// play before it: its early kick (763) and hi-hat (1008).
	s, d = layFixture()
	d.Fills[0].Start = 3.5
	notes, _ = d.Lay(s)
	var slot1 []int64
	for _, n := range notes {
		if n.Tick >= 700 && n.Tick < 1152 {
			slot1 = append(slot1, n.Tick)
		}
	}
	if !slices.Equal(slot1, []int64{763, 1008, 1104}) {
		t.Fatalf("fill slot with the beat before the fill: %v", slot1)
	}

	// Under a double-time groove (K 2) a performance bar covers two
	// quarter notes: slot 0's snare lands half a beat in.
	d.K, d.Fills = 2, nil
	notes, _ = d.Lay(s)
	if notes[1].Tick != 384+48 || notes[1].Pitch != 38 {
		t.Fatalf("K=2: second hit %+v, want the snare at 432", notes[1])
	}
}

// fakeLibrary holds beats of a few styles, feels and tempos, and fills.
func fakeLibrary() *DrumLibrary {
	bar := [][]Hit{{{At: 0, Pitch: 36, Vel: 90}, {At: 1, Pitch: 38, Vel: 80}, {At: 2, Pitch: 36, Vel: 90}, {At: 3, Pitch: 38, Vel: 80}}}
	bars := append(append(append([][]Hit{}, bar...), bar...), append(bar, bar...)...)
	beat := func(file, drummer, style string, bpm float64, triplet bool) *Performance {
		return &Performance{File: file, Drummer: drummer, Style: style, BPM: bpm, Num: 4, Den: 4, Triplet: triplet, Bars: bars}
	}
	fill := func(file, drummer, style string, bpm float64) *Performance {
		return &Performance{File: file, Drummer: drummer, Style: style, BPM: bpm, Num: 4, Den: 4, Fill: true, Bars: bar[:1]}
	}
	return &DrumLibrary{Beats: []*Performance{
		beat("rock90.mid", "d1", "rock", 90, false),
		beat("rock130.mid", "d1", "rock", 130, false),
		beat("rocktrip.mid", "d2", "rock", 100, true),
		beat("punk105.mid", "d2", "punk", 105, false),
		beat("pop100.mid", "d3", "pop/groove7", 100, false),
		beat("soul100.mid", "d3", "soul", 100, false),
	}, Fills: []*Performance{fill("f1.mid", "d1", "rock", 100), fill("f2.mid", "d2", "punk", 95), fill("f3.mid", "d9", "funk", 100)}}
}

func TestPlan(t *testing.T) {
	lib := fakeLibrary()
	s := &Source{ID: "test/plan", Num: 4, Den: 4, BarTicks: 384, Bars: 20, Pickup: 0,
		Score: &midi.Score{TicksPerBeat: 96, Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 600000}}}} // 100 bpm
	rock := Groove{Tag: "basicrock", Family: "rock", Meter: "4/4", Time: 4, R: 1}
	// Rock's first tier (rock, punk) has rock90 and punk105 at 100 bpm ±25%
	// (rock130 is too fast, rocktrip swings); fewer than 3, so the pop tier
	// joins: pop100.
	ok := map[string]bool{"rock90.mid": true, "punk105.mid": true, "pop100.mid": true}
	seen := map[string]bool{}
	for i := range 40 {
		s.ID = "test/plan" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		d, why := lib.Plan(s, Variant{Groove: rock}, nil)
		if d == nil {
			t.Fatalf("no plan: %s", why)
		}
		if !ok[d.Beat.File] {
			t.Fatalf("%s chose %s", s.ID, d.Beat.File)
		}
		seen[d.Beat.File] = true
		if want := 100 / d.Beat.BPM; math.Abs(d.Stretch-want) > 1e-9 {
			t.Fatalf("stretch %.3f, want %.3f", d.Stretch, want)
		}
		// Sections every 8 bars: 8 and 16; each gets a fill of the rock or
		// punk tier (the funk fill never), the beat's drummer first.
		if !slices.Equal(d.Sections, []int{8, 16}) || len(d.Fills) != 2 {
			t.Fatalf("sections %v fills %v", d.Sections, d.Fills)
		}
		for _, f := range d.Fills {
			if f == nil || f.File == "f3.mid" {
				t.Fatalf("fill %+v", f)
			}
			if d.Beat.Drummer == "d1" && f.File != "f1.mid" {
				t.Fatalf("drummer d1's beat took fill %s", f.File)
			}
		}
		again, _ := lib.Plan(s, Variant{Groove: rock}, nil)
		if again.Beat != d.Beat || again.Fills[0] != d.Fills[0] {
			t.Fatal("plan not deterministic")
		}
	}
	if len(seen) != 3 {
		t.Fatalf("40 sources used %v, want all three fitting beats", seen)
	}
	// A polka keeps MMA's drums; a 12/8 piece takes only the swinging beat.
	if d, why := lib.Plan(s, Variant{Groove: Groove{Tag: "polka", Family: "polka", Meter: "4/4", Time: 4, R: 1}}, nil); d != nil || why == "" {
		t.Fatalf("polka: %v %q", d, why)
	}
	s.Triplet = true
	d, why := lib.Plan(s, Variant{Groove: rock}, nil)
	if d == nil || d.Beat.File != "rocktrip.mid" {
		t.Fatalf("12/8 piece: %+v", d)
	}
	// Counting uses spreads one source's three pieces over the three
	// beats that fit (least used first).
	s.Triplet = false
	uses := map[string]int{}
	got := map[string]bool{}
	for range 3 {
		d, _ := lib.Plan(s, Variant{Groove: rock}, uses)
		got[d.Beat.File] = true
	}
	if len(got) != 3 {
		t.Fatalf("three plans with uses counted took %v", got)
	}
	// A 6/8 piece at 60 dotted quarters a minute (90 quarter notes) takes
	// the swung 4/4 beat at 2/3 of a beat per quarter note: 60 beats a
	// minute against its 100 is too slow, at 80 dotted quarters (120
	// quarter notes) it fits.
	jig := &Source{ID: "test/jig", Num: 6, Den: 8, BarTicks: 288, Bars: 16,
		Score: &midi.Score{TicksPerBeat: 96, Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}}}}
	folk := Groove{Tag: "amt-jig", Family: "folk", Meter: "6/8", Time: 6, R: 2}
	d, why = lib.Plan(jig, Variant{Groove: folk}, nil)
	if d == nil || d.Beat.File != "rocktrip.mid" || d.K != 2.0/3 || math.Abs(d.Stretch-0.8) > 1e-9 {
		t.Fatalf("jig at 120: %+v %q", d, why)
	}
	jig.Score.Tempos[0].MicrosPerBeat = 666667
	if d, _ := lib.Plan(jig, Variant{Groove: folk}, nil); d != nil {
		t.Fatalf("jig at 90: %+v", d)
	}
	// A double-time groove wants a performance at twice the piece's tempo.
	d, why = lib.Plan(s, Variant{Groove: Groove{Tag: "x", Family: "rock", Meter: "4/4", Time: 4, R: 2}}, nil)
	if d != nil || !strings.Contains(why, "200 bpm") {
		t.Fatalf("double time at 100 bpm: %+v %q", d, why)
	}
}
