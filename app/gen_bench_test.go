package app

import (
	"context"
	"os"
	"testing"
)

// BenchmarkGenerate16Bars: one 16-bar piece on the prompt path (grammar,
// form, refills, decoding, measuring) with one candidate, from the model in
// $AMT_BENCH_MODEL (default: the embedded one). Reported: tokens/s.
func BenchmarkGenerate16Bars(b *testing.B) {
	m, err := DefaultModel()
	if dir := os.Getenv("AMT_BENCH_MODEL"); dir != "" {
		m, err = LoadModel(dir)
	}
	if err != nil {
		b.Fatal(err)
	}
	toks := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := GenerateFromPrompt(context.Background(), m, PromptRequest{Prompt: "an upbeat pop song with piano, bass and drums", Bars: 16,
			Seed: uint64(i + 1), Candidates: 1, KeyBias: DefaultKeyBias})
		if err != nil {
			b.Fatal(err)
		}
		toks += r.New
	}
	b.ReportMetric(float64(toks)/b.Elapsed().Seconds(), "tokens/s")
	b.ReportMetric(float64(toks)/float64(b.N), "tokens/piece")
}
