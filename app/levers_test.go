package app

import (
	"context"
	"testing"

	"github.com/amtstudio/amt/engine/eval"
)

func TestParseLevers(t *testing.T) {
	for in, want := range map[string]string{"": DefaultLevers.String(), "default": DefaultLevers.String(), "none": "none",
		"vary,canonical": "canonical,vary", "canonical": "canonical"} {
		l, err := ParseLevers(in)
		if err != nil || l.String() != want {
			t.Errorf("ParseLevers(%q) = %v, %v; want %s", in, l, err, want)
		}
	}
	if _, err := ParseLevers("canonical,louder"); err == nil {
		t.Error("an unknown lever parsed")
	}
}

// The canonical lever on the embedded model: no pitch struck twice at one
// onset by one program and no chord over ChordCap, where the same request
// without it (same seed) writes doubles. The default decoding (a request
// with no levers of its own, as the window and `amt generate` send) has
// it: TestDefaultLevers.
func TestLeverCanonical(t *testing.T) {
	m, err := loadEmbedded()
	if err != nil {
		t.Skip(err)
	}
	defer m.Close()
	measure := func(l Levers) []float64 {
		t.Helper()
		r, err := GenerateFromPrompt(context.Background(), m, PromptRequest{Prompt: "A pop song in G major, 4/4, 96 bpm, for piano",
			Bars: 8, Seed: 3, KeyBias: DefaultKeyBias, Candidates: 1, Levers: l})
		if err != nil {
			t.Fatal(err)
		}
		if want := l.resolve() | LeversSet; r.Levers != want {
			t.Errorf("levers %v: the result says %v", l, r.Levers)
		}
		f, err := eval.PieceFeatures(r.Score, 8)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	plain := measure(LeversSet)
	canon := measure(LeversSet | LeverCanonical)
	def := measure(0)
	t.Logf("without: doubles %.3f, largest chord %v; canonical: %.3f, %v; default: %.3f, %v", plain[eval.FDupShare], plain[eval.FMaxChord],
		canon[eval.FDupShare], canon[eval.FMaxChord], def[eval.FDupShare], def[eval.FMaxChord])
	if plain[eval.FDupShare] == 0 && plain[eval.FMaxChord] <= ChordCap {
		t.Error("the plain decoding wrote neither doubles nor a tall chord: the test cannot tell the lever works")
	}
	if canon[eval.FDupShare] != 0 || canon[eval.FMaxChord] > ChordCap {
		t.Errorf("canonical: doubles %.3f, largest chord %v (cap %d)", canon[eval.FDupShare], canon[eval.FMaxChord], ChordCap)
	}
	if def[eval.FDupShare] != 0 || def[eval.FMaxChord] > ChordCap {
		t.Errorf("default decoding: doubles %.3f, largest chord %v (cap %d)", def[eval.FDupShare], def[eval.FMaxChord], ChordCap)
	}
}

// The default decoding (a request without levers of its own, as the window
// and `amt generate` send) plays a jig's 8-bar strains twice note for note
// (LeverStrains) and varies a pop song's restated sections (LeverVary),
// where the decoding without levers lays the automatic forms (AABB,
// verse-chorus) with exact restatements.
func TestDefaultLevers(t *testing.T) {
	m, err := loadEmbedded()
	if err != nil {
		t.Skip(err)
	}
	defer m.Close()
	gen := func(prompt string, l Levers) (*PromptResult, []float64) {
		t.Helper()
		r, err := GenerateFromPrompt(context.Background(), m, PromptRequest{Prompt: prompt, Bars: 16, Seed: 2, KeyBias: DefaultKeyBias, Candidates: 1, Levers: l})
		if err != nil {
			t.Fatal(err)
		}
		f, err := eval.PieceFeatures(r.Score, 16)
		if err != nil {
			t.Fatal(err)
		}
		return r, f
	}
	const jig, pop = "a jig in D major, 6/8, for piano", "A pop song in G major, 4/4, 96 bpm, for piano"
	if r, f := gen(jig, 0); r.Form.Name != "strains" || f[eval.FExactRepeat] < 0.4 {
		t.Errorf("default jig: form %s, exact repeats %.2f (want strains: 7 of 15 bars restated)", r.Form, f[eval.FExactRepeat])
	}
	if r, _ := gen(jig, LeversSet); r.Form.Name != "AABB" {
		t.Errorf("jig without levers: form %s, want AABB", r.Form)
	}
	r, f := gen(pop, 0)
	_, fNone := gen(pop, LeversSet)
	t.Logf("pop song: form %s, exact repeats %.2f with the default levers, %.2f without", r.Form, f[eval.FExactRepeat], fNone[eval.FExactRepeat])
	if r.Form.Repeated() == 0 || fNone[eval.FExactRepeat] < 0.25 || f[eval.FExactRepeat] >= fNone[eval.FExactRepeat]/2 {
		t.Errorf("pop song: form %s, exact repeats %.2f with the default levers, %.2f without (want the restated bars varied)", r.Form, f[eval.FExactRepeat], fNone[eval.FExactRepeat])
	}
}
