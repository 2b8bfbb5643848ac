package app

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/eval"
)

// BenchmarkFineTunePianoMIDI is issue 34's speed floor: a fine-tune of the
// default model on a dataset of about 300 pieces (piano-midi.de's 337, of
// which 270 are learned from) with the fine-tune defaults, on the CPU,
// within 20 minutes on the 2-core machine. The baseline, measured in the
// same run just before, is 10 plain training steps of the same model at
// the same batch and context (the engine's tokens a second on this
// machine now), so a loaded machine's figure can be read against a quiet
// one's. One iteration (it takes minutes):
//
//	go test -run '^$' -bench FineTunePianoMIDI -benchtime 1x ./app
func BenchmarkFineTunePianoMIDI(b *testing.B) {
	data := corpus.Path(b, corpus.PianoMIDI)
	for b.Loop() {
		// Baseline: 10 steps from the default model, no validation.
		base := TrainSpec{From: FromDefault, Data: data, Out: filepath.Join(b.TempDir(), "base"), Steps: 10, ValEvery: 10,
			Patience: -1, Seed: 1, WeightDecay: 0.1, Clip: 1}
		var tps []float64
		if _, err := TrainModel(context.Background(), base, nil, func(e TrainEvent) {
			if e.Step > 0 {
				tps = append(tps, e.TokensPerSecond)
			}
		}); err != nil {
			b.Fatal(err)
		}
		spec := TrainSpec{From: FromDefault, Data: data, Out: filepath.Join(b.TempDir(), "tuned"), Seed: 1, WeightDecay: 0.1, Clip: 1}
		cpu0, _ := cpuSeconds()
		t0 := time.Now()
		res, err := TrainModel(context.Background(), spec, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		secs := time.Since(t0).Seconds()
		cpu1, _ := cpuSeconds()
		b.ReportMetric(secs, "s/fine-tune")
		b.ReportMetric(cpu1-cpu0, "cpu-s/fine-tune")
		b.ReportMetric(float64(res.Steps), "steps")
		b.ReportMetric(res.TokensPerSecond, "tokens/s")
		b.ReportMetric(eval.Median(tps), "baseline-tokens/s")
		b.Logf("%d pieces learned from, %d held out; %d steps (early stop %v), held-out loss %.4f → %.4f; %.0f s, %.0f CPU-s",
			res.TrainPieces, res.ValPieces, res.Steps, res.EarlyStopped, *res.BaseValLoss, *res.BestValLoss, secs, cpu1-cpu0)
	}
}
