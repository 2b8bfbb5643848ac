package condition

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/amtstudio/amt/engine/token"
)

// TestLineBias follows the top line through hand-made onsets and checks the
// hook's offsets against the weights: a step raised by Step, a repeat
// lowered by Repeat, a move against the last one lowered by Turn, pitches
// under the window or under a note already at the onset untouched, nothing
// below a held top note touched, and the touched pitches' total
// probability kept.
func TestLineBias(t *testing.T) {
	v := token.DefaultVocab()
	c := NewBars(v, v.NewGrammar(), 4)
	push := pusher(t, c)
	vlo, _ := v.Range(token.KindVelocity)
	dlo, _ := v.Range(token.KindDuration)
	short := v.DurationBin(6) // half a beat on the 12-a-beat grid
	long := v.DurationBin(36)
	if v.DurationUnits(short) > 12 || v.DurationUnits(long) < 24 {
		t.Fatalf("duration bins: %d and %d units", v.DurationUnits(short), v.DurationUnits(long))
	}
	note := func(p int, dur int) {
		t.Helper()
		push("Pitch_"+strconv.Itoa(p), v.Name(vlo+4), v.Name(dlo+uint16(dur)))
	}
	w := LineWeights{Step: 1, Repeat: 0.5, Turn: 0.25, Window: 7}
	hook := LineBias(v, c, w)
	first, n := v.Range(token.KindPitch)
	// offsets returns the hook's offset for every pitch (all logits 0 in).
	offsets := func() []float64 {
		logits := make([]float32, v.Size())
		hook(logits)
		out := make([]float64, n)
		for p := range out {
			out[p] = float64(logits[int(first)+p])
		}
		return out
	}
	// check: pitches below lo untouched; from lo up, offset = shift +
	// want(d) for one shift that keeps the total probability.
	check := func(what string, lo, top int, want func(d int) float64) {
		t.Helper()
		off := offsets()
		for p := 0; p < lo; p++ {
			if off[p] != 0 {
				t.Fatalf("%s: pitch %d below %d moved by %v", what, p, lo, off[p])
			}
		}
		shift := off[lo] - want(lo-top)
		mass := 0.0
		for p := lo; p < n; p++ {
			if got := off[p] - shift; math.Abs(got-want(p-top)) > 1e-4 {
				t.Errorf("%s: pitch %d (d %d): offset %.4f, want %.4f", what, p, p-top, got, want(p-top))
			}
			mass += math.Exp(off[p])
		}
		if math.Abs(mass-float64(n-lo)) > 1e-3*float64(n) {
			t.Errorf("%s: total probability of the touched pitches %.4f, want %d", what, mass, n-lo)
		}
	}

	push("BOS", "INSTRUMENT_0", "SEP", "Bar", "TimeSig_4/4", "Tempo_120-125", "Position_0", "Program_0")
	if off := offsets(); off[60] != 0 || off[61] != 0 {
		t.Fatal("the first onset has no line to follow and must be left alone")
	}
	note(60, int(short))

	// Onset 2: the line is at 60, no direction yet.
	push("Position_12", "Program_0")
	check("after 60", 53, 60, func(d int) float64 {
		switch {
		case d == 0:
			return -0.5
		case d >= -2 && d <= 2:
			return 1
		}
		return 0
	})
	note(62, int(short)) // up a step

	// Onset 3: the line at 62, last move up; an accompaniment note 57 is
	// already there, so only pitches above it may become the top.
	push("Position_24", "Program_0")
	note(57, int(short))
	check("after 62 with 57 at the onset", 58, 62, func(d int) float64 {
		x := 0.0
		switch {
		case d == 0:
			x = -0.5
		case d >= -2 && d <= 2:
			x = 1
		}
		if d < 0 {
			x -= 0.25 // turning down after a move up
		}
		return x
	})
	note(72, int(long)) // the top: a leap up, held two beats and more

	// Onset 4 (beat 4): 72 still sounds; a lower note here is under it.
	push("Position_36", "Program_0")
	check("under the held 72", 73, 72, func(d int) float64 {
		if d <= 2 {
			return 1
		}
		return 0
	})
	note(50, int(short))

	// Bar 2: the onset under the held 72 did not enter the line.
	push("Bar", "Position_0", "Program_0")
	if c.line.top != 72 || c.line.dir != 1 {
		t.Fatalf("line top %d dir %d, want 72 up (the onset under the held note is not the line)", c.line.top, c.line.dir)
	}
	if LineBias(v, c, LineWeights{}) != nil {
		t.Fatal("no weights must give no hook")
	}
}

// TestPickup: the upbeat's share by genre and length by meter, the first
// bar's first onset held to it (and no empty first bar), the rest of the
// piece left alone; and the form moved one bar later.
func TestPickup(t *testing.T) {
	v := token.DefaultVocab()
	q := v.Positions()
	for _, c := range []struct {
		genre    string
		num, den int
		u        float64
		want     int
	}{
		{"folk", 6, 8, 0.5, q / 2}, {"folk", 4, 4, 0.1, q}, {"folk", 2, 4, 0.1, q / 2}, {"folk", 2, 2, 0.1, q},
		{"waltz", 3, 4, 0.9, q}, {"folk", 4, 4, 0.9, 0}, {"gospel", 4, 4, 0.6, 0}, {"gospel", 6, 8, 0.5, q / 2},
		{"pop", 4, 4, 0, 0}, {"game", 4, 4, 0, 0}, {"folk", 0, 0, 0, 0},
	} {
		if got := Pickup(v, c.genre, c.num, c.den, c.u); got != c.want {
			t.Errorf("Pickup(%s, %d/%d, %.1f) = %d, want %d", c.genre, c.num, c.den, c.u, got, c.want)
		}
	}

	c := NewBars(v, v.NewGrammar(), 4)
	c.Pickup = q / 2
	mask := make([]bool, v.Size())
	push := pusher(t, c)
	positions := func() []int {
		c.Allow(mask)
		first, n := v.Range(token.KindPosition)
		var out []int
		for p := range n {
			if mask[int(first)+p] {
				out = append(out, p)
			}
		}
		return out
	}
	push("BOS", "INSTRUMENT_0", "SEP", "Bar", "TimeSig_6/8", "Tempo_120-125")
	_, barLen := c.Grammar.Position()
	if got := positions(); len(got) != 1 || got[0] != barLen-q/2 || mask[v.Bar] || mask[v.EOS] {
		t.Fatalf("first bar of 6/8 (%d positions): positions %v, bar line %v; want only %d", barLen, got, mask[v.Bar], barLen-q/2)
	}
	push("Position_"+strconv.Itoa(barLen-q/2), "Program_0", "Pitch_69", v.Name(first(v, token.KindVelocity)+4), v.Name(first(v, token.KindDuration)+2))
	push("Bar")
	if got := positions(); len(got) < barLen/2 {
		t.Fatalf("second bar: positions %v, want the bar's own", got)
	}

	// The form: strains over 16 bars, moved past the upbeat.
	p, err := PlanForm("strains", "folk", 16)
	if err != nil {
		t.Fatal(err)
	}
	got := p.AfterPickup().Copy
	want := []int{-1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 2, 3, 4, 5, 6, -1}
	if !slices.Equal(got, want) {
		t.Errorf("strains after an upbeat: copies %v, want %v (plan before %v)", got, want, p.Copy)
	}
}

func first(v *token.Vocab, k token.Kind) uint16 {
	f, _ := v.Range(k)
	return f
}

// TestEntries: game parts enter at the start or with the second section,
// one pitched part always from the start, other genres untouched; and a
// part not yet in cannot start an onset while another token may follow.
func TestEntries(t *testing.T) {
	v := token.DefaultVocab()
	always := func(x float64) func(int) float64 { return func(int) float64 { return x } }
	if e := Entries("pop", []int{0, 33}, true, 4, always(0)); e != nil {
		t.Fatalf("pop builds up: %v", e)
	}
	if e := Entries("game", []int{80}, false, 4, always(0)); e != nil {
		t.Fatalf("one part builds up: %v", e)
	}
	// All draws 0: the first part leads, every other enters late.
	e := Entries("game", []int{80, 33, 48}, true, 4, always(0))
	want := map[int]int{80: 0, 33: 4, 48: 4, token.DrumProgram: 4}
	if len(e) != len(want) {
		t.Fatalf("entries %v, want %v", e, want)
	}
	for p, at := range want {
		if e[p] != at {
			t.Errorf("entries %v, want %v", e, want)
		}
	}
	// Draws 0.99: every part plays from the start.
	for p, at := range Entries("game", []int{80, 33, 48}, true, 4, always(0.99)) {
		if at != 0 {
			t.Errorf("draws 0.99: program %d enters at %d", p, at)
		}
	}

	c := NewBars(v, v.NewGrammar(), 16)
	c.Entry = map[int]int{80: 0, 33: 4}
	push := pusher(t, c)
	push("BOS", "INSTRUMENT_33", "INSTRUMENT_80", "SEP", "Bar", "TimeSig_4/4", "Tempo_120-125", "Position_0")
	mask := make([]bool, v.Size())
	c.Allow(mask)
	p33, _ := v.Lookup("Program_33")
	p80, _ := v.Lookup("Program_80")
	if mask[p33] || !mask[p80] {
		t.Fatalf("bar 1: bass allowed %v, lead %v; want the lead only", mask[p33], mask[p80])
	}
	for range 4 {
		push("Program_80", "Pitch_72", v.Name(first(v, token.KindVelocity)+4), v.Name(first(v, token.KindDuration)+2), "Bar", "Position_0")
	}
	c.Allow(mask)
	if !mask[p33] {
		t.Fatal("bar 5: the bass may not enter")
	}
}
