package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/engine/audio"
	"github.com/amtstudio/amt/engine/midi"
)

// writeA4 writes a one-note MIDI file: A4 for one beat at 120 bpm (0.5 s).
func writeA4(t *testing.T) string {
	t.Helper()
	s := &midi.Score{Format: 1, TicksPerBeat: 480, EndTick: 480,
		Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}},
		Tracks: []midi.Track{{Name: "piano", Notes: []midi.Note{{Tick: 0, Dur: 480, Pitch: 69, Velocity: 100}}}}}
	p := filepath.Join(t.TempDir(), "a4.mid")
	if err := midi.WriteFile(p, s); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRenderCommand(t *testing.T) {
	in := writeA4(t)
	out := filepath.Join(t.TempDir(), "a4.wav")
	code, stdout, stderr := runCLI("render", in, "--builtin", "-o", out, "--json", "--bits", "24", "--rate", "48000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res app.RenderResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if res.SoundFont != "built-in" || res.SampleRate != 48000 || res.Notes != 1 || res.Peak <= 0 || res.Peak > 1 || res.RMS <= 0 {
		t.Errorf("result %+v", res)
	}
	// 0.5 s of note plus the piano's release tail, at most.
	if res.AudioSeconds < 0.5 || res.AudioSeconds > 1 || res.CPUSeconds <= 0 || res.RealtimeFactor <= 0 {
		t.Errorf("audio %.3f s, cpu %.3f s, rtf %.1f", res.AudioSeconds, res.CPUSeconds, res.RealtimeFactor)
	}
	for _, key := range []string{"audio_seconds", "cpu_seconds", "realtime_factor", "peak", "rms", "soundfont"} {
		if !strings.Contains(stdout, `"`+key+`"`) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	pcm, err := audio.ReadWAV(out)
	if err != nil {
		t.Fatal(err)
	}
	if pcm.SampleRate != 48000 || math.Abs(pcm.Seconds()-res.AudioSeconds) > 1e-3 || math.Abs(pcm.Peak()-res.Peak) > 1e-5 {
		t.Errorf("WAV: %d Hz, %.3f s, peak %.4f; result peak %.4f", pcm.SampleRate, pcm.Seconds(), pcm.Peak(), res.Peak)
	}
}

func TestRenderCommandErrors(t *testing.T) {
	in := writeA4(t)
	dir := t.TempDir()
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"render", in}, 2, "-o OUT.wav is required"},
		{[]string{"render", in, "-o", filepath.Join(dir, "x.mp3")}, 2, ".wav"},
		{[]string{"render", in, "-o", filepath.Join(dir, "x.wav"), "--builtin", "--soundfont", "a.sf2"}, 2, "exclude"},
		{[]string{"render", in, "-o", filepath.Join(dir, "x.wav"), "--rate", "22050"}, 2, "44100 or 48000"},
		{[]string{"render", filepath.Join(dir, "missing.mid"), "-o", filepath.Join(dir, "x.wav")}, 1, "missing.mid"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args[1:], code, stderr, c.code, c.want)
		}
	}
	// A SoundFont asked for that cannot be used is an error naming the
	// file and the reason (it was a warning and exit 0), and no WAV is left.
	png := filepath.Join(dir, "png.sf2")
	os.WriteFile(png, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"), 0o644)
	os.Mkdir(filepath.Join(dir, "folder.sf2"), 0o755)
	for _, c := range []struct{ sf, reason string }{
		{filepath.Join(dir, "bad.sf2"), "no such file"},
		{filepath.Join(dir, "folder.sf2"), "is a directory"},
		{png, "not a SoundFont"},
	} {
		y := filepath.Join(dir, "y.wav")
		code, stdout, stderr := runCLI("render", in, "-o", y, "--soundfont", c.sf, "--json")
		if code != 1 || !strings.Contains(stderr, filepath.Base(c.sf)) || !strings.Contains(stderr, c.reason) || stdout != "" {
			t.Errorf("SoundFont %s: exit %d, stderr %q, stdout %s; want exit 1 naming it and %q", filepath.Base(c.sf), code, stderr, stdout, c.reason)
		}
		if _, err := os.Stat(y); err == nil {
			t.Errorf("SoundFont %s: a WAV was written", filepath.Base(c.sf))
		}
	}
}

// TestRenderLimits: a piece with no notes is an error (it wrote an 8-byte
// non-WAV and exited 0); one longer than a WAV can hold is refused before
// rendering, naming its length and the limit; in-memory rendering is
// bounded by MaxInMemorySeconds. No file is left behind.
func TestRenderLimits(t *testing.T) {
	dir := t.TempDir()
	meta := &midi.Score{Format: 1, TicksPerBeat: 480, EndTick: 0, Title: "empty",
		Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}}}
	out := filepath.Join(dir, "x.wav")
	code, _, stderr := runCLI("render", testfiles.Score(t, "meta.mid", meta), "-o", out, "--builtin")
	if code != 1 || !strings.Contains(stderr, "no notes to render") || !strings.Contains(stderr, "meta.mid") {
		t.Errorf("no notes: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI("render", testfiles.Score(t, "day.mid", testfiles.LateNote(24*3600)), "-o", out, "--builtin")
	if code != 1 || !strings.Contains(stderr, "24:00:0") || !strings.Contains(stderr, "too long for a WAV file") || !strings.Contains(stderr, "6:45:") {
		t.Errorf("24 h: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a WAV was written")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(m) != 0 {
		t.Errorf("left %v", m)
	}
	_, err := app.RenderScore(context.Background(), testfiles.LateNote(app.MaxInMemorySeconds+10), app.RenderOptions{Input: "long", Builtin: true})
	if err == nil || !strings.Contains(err.Error(), "-o OUT.wav") {
		t.Errorf("in memory beyond the limit: %v", err)
	}
}

// amt render never writes over what it reads, before any work (exit 2,
// nothing written, the input's bytes kept): -o naming the input (a MIDI
// file named .wav), and --stems whose first stem is named like the input
// (a stem rendered again with --stems: s-01-acoustic-grand-piano.mid of
// base s is fifo.mid's one piano track). Under another -o the same stems
// are written.
func TestRenderOutputsApart(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "engine", "midi", "testdata", "fifo.mid"))
	if err != nil {
		t.Fatal(err)
	}
	asWAV := filepath.Join(dir, "song.wav")
	stem := filepath.Join(dir, "s-01-acoustic-grand-piano.mid")
	for _, f := range []string{asWAV, stem} {
		if err := os.WriteFile(f, src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{asWAV, "-o", asWAV}, "-o " + asWAV + " is the same file as the input " + asWAV},
		{[]string{stem, "-o", filepath.Join(dir, "s.wav"), "--stems"}, "stem " + stem + " is the same file as the input " + stem},
	} {
		code, _, se := runCLI(append([]string{"render", "--builtin"}, c.args...)...)
		if code != 2 || !strings.Contains(se, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, se, c.want)
		}
		for _, f := range []string{asWAV, stem} {
			if got, _ := os.ReadFile(f); !bytes.Equal(got, src) {
				t.Errorf("%v: %s changed", c.args, filepath.Base(f))
			}
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 2 {
			t.Errorf("%v: %d files in the folder, want the 2 inputs", c.args, len(ents))
		}
	}
	if code, so, se := runCLI("render", "--builtin", stem, "-o", filepath.Join(dir, "t.wav"), "--stems"); code != 0 || !strings.Contains(so, "t-01-acoustic-grand-piano.wav") {
		t.Errorf("stems beside t.wav: exit %d %q %q", code, so, se)
	}
}
