package token

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

// sample draws a sequence through the grammar. byKind picks a token class
// uniformly among the allowed classes first (so rare classes such as EOS
// and SEP are reached); otherwise tokens are uniform among the allowed.
// Every few steps it checks that Allowed and Push agree with the mask.
func sample(t *testing.T, v *Vocab, g *Grammar, rng *rand.Rand, maxLen int, byKind bool, toks []uint16) []uint16 {
	t.Helper()
	mask := make([]bool, v.Size())
	var allowed []uint16
	for len(toks) < maxLen && !g.Done() {
		g.Allow(mask)
		allowed = allowed[:0]
		for i, ok := range mask {
			if ok {
				allowed = append(allowed, uint16(i))
			}
		}
		if len(allowed) == 0 {
			t.Fatalf("dead end after %v", v.Names(toks))
		}
		if rng.IntN(16) == 0 {
			for i := range mask {
				if g.Allowed(uint16(i)) != mask[i] {
					t.Fatalf("Allowed(%s) = %v, mask says %v, after %v", v.Name(uint16(i)), !mask[i], mask[i], v.Names(toks))
				}
			}
			bad := uint16(rng.IntN(v.Size()))
			if !mask[bad] {
				before := *g
				if err := g.Push(bad); !errors.Is(err, ErrNotAllowed) {
					t.Fatalf("Push(%s) not allowed: err = %v", v.Name(bad), err)
				}
				if !reflect.DeepEqual(*g, before) {
					t.Fatal("a refused Push changed the grammar")
				}
			}
		}
		tok := allowed[rng.IntN(len(allowed))]
		if byKind {
			var kinds []Kind
			for _, a := range allowed {
				k, _ := v.Kind(a)
				if a == v.EOS || a == v.SEP || a == v.BOS {
					k = numKinds + Kind(a) // specials each their own class
				}
				if !slices.Contains(kinds, k) {
					kinds = append(kinds, k)
				}
			}
			want := kinds[rng.IntN(len(kinds))]
			var of []uint16
			for _, a := range allowed {
				k, _ := v.Kind(a)
				if a == v.EOS || a == v.SEP || a == v.BOS {
					k = numKinds + Kind(a)
				}
				if k == want {
					of = append(of, a)
				}
			}
			tok = of[rng.IntN(len(of))]
		}
		if err := g.Push(tok); err != nil {
			t.Fatalf("Push(%s) of an allowed token: %v", v.Name(tok), err)
		}
		toks = append(toks, tok)
	}
	return toks
}

// TestGrammarSamplesDecode: any sequence the grammar allows decodes to a
// valid Score that writes a MIDI file which parses back with the same notes.
func TestGrammarSamplesDecode(t *testing.T) {
	v := DefaultVocab()
	rng := rand.New(rand.NewPCG(1, 2))
	ended, withNotes := 0, 0
	for trial := 0; trial < 400; trial++ {
		g := v.NewGrammar()
		toks := sample(t, v, g, rng, 50+rng.IntN(1500), trial%2 == 1, nil)
		s, _, err := v.Decode(toks)
		if err != nil {
			t.Fatalf("trial %d: decode of a grammatical sequence: %v\n%v", trial, err, v.Names(toks))
		}
		if g.Done() {
			ended++
		}
		if s.NoteCount() > 0 {
			withNotes++
		}
		var buf bytes.Buffer
		if err := s.Write(&buf); err != nil {
			t.Fatalf("trial %d: write: %v", trial, err)
		}
		p, err := midi.Parse("sampled.mid", buf.Bytes())
		if err != nil {
			t.Fatalf("trial %d: parse of the written file: %v", trial, err)
		}
		if p.TicksPerBeat != s.TicksPerBeat || p.EndTick < s.EndTick-1 {
			t.Fatalf("trial %d: tpb %d/%d end %d/%d", trial, p.TicksPerBeat, s.TicksPerBeat, p.EndTick, s.EndTick)
		}
		if p.NoteCount() == 0 && s.NoteCount() > 0 {
			t.Fatalf("trial %d: notes lost in the file", trial)
		}
	}
	t.Logf("400 sampled sequences: %d ended with EOS, %d had notes", ended, withNotes)
	if ended < 50 || withNotes < 50 {
		t.Fatalf("sampling did not reach the body enough (%d ended, %d with notes)", ended, withNotes)
	}
}

// TestGrammarForce: forced attributes appear in the prefix, the body obeys
// them (tempo, meter, programs, bar count), and free slots stay free.
func TestGrammarForce(t *testing.T) {
	v := DefaultVocab()
	rng := rand.New(rand.NewPCG(3, 4))
	no := false
	a := Attributes{TempoBPM: 75, KeyTonic: 2, KeyMinor: true, MeterNum: 3, MeterDen: 4,
		Programs: []int{40, 0, 42}, Drums: &no, Bars: 8, Density: -1, Style: 5}
	for trial := 0; trial < 60; trial++ {
		g := v.NewGrammar()
		g.Force(a)
		toks := sample(t, v, g, rng, 4000, true, nil)
		s, got, err := v.Decode(toks)
		if err != nil {
			t.Fatal(err)
		}
		if !g.InBody() {
			continue
		}
		if v.TempoBin(got.TempoBPM) != v.TempoBin(75) || got.KeyTonic != 2 || !got.KeyMinor ||
			got.MeterNum != 3 || got.MeterDen != 4 || !slices.Equal(got.Programs, []int{0, 40, 42}) ||
			got.Style != 5 || v.LengthBin(got.Bars) != v.LengthBin(8) {
			t.Fatalf("decoded attributes %+v", got)
		}
		for _, tr := range s.Tracks {
			if tr.IsDrum || !slices.Contains([]int{0, 40, 42}, tr.Program) {
				t.Fatalf("track program %d drum %v not requested", tr.Program, tr.IsDrum)
			}
		}
		// The first bar header states the forced meter and tempo (a
		// "Position_0 Tempo" may change the tempo at once: the grammar
		// allows it, decoding.Bars forbids it at generation).
		head := slices.Index(toks, v.SEP) + 1
		if len(s.Meters) == 0 || s.Meters[0].Num != 3 || len(toks) < head+3 ||
			v.Name(toks[head+1]) != "TimeSig_3/4" || toks[head+2] != v.tok(KindTempo, v.TempoBin(75)) {
			t.Fatalf("body meter %+v, header %v", s.Meters, v.Names(toks[head:min(len(toks), head+3)]))
		}
		if g.Done() {
			if bars := g.Bars(); bars < 8 || bars > 11 {
				t.Fatalf("%d bars, want 8–11", bars)
			}
		}
	}
	// Unforced slots may be sampled: with only a key forced, tempo may come
	// first, and SEP is reachable only after the key.
	g := v.NewGrammar()
	g.Force(Attributes{KeyTonic: 9, Density: -1, Style: -1})
	g.Push(v.BOS)
	tempo, _ := v.Token(KindTempoAttr, 10)
	if !g.Allowed(tempo) || g.Allowed(v.SEP) {
		t.Fatal("free tempo slot or premature SEP")
	}
	key, _ := v.Token(KindKeyAttr, 9)
	other, _ := v.Token(KindKeyAttr, 0)
	if !g.Allowed(key) || g.Allowed(other) {
		t.Fatal("forced key")
	}
	g.Push(key)
	// Version 2 wants an instrument before SEP.
	p0, _ := v.Token(KindInstrumentAttr, 0)
	if g.Allowed(v.SEP) || !g.Allowed(p0) {
		t.Fatal("SEP before an instrument")
	}
	g.Push(p0)
	if !g.Allowed(v.SEP) {
		t.Fatal("SEP after the forced key and an instrument")
	}
	// Drums required with free programs: any program before DRUMS, and
	// DRUMS before anything after the instrument slot.
	g = v.NewGrammar()
	yes := true
	g.Force(Attributes{KeyTonic: -1, Drums: &yes, Density: -1, Style: -1})
	g.Push(v.BOS)
	p3, _ := v.Token(KindInstrumentAttr, 3)
	drums, _ := v.Token(KindInstrumentAttr, DrumProgram)
	if !g.Allowed(p3) || !g.Allowed(drums) || g.Allowed(v.SEP) {
		t.Fatal("drums forcing")
	}
}

// TestGrammarAcceptsEncodings: the encoder's output is grammatical,
// including every prefix variant.
func TestGrammarAcceptsEncodings(t *testing.T) {
	v := DefaultVocab()
	s := handScore()
	full := v.Measure(s, midi.Metadata{TempoBPM: 120})
	full.Style = 3
	for mask := 0; mask < 1<<7; mask++ { // drop any subset of attributes
		a := full
		if mask&1 != 0 {
			a.TempoBPM = 0
		}
		if mask&2 != 0 {
			a.KeyTonic = -1
		}
		if mask&4 != 0 {
			a.MeterNum, a.MeterDen = 0, 0
		}
		if mask&8 != 0 {
			a.Programs, a.Drums = nil, nil
		}
		if mask&16 != 0 {
			a.Density = -1
		}
		if mask&32 != 0 {
			a.Bars = 0
		}
		if mask&64 != 0 {
			a.Style = -1
		}
		toks, err := v.Encode(s, a)
		if err != nil {
			t.Fatal(err)
		}
		g := v.NewGrammar()
		for i, tok := range toks {
			if err := g.Push(tok); err != nil {
				t.Fatalf("mask %b: token %d: %v", mask, i, err)
			}
		}
		if !g.Done() {
			t.Fatal("not done after EOS")
		}
		// Forcing the same attributes accepts the same sequence.
		g = v.NewGrammar()
		g.Force(a)
		for i, tok := range toks {
			if err := g.Push(tok); err != nil {
				t.Fatalf("mask %b forced: token %d: %v", mask, i, err)
			}
		}
	}
}

func BenchmarkGrammarAllow(b *testing.B) {
	v := DefaultVocab()
	toks, _ := v.Encode(handScore(), Unspecified())
	mask := make([]bool, v.Size())
	b.ReportAllocs()
	for b.Loop() {
		g := v.NewGrammar()
		for _, tok := range toks {
			g.Allow(mask)
			g.Push(tok)
		}
	}
}

// TestGrammarCanonical: under Canonical the encoder's sequences are still
// grammatical, and no sampled sequence strikes a pitch twice at one onset
// in one program, returns to a program already written at the onset, or
// stacks more than the cap in a pitched program; the refusals are those
// three and nothing else.
func TestGrammarCanonical(t *testing.T) {
	v := DefaultVocab()
	toks, err := v.Encode(handScore(), Unspecified())
	if err != nil {
		t.Fatal(err)
	}
	g := v.NewGrammar()
	g.Canonical(2)
	for i, tok := range toks {
		if err := g.Push(tok); err != nil {
			t.Fatalf("token %d (%s) of an encoding: %v", i, v.Name(tok), err)
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	groups := 0
	for trial := 0; trial < 200; trial++ {
		g := v.NewGrammar()
		g.Canonical(3)
		seq := sample(t, v, g, rng, 200+rng.IntN(1500), trial%2 == 1, nil)
		prog, lastPitch, count := -1, -1, 0
		for _, tok := range seq {
			k, i := v.Kind(tok)
			switch k {
			case KindPosition, KindBar:
				prog, lastPitch, count = -1, -1, 0
			case KindProgram:
				if i <= prog {
					t.Fatalf("program %d after %d at one onset: %v", i, prog, v.Names(seq))
				}
				prog, lastPitch, count = i, -1, 0
				groups++
			case KindPitch:
				if i <= lastPitch {
					t.Fatalf("pitch %d after %d in one program at one onset", i, lastPitch)
				}
				lastPitch = i
				count++
				if count > 3 && prog != DrumProgram {
					t.Fatalf("%d pitches of program %d at one onset (cap 3)", count, prog)
				}
			}
		}
	}
	if groups < 500 {
		t.Fatalf("sampling reached only %d program groups", groups)
	}
	// By hand: after Program_0 Pitch_60 (velocity, duration), Pitch_60 and
	// Pitch_59 are refused, Pitch_61 allowed; Program_0 again is refused,
	// drums allowed; the cap of 2 refuses a third pitch.
	g = v.NewGrammar()
	g.Canonical(2)
	name := func(n string) uint16 {
		tok, ok := v.Lookup(n)
		if !ok {
			t.Fatalf("no token %s", n)
		}
		return tok
	}
	prefix := []uint16{v.BOS, name("INSTRUMENT_0"), name("INSTRUMENT_DRUMS"), v.SEP, v.Bar, name("TimeSig_4/4"), name("Tempo_120-125"),
		name("Position_0"), name("Program_0"), name("Pitch_60"), name("Velocity_20"), name("Duration_12")}
	for _, tok := range prefix {
		if err := g.Push(tok); err != nil {
			t.Fatalf("%s: %v", v.Name(tok), err)
		}
	}
	for n, want := range map[string]bool{"Pitch_60": false, "Pitch_59": false, "Pitch_61": true, "Program_0": false, "Program_DRUMS": true, "Position_1": true} {
		if g.Allowed(name(n)) != want {
			t.Errorf("after Pitch_60: %s allowed %v, want %v", n, !want, want)
		}
	}
	for _, n := range []string{"Pitch_64", "Velocity_20", "Duration_12"} {
		if err := g.Push(name(n)); err != nil {
			t.Fatal(err)
		}
	}
	if g.Allowed(name("Pitch_67")) {
		t.Error("a third pitch allowed under a cap of 2")
	}
	// Without Canonical all of them stay allowed.
	g = v.NewGrammar()
	for _, tok := range prefix {
		g.Push(tok)
	}
	if !g.Allowed(name("Pitch_60")) || !g.Allowed(name("Program_0")) {
		t.Error("the plain grammar refuses a double")
	}
}

// TestGrammarOnly: inside a note the next kind is known (Pitch after
// Program, Velocity after Pitch, Duration after Velocity); after the
// Duration it is a choice (AfterNote), and elsewhere neither.
func TestGrammarOnly(t *testing.T) {
	v := DefaultVocab()
	g := v.NewGrammar()
	type st struct {
		k     Kind
		ok    bool
		after bool
	}
	var got []st
	for _, n := range []string{"BOS", "INSTRUMENT_0", "SEP", "Bar", "TimeSig_4/4", "Tempo_120-125", "Position_0", "Program_0", "Pitch_60", "Velocity_20", "Duration_12"} {
		tok, ok := v.Lookup(n)
		if !ok {
			t.Fatalf("no token %s", n)
		}
		if err := g.Push(tok); err != nil {
			t.Fatal(err)
		}
		k, ok := g.Only()
		got = append(got, st{k, ok, g.AfterNote()})
	}
	want := []st{6: {}, 7: {KindPitch, true, false}, 8: {KindVelocity, true, false}, 9: {KindDuration, true, false}, 10: {0, false, true}}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("after token %d: Only %v %v, AfterNote %v; want %+v", i, got[i].k, got[i].ok, got[i].after, w)
		}
	}
}
