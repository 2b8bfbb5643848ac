package condition

import (
	"math"
	"slices"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// synthPiece encodes a 4/4 piece of n bars, one quarter note a beat.
func synthPiece(t *testing.T, v *token.Vocab, n int) []uint16 {
	t.Helper()
	s := &midi.Score{Format: 1, TicksPerBeat: 96, Tempos: []midi.TempoChange{{MicrosPerBeat: 500000}},
		Meters: []midi.MeterChange{{Num: 4, Den: 4}}}
	tr := midi.Track{Channel: 0, Program: 0}
	for k := 0; k < 4*n; k++ {
		tr.Notes = append(tr.Notes, midi.Note{Tick: int64(96 * k), Dur: 90, Pitch: uint8(60 + k%7), Velocity: 80})
	}
	s.Tracks = []midi.Track{tr}
	s.EndTick = int64(96 * 4 * n)
	toks, _, err := v.AppendEncodeMeasured(nil, s, midi.Analyze(s))
	if err != nil {
		t.Fatal(err)
	}
	return toks
}

// At bar N the probability of a new bar line goes to EOS, by log-sum-exp
// (hand-computed), and not before bar N.
func TestBarsAdjustEndsWhereABarWouldStart(t *testing.T) {
	v := token.DefaultVocab()
	p := synthPiece(t, v, 2) // LENGTH_2: the grammar lets it end after bar 2
	c := NewBars(v, v.NewGrammar(), 2)
	logits := make([]float32, v.Size())
	check := func(wantEOS float64) {
		t.Helper()
		logits[v.Bar], logits[v.EOS] = 2, 1
		c.Adjust(logits)
		if math.Abs(float64(logits[v.EOS])-wantEOS) > 1e-6 || logits[v.Bar] != 2 {
			t.Errorf("after %d bars: EOS %g, want %g (Bar %g)", c.Bars(), logits[v.EOS], wantEOS, logits[v.Bar])
		}
	}
	bars := 0
	for _, tk := range p[:len(p)-1] {
		if tk == v.Bar {
			bars++
			if bars == 2 { // still in bar 1: unchanged
				check(1)
			}
		}
		if err := c.Push(tk); err != nil {
			t.Fatal(err)
		}
	}
	check(math.Log(math.Exp(2) + math.Exp(1))) // 2.3132617
	mask := make([]bool, v.Size())
	c.Allow(mask)
	if mask[v.Bar] || !mask[v.EOS] {
		t.Errorf("at bar N: Bar allowed %v, EOS allowed %v", mask[v.Bar], mask[v.EOS])
	}
}

// The model may choose at most MaxInstruments instruments; below that the
// slot stays open, and SEP needs one instrument in a v2 vocabulary.
func TestBarsMaxInstruments(t *testing.T) {
	v := token.DefaultVocab()
	c := NewBars(v, v.NewGrammar(), 4)
	c.MaxInstruments = 2
	mask := make([]bool, v.Size())
	lo, n := v.Range(token.KindInstrumentAttr)
	instr := func() int {
		k := 0
		for i := int(lo); i < int(lo)+n; i++ {
			if mask[i] {
				k++
			}
		}
		return k
	}
	for i, tk := range []uint16{v.BOS, lo + 0, lo + 33} {
		c.Allow(mask)
		if i > 0 && instr() == 0 {
			t.Fatalf("after %d instruments: none allowed", i-1)
		}
		if i == 1 && mask[v.SEP] {
			t.Error("SEP allowed before any instrument")
		}
		if err := c.Push(tk); err != nil {
			t.Fatal(err)
		}
	}
	c.Allow(mask)
	if instr() != 0 || !mask[v.SEP] {
		t.Errorf("after 2 instruments: %d instruments allowed, SEP %v", instr(), mask[v.SEP])
	}
}

// RefillBars restates LENGTH as the bars left from the window's first bar,
// as a training example that starts there says it.
func TestRefillBarsRestatesLength(t *testing.T) {
	v := token.DefaultVocab()
	p := synthPiece(t, v, 24)
	hist := p[:len(p)-1]
	sep := slices.Index(hist, v.SEP)
	re := RefillBars(v, hist, 120, 24)
	_, a, err := v.Decode(re[:slices.Index(re, v.SEP)+1])
	if err != nil {
		t.Fatal(err)
	}
	// Bars kept: count Bar tokens after the prefix.
	kept := 0
	for _, tk := range re[sep+1:] {
		if tk == v.Bar {
			kept++
		}
	}
	lo, hi := v.LengthRange(v.LengthBin(kept))
	if a.Bars < lo || a.Bars > hi || kept >= 24 || kept == 0 {
		t.Errorf("kept %d bars, LENGTH says %d (bin %d..%d)", kept, a.Bars, lo, hi)
	}
	if full := Refill(v, hist, 120); !slices.Equal(full[:sep+1], hist[:sep+1]) {
		t.Error("Refill (no total) changed the prefix")
	}
}
