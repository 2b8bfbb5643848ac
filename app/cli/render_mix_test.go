package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/internal/testscore"
)

func TestRenderTrackFlags(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "quartet.mid")
	if err := app.WriteMIDI(in, testscore.Quartet()); err != nil {
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
