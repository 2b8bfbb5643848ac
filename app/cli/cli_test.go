package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Main(context.Background(), &Env{Stdout: &o, Stderr: &e}, args)
	return code, o.String(), e.String()
}

func TestHelpListsCommands(t *testing.T) {
	code, out, _ := runCLI("help")
	if code != 0 || !strings.Contains(out, "bench") {
		t.Fatalf("help: code %d, output %q", code, out)
	}
	if code, _, _ := runCLI(); code != 0 {
		t.Errorf("no args: code %d", code)
	}
}

func TestUnknownCommandFails(t *testing.T) {
	code, out, errOut := runCLI("frobnicate")
	if code != 2 || out != "" || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, _, _ := runCLI("help", "frobnicate"); code != 2 {
		t.Errorf("help frobnicate: code %d, want 2", code)
	}
}

func TestParseInterleaved(t *testing.T) {
	c := &Command{Name: "x", Usage: "x FILE"}
	env := &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	fs := NewFlags(env, c)
	js := fs.Bool("json", false, "")
	n := fs.Int("n", 0, "")
	pos, err := ParseInterleaved(fs, []string{"a.mid", "--json", "b.mid", "-n", "3", "--", "-c.mid"})
	if err != nil {
		t.Fatal(err)
	}
	if !*js || *n != 3 || strings.Join(pos, ",") != "a.mid,b.mid,-c.mid" {
		t.Fatalf("json=%v n=%d pos=%v", *js, *n, pos)
	}
	fs = NewFlags(env, c)
	fs.Int("n", 0, "")
	if _, err := ParseInterleaved(fs, []string{"-n", "x"}); !errors.Is(err, ErrUsage) {
		t.Fatalf("bad flag: err %v, want ErrUsage", err)
	}
}

func TestCommandErrorsGoToStderr(t *testing.T) {
	c := &Command{Name: "failing-test-cmd", Usage: "failing-test-cmd", Summary: "test",
		Run: func(ctx context.Context, env *Env, args []string) error { return errors.New("boom: song.mid") }}
	Register(c)
	defer delete(commands, c.Name)
	code, out, errOut := runCLI("failing-test-cmd")
	if code != 1 || out != "" || !strings.Contains(errOut, "boom: song.mid") {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestBenchListsAndRejectsUnknown(t *testing.T) {
	if code, out, _ := runCLI("bench"); code != 0 || !strings.Contains(out, "usage: amt bench") {
		t.Fatalf("bench: code %d out %q", code, out)
	}
	if code, _, errOut := runCLI("bench", "nope"); code != 2 || !strings.Contains(errOut, "unknown benchmark") {
		t.Fatalf("bench nope: code %d err %q", code, errOut)
	}
}
