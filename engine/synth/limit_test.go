package synth

import (
	"context"
	"math"
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
