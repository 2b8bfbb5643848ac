package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIsTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if isTerminal(f) || isTerminal(w) || isTerminal(&strings.Builder{}) {
		t.Error("a file, a pipe or a buffer taken for a terminal")
	}
	// The master side of a pseudo-terminal is a character device, as a
	// terminal is.
	if pt, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0); err == nil {
		defer pt.Close()
		if !isTerminal(pt) {
			t.Error("/dev/ptmx not taken for a terminal")
		}
	}
}

// `amt render` with its stderr in a file (a log, CI) writes no carriage
// return: the progress line is drawn only on a terminal.
func TestRenderProgressOnlyOnTerminal(t *testing.T) {
	in := writeA4(t)
	dir := t.TempDir()
	logf, err := os.Create(filepath.Join(dir, "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	code := Main(context.Background(), &Env{Stdout: &out, Stderr: logf}, []string{"render", in, "--builtin", "-o", filepath.Join(dir, "a4.wav")})
	logf.Close()
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	log, err := os.ReadFile(logf.Name())
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(string(log)+out.String(), "\r\033") {
		t.Errorf("carriage return or escape written to a file: stderr %q stdout %q", log, out.String())
	}
	if !strings.Contains(out.String(), "a4.wav") {
		t.Errorf("result line missing: %q", out.String())
	}
}
