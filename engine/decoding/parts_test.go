package decoding

import (
	"math"
	"slices"
	"testing"

	"github.com/amtstudio/amt/engine/token"
)

// PartHold by hand: a piano trio (0, 40, 42) held to 3/4 of the bars at 2
// logits a bar behind, at most 5.
func TestPartHold(t *testing.T) {
	v := token.DefaultVocab()
	w := PartWeights{Share: 0.75, Weight: 2, Cap: 5}
	for _, c := range []struct {
		w     PartWeights
		progs []int
	}{{PartWeights{Share: 0.75}, []int{0}}, {w, nil}, {w, []int{token.DrumProgram}}} {
		if PartHold(v, NewBars(v, v.NewGrammar(), 4), c.progs, c.w, nil) != nil {
			t.Errorf("%+v, programs %v: want no hook", c.w, c.progs)
		}
	}
	c := NewBars(v, v.NewGrammar(), 8)
	push := pusher(t, c)
	hook := PartHold(v, c, []int{42, 0, 40, 0}, w, nil)
	prog0 := int(first(v, token.KindProgram))
	// check runs the hook on zero logits and compares the three parts'
	// Program tokens (and an unrequested one) with what they should gain.
	check := func(what string, piano, violin, cello float64) {
		t.Helper()
		logits := make([]float32, v.Size())
		hook(logits)
		for _, x := range []struct {
			p    int
			want float64
		}{{0, piano}, {40, violin}, {42, cello}, {33, 0}} {
			if got := float64(logits[prog0+x.p]); math.Abs(got-x.want) > 1e-6 {
				t.Errorf("%s: Program_%d gains %.4f, want %.4f", what, x.p, got, x.want)
			}
		}
	}
	note := func() { t.Helper(); push("Pitch_60", "Velocity_20", "Duration_12") }
	push("BOS", "INSTRUMENT_0", "INSTRUMENT_40", "INSTRUMENT_42", "SEP")
	check("the prefix", 0, 0, 0)
	push("Bar", "TimeSig_4/4", "Tempo_120-125", "Position_0")
	// Bar 1, nothing played: each is 0.75 behind, 1.5 logits.
	check("bar 1", 1.5, 1.5, 1.5)
	push("Program_0")
	note()
	check("bar 1 after the piano", 0, 1.5, 1.5)
	push("Program_40")
	note()
	check("bar 1 after the violin", 0, 0, 1.5)
	// Bar 2: 1.5 asked; the piano and the violin have 1 (0.5 behind, 1
	// logit), the cello none (1.5 behind, 3).
	push("Bar", "Position_0", "Program_0")
	note()
	check("bar 2 after the piano", 0, 1, 3)
	// Bar 3: 2.25 asked; piano 2 (0.25: 0.5), violin 1 (2.5), cello 0
	// (4.5).
	push("Bar")
	check("bar 3", 0.5, 2.5, 4.5)
	// Bar 4 after an empty bar 3: the cello is 3 behind, 6 logits, capped
	// at 5; the piano 1 (2 logits), the violin 2 (4).
	push("Bar", "Position_0")
	check("bar 4", 2, 4, 5)
	// A token the grammar forbids stays forbidden.
	logits := make([]float32, v.Size())
	logits[prog0+42] = float32(math.Inf(-1))
	hook(logits)
	if !math.IsInf(float64(logits[prog0+42]), -1) {
		t.Error("a forbidden Program token came back")
	}

	// An upbeat is no bar of the part's own, nor are the bars before a
	// part's entry (Entry is 0-based: the cello enters with bar 3).
	c = NewBars(v, v.NewGrammar(), 8)
	c.Pickup = 3
	c.Entry = map[int]int{42: 2}
	push = pusher(t, c)
	hook = PartHold(v, c, []int{0, 42}, w, nil)
	push("BOS", "INSTRUMENT_0", "INSTRUMENT_42", "SEP", "Bar", "TimeSig_4/4", "Tempo_120-125")
	check("the upbeat", 0, 0, 0)
	push("Bar")
	check("bar 2, the first of the piano", 1.5, 0, 0)
	push("Bar")
	check("bar 3, the cello's first", 3, 0, 1.5)

	// Shares the words ask: the piano a quarter of the bars (behind 0.25
	// in bar 1: 0.5 logits), the violin none (left to the model), the
	// cello held as the weights say.
	c = NewBars(v, v.NewGrammar(), 8)
	push = pusher(t, c)
	hook = PartHold(v, c, []int{0, 40, 42}, w, map[int]float64{0: 0.25, 40: 0})
	push("BOS", "INSTRUMENT_0", "INSTRUMENT_40", "INSTRUMENT_42", "SEP", "Bar", "TimeSig_4/4", "Tempo_120-125")
	check("bar 1 with shares", 0.5, 0, 1.5)
	if PartHold(v, c, []int{40}, w, map[int]float64{40: 0}) != nil {
		t.Error("no part held: want no hook")
	}
}

// Lead: the instrument a listener expects to carry the tune.
func TestLead(t *testing.T) {
	for _, c := range []struct {
		programs []int
		want     int
	}{
		{[]int{0, 40, 42}, 40},            // piano trio: the violin
		{[]int{40, 41, 42}, 40},           // string quartet
		{[]int{0, 32, 65}, 65},            // jazz combo: the sax
		{[]int{56, 57, 58, 60}, 56},       // brass quintet: the trumpet
		{[]int{25, 40, 105}, 40},          // bluegrass: the fiddle
		{[]int{38, 80, 81}, 80},           // chiptune: the square lead
		{[]int{0, 33, 48}, 0},             // pop ballad: piano before strings and bass (a tie of rank: the lower)
		{[]int{0}, -1},                    // a solo has no lead to choose
		{[]int{0, token.DrumProgram}, -1}, // nor a piano with drums
	} {
		if got := Lead(c.programs); got != c.want {
			t.Errorf("Lead(%v) = %d, want %d", c.programs, got, c.want)
		}
	}
}

// LeadBias by hand: the violin leads; the piano's pitches above the
// violin's last note lose 1.2 logits an octave, at most one octave's worth.
func TestLeadBias(t *testing.T) {
	v := token.DefaultVocab()
	if LeadBias(v, NewBars(v, v.NewGrammar(), 4), -1, 1) != nil || LeadBias(v, NewBars(v, v.NewGrammar(), 4), 40, 0) != nil {
		t.Fatal("no lead or no weight: want no hook")
	}
	c := NewBars(v, v.NewGrammar(), 8)
	push := pusher(t, c)
	hook := LeadBias(v, c, 40, 1.2)
	pitch0 := int(first(v, token.KindPitch))
	gain := func() []float32 {
		logits := make([]float32, v.Size())
		hook(logits)
		return logits[pitch0 : pitch0+128]
	}
	push("BOS", "INSTRUMENT_0", "INSTRUMENT_33", "INSTRUMENT_40", "SEP", "Bar", "TimeSig_4/4", "Tempo_120-125", "Position_0", "Program_0")
	if g := gain(); slices.ContainsFunc(g, func(x float32) bool { return x != 0 }) {
		t.Error("the piano is held under a violin that has not played")
	}
	push("Pitch_60", "Velocity_20", "Duration_12", "Program_40", "Pitch_72", "Velocity_20", "Duration_12")
	if g := gain(); slices.ContainsFunc(g, func(x float32) bool { return x != 0 }) {
		t.Error("the lead itself is held")
	}
	push("Position_12", "Program_0")
	g := gain()
	for p, want := range map[int]float64{60: 0, 72: 0, 73: -0.1, 78: -0.6, 84: -1.2, 100: -1.2} {
		if math.Abs(float64(g[p])-want) > 1e-6 {
			t.Errorf("piano pitch %d gains %.3f, want %.3f", p, g[p], want)
		}
	}
	push("Pitch_48", "Velocity_20", "Duration_12", "Program_33")
	if g := gain(); slices.ContainsFunc(g, func(x float32) bool { return x != 0 }) {
		t.Error("the bass is held under the lead")
	}
}
