package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/midi"
)

// quartet is four bars of 4/4 at 120 bpm (480 ticks a beat, a bar 2 s):
// a piano playing one quarter note on each beat (pitch 60 + beat index,
// velocity 100), a bass holding each bar's first beat for a whole bar, and
// a drum hit on each bar's first beat.
func quartet() *midi.Score {
	s := &midi.Score{Format: 1, TicksPerBeat: 480, EndTick: 4 * 1920,
		Tempos: []midi.TempoChange{{MicrosPerBeat: 500000}}, Meters: []midi.MeterChange{{Num: 4, Den: 4}}}
	piano := midi.Track{Name: "piano", Program: 0}
	bass := midi.Track{Name: "bass", Channel: 1, Program: 32}
	drums := midi.Track{Name: "drums", Channel: 9, IsDrum: true}
	for b := 0; b < 16; b++ {
		piano.Notes = append(piano.Notes, midi.Note{Tick: int64(b * 480), Dur: 480, Pitch: uint8(60 + b), Velocity: 100})
	}
	for bar := 0; bar < 4; bar++ {
		bass.Notes = append(bass.Notes, midi.Note{Tick: int64(bar * 1920), Dur: 1920, Pitch: 36, Velocity: 90})
		drums.Notes = append(drums.Notes, midi.Note{Tick: int64(bar * 1920), Dur: 60, Pitch: 36, Velocity: 110})
	}
	s.Tracks = []midi.Track{piano, bass, drums}
	s.ComputeSeconds()
	return s
}

func TestRenderTrackFlags(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "quartet.mid")
	if err := app.WriteMIDI(in, quartet()); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "mix.wav")
	code, stdout, stderr := runCLI("render", in, "--builtin", "-o", out, "--mute", "3", "--volume", "2=0.5", "--program", "1=40", "--stems")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"mix.wav", "mix-01-violin.mid", "mix-01-violin.wav", "mix-02-acoustic-bass.mid", "mix-02-acoustic-bass.wav"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v (stdout %q)", f, err, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "mix-03-drums.mid")); err == nil {
		t.Error("the muted drums got a stem")
	}
	bass, err := midi.ReadFile(filepath.Join(dir, "mix-02-acoustic-bass.mid"))
	if err != nil || bass.Tracks[0].Notes[0].Velocity != 45 {
		t.Errorf("bass stem at volume 0.5: %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"render", in, "-o", out, "--volume", "1=3"}, "--volume 1=3: give 0–1.5"},
		{[]string{"render", in, "-o", out, "--mute", "4"}, "--mute 4: the piece has tracks 1–3"},
		{[]string{"render", in, "-o", out, "--program", "3=5"}, "drum track"},
		{[]string{"play", in, "--loop", "5-6"}, "loop bars 5–6: the piece has bars 1–4"},
		{[]string{"play", in, "--loop", "x"}, `--loop: bar range "x"`},
		{[]string{"play", in, "--tempo", "9"}, "tempo ×9 outside"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 naming %q", c.args, code, stderr, c.want)
		}
	}
}
