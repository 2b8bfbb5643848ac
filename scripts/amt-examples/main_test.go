package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app/cli"
	"github.com/amtstudio/amt/engine/pipeline"
	"github.com/amtstudio/amt/engine/token"
)

// The headless source takes amt examples' arguments (a leading "examples"
// too): it describes shards, serves them, and refuses bad options with
// exit status 2 and a message naming the value.
func TestHeadlessSource(t *testing.T) {
	if os.Getenv("AMT_EXAMPLES_CHILD") == "1" {
		os.Exit(run(strings.Fields(os.Getenv("AMT_EXAMPLES_ARGS"))))
	}
	v := token.DefaultVocab()
	dir := t.TempDir()
	// two pieces: BOS, SEP, a bar, EOS (the header only counts them)
	bar, _ := v.Range(token.KindBar)
	piece := []uint16{v.BOS, v.SEP, bar, v.EOS}
	if _, err := pipeline.WriteShard(dir, "s", [][]uint16{piece, piece}); err != nil {
		t.Fatal(err)
	}
	v.Save(filepath.Join(dir, "vocab.json"))
	child := func(stdin string, args ...string) (string, int) {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestHeadlessSource$")
		cmd.Env = append(os.Environ(), "AMT_EXAMPLES_CHILD=1", "AMT_EXAMPLES_ARGS="+strings.Join(args, " "))
		cmd.Stdin = strings.NewReader(stdin)
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	if out, code := child("", "examples", "--shards", dir, "--context", "16"); code != 0 || !strings.Contains(out, `"format": "amt-example-stream"`) || !strings.Contains(out, `"pieces": 2`) {
		t.Errorf("describe: exit %d\n%s", code, out)
	}
	if out, code := child("", "--shards", dir, "--context", "1"); code != 2 || !strings.Contains(out, "context 1") {
		t.Errorf("context 1: exit %d\n%s", code, out)
	}
	if out, code := child("", "--context", "16"); code != 2 || !strings.Contains(out, "--shards is required") {
		t.Errorf("no shards: exit %d\n%s", code, out)
	}
	if out, code := child("", "--shards", filepath.Join(dir, "none"), "--serve"); code != 1 || !strings.Contains(out, "none") {
		t.Errorf("missing folder: exit %d\n%s", code, out)
	}
	if out, code := child("val 0\n", "--shards", dir, "--serve", "--val-frac", "0"); code != 1 || !strings.Contains(out, "AMTS") || !strings.Contains(out, "val split has no pieces") {
		t.Errorf("serve, a request it refuses: exit %d\n%s", code, out)
	}
}

// The headless source's flags are amt examples' flags, same names, help and
// defaults (each block of its --help appears in amt's), but for amt's own
// --write, --examples, --val-examples and --json.
func TestFlagsMatchAmtExamples(t *testing.T) {
	if os.Getenv("AMT_EXAMPLES_CHILD") == "1" {
		return // the child of TestHeadlessSource runs only that test
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHeadlessSource$")
	cmd.Env = append(os.Environ(), "AMT_EXAMPLES_CHILD=1", "AMT_EXAMPLES_ARGS=--help")
	out, _ := cmd.CombinedOutput()
	var amt bytes.Buffer
	cli.Main(context.Background(), &cli.Env{Stdout: &amt, Stderr: &amt}, []string{"examples", "--help"})
	blocks := strings.Split(string(out), "\n  -")
	if len(blocks) < 12 {
		t.Fatalf("headless --help:\n%s", out)
	}
	for _, b := range blocks[1:] {
		b = strings.TrimRight(b, "\n")
		if !strings.Contains(amt.String(), "  -"+b) {
			t.Errorf("amt examples has no flag\n  -%s", b)
		}
	}
}
