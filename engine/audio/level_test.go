package audio

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// stereo repeats each mono sample on two channels.
func stereo(mono []float32) []float32 {
	out := make([]float32, 0, 2*len(mono))
	for _, v := range mono {
		out = append(out, v, v)
	}
	return out
}

func tone(n int, amp float64, period int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(amp * math.Sin(2*math.Pi*float64(i)/float64(period)))
	}
	return out
}

func closeTo(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6 {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

// A 50 Hz sine of amplitude 0.5 for 1 s at 1,000 frames/s: sample 5 of
// each 20-sample period is the crest, so the peak is 0.5 exactly, and whole
// periods give RMS 0.5/√2. Nothing clips, nothing is silent.
func TestLevelsSine(t *testing.T) {
	l := MeasureLevels(stereo(tone(1000, 0.5, 20)), 2, 1000, LevelOptions{})
	closeTo(t, "seconds", l.Seconds, 1)
	closeTo(t, "peak", l.Peak, 0.5)
	closeTo(t, "peak dB", l.PeakDB, 20*math.Log10(0.5))
	closeTo(t, "rms", l.RMS, 0.5/math.Sqrt2)
	if l.Clipped != 0 || len(l.Silences) != 0 || l.SilentSeconds != 0 {
		t.Errorf("clipped %d, silences %v", l.Clipped, l.Silences)
	}
}

// Samples at or above the clip level count on each channel.
func TestLevelsClipping(t *testing.T) {
	mono := tone(1000, 0.9, 20)
	for _, i := range []int{5, 25, 45} { // three crests pushed to full scale
		mono[i] = 1
	}
	mono[65] = -1.2 // and one beyond it, negative
	l := MeasureLevels(stereo(mono), 2, 1000, LevelOptions{})
	if l.Clipped != 8 { // 4 frames × 2 channels
		t.Errorf("clipped %d, want 8", l.Clipped)
	}
	closeTo(t, "peak", l.Peak, 1.2)
	// A clip level of 0.89 catches every crest: 50 periods of one positive
	// and one negative crest (the four pushed ones among them; their
	// neighbours are 0.9·sin(0.4π) = 0.856), 100 frames × 2 channels.
	if l := MeasureLevels(stereo(mono), 2, 1000, LevelOptions{ClipLevel: 0.89}); l.Clipped != 200 {
		t.Errorf("clipped at 0.89: %d, want 200", l.Clipped)
	}
}

// Tone 0–1 s, digital silence 1–3 s, tone 3–3.5 s, silence 3.5–4 s, then
// noise at −70 dBFS 4–5.5 s: silent stretches [1, 3] and [3.5, 5.5] (the
// quiet noise is below −60 dB and joins the silence before it); the
// 0.5-second gap alone would be too short to report.
func TestLevelsSilences(t *testing.T) {
	var mono []float32
	mono = append(mono, tone(1000, 0.5, 20)...)
	mono = append(mono, make([]float32, 2000)...)
	mono = append(mono, tone(500, 0.5, 20)...)
	mono = append(mono, make([]float32, 500)...)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1500; i++ {
		mono = append(mono, float32(0.0003*(2*r.Float64()-1)))
	}
	all := stereo(mono)
	l := MeasureLevels(all, 2, 1000, LevelOptions{})
	want := []Span{{1, 3}, {3.5, 5.5}}
	if len(l.Silences) != 2 {
		t.Fatalf("silences %v, want %v", l.Silences, want)
	}
	for i, s := range l.Silences {
		closeTo(t, "start", s.Start, want[i].Start)
		closeTo(t, "end", s.End, want[i].End)
	}
	closeTo(t, "silent seconds", l.SilentSeconds, 4)
	// −80 dB as the threshold: the −70 dB noise is no longer silence.
	l80 := MeasureLevels(all, 2, 1000, LevelOptions{SilenceDB: -80})
	if len(l80.Silences) != 1 || l80.Silences[0] != (Span{1, 3}) {
		t.Errorf("at −80 dB: %v, want [{1 3}]", l80.Silences)
	}
	// Half a second is reported once the minimum is 0.4 s.
	if l4 := MeasureLevels(all, 2, 1000, LevelOptions{MinSilence: 0.4, SilenceDB: -80}); len(l4.Silences) != 2 || l4.Silences[1] != (Span{3.5, 4}) {
		t.Errorf("min 0.4 s: %v", l4.Silences)
	}

	// Fed in blocks of random sizes (odd ones split frames across blocks
	// only at frame boundaries here), the result is the same; Result can
	// be read midway without disturbing the rest.
	m := NewLevelMeter(2, 1000, LevelOptions{})
	for i := 0; i < len(all); {
		n := 2 * (1 + r.IntN(400))
		n = min(n, len(all)-i)
		m.Add(all[i : i+n])
		i += n
		if r.IntN(5) == 0 {
			m.Result()
		}
	}
	if got := m.Result(); !reflect.DeepEqual(got, l) {
		t.Errorf("in blocks %+v, at once %+v", got, l)
	}
}

// A trailing partial window counts: 1.02 s of silence is one stretch that
// ends at 1.02 s. Digital silence reads −200 dB.
func TestLevelsPartialWindowAndEmpty(t *testing.T) {
	l := MeasureLevels(make([]float32, 2*1020), 2, 1000, LevelOptions{})
	if len(l.Silences) != 1 || l.Silences[0] != (Span{0, 1.02}) {
		t.Errorf("silences %v, want [{0 1.02}]", l.Silences)
	}
	if l.PeakDB != -200 || l.RMSDB != -200 {
		t.Errorf("dB of silence %v %v", l.PeakDB, l.RMSDB)
	}
	e := MeasureLevels(nil, 2, 44100, LevelOptions{})
	if e.Seconds != 0 || e.Peak != 0 || len(e.Silences) != 0 {
		t.Errorf("empty %+v", e)
	}
}
