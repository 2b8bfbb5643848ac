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

func TestParseTrainBenchConfig(t *testing.T) {
	def := DefaultTrainBenchConfig()
	c, err := ParseTrainBenchConfig("batch=16, accum=2 prefetch=4 loaders=3 threads=1 device=CUDA precision=tf32", def)
	want := TrainBenchConfig{Batch: 16, Accum: 2, Prefetch: 4, LoaderWorkers: 3, Threads: 1, Device: "cuda", Precision: "tf32"}
	if err != nil || c != want {
		t.Fatalf("got %+v, %v; want %+v", c, err, want)
	}
	if c, err := ParseTrainBenchConfig("", def); err != nil || c != def {
		t.Errorf("empty: %+v, %v", c, err)
	}
	for _, bad := range []string{"batch=0", "batch", "speed=2", "accum=x", "threads=-1"} {
		if _, err := ParseTrainBenchConfig(bad, def); err == nil || !strings.Contains(err.Error(), bad[:min(5, len(bad))]) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

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

// `amt bench train --compare` on the CPU: two configurations on the same
// data, the figures of both and the speed-up.
func TestBenchTrainCompareCommand(t *testing.T) {
	data := t.TempDir()
	writeTestShard(t, data)
	code, so, se := runCLI("bench", "train", "--data", data, "--preset", "tiny", "--context", "32", "--steps", "3", "--warmup", "1",
		"--rounds", "2", "--compare", "batch=2", "batch=4 accum=2 loaders=2 prefetch=3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se)
	}
	var r TrainBench
	if err := json.Unmarshal([]byte(so), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Runs) != 2 || r.Runs[0].Steps != 3 || r.Runs[1].Steps != 3 || r.Speedup <= 0 || r.Rounds != 2 {
		t.Fatalf("result %+v", r)
	}
	if math.Abs(r.Speedup-r.Runs[1].TokensPerSecond/r.Runs[0].TokensPerSecond) > 1e-9 {
		t.Errorf("speed-up %v is not B/A", r.Speedup)
	}
	for _, f := range r.Runs {
		if f.TokensPerSecond <= 0 || f.Stage.Forward <= 0 || f.Stage.Backward <= 0 || f.Device == "" ||
			f.TokensPerSecond != f.Spread[1] || f.Spread[0] > f.Spread[1] {
			t.Errorf("run %s: %+v", f.Label, f)
		}
	}
	if r.Runs[1].Config != "batch=4 accum=2 prefetch=3 loaders=2 device=cpu" {
		t.Errorf("config B %q", r.Runs[1].Config)
	}
	code, so, _ = runCLI("bench", "train", "--data", data, "--preset", "tiny", "--context", "32", "--steps", "2", "--warmup", "0",
		"--compare", "batch=2 threads=1")
	if code != 0 || !strings.Contains(so, "speed-up: B is") || !strings.Contains(so, "A: batch=8 accum=1") {
		t.Errorf("text form (one configuration against the defaults), exit %d:\n%s", code, so)
	}
	if code, _, se = runCLI("bench", "train", "--data", data, "--compare", "a", "b", "c"); code != 2 {
		t.Errorf("three configurations: exit %d %s", code, se)
	}
	if code, _, se = runCLI("bench", "train", "--data", data, "batch=2 device=cpu precision=bf16"); code == 0 || !strings.Contains(se, "precision bf16 applies to the GPU") {
		t.Errorf("precision on the CPU: exit %d %s", code, se)
	}
}
