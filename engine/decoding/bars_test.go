package decoding

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
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

// Refill keeps the prefix, restates the bar header, ends with the last
// token, fits the budget, and the result is grammatical.
func TestRefillPinsPrefix(t *testing.T) {
	v := token.DefaultVocab()
	sc, err := midi.ReadFile(corpus.MIDIFiles(t, corpus.Nottingham)[0])
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := v.AppendEncodeMeasured(nil, sc, midi.Analyze(sc))
	if err != nil {
		t.Fatal(err)
	}
	sep := slices.Index(p, v.SEP)
	hist := p[:min(len(p)-1, 700)]
	re := Refill(v, hist, 256)
	if len(re) > 256 || len(re) < 128 {
		t.Fatalf("refill of %d tokens, want 128..256", len(re))
	}
	if !slices.Equal(re[:sep+1], p[:sep+1]) {
		t.Fatal("prefix not pinned")
	}
	if re[len(re)-1] != hist[len(hist)-1] {
		t.Fatal("refill does not end with the last token")
	}
	if re[sep+1] != v.Bar {
		t.Fatalf("after the prefix: %s", v.Name(re[sep+1]))
	}
	g := v.NewGrammar()
	for i, tk := range v.DropAttributes(nil, re, token.AttrLength) {
		if err := g.Push(tk); err != nil {
			t.Fatalf("refill token %d: %v", i, err)
		}
	}
}

// Bars makes random grammatical sequences stop at exactly N bars.
func TestBarsExact(t *testing.T) {
	v := token.DefaultVocab()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 4, 9} {
		g := v.NewGrammar()
		a := token.Unspecified()
		a.Bars = n
		g.Force(a)
		c := NewBars(v, g, n)
		if err := c.Push(v.BOS); err != nil {
			t.Fatal(err)
		}
		// Prefer structure tokens so the walk ends: EOS and Bar often.
		seq := append([]uint16{v.BOS}, walk(t, c, 200000, rng, func(ok []uint16, tk uint16) uint16 {
			if slices.Contains(ok, v.EOS) && rng.IntN(4) == 0 {
				return v.EOS
			} else if slices.Contains(ok, v.Bar) && rng.IntN(3) == 0 {
				return v.Bar
			}
			return tk
		})...)
		if !c.Done() || c.Bars() != n {
			t.Fatalf("N=%d: done %v with %d bars", n, c.Done(), c.Bars())
		}
		s, _, err := v.Decode(seq)
		if err != nil {
			t.Fatal(err)
		}
		_ = s
	}
}

// KeyBias lowers exactly the out-of-scale pitches and raises the tonic
// triad, only while a pitched program is writing notes.
func TestKeyBias(t *testing.T) {
	v := token.DefaultVocab()
	g := v.NewGrammar()
	c := NewBars(v, g, 4)
	f := KeyBias(v, c, 2, true, 3) // D minor: D E F G A Bb C C#
	logits := make([]float32, v.Size())
	f(logits)
	for _, l := range logits {
		if l != 0 {
			t.Fatal("bias applied outside a note")
		}
	}
	i40, _ := v.Lookup("INSTRUMENT_40")
	for _, tk := range []uint16{v.BOS, i40, v.SEP, v.Bar} {
		if err := c.Push(tk); err != nil {
			t.Fatal(err)
		}
	}
	ts, _ := v.Lookup("TimeSig_4/4")
	tp, _ := v.Lookup("Tempo_120-125")
	pos, _ := v.Lookup("Position_0")
	prog, _ := v.Lookup("Program_40")
	for _, tk := range []uint16{ts, tp, pos, prog} {
		if err := c.Push(tk); err != nil {
			t.Fatal(err)
		}
	}
	first, _ := v.Range(token.KindPitch)
	in := map[int]bool{2: true, 4: true, 5: true, 7: true, 9: true, 10: true, 0: true, 1: true}
	// check compares the hook's logits with triad, other and out for the
	// D minor triad, the scale's other notes and the notes outside it.
	check := func(where string, triad, other, out float32) {
		t.Helper()
		clear(logits)
		f(logits)
		for p := 0; p < 128; p++ {
			want := other
			switch {
			case !in[p%12]:
				want = out
			case p%12 == 2 || p%12 == 5 || p%12 == 9:
				want = triad
			}
			if got := logits[int(first)+p]; got != want {
				t.Fatalf("%s, pitch %d: logit %v, want %v", where, p, got, want)
			}
		}
	}
	push := pusher(t, c)
	// Bias 3: the opening raises the triad by 3·1, the body by 3·3/8, the
	// cadence by 3·1 and lowers the scale's other notes by 3·1/4 and the
	// notes outside it by 3·1.5; elsewhere outside notes lose 3.
	check("bar 1 (opening)", 3, 0, -3)
	vlo, _ := v.Range(token.KindVelocity)
	dlo, _ := v.Range(token.KindDuration)
	note := []string{"Pitch_62", v.Name(vlo + 4), v.Name(dlo + 6)}
	push(note...)
	push("Bar", "Position_0", "Program_40")
	check("bar 2", 1.125, 0, -3)
	push(note...)
	push("Bar", "Position_0", "Program_40")
	push(note...)
	push("Bar", "Position_0", "Program_40")
	check("bar 4 of 4 (cadence)", 3, -0.75, -4.5)
	if KeyBias(v, c, -1, false, 3) != nil || KeyBias(v, c, 0, false, 0) != nil {
		t.Fatal("no key or no bias must give no hook")
	}
}

// Require makes every requested program play; no two empty bars follow
// each other. Driven by a walk that prefers program 0 at every onset and
// empty bars.
func TestBarsRequireAndNoEmptyRuns(t *testing.T) {
	v := token.DefaultVocab()
	rng := rand.New(rand.NewPCG(8, 9))
	p0, _ := v.Lookup("Program_0")
	for run := 0; run < 20; run++ {
		g := v.NewGrammar()
		a := token.Unspecified()
		a.Bars, a.Programs = 8, []int{0, 40, 73}
		a.MeterNum, a.MeterDen = 4, 4
		g.Force(a)
		c := NewBars(v, g, a.Bars)
		c.Require(a.Programs, false)
		c.Push(v.BOS)
		seq := append([]uint16{v.BOS}, walk(t, c, 100000, rng, func(ok []uint16, tk uint16) uint16 {
			switch {
			case c.atOnset && slices.Contains(ok, p0):
				return p0
			case slices.Contains(ok, v.Bar) && rng.IntN(2) == 0:
				return v.Bar
			case slices.Contains(ok, v.EOS):
				return v.EOS
			}
			return tk
		})...)
		s, _, err := v.Decode(seq)
		if err != nil {
			t.Fatal(err)
		}
		var progs []int
		for _, tr := range s.Tracks {
			progs = append(progs, tr.Program)
		}
		slices.Sort(progs)
		if !slices.Equal(progs, a.Programs) {
			t.Fatalf("run %d: programs %v, required %v", run, progs, a.Programs)
		}
		// No two consecutive empty bars.
		unit := int64(s.TicksPerBeat * 4)
		var has [9]bool
		for _, tr := range s.Tracks {
			for _, n := range tr.Notes {
				has[n.Tick/unit] = true
			}
		}
		for b := 1; b+1 < 8; b++ {
			if !has[b] && !has[b+1] {
				t.Fatalf("run %d: bars %d and %d are both empty", run, b+1, b+2)
			}
		}
	}
}

// A walk that piles notes on every onset still ends: at most MaxOnsetNotes
// per onset; and an open meter is sampled among the common ones.
func TestBarsBoundsOnsetsAndMeters(t *testing.T) {
	v := token.DefaultVocab()
	mask := make([]bool, v.Size())
	g := v.NewGrammar()
	a := token.Unspecified()
	a.Bars = 2
	g.Force(a)
	c := NewBars(v, g, 2)
	c.CommonMetersOnly()
	c.Push(v.BOS)
	seq := []uint16{v.BOS}
	pitchLo, _ := v.Range(token.KindPitch)
	for steps := 0; !c.Done() && steps < 5000; steps++ {
		c.Allow(mask)
		tk := uint16(0)
		for i, m := range mask { // the lowest allowed id, but a Pitch whenever allowed
			if m {
				tk = uint16(i)
				break
			}
		}
		if mask[pitchLo+60] {
			tk = pitchLo + 60
		}
		if err := c.Push(tk); err != nil {
			t.Fatal(err)
		}
		seq = append(seq, tk)
	}
	if !c.Done() {
		t.Fatalf("not done after %d tokens", len(seq))
	}
	s, dec, err := v.Decode(seq)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(CommonMeters, token.Meter{Num: dec.MeterNum, Den: dec.MeterDen}) && len(s.Meters) > 0 {
		m := s.Meters[0]
		if !slices.Contains(CommonMeters, token.Meter{Num: m.Num, Den: m.Den}) {
			t.Fatalf("meter %d/%d is not a common one", m.Num, m.Den)
		}
	}
	at := map[int64]int{}
	for _, tr := range s.Tracks {
		for _, n := range tr.Notes {
			at[n.Tick]++
		}
	}
	for tick, k := range at {
		if k > MaxOnsetNotes {
			t.Fatalf("%d notes at tick %d", k, tick)
		}
	}
}

// With a pitched instrument declared, every bar after the first holds a
// pitched note; the first may count in on drums alone. Driven by a walk
// that starts every onset with drums and closes bars as soon as it may.
func TestBarsPitchedNoteEveryBar(t *testing.T) {
	v := token.DefaultVocab()
	rng := rand.New(rand.NewPCG(3, 4))
	drums, _ := v.Lookup("Program_128")
	drumOnly := 0
	for run := 0; run < 20; run++ {
		g := v.NewGrammar()
		a := token.Unspecified()
		yes := true
		a.Bars, a.Programs, a.Drums = 8, []int{12}, &yes // marimba with drums
		a.MeterNum, a.MeterDen = 4, 4
		g.Force(a)
		c := NewBars(v, g, a.Bars)
		c.Require(a.Programs, false)
		seq := walk(t, c, 100000, rng, func(ok []uint16, tk uint16) uint16 {
			switch {
			case c.atOnset && slices.Contains(ok, drums):
				return drums
			case slices.Contains(ok, v.Bar) && c.barNotes > 0:
				return v.Bar
			case slices.Contains(ok, v.EOS):
				return v.EOS
			}
			return tk
		})
		s, _, err := v.Decode(seq)
		if err != nil {
			t.Fatal(err)
		}
		unit := int64(s.TicksPerBeat * 4)
		var pitched, any [8]bool
		for _, tr := range s.Tracks {
			for _, n := range tr.Notes {
				if b := n.Tick / unit; b < 8 {
					any[b] = true
					pitched[b] = pitched[b] || !tr.IsDrum
				}
			}
		}
		if any[0] && !pitched[0] {
			drumOnly++
		}
		for b := 1; b < 8; b++ {
			if !pitched[b] {
				t.Fatalf("run %d: bar %d has no pitched note: %s", run, b+1, v.Names(seq))
			}
		}
	}
	// The walk does write first bars of drums alone: it prefers drums.
	if drumOnly == 0 {
		t.Fatal("the walk wrote no first bar of drums alone: it does not test the rule")
	}
	t.Logf("%d of 20 first bars of drums alone", drumOnly)
}

// Without drums the pitched rule does not apply: a single empty bar (a
// rest in a solo line) may still stand after the first, as before.
func TestBarsRestWithoutDrums(t *testing.T) {
	v := token.DefaultVocab()
	rng := rand.New(rand.NewPCG(5, 6))
	rests := 0
	for run := 0; run < 20; run++ {
		g := v.NewGrammar()
		a := token.Unspecified()
		no := false
		a.Bars, a.Programs, a.Drums = 8, []int{12}, &no
		a.MeterNum, a.MeterDen = 4, 4
		g.Force(a)
		c := NewBars(v, g, a.Bars)
		empty := 0
		walk(t, c, 100000, rng, func(ok []uint16, tk uint16) uint16 {
			switch {
			case slices.Contains(ok, v.Bar):
				tk = v.Bar // close every bar as soon as it may
			case slices.Contains(ok, v.EOS):
				tk = v.EOS
			}
			if tk == v.Bar && c.Grammar.Bars() > 1 && c.barNotes == 0 {
				empty++
			}
			return tk
		})
		rests += empty
	}
	if rests == 0 {
		t.Fatal("no empty bar after the first in 20 pieces without drums: the pitched rule applied without drums")
	}
}

// RhythmBias raises exactly the positions where the previous bar started a
// pitched note (drum onsets do not count), from the second bar on, and
// nothing after a bar without pitched notes; Hooks runs both hooks.
func TestRhythmBias(t *testing.T) {
	v := token.DefaultVocab()
	c := NewBars(v, v.NewGrammar(), 4)
	push := pusher(t, c)
	push("BOS", "INSTRUMENT_0", "INSTRUMENT_DRUMS", "SEP")
	hook := Hooks(nil, RhythmBias(v, c, 2), nil)
	first, n := v.Range(token.KindPosition)
	check := func(what string, want ...int) {
		t.Helper()
		logits := make([]float32, v.Size())
		hook(logits)
		var got []int
		for p := 0; p < n; p++ {
			if logits[int(first)+p] == 2 {
				got = append(got, p)
			} else if logits[int(first)+p] != 0 {
				t.Fatalf("%s: position %d raised by %v", what, p, logits[int(first)+p])
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: raised %v, want %v", what, got, want)
		}
	}
	vlo, _ := v.Range(token.KindVelocity)
	dlo, _ := v.Range(token.KindDuration)
	note := []string{"Pitch_60", v.Name(vlo + 4), v.Name(dlo + 6)}
	push("Bar", "TimeSig_4/4", "Tempo_120-125", "Position_0", "Program_0")
	push(note...)
	push("Position_12", "Program_DRUMS", "Pitch_36", v.Name(vlo+4), v.Name(dlo+2))
	push("Position_24", "Program_0")
	push(note...)
	check("bar 1")
	push("Bar", "Position_6", "Program_DRUMS", "Pitch_36", v.Name(vlo+4), v.Name(dlo+2))
	check("bar 2", 0, 24)
	push("Bar")
	check("bar 3, after a bar of drums alone")
	if RhythmBias(v, c, 0) != nil || Hooks(nil, nil) != nil {
		t.Fatal("no bias must give no hook")
	}
}

// walk drives c until it is done or steps tokens were pushed: at each step
// pick chooses among the allowed tokens ok, given one drawn uniformly from
// them; it returns the tokens pushed.
func walk(t *testing.T, c *Bars, steps int, rng *rand.Rand, pick func(ok []uint16, tk uint16) uint16) []uint16 {
	t.Helper()
	mask := make([]bool, c.v.Size())
	var seq []uint16
	for s := 0; !c.Done() && s < steps; s++ {
		c.Allow(mask)
		var ok []uint16
		for i, m := range mask {
			if m {
				ok = append(ok, uint16(i))
			}
		}
		if len(ok) == 0 {
			t.Fatal("nothing allowed")
		}
		tk := pick(ok, ok[rng.IntN(len(ok))])
		if err := c.Push(tk); err != nil {
			t.Fatal(err)
		}
		seq = append(seq, tk)
	}
	return seq
}

// pusher returns a function that pushes tokens into c by name, failing t on
// a name the vocabulary lacks or a token c refuses.
func pusher(t *testing.T, c *Bars) func(names ...string) {
	return func(names ...string) {
		t.Helper()
		for _, nm := range names {
			tk, ok := c.v.Lookup(nm)
			if !ok {
				t.Fatalf("no token %s", nm)
			}
			if err := c.Push(tk); err != nil {
				t.Fatalf("push %s: %v", nm, err)
			}
		}
	}
}

// first is the first token of kind k.
func first(v *token.Vocab, k token.Kind) uint16 {
	f, _ := v.Range(k)
	return f
}
