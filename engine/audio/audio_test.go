package audio

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/synth"
)

// TestMain points ALSA at a null device (an .asoundrc under a temporary
// HOME) so playback tests run on machines without a sound card.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "amt-audio-home")
	if err == nil {
		conf := "pcm.!default { type null }\n"
		if os.Getenv("AMT_AUDIO_NO_DEVICE") == "1" { // the child of TestNoDevice: a card that does not exist
			conf = "pcm.!default { type hw card 97 }\n"
		}
		os.WriteFile(filepath.Join(home, ".asoundrc"), []byte(conf), 0o644)
		os.Setenv("HOME", home)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

func sine(rate int, f, sec float64) *synth.PCM {
	n := int(sec * float64(rate))
	p := &synth.PCM{SampleRate: rate, Channels: 2, Samples: make([]float32, 2*n)}
	for i := 0; i < n; i++ {
		v := float32(0.5 * math.Sin(2*math.Pi*f*float64(i)/float64(rate)))
		p.Samples[2*i], p.Samples[2*i+1] = v, -v
	}
	return p
}

func TestWAVRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	src := &synth.PCM{SampleRate: 48000, Channels: 2, Samples: make([]float32, 20000)}
	for i := range src.Samples {
		src.Samples[i] = float32(rng.Float64()*2.4 - 1.2) // some beyond ±1: clipped
	}
	src.Samples[0], src.Samples[1], src.Samples[2], src.Samples[3] = 0.5, -1, 1, float32(math.NaN())
	for _, bits := range []int{16, 24} {
		t.Run(map[int]string{16: "16-bit", 24: "24-bit"}[bits], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.wav")
			if err := WriteWAV(path, src, bits); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// Independent check of the bytes: 44-byte header, then the first
			// sample 0.5 → round(0.5·(2^(bits−1)−1)).
			if want := 44 + len(src.Samples)*bits/8; len(raw) != want {
				t.Fatalf("file is %d bytes, want %d", len(raw), want)
			}
			var first int64
			if bits == 16 {
				first = int64(int16(binary.LittleEndian.Uint16(raw[44:])))
			} else {
				first = int64(int32(uint32(raw[44])|uint32(raw[45])<<8|uint32(raw[46])<<16) << 8 >> 8)
			}
			fs := float64(int64(1)<<(bits-1) - 1)
			if want := int64(math.Round(0.5 * fs)); first != want {
				t.Errorf("first sample stored as %d, want %d", first, want)
			}
			got, err := ReadWAV(path)
			if err != nil {
				t.Fatal(err)
			}
			if got.SampleRate != 48000 || got.Channels != 2 || len(got.Samples) != len(src.Samples) {
				t.Fatalf("read %d Hz, %d ch, %d samples", got.SampleRate, got.Channels, len(got.Samples))
			}
			half := 0.5 / fs
			for i, v := range src.Samples {
				want := math.Max(-1, math.Min(1, float64(v)))
				if v != v {
					want = 0
				}
				if d := math.Abs(float64(got.Samples[i]) - want); d > half*1.0001+1e-7 {
					t.Fatalf("sample %d: wrote %v, read %v: off by %.3g steps", i, v, got.Samples[i], d*fs)
				}
			}
		})
	}
}

func TestWAVErrors(t *testing.T) {
	p := sine(44100, 440, 0.01)
	dir := t.TempDir()
	if err := WriteWAV(filepath.Join(dir, "x.wav"), p, 12); !errors.Is(err, ErrFormat) {
		t.Errorf("12-bit: %v", err)
	}
	if err := WriteWAV(filepath.Join(dir, "missing", "x.wav"), p, 16); err == nil || !strings.Contains(err.Error(), "x.wav") {
		t.Errorf("unwritable: %v", err)
	}
	bad := filepath.Join(dir, "not.wav")
	os.WriteFile(bad, []byte("MThd this is a MIDI file, not a WAV"), 0o644)
	if _, err := ReadWAV(bad); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "not.wav") {
		t.Errorf("not a WAV: %v", err)
	}
	if _, err := ReadWAV(filepath.Join(dir, "absent.wav")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent: %v", err)
	}
	// No temporary files left behind.
	if m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(m) != 0 {
		t.Errorf("left %v", m)
	}
}

func TestPlayback(t *testing.T) {
	clip := sine(48000, 440, 0.6) // resampled to DeviceRate on the fly
	p, err := NewPlayer(clip)
	if errors.Is(err, ErrNoDevice) {
		// No null device either: the error must say what to do.
		if !strings.Contains(err.Error(), "export WAV instead") {
			t.Fatalf("error %q", err)
		}
		t.Skipf("null ALSA device unavailable; checked the no-device error: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Duration() != 600*time.Millisecond {
		t.Errorf("duration %v", p.Duration())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	p.Play()
	var last time.Duration
	monotonic := true
	if !p.Wait(ctx, func(pos, dur time.Duration) {
		if pos < last {
			monotonic = false
		}
		last = pos
	}) {
		t.Fatalf("playback did not finish: %v", p.Err())
	}
	t.Logf("played 0.6 s in %v; last position %v", time.Since(start), p.Position())
	if !monotonic {
		t.Error("playhead went backwards")
	}
	if got := p.Position(); got < 550*time.Millisecond {
		t.Errorf("position %v at the end", got)
	}
	if p.Playing() {
		t.Error("still playing after the end")
	}
	p.Seek(300 * time.Millisecond)
	if got := p.Position(); got < 250*time.Millisecond || got > 350*time.Millisecond {
		t.Errorf("after seek: %v", got)
	}
	p.Play()
	p.Pause()
	if p.Playing() {
		t.Error("playing after Pause")
	}
	p.Stop()
	if got := p.Position(); got != 0 {
		t.Errorf("after stop: %v", got)
	}
	playingMu.Lock()
	n := playing
	playingMu.Unlock()
	if n != 0 {
		t.Errorf("%d players counted as playing: the context would not be suspended", n)
	}
}

// TestNoDevice runs this test binary again with ALSA pointed at a card that
// does not exist: NewPlayer must fail with ErrNoDevice instead of pretending.
func TestNoDevice(t *testing.T) {
	if os.Getenv("AMT_AUDIO_NO_DEVICE") == "1" {
		_, err := NewPlayer(sine(44100, 440, 0.1))
		if !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), "no audio device: export WAV instead") {
			t.Fatalf("err = %v, want ErrNoDevice", err)
		}
		if Available() == nil {
			t.Fatal("Available reports a device")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoDevice$", "-test.v")
	cmd.Env = append(os.Environ(), "AMT_AUDIO_NO_DEVICE=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestNoDevice") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// streamScore is a few notes on the built-in synthesizer: short enough to
// render in memory as the reference for the streaming reader.
func streamScore() *midi.Score {
	s := &midi.Score{Format: 1, TicksPerBeat: 96, Tempos: []midi.TempoChange{{MicrosPerBeat: 500000}}}
	tr := midi.Track{Program: 0}
	for i, p := range []uint8{60, 64, 67} {
		tr.Notes = append(tr.Notes, midi.Note{Tick: int64(i * 48), Dur: 48, Pitch: p, Velocity: 100})
	}
	s.Tracks = []midi.Track{tr}
	s.EndTick = 200
	s.ComputeSeconds()
	return s
}

// readAll drains a source into float32 device frames.
func readAll(t *testing.T, src io.Reader, chunk int) []float32 {
	t.Helper()
	var out []float32
	buf := make([]byte, chunk)
	for {
		n, err := src.Read(buf)
		for i := 0; i+4 <= n; i += 4 {
			out = append(out, math.Float32frombits(binary.LittleEndian.Uint32(buf[i:])))
		}
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestStreamReaderMatchesPCM: playing a Stream block by block gives the
// same device frames as playing the same audio rendered whole (the
// pcmReader, whose interpolation is the reference), at the device rate and
// resampled from 48 kHz, from the start and after a seek.
func TestStreamReaderMatchesPCM(t *testing.T) {
	for _, rate := range []int{44100, 48000} {
		r := synth.NewBuiltinRenderer(synth.Options{SampleRate: rate})
		pcm, err := r.Render(context.Background(), streamScore())
		if err != nil {
			t.Fatal(err)
		}
		step := float64(rate) / DeviceRate
		want := readAll(t, &pcmReader{pcm: pcm, step: step}, 8*1000)
		sr := &streamReader{st: r.Stream(streamScore()), step: step}
		got := readAll(t, sr, 8*777)
		if len(got) != len(want) {
			t.Fatalf("%d Hz: %d samples streamed, %d whole", rate, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%d Hz: sample %d: streamed %v, whole %v", rate, i, got[i], want[i])
			}
		}
		if !sr.ended() || sr.played() != int64(len(want)/2) {
			t.Errorf("ended %v, played %d of %d", sr.ended(), sr.played(), len(want)/2)
		}
		// Seek to device frame 10000: the stream restarts there (notes
		// sounding across the seek point are not restarted), so compare
		// against a stream sought the same way.
		if _, err := sr.Seek(8*10000, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		ref := r.Stream(streamScore())
		ref.SeekFrame(int64(10000 * step))
		tail, err := synth.RenderStream(context.Background(), ref, nil)
		if err != nil {
			t.Fatal(err)
		}
		after := readAll(t, sr, 8*500)
		if len(after) == 0 || math.Abs(float64(len(after)/2)-float64(tail.Frames())/step) > 2 {
			t.Errorf("%d Hz: after seek %d frames, want about %.0f", rate, len(after)/2, float64(tail.Frames())/step)
		}
	}
}

// TestStreamPlayback: a Stream plays to its end through the device (the
// null ALSA device here), rendered block by block as it plays.
func TestStreamPlayback(t *testing.T) {
	r := synth.NewBuiltinRenderer(synth.Options{})
	p, err := NewStreamPlayer(r.Stream(streamScore()))
	if errors.Is(err, ErrNoDevice) {
		t.Skipf("null ALSA device unavailable: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if d := p.Duration(); d < 700*time.Millisecond || d > 800*time.Millisecond {
		t.Errorf("duration %v, want the last note-off at 0.75 s", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p.Play()
	if !p.Wait(ctx, nil) {
		t.Fatalf("playback did not finish: %v", p.Err())
	}
	p.Seek(200 * time.Millisecond)
	if got := p.Position(); got < 150*time.Millisecond || got > 250*time.Millisecond {
		t.Errorf("after seek: %v", got)
	}
}
