package app

import (
	"context"
	"os"
	"testing"
)

// BenchmarkGenerate16Bars: one 16-bar piece on the prompt path (grammar,
// form, refills, decoding, measuring) with one candidate, from the model in
// $AMT_BENCH_MODEL (default: the embedded one), stepping in float32
// ("decoding=float32", Model.Exact) and with the compact sampler
// ("decoding=compact", the default). The two sample different pieces (the
// logits differ in the last bits), so compare tokens/s; s/piece follows the
// pieces' lengths.
func BenchmarkGenerate16Bars(b *testing.B) {
	load := loadEmbedded
	if dir := os.Getenv("AMT_BENCH_MODEL"); dir != "" {
		load = func() (*Model, error) { return LoadModel(dir) }
	}
	for _, exact := range []bool{true, false} {
		name := "decoding=compact"
		if exact {
			name = "decoding=float32"
		}
		b.Run(name, func(b *testing.B) {
			m, err := load()
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			m.Exact = exact
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
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/piece")
		})
	}
}

// BenchmarkCandidates16Bars: the prompt path's default decoding (key bias,
// up to DefaultCandidates candidates) over the first 8 prompts of the suite,
// 16 bars each, with candidates one by one ("lanes=1") and side by side on
// the machine's cores ("lanes=max", compose_lanes.go; the same pieces, bit for
// bit), each stepping in float32 ("float32", Model.Exact) and with the
// compact sampler ("compact", the default). Reported: seconds per piece
// (wall), and tokens sampled per second over all candidates.
func BenchmarkCandidates16Bars(b *testing.B) {
	prompts, err := ReadSuite("../testdata/prompts/suite.txt")
	if err != nil {
		b.Fatal(err)
	}
	prompts = prompts[:8]
	for _, exact := range []bool{true, false} {
		for _, lanes := range []int{1, MaxLanes} {
			name := "float32"
			if !exact {
				name = "compact"
			}
			if lanes > 1 {
				name += "/lanes=max"
			} else {
				name += "/lanes=1"
			}
			b.Run(name, func(b *testing.B) {
				m, err := loadEmbedded()
				if err != nil {
					b.Skip(err)
				}
				defer m.Close()
				m.Exact = exact
				defer func(l int) { laneLimit = l }(laneLimit)
				laneLimit = lanes
				bench16Bars(b, m, prompts, 0)
			})
		}
	}
}

// BenchmarkLevers16Bars: the default decoding (compact, candidates side by
// side) over the first 8 prompts of the suite, 16 bars each, without the
// levers of issue 24 ("levers=none", the decoding before them) and with
// the default ones ("levers=default"), in one run so the ratio holds
// whatever the machine's load. Reported: seconds per piece (wall) and
// tokens sampled per second. AMT_BENCH_MODEL names another model folder.
func BenchmarkLevers16Bars(b *testing.B) {
	prompts, err := ReadSuite("../testdata/prompts/suite.txt")
	if err != nil {
		b.Fatal(err)
	}
	prompts = prompts[:8]
	load := loadEmbedded
	if dir := os.Getenv("AMT_BENCH_MODEL"); dir != "" {
		load = func() (*Model, error) { return LoadModel(dir) }
	}
	for _, lv := range []Levers{LeversSet, 0} {
		b.Run("levers="+map[bool]string{true: "none", false: "default"}[lv == LeversSet], func(b *testing.B) {
			m, err := load()
			if err != nil {
				b.Skip(err)
			}
			defer m.Close()
			bench16Bars(b, m, prompts, lv)
		})
	}
}

// bench16Bars generates 16 bars for each prompt b.N times with the default
// decoding and levers lv (seed i·100 + k + 1 for prompt k of round i) and
// reports seconds per piece (wall) and tokens sampled per second over all
// candidates.
func bench16Bars(b *testing.B, m *Model, prompts []string, lv Levers) {
	b.Helper()
	pieces, toks := 0, 0
	for i := 0; i < b.N; i++ {
		for k, p := range prompts {
			r, err := GenerateFromPrompt(context.Background(), m, PromptRequest{Prompt: p, Bars: 16, Seed: uint64(i*100 + k + 1),
				KeyBias: DefaultKeyBias, Candidates: DefaultCandidates, Levers: lv})
			if err != nil {
				b.Fatal(err)
			}
			pieces++
			toks += r.Sampled
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(pieces), "s/piece")
	b.ReportMetric(float64(toks)/b.Elapsed().Seconds(), "tokens/s")
}
