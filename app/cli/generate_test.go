package cli

import (
	"bytes"
	"context"
	"encoding/json"
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

// An output of amt generate that is its input or its other output is
// refused before any work (exit 2, naming both), whatever names it (a
// symlink to the input is the input), and --wav wants a .wav name: the
// MIDI file read by --continue or --regenerate keeps its bytes and no
// output is created. The model-only form (--model DIR, no prompt) checks
// the same.
func TestGenerateOutputsApart(t *testing.T) {
	model := t.TempDir()
	if err := app.WriteRandomModel(model, "tiny", 3); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "engine", "midi", "testdata", "hand.mid"))
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.mid")
	link := filepath.Join(dir, "link.wav")
	if err := os.WriteFile(in, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	x := func(name string) string { return filepath.Join(dir, name) }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"piano, 2 bars", "-o", x("x.mid"), "--wav", x("x.mid")}, "--wav " + x("x.mid") + ": the output must be a .wav file"},
		{[]string{"piano, 2 bars", "-o", x("x.wav"), "--wav", x("x.wav")}, "--wav " + x("x.wav") + " is the same file as -o " + x("x.wav")},
		{[]string{"--continue", in, "--bars", "1", "-o", in}, "-o " + in + " is the same file as --continue " + in},
		{[]string{"--continue", in, "--bars", "1", "-o", x("c.mid"), "--wav", link}, "--wav " + link + " is the same file as --continue " + in},
		{[]string{"--regenerate", "1-1", in, "-o", x("r.mid"), "--wav", link}, "--wav " + link + " is the same file as --regenerate's file " + in},
		{[]string{"--model", model, "-o", x("m.wav"), "--wav", x("m.wav")}, "--wav " + x("m.wav") + " is the same file as -o " + x("m.wav")},
		{[]string{"--model", model, "-o", x("m.mid"), "--wav", x("m.mid")}, "the output must be a .wav file"},
	} {
		code, _, errOut := runCLI(append([]string{"generate"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
		if got, _ := os.ReadFile(in); !bytes.Equal(got, src) {
			t.Fatalf("%v: the input changed (%d bytes, was %d)", c.args, len(got), len(src))
		}
		for _, f := range []string{"x.mid", "x.wav", "c.mid", "r.mid", "m.wav", "m.mid"} {
			if _, err := os.Lstat(x(f)); err == nil {
				t.Errorf("%v: %s was written", c.args, f)
				os.Remove(x(f))
			}
		}
	}
}

// `amt generate --model DIR` without a prompt accepts every flag --help
// lists and does what each says: --wav renders the piece; --bars, --form,
// --candidates, --levers, --key-bias and --rhythm-bias take the prompt
// path with an empty prompt (the piece has the bars and the form asked);
// --form that does not fit the bars is a usage error before any sampling.
func TestGenerateModelOnlyFlags(t *testing.T) {
	model := t.TempDir()
	if err := app.WriteRandomModel(model, "tiny", 3); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mid, wav := filepath.Join(dir, "m.mid"), filepath.Join(dir, "m.wav")
	code, so, se := runCLI("generate", "--model", model, "-o", mid, "--wav", wav, "--tokens", "200", "--seed", "1", "--json")
	if code != 0 {
		t.Fatalf("--wav: exit %d: %s", code, se)
	}
	var r GenerateResult
	if err := json.Unmarshal([]byte(so), &r); err != nil || r.WAV != wav {
		t.Errorf("--wav: %v %+v", err, r)
	}
	if b, err := os.ReadFile(wav); err != nil || len(b) < 44 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		t.Errorf("--wav wrote no WAV file: %v", err)
	}
	code, so, se = runCLI("generate", "--model", model, "-o", mid, "--bars", "8", "--form", "AABA", "--candidates", "2", "--levers", "none",
		"--key-bias", "0.5", "--rhythm-bias", "0.5", "--tokens", "1200", "--seed", "2", "--json")
	if code != 0 {
		t.Fatalf("prompt path flags: exit %d: %s", code, se)
	}
	var p PromptGenerateJSON
	if err := json.Unmarshal([]byte(so), &p); err != nil {
		t.Fatalf("%v: %s", err, so)
	}
	if p.Requested.Bars != 8 || !strings.HasPrefix(p.Form, "AABA") || p.Candidates < 1 || p.Candidates > 2 || p.Levers != "none" {
		t.Errorf("requested %d bars, form %q, %d candidates, levers %q; want 8, AABA, 1-2, none", p.Requested.Bars, p.Form, p.Candidates, p.Levers)
	}
	if p.Measured.Bars > 8 {
		t.Errorf("the piece has %.1f bars, more than the 8 asked", p.Measured.Bars)
	}
	code, _, se = runCLI("generate", "--model", model, "-o", mid, "--bars", "4", "--form", "AABA")
	if code != 2 || !strings.Contains(se, "--form AABA") || !strings.Contains(se, "8 bars") {
		t.Errorf("--form AABA --bars 4: exit %d, %q", code, se)
	}
}

// --regenerate A-B beyond the piece's bars is a usage error (exit 2)
// naming the flag, the range and the bars the piece has, before any
// sampling; nothing is written.
func TestGenerateRegenerateRange(t *testing.T) {
	model := t.TempDir()
	if err := app.WriteRandomModel(model, "tiny", 3); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.mid")
	// hand.mid is 1.7 bars of 4/4: bars 1-2.
	in := filepath.Join("..", "..", "engine", "midi", "testdata", "hand.mid")
	code, _, se := runCLI("generate", "--model", model, "--regenerate", "5-9", in, "-o", out)
	if code != 2 || !strings.Contains(se, "--regenerate 5-9") || !strings.Contains(se, "bars 1-2") {
		t.Errorf("exit %d, %q; want 2 naming --regenerate 5-9 and bars 1-2", code, se)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was written", out)
	}
}
