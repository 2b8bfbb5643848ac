package app

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/storage"
)

// Tokens/s are total tokens over total step time (not a mean of rates);
// stages are per step.
func TestFiguresOfEvents(t *testing.T) {
	ev := []train.Event{
		{TokensPerSecond: 1000, Stage: train.StageSeconds{Data: 0.1, Forward: 0.3, Backward: 0.5, Optimizer: 0.1}},
		{TokensPerSecond: 500, Stage: train.StageSeconds{Data: 0.3, Forward: 0.7, Backward: 0.9, Optimizer: 0.1}},
	}
	f := figuresOf(ev, 1000) // steps of 1 s and 2 s
	if f.Steps != 2 || math.Abs(f.TokensPerSecond-2000.0/3) > 1e-9 || math.Abs(f.StepSeconds-1.5) > 1e-12 {
		t.Errorf("figures %+v: want 666.67 tokens/s, 1.5 s a step", f)
	}
	if math.Abs(f.Stage.Forward-0.5) > 1e-12 || math.Abs(f.Stage.Data-0.2) > 1e-12 || f.Stage.Device {
		t.Errorf("stages %+v", f.Stage)
	}
}

// A stored run gives the same figures: the harmonic mean of its per-step
// rates after the first, its stage totals over the steps they cover.
func TestFiguresOfRunAndComparison(t *testing.T) {
	cfg, _ := json.Marshal(TrainJobConfig{Spec: TrainSpec{Batch: 8, Context: 64, Accum: 2, Device: "cuda", Precision: "bf16"}})
	run := storage.TrainRun{ID: 7, Config: cfg, Stages: RunStages(&TrainResult{Steps: 10, StartStep: 6,
		StageSeconds: train.StageSeconds{Data: 0.4, H2D: 0.04, Forward: 2, Backward: 4, Optimizer: 0.4, Device: true}})}
	ms := map[string][2][]float64{"tokens_per_s": {{1, 2, 3}, {50, 1000, 500}}}
	f := FiguresOfRun(run, ms)
	if f.Label != "run 7" || f.Steps != 2 || math.Abs(f.TokensPerSecond-2000.0/3) > 1e-9 || math.Abs(f.StepSeconds-1.536) > 1e-9 {
		t.Errorf("figures %+v: want 2 steps at 666.67 tokens/s (the first step left out), 1.536 s a step (8·64·2 tokens)", f)
	}
	if !f.Stage.Device || f.Stage.H2D != 0.01 || f.Stage.Forward != 0.5 || !strings.Contains(f.Config, "batch=8 accum=2") || !strings.Contains(f.Config, "precision=bf16") {
		t.Errorf("stages per step %+v, config %q", f.Stage, f.Config)
	}
	g := TrainFigures{Label: "run 8", Config: "batch=8", TokensPerSecond: 1000, StepSeconds: 0.5, Stage: train.StageSeconds{Forward: 0.25}}
	if s := Speedup(f, g); math.Abs(s-1.5) > 1e-9 {
		t.Errorf("speed-up %v, want 1.5", s)
	}
	var out bytes.Buffer
	WriteTrainComparison(&out, f, g)
	for _, want := range []string{"tokens/s", "667", "1000", "host→device", "10.0 ms", "1536.0 ms", "500.0 ms", "device events", "host clock", "speed-up: run 8 is 1.50× run 7"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, out.String())
		}
	}
}
