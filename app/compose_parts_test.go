package app

import (
	"context"
	"testing"
)

// The parts lever on the embedded model: a string quartet and a piano
// trio, one candidate each, seeds 1–2. The default decoding gives every
// requested instrument a part (half the bars, 1 note per 2 bars: engine/eval
// parts.go); the same decoding without the lever leaves the model's
// cameos (the viola and the cello one note each, issue 33).
func TestLeverParts(t *testing.T) {
	m, err := loadEmbedded()
	if err != nil {
		t.Skip(err)
	}
	defer m.Close()
	without := (DefaultLevers &^ LeverParts) | LeversSet
	var real, realWithout, asked int
	for _, prompt := range []string{"a string quartet in G major", "a piano trio: piano, violin and cello"} {
		for seed := uint64(1); seed <= 2; seed++ {
			for _, l := range []Levers{0, without} {
				r, err := GenerateFromPrompt(context.Background(), m, PromptRequest{Prompt: prompt, Bars: 16, Seed: seed, KeyBias: DefaultKeyBias, Candidates: 1, Levers: l})
				if err != nil {
					t.Fatal(err)
				}
				ps := r.Adherence.Parts
				if ps == nil {
					t.Fatalf("%q: no parts check", prompt)
				}
				if l == 0 {
					real += ps.Real
					asked += ps.Requested
					if ps.Real != ps.Requested || ps.Cameos != 0 {
						t.Errorf("%q seed %d: %s", prompt, seed, PartsSummary(&r.Adherence))
					}
				} else {
					realWithout += ps.Real
				}
			}
		}
	}
	t.Logf("parts with the lever %d of %d, without %d", real, asked, realWithout)
	if realWithout == asked {
		t.Error("every part played without the lever: the test cannot tell")
	}
}
