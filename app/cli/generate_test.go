package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app"
)

// Compose with no model folder uses the embedded default model on the
// prompt path, so it writes byte for byte the MIDI file that `amt generate
// "PROMPT" --seed S` writes; another seed gives another piece.
func TestComposeDefaultModelMatchesGenerateCLI(t *testing.T) {
	s, err := app.OpenStudio(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const prompt = "a gentle folk tune in G major for flute, 100 bpm, 4 bars"
	res, err := s.Compose(context.Background(), app.ComposeRequest{Prompt: prompt,
		SampleSettings: app.SampleSettings{Temperature: app.DefaultTemperature, TopP: app.DefaultTopP, Seed: 11}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Piece.Model != app.EmbeddedModelDir || res.Requested.Bars != 4 || res.Requested.KeyTonic != 7 {
		t.Errorf("piece model %q, requested %+v", res.Piece.Model, res.Requested)
	}
	gui, err := os.ReadFile(res.Piece.Abs)
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []string{"11", "12"} {
		out := filepath.Join(t.TempDir(), "cli.mid")
		var stdout, stderr bytes.Buffer
		if code := Main(context.Background(), &Env{Stdout: &stdout, Stderr: &stderr}, []string{"generate", prompt, "-o", out, "--seed", seed}); code != 0 {
			t.Fatalf("amt generate: exit %d: %s", code, stderr.String())
		}
		cli, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if same := bytes.Equal(gui, cli); same != (seed == "11") {
			t.Errorf("seed %s: GUI and CLI files equal = %v (%d and %d bytes)", seed, same, len(gui), len(cli))
		}
	}
}

// amt generate --continue names a file it cannot read.
func TestContinueMissingFileNamed(t *testing.T) {
	dir := t.TempDir()
	if err := app.WriteRandomModel(dir, "tiny", 3); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI("generate", "--model", dir, "--continue", filepath.Join(dir, "nope.mid"), "-o", filepath.Join(dir, "x.mid"))
	if code == 0 || !strings.Contains(errOut, "nope.mid") {
		t.Errorf("missing file: exit %d, %q", code, errOut)
	}
}
