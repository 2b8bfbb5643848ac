package app

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

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
	var res RenderResult
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
	// An unreadable SoundFont: the built-in synthesizer renders and a
	// warning names the file.
	bad := filepath.Join(dir, "bad.sf2")
	code, stdout, stderr := runCLI("render", in, "-o", filepath.Join(dir, "y.wav"), "--soundfont", bad, "--json")
	if code != 0 || !strings.Contains(stderr, "bad.sf2") || !strings.Contains(stdout, `"soundfont": "built-in"`) {
		t.Errorf("bad SoundFont: exit %d, stderr %q, stdout %s", code, stderr, stdout)
	}
}
