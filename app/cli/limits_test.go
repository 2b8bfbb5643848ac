package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app/internal/testfiles"
)

// TestCommandNumbersChecked: numbers out of range on the command line are
// usage errors (exit 2) naming the flag, the value and the range, before
// any model is loaded or data read. Each was once accepted: a NaN
// temperature panicked, --val-frac 2 and --top-p 5 ran, --bars 100000
// ended silently at the token cap, --batch 100000 died out of memory.
func TestCommandNumbersChecked(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.mid")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"generate", "piano", "-o", out, "--temperature", "NaN"}, "--temperature NaN is not a finite number"},
		{[]string{"generate", "piano", "-o", out, "--temperature", "-1"}, "--temperature -1: allowed 0 to 100"},
		{[]string{"generate", "piano", "-o", out, "--top-p", "5"}, "--top-p 5: allowed 0 to 1"},
		{[]string{"generate", "piano", "-o", out, "--top-k", "-3"}, "--top-k -3: allowed 0 to 65536"},
		{[]string{"generate", "piano", "-o", out, "--bars", "100000"}, "--bars 100000: allowed 0 to 160"},
		{[]string{"generate", "piano", "-o", out, "--tokens", "-5"}, "--tokens -5"},
		{[]string{"generate", "--model", dir, "-o", out, "--temperature", "Inf"}, "--temperature +Inf"},
		{[]string{"eval-model", "--top-p", "NaN"}, "--top-p NaN"},
		{[]string{"generate", "piano", "-o", out, "--rhythm-bias", "-1"}, "--rhythm-bias -1: allowed 0 to 100"},
		{[]string{"eval-model", "--rhythm-bias", "NaN"}, "--rhythm-bias NaN"},
		{[]string{"train", "--data", dir, "--out", dir, "--lr", "NaN"}, "--lr NaN is not a finite number"},
		{[]string{"train", "--data", dir, "--out", dir, "--val-frac", "2"}, "--val-frac 2: allowed 0 to 0.5"},
		{[]string{"train", "--data", dir, "--out", dir, "--batch", "100000"}, "--batch 100000: allowed 1 to 4096"},
		{[]string{"train", "--data", dir, "--out", dir, "--batch", "4096", "--context", "4096"}, "tokens a micro-batch"},
		{[]string{"train", "--data", dir, "--out", dir, "--steps", "0"}, "--steps 0"},
		{[]string{"ingest", dir, "--project", "p", "--workers", "-2"}, "--workers -2"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("amt %s: exit %d, %q; want exit 2 naming %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}

// TestTrainFailureIsNotDone: a run whose final write fails (here the
// checkpoint's name is taken by a folder, as a full disk fails a write)
// exits 1 and does not print "done" (it printed "done: 2 steps…").
func TestTrainFailureIsNotDone(t *testing.T) {
	data, out := t.TempDir(), t.TempDir()
	testfiles.Shard(t, data)
	if err := os.Mkdir(filepath.Join(out, "checkpoint.safetensors"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, "checkpoint.safetensors", "x"), []byte("x"), 0o644)
	code, stdout, stderr := runCLI("train", "--data", data, "--out", out, "--preset", "tiny", "--steps", "2", "--batch", "2", "--context", "16", "--checkpoint-every", "0")
	if code != 1 || strings.Contains(stdout, "done") || !strings.Contains(stdout, "stopped at step 2") || !strings.Contains(stderr, "checkpoint.safetensors") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}
