package cli

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/app/internal/testfiles"
)

func TestParseTrainBenchConfig(t *testing.T) {
	def := app.DefaultTrainBenchConfig()
	c, err := parseTrainBenchConfig("batch=16, accum=2 prefetch=4 loaders=3 threads=1 device=CUDA precision=tf32", def)
	want := app.TrainBenchConfig{Batch: 16, Accum: 2, Prefetch: 4, LoaderWorkers: 3, Threads: 1, Device: "cuda", Precision: "tf32"}
	if err != nil || c != want {
		t.Fatalf("got %+v, %v; want %+v", c, err, want)
	}
	if c, err := parseTrainBenchConfig("", def); err != nil || c != def {
		t.Errorf("empty: %+v, %v", c, err)
	}
	for _, bad := range []string{"batch=0", "batch", "speed=2", "accum=x", "threads=-1"} {
		if _, err := parseTrainBenchConfig(bad, def); err == nil || !strings.Contains(err.Error(), bad[:min(5, len(bad))]) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// `amt bench train --compare` on the CPU: two configurations on the same
// data, the figures of both and the speed-up.
func TestBenchTrainCompareCommand(t *testing.T) {
	data := t.TempDir()
	testfiles.Shard(t, data)
	code, so, se := runCLI("bench", "train", "--data", data, "--preset", "tiny", "--context", "32", "--steps", "3", "--warmup", "1",
		"--rounds", "2", "--compare", "batch=2", "batch=4 accum=2 loaders=2 prefetch=3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se)
	}
	var r app.TrainBench
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
