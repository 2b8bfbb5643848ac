package synth

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

// The limiter leaves samples under the ceiling alone, brings a spike to
// the ceiling and lets the gain recover with its time constant (values
// computed by hand from the definition).
func TestLimiterByHand(t *testing.T) {
	st := &Stream{rate: 1000} // 1 kHz: release per frame exp(-1/80)
	rel := math.Exp(-1.0 / 80)
	buf := []float32{0.5, -0.5, 2, -1, 0.5, 0.5, 0.9, 0.2}
	st.limitPeaks(buf)
	want := []float64{0.5, -0.5, 0.95, -0.475, 0.5 * 0.95 / (2 * rel), 0.5 * 0.95 / (2 * rel), 0.9 * 0.95 / (2 * rel * rel), 0.2 * 0.95 / (2 * rel * rel)}
	for i := range buf {
		if math.Abs(float64(buf[i])-want[i]) > 1e-6 {
			t.Errorf("sample %d: %g, want %g", i, buf[i], want[i])
		}
	}
	quiet := []float32{0.1, -0.2, 0.94, -0.94}
	(&Stream{rate: 44100}).limitPeaks(quiet)
	if quiet[0] != 0.1 || quiet[1] != -0.2 || quiet[2] != 0.94 || quiet[3] != -0.94 {
		t.Errorf("audio under the ceiling changed: %v", quiet)
	}
}

// A pile of full-velocity notes on several tracks renders within the
// ceiling and still loud (it used to clip: a 16-bar piece of stacked bass
// notes had 227,189 samples at full scale).
func TestRenderOfAPileStaysUnderTheCeiling(t *testing.T) {
	s := &midi.Score{Format: 1, TicksPerBeat: 480, Tempos: []midi.TempoChange{{MicrosPerBeat: 500000}}}
	for tr := 0; tr < 4; tr++ {
		track := midi.Track{Channel: tr, Program: []int{0, 33, 48, 61}[tr]}
		for k := 0; k < 4; k++ {
			for p := 0; p < 12; p++ {
				track.Notes = append(track.Notes, midi.Note{Tick: int64(480 * k), Dur: 400, Pitch: uint8(36 + 3*p), Velocity: 127})
			}
		}
		s.Tracks = append(s.Tracks, track)
	}
	s.EndTick = 4 * 480
	s.ComputeSeconds()
	pcm, err := NewBuiltinRenderer(Options{}).Render(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if p := pcm.Peak(); p > Limit+1e-6 {
		t.Errorf("peak %.4f over the ceiling %.2f", p, Limit)
	}
	if r := pcm.RMS(); r < 0.05 {
		t.Errorf("RMS %.4f: the limiter should not silence it", r)
	}
}

// TestCheckScoreBound (issue 37): one bound, MaxSeconds, on when the last
// note ends, the same for notes timed in seconds and in ticks; a note past
// it is an error naming its time and the bound (a note at 10⁶ s used to be
// dropped by NewStream without a word, so `amt render` wrote a 0:00 WAV
// and exited 0), and a piece within it is scheduled whole.
func TestCheckScoreBound(t *testing.T) {
	secs := func(start, dur float64) *midi.Score {
		return &midi.Score{Tracks: []midi.Track{{Notes: []midi.Note{
			{Pitch: 60, Velocity: 90, Start: 0, Duration: 0.5},
			{Pitch: 64, Velocity: 90, Start: start, Duration: dur}}}}}
	}
	ticks := func(sec float64) *midi.Score { // 120 bpm, 480 ticks a beat: 960 ticks a second
		tick := int64(sec * 960)
		return &midi.Score{TicksPerBeat: 480, Tracks: []midi.Track{{Notes: []midi.Note{
			{Tick: 0, Dur: 480, Pitch: 60, Velocity: 90},
			{Tick: tick, Dur: 480, Pitch: 64, Velocity: 90}}}}}
	}
	for _, c := range []struct {
		name string
		s    *midi.Score
		end  float64 // 0: refused
	}{
		{"seconds, within", secs(MaxSeconds-1, 0.5), MaxSeconds - 0.5},
		{"ticks, within", ticks(MaxSeconds - 1), MaxSeconds - 0.5},
		{"a long note within", secs(0, 1.5e5), 1.5e5},
		{"seconds, just past", secs(MaxSeconds, 0.5), 0},
		{"ticks, just past", ticks(MaxSeconds), 0},
		{"9e5 s", secs(9e5, 0.5), 0},
		{"1e6 s", secs(1e6+1, 0.5), 0},
		{"ticks at 1e6 s", ticks(1e6 + 1), 0},
		{"1e300 s", secs(1e300, 0.5), 0},
		{"a note held past it", secs(10, MaxSeconds), 0},
		{"NaN", secs(math.NaN(), 0.5), 0},
		{"negative", secs(-3, 0.5), 0},
	} {
		err := CheckScore(c.s)
		if c.end == 0 {
			if !errors.Is(err, ErrTooLong) && !errors.Is(err, ErrNoteTime) {
				t.Errorf("%s: %v; want ErrTooLong or ErrNoteTime", c.name, err)
			} else if errors.Is(err, ErrTooLong) && !strings.Contains(err.Error(), "172800 s") {
				t.Errorf("%s: %q does not name the bound", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		st := NewStream(NewBuiltinSynth(Options{SampleRate: 8000}), c.s)
		if got, want := st.Length(), int64(c.end*8000); got < want-1 || got > want+1 {
			t.Errorf("%s: the stream ends at frame %d, want %d (the note at %.1f s)", c.name, got, want, c.end)
		}
	}
}
