package audio

import (
	"math"
)

// Level checks of rendered audio (issue 13: renders listened through for
// clipping and silence): peak, RMS, clipped samples and silent stretches,
// measured block by block so a streamed render can be checked as it is
// written.

// LevelOptions control a LevelMeter; zero values take the defaults.
type LevelOptions struct {
	// ClipLevel: a sample whose magnitude reaches it is clipped (default
	// 0.999, within 0.01 dB of full scale: a float render limited to ±1, or
	// a 16-bit WAV at ±32767, reads as clipped there).
	ClipLevel float64
	// SilenceDB: a window whose peak is below this level (dBFS) is silent
	// (default −60).
	SilenceDB float64
	// Window is the length in seconds of the windows judged silent or not
	// (default 0.05).
	Window float64
	// MinSilence: silent stretches at least this long (seconds) are
	// reported (default 1).
	MinSilence float64
}

func (o LevelOptions) withDefaults() LevelOptions {
	if o.ClipLevel <= 0 {
		o.ClipLevel = 0.999
	}
	if o.SilenceDB == 0 {
		o.SilenceDB = -60
	}
	if o.Window <= 0 {
		o.Window = 0.05
	}
	if o.MinSilence <= 0 {
		o.MinSilence = 1
	}
	return o
}

// Span is a stretch of audio, in seconds from the start.
type Span struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// Levels is what a LevelMeter measured.
type Levels struct {
	Seconds float64 `json:"seconds"`
	Peak    float64 `json:"peak"`    // largest sample magnitude (1 = full scale)
	PeakDB  float64 `json:"peak_db"` // dBFS (−200 for digital silence)
	RMS     float64 `json:"rms"`     // over all samples
	RMSDB   float64 `json:"rms_db"`
	// Clipped counts the samples (each channel's) at or above ClipLevel.
	Clipped int `json:"clipped"`
	// Silences are the silent stretches of at least MinSilence seconds
	// (whole windows), in order, leading and trailing ones included;
	// SilentSeconds is their total.
	Silences      []Span  `json:"silences"`
	SilentSeconds float64 `json:"silent_seconds"`
}

// LevelMeter measures audio given block by block (interleaved samples of
// Channels channels at Rate frames a second). Blocks may have any length;
// the result does not depend on how the audio is cut into them.
type LevelMeter struct {
	o        LevelOptions
	channels int
	rate     int
	win      int     // frames a window
	thresh   float64 // silence threshold, linear
	frames   int64
	sumSq    float64
	peak     float64
	clipped  int
	winPeak  float64 // peak of the window being filled
	winFill  int     // frames in it
	windows  int64   // windows completed
	runStart int64   // first window of the current silent run, −1 when none
	silences []Span
}

// NewLevelMeter returns a meter for audio of the given channels and rate
// (both at least 1).
func NewLevelMeter(channels, rate int, o LevelOptions) *LevelMeter {
	o = o.withDefaults()
	channels, rate = max(channels, 1), max(rate, 1)
	return &LevelMeter{o: o, channels: channels, rate: rate,
		win:      max(int(math.Round(o.Window*float64(rate))), 1),
		thresh:   math.Pow(10, o.SilenceDB/20),
		runStart: -1}
}

// Add measures the next samples (interleaved; a trailing partial frame is
// counted as samples but the frame is not).
func (m *LevelMeter) Add(samples []float32) {
	c := m.channels
	for i := 0; i+c <= len(samples); i += c {
		fp := 0.0
		for _, v := range samples[i : i+c] {
			a := math.Abs(float64(v))
			m.sumSq += a * a
			if a >= m.o.ClipLevel {
				m.clipped++
			}
			fp = max(fp, a)
		}
		m.peak = max(m.peak, fp)
		m.winPeak = max(m.winPeak, fp)
		m.winFill++
		m.frames++
		if m.winFill == m.win {
			m.endWindow()
		}
	}
}

// endWindow judges the window just filled.
func (m *LevelMeter) endWindow() {
	if m.winPeak < m.thresh {
		if m.runStart < 0 {
			m.runStart = m.windows
		}
	} else {
		m.endRun(m.windows)
	}
	m.windows++
	m.winPeak, m.winFill = 0, 0
}

// endRun closes the silent run (if any) at window w.
func (m *LevelMeter) endRun(w int64) {
	if m.runStart < 0 {
		return
	}
	start := float64(m.runStart*int64(m.win)) / float64(m.rate)
	end := math.Min(float64(w*int64(m.win)), float64(m.frames)) / float64(m.rate)
	if end-start >= m.o.MinSilence-1e-9 {
		m.silences = append(m.silences, Span{start, end})
	}
	m.runStart = -1
}

// Result returns the levels of everything added so far (a partial last
// window counts). The meter can take more audio afterwards.
func (m *LevelMeter) Result() Levels {
	c := *m // judge the partial window on a copy
	c.silences = append([]Span(nil), m.silences...)
	if c.winFill > 0 {
		c.endWindow()
	}
	c.endRun(c.windows)
	l := Levels{Seconds: float64(m.frames) / float64(m.rate), Peak: m.peak, Clipped: m.clipped, Silences: c.silences}
	if n := m.frames * int64(m.channels); n > 0 {
		l.RMS = math.Sqrt(m.sumSq / float64(n))
	}
	l.PeakDB, l.RMSDB = db(l.Peak), db(l.RMS)
	for _, s := range l.Silences {
		l.SilentSeconds += s.End - s.Start
	}
	if l.Silences == nil {
		l.Silences = []Span{}
	}
	return l
}

// db is 20·log10(x), at least −200 (so digital silence stays a number).
func db(x float64) float64 {
	if x <= 1e-10 {
		return -200
	}
	return 20 * math.Log10(x)
}

// MeasureLevels measures interleaved samples in one go.
func MeasureLevels(samples []float32, channels, rate int, o LevelOptions) Levels {
	m := NewLevelMeter(channels, rate, o)
	m.Add(samples)
	return m.Result()
}
