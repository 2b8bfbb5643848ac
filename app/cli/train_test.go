package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/engine/midi"
)

func TestTrainGenerateCommands(t *testing.T) {
	data, out := t.TempDir(), t.TempDir()
	testfiles.Shard(t, data)
	run := func(args ...string) (string, int) {
		var so, se bytes.Buffer
		code := Main(context.Background(), &Env{Stdout: &so, Stderr: &se}, args)
		if code != 0 {
			t.Logf("stderr: %s", se.String())
		}
		return so.String(), code
	}
	so, code := run("train", "--data", data, "--out", out, "--preset", "tiny", "--steps", "4", "--batch", "2", "--context", "32",
		"--val-every", "2", "--checkpoint-every", "2", "--json", "--profile", filepath.Join(out, "prof"))
	if code != 0 {
		t.Fatalf("train exit %d: %s", code, so)
	}
	lines := strings.Split(strings.TrimSpace(so), "\n")
	if len(lines) != 5 {
		t.Fatalf("want 4 step lines and a final object, got %d lines:\n%s", len(lines), so)
	}
	var final map[string]any
	if err := json.Unmarshal([]byte(lines[4]), &final); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"params", "tokens_per_second", "train_loss", "val_loss", "peak_rss_mb", "stage_seconds"} {
		if _, ok := final[k]; !ok {
			t.Errorf("final object lacks %s: %s", k, lines[4])
		}
	}
	for _, f := range []string{"config.json", "model.safetensors", "vocab.json", "checkpoint.safetensors", "prof/cpu.pprof", "prof/trace.out"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	// Resume to 6 steps.
	if so, code = run("train", "--data", data, "--out", out, "--preset", "tiny", "--steps", "6", "--batch", "2", "--context", "32",
		"--val-every", "2", "--checkpoint-every", "2", "--json", "--resume"); code != 0 || !strings.Contains(so, `"start_step":4`) {
		t.Fatalf("resume exit %d: %s", code, so)
	}
	mid := filepath.Join(out, "g.mid")
	so, code = run("generate", "--model", out, "--tokens", "200", "--seed", "5", "-o", mid, "--json")
	if code != 0 {
		t.Fatalf("generate exit %d: %s", code, so)
	}
	if _, err := midi.ReadFile(mid); err != nil {
		t.Fatalf("generated MIDI does not parse: %v", err)
	}
	// Usage errors.
	if _, code = run("train", "--out", out); code != 2 {
		t.Fatalf("train without --data: exit %d, want 2", code)
	}
	if _, code = run("generate", "--model", filepath.Join(out, "nope"), "-o", mid); code != 1 {
		t.Fatalf("generate with a missing model: exit %d, want 1", code)
	}
}

// TestTrainFromDefault: `amt train --from default` fine-tunes the embedded
// model on MIDI files with the fine-tune defaults for the flags not given:
// the base's held-out loss first, the kept weights and the lineage at the
// end; --preset and --patience are usage errors where they do not apply.
func TestTrainFromDefault(t *testing.T) {
	data, out := t.TempDir(), filepath.Join(t.TempDir(), "tuned")
	testfiles.Corpus(t, data, 24)
	run := func(args ...string) (string, string, int) {
		var so, se bytes.Buffer
		code := Main(context.Background(), &Env{Stdout: &so, Stderr: &se}, args)
		return so.String(), se.String(), code
	}
	so, se, code := run("train", "--from", "default", "--data", data, "--out", out, "--steps", "2", "--batch", "2", "--val-every", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, so, se)
	}
	for _, want := range []string{"model fine-tune of the default model", "24 pieces", "2 steps of 2 × 256 tokens", "step 0/2: the base model's held-out loss",
		"step 2/2", "held-out loss", "(default model) ->", "model in " + out} {
		if !strings.Contains(so, want) {
			t.Errorf("output lacks %q:\n%s", want, so)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "lineage.json")); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--from", "default", "--preset", "tiny", "--data", data, "--out", out}, "--preset with --from"},
		{[]string{"train", "--patience", "2", "--preset", "tiny", "--data", data, "--out", out}, "--patience needs --from"},
		{[]string{"train", "--from", "default", "--patience", "-2", "--data", data, "--out", out}, "--patience -2"},
	} {
		if _, se, code := run(c.args...); code != 2 || !strings.Contains(se, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 saying %q", c.args, code, se, c.want)
		}
	}
}

// TestTrainReportCommand: `amt train-report` on a tiny fine-tune prints
// each figure before and after with the floors; `amt eval-model
// --two-sample --copies DIR` prints the copying line; a model without a
// lineage is refused by name.
func TestTrainReportCommand(t *testing.T) {
	data, out := t.TempDir(), filepath.Join(t.TempDir(), "tuned")
	testfiles.Corpus(t, data, 30)
	run := func(args ...string) (string, string, int) {
		var so, se bytes.Buffer
		code := Main(context.Background(), &Env{Stdout: &so, Stderr: &se}, args)
		return so.String(), se.String(), code
	}
	if so, se, code := run("train", "--from", "default", "--data", data, "--out", out, "--steps", "2", "--batch", "2", "--val-every", "1"); code != 0 {
		t.Fatalf("train: exit %d: %s%s", code, so, se)
	}
	so, se, code := run("train-report", "--model", out, "--per-group", "5", "--bars", "2", "--save", filepath.Join(t.TempDir(), "r.json"))
	if code != 0 {
		t.Fatalf("train-report: exit %d: %s%s", code, so, se)
	}
	for _, want := range []string{"the default model tuned on " + filepath.Base(data), "before (base)", "after (tuned)", "held-out loss", "told from the held-out pieces",
		"asked key kept (CK)", "copying ≤ 2 bars in a row", "floors (issue 34)", "two-sample fall"} {
		if !strings.Contains(so, want) {
			t.Errorf("report lacks %q:\n%s", want, so)
		}
	}
	if _, se, code := run("train-report", "--model", data); code != 1 || !strings.Contains(se, "not a finished fine-tune") {
		t.Errorf("a folder without a lineage: exit %d, %q", code, se)
	}
	so, se, code = run("eval-model", "--two-sample", "--real", data, "--per-group", "5", "--bars", "2", "--candidates", "1", "--folds", "2", "--repeats", "1", "--copies", data)
	if code != 0 || !strings.Contains(so, "copying: ") || !strings.Contains(so, "longest run of bars copied") {
		t.Errorf("eval-model --copies: exit %d:\n%s%s", code, so, se)
	}
	if _, se, code := run("eval-model", "--copies", data); code != 2 || !strings.Contains(se, "add --two-sample") {
		t.Errorf("--copies without --two-sample: exit %d, %q", code, se)
	}
}
