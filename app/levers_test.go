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
// without it (same seed) writes doubles.
func TestLeverCanonical(t *testing.T) {
	m, err := loadEmbedded()
	if err != nil {
		t.Skip(err)
	}
	defer m.Close()
	measure := func(l Levers) []float64 {
		r, err := GenerateFromPrompt(context.Background(), m, PromptRequest{Prompt: "A pop song in G major, 4/4, 96 bpm, for piano",
			Bars: 8, Seed: 3, KeyBias: DefaultKeyBias, Candidates: 1, Levers: l})
		if err != nil {
			t.Fatal(err)
		}
		f, err := eval.PieceFeatures(r.Score, 8)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	plain := measure(LeversSet)
	canon := measure(LeversSet | LeverCanonical)
	t.Logf("without: doubles %.3f, largest chord %v; canonical: %.3f, %v", plain[eval.FDupShare], plain[eval.FMaxChord], canon[eval.FDupShare], canon[eval.FMaxChord])
	if plain[eval.FDupShare] == 0 && plain[eval.FMaxChord] <= ChordCap {
		t.Error("the plain decoding wrote neither doubles nor a tall chord: the test cannot tell the lever works")
	}
	if canon[eval.FDupShare] != 0 || canon[eval.FMaxChord] > ChordCap {
		t.Errorf("canonical: doubles %.3f, largest chord %v (cap %d)", canon[eval.FDupShare], canon[eval.FMaxChord], ChordCap)
	}
}
