package decoding

import (
	"math"
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
