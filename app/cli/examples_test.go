package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// amt examples: usage errors exit 2 naming the problem; on exported shards
// it describes them, writes examples ahead, and serves them on its input
// (the stream's header first, then an answer per request).
func TestExamplesCommand(t *testing.T) {
	home := t.TempDir()
	mid := filepath.Join(t.TempDir(), "midi")
	os.MkdirAll(mid, 0o755)
	files, _ := filepath.Glob(filepath.Join("..", "..", "engine", "midi", "testdata", "*.mid"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(mid, filepath.Base(f)), b, 0o644)
	}
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb}
	main := func(stdin string, args ...string) int {
		out.Reset()
		errb.Reset()
		env.Stdin = strings.NewReader(stdin)
		return Main(context.Background(), env, args)
	}
	if code := main("", "ingest", mid, "--project", "p", "--home", home); code != 0 {
		t.Fatalf("ingest: %d %s", code, errb.String())
	}
	shards := filepath.Join(t.TempDir(), "shards")
	if code := main("", "datasets", "--project", "p", "--home", home, "--export", shards); code != 0 {
		t.Fatalf("export: %d %s", code, errb.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"examples", "--serve"}, "--shards is required"},
		{[]string{"examples", "--shards", shards, "--serve", "--write", "x"}, "exclude each other"},
		{[]string{"examples", "--shards", shards, "--key-frame", "relative"}, `"relative"`},
		{[]string{"examples", "--shards", shards, "--context", "1"}, "context 1"},
	} {
		if code := main("", c.args...); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
	if code := main("", "examples", "--shards", filepath.Join(shards, "none")); code != 1 || !strings.Contains(errb.String(), "none") {
		t.Errorf("missing shards: exit %d %q", code, errb.String())
	}
	if code := main("", "examples", "--shards", shards, "--context", "32"); code != 0 || !strings.Contains(out.String(), "cluster/train.py --shards") {
		t.Errorf("describe: exit %d %q %q", code, out.String(), errb.String())
	}
	ex := filepath.Join(t.TempDir(), "ex")
	if code := main("", "examples", "--shards", shards, "--context", "32", "--write", ex, "--examples", "16", "--json"); code != 0 || !strings.Contains(out.String(), `"format": "amt-examples"`) {
		t.Errorf("write: exit %d %q %q", code, out.String(), errb.String())
	}
	if code := main("train 0+3\n", "examples", "--shards", shards, "--context", "32", "--serve"); code != 0 ||
		!strings.HasPrefix(out.String(), "AMTS") || !strings.Contains(out.String(), "AMTR") {
		t.Errorf("serve: exit %d %q %q", code, out.String()[:min(out.Len(), 40)], errb.String())
	}
	if want := 12 + len("AMTR") + 8 + 3*4 + 3*33*2; out.Len() < want {
		t.Errorf("serve wrote %d bytes, header and 3 rows of 33 tokens need more than %d", out.Len(), want)
	}
}

// The size flags of amt datasets --export-examples and amt examples are
// bounded before any work: exit 2 naming the flag, the value and the
// limit, no folder made (`--batch 1000000000` died of "out of memory"
// with goroutine dumps and left a .pieces- folder; `--examples
// 1000000000000` started writing 500 TB).
func TestExamplesSizeLimits(t *testing.T) {
	home := t.TempDir()
	mid := filepath.Join(t.TempDir(), "midi")
	os.MkdirAll(mid, 0o755)
	files, _ := filepath.Glob(filepath.Join("..", "..", "engine", "midi", "testdata", "*.mid"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(mid, filepath.Base(f)), b, 0o644)
	}
	if code, _, se := runCLI("ingest", mid, "--project", "p", "--home", home); code != 0 {
		t.Fatalf("ingest: %d %s", code, se)
	}
	shards := filepath.Join(t.TempDir(), "shards")
	if code, _, se := runCLI("datasets", "--project", "p", "--home", home, "--export", shards); code != 0 {
		t.Fatalf("export: %d %s", code, se)
	}
	out := filepath.Join(t.TempDir(), "out")
	export := []string{"datasets", "--project", "p", "--home", home, "--export-examples", out}
	write := []string{"examples", "--shards", shards, "--write", out}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(export, "--batch", "1000000000"), "--batch 1000000000: allowed 1 to 1048576"},
		{append(export, "--examples", "1000000000000"), "--examples 1000000000000: allowed 1 to 1000000000"},
		{append(export, "--val-examples", "1000000000000"), "--val-examples 1000000000000: allowed -1 to 1000000000"},
		{append(export, "--context", "100000"), "--context 100000: allowed 2 to 16384"},
		{append(export, "--batch", "65536", "--context", "4096"), "--batch 65536 × --context 4096 = 268435456 tokens a batch: allowed at most 16777216"},
		{append(write, "--batch", "1000000000"), "--batch 1000000000: allowed 1 to 1048576"},
		{append(write, "--examples", "1000000000000"), "--examples 1000000000000: allowed 1 to 1000000000"},
		{append(write, "--val-examples", "1000000000000"), "--val-examples 1000000000000: allowed -1 to 1000000000"},
		{append(write, "--batch", "65536", "--context", "4096"), "tokens a batch: allowed at most 16777216"},
		{[]string{"examples", "--shards", shards, "--serve", "--workers", "100000"}, "--workers 100000: allowed 0 to 1024"},
		{[]string{"examples", "--shards", shards, "--context", "100000"}, "--context 100000: allowed 2 to 16384"},
	} {
		var so, se bytes.Buffer
		code := Main(context.Background(), &Env{Stdin: strings.NewReader(""), Stdout: &so, Stderr: &se}, c.args)
		if code != 2 || !strings.Contains(se.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args[len(c.args)-2:], code, se.String(), c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("%v: the folder was made: %v", c.args[len(c.args)-2:], err)
		}
	}
}
