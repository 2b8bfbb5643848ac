package app

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// writeTestShard writes a shard of pseudo-random pieces (BOS … EOS).
func writeTestShard(t *testing.T, dir string) {
	v := token.DefaultVocab()
	var bin, idx []byte
	off, x := uint64(0), uint32(7)
	for p := 0; p < 12; p++ {
		idx = binary.LittleEndian.AppendUint64(idx, off)
		toks := []uint16{v.BOS}
		for i := 0; i < 60; i++ {
			x = x*1664525 + 1013904223
			toks = append(toks, uint16(x>>16)%uint16(v.Size()))
		}
		toks = append(toks, v.EOS)
		for _, tk := range toks {
			bin = binary.LittleEndian.AppendUint16(bin, tk)
		}
		off += uint64(len(toks))
	}
	idx = binary.LittleEndian.AppendUint64(idx, off)
	os.WriteFile(filepath.Join(dir, "s.bin"), bin, 0o644)
	os.WriteFile(filepath.Join(dir, "s.idx"), idx, 0o644)
}

func TestTrainGenerateCommands(t *testing.T) {
	data, out := t.TempDir(), t.TempDir()
	writeTestShard(t, data)
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
