package cli

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/audio"
	"github.com/amtstudio/amt/engine/synth"
)

// A WAV written by hand: 1 s of a half-scale sine, 1.5 s of silence, 0.5 s
// of a full-scale square wave (every sample clipped), at 8,000 frames/s.
func TestWAVCheckCommand(t *testing.T) {
	const rate = 8000
	var s []float32
	for i := 0; i < rate; i++ {
		v := float32(0.5 * math.Sin(2*math.Pi*float64(i)/80))
		s = append(s, v, v)
	}
	s = append(s, make([]float32, 2*rate*3/2)...)
	for i := 0; i < rate/2; i++ {
		v := float32(1)
		if i%40 >= 20 {
			v = -1
		}
		s = append(s, v, v)
	}
	path := filepath.Join(t.TempDir(), "x.wav")
	if err := audio.WriteWAV(path, &synth.PCM{SampleRate: rate, Channels: 2, Samples: s}, 16); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("wavcheck", path, "--json")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	var got []app.WAVCheck
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	r := got[0]
	// 16-bit full scale is 32767/32767 = 1 after reading back.
	if r.Channels != 2 || r.SampleRate != rate || math.Abs(r.Seconds-3) > 1e-9 || r.Clipped != 2*rate/2 || math.Abs(r.Peak-1) > 1e-4 {
		t.Errorf("%+v", r)
	}
	if len(r.Silences) != 1 || math.Abs(r.Silences[0].Start-1) > 1e-9 || math.Abs(r.Silences[0].End-2.5) > 1e-9 {
		t.Errorf("silences %v, want [1, 2.5]", r.Silences)
	}
	code, out, _ = runCLI("wavcheck", path)
	if code != 0 || !strings.Contains(out, "8000 clipped samples") || !strings.Contains(out, "[1.00–2.50]") {
		t.Errorf("text: %s", out)
	}
	for _, args := range [][]string{{"wavcheck"}, {"wavcheck", path, "--silence-db", "3"}, {"wavcheck", path, "--min-silence", "0"}, {"wavcheck", path, "--clip", "2"}} {
		if code, _, _ := runCLI(args...); code != 2 {
			t.Errorf("%v: code %d, want 2", args, code)
		}
	}
	if code, _, errOut := runCLI("wavcheck", filepath.Join(t.TempDir(), "none.wav")); code != 1 || !strings.Contains(errOut, "none.wav") {
		t.Errorf("missing file: code %d, %s", code, errOut)
	}
}

// TestWAVCheckRefusesBrokenFiles (issue 37): a WAV cut in half, a sample
// rate of 0 and 65,535 channels each fail (exit 1) naming the file and
// what is wrong; they used to pass, the first as half as long.
func TestWAVCheckRefusesBrokenFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.wav")
	s := make([]float32, 2*8000)
	for i := range s {
		s[i] = float32(0.5 * math.Sin(float64(i)/10))
	}
	if err := audio.WriteWAV(good, &synth.PCM{SampleRate: 8000, Channels: 2, Samples: s}, 16); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	field := func(off int, v uint32, size int) []byte {
		b := append([]byte(nil), whole...)
		if size == 2 {
			binary.LittleEndian.PutUint16(b[off:], uint16(v))
		} else {
			binary.LittleEndian.PutUint32(b[off:], v)
		}
		return b
	}
	for _, c := range []struct {
		name, want string
		data       []byte
	}{
		{"half.wav", "16000 bytes missing", whole[:44+16000]},
		{"rate0.wav", "sample rate 0 Hz", field(24, 0, 4)},
		{"channels.wav", "65535 channels", field(22, 65535, 2)},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI("wavcheck", p)
		if code != 1 || !strings.Contains(errOut, c.name) || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 naming the file and %q", c.name, code, out, errOut, c.want)
		}
	}
	if code, _, errOut := runCLI("wavcheck", good); code != 0 {
		t.Errorf("the whole file: exit %d, %s", code, errOut)
	}
}
