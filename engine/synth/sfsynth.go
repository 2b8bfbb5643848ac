package synth

import (
	"context"
	"fmt"
	"math"
)

// Options configure a synthesizer.
type Options struct {
	SampleRate int     // output rate; 0 means 44100 (48000 also common)
	MaxVoices  int     // polyphony limit; 0 means 96. Beyond it the quietest released or oldest voice is stolen
	Gain       float64 // master gain before the output limiter; 0 means the synthesizer's default
	Reverb     bool    // add the reverb send bus
	Chorus     bool    // add the chorus send bus
	// Context, when set, stops New while it reads a SoundFont (a large
	// one takes seconds on a busy disk); nil never stops it.
	Context context.Context
}

func (o Options) withDefaults(gain float64) Options {
	o.SampleRate = validRate(o.SampleRate)
	if o.MaxVoices <= 0 {
		o.MaxVoices = 96
	}
	if o.Gain <= 0 {
		o.Gain = gain
	}
	return o
}

// NewSoundFontRenderer returns a Renderer playing sf.
func NewSoundFontRenderer(sf *SoundFont, opts Options) Renderer {
	opts = opts.withDefaults(sfGain)
	return &base{
		name:   fmt.Sprintf("%s (SoundFont)", sf.Name),
		rate:   opts.SampleRate,
		newSyn: func() Synth { return NewSoundFontSynth(sf, opts) },
	}
}

// sfGain is the default master gain of the SoundFont synthesizer: with
// TimGM6mb, POP909 song 001 (piano) peaks near 0.45 and OpenMSX pieces
// (dense GM with drums) near 1, where the limiter catches them.
const sfGain = 1.6

// control block: envelopes, LFOs, pitch and filter are updated every
// ctrlBlock frames; amplitude is ramped linearly within a block.
const ctrlBlock = 64

// channel is the state of one MIDI channel.
type channel struct {
	controls
	program   int
	drum      bool
	preset    *Preset
	bend      float64 // cents
	bendRange float64 // semitones
	reverb    int     // CC91
	chorus    int     // CC93
}

func (c *channel) reset() {
	*c = channel{program: c.program, drum: c.drum, preset: c.preset, bendRange: 2, reverb: 40}
	c.resetControls()
}

// sfSynth is the SoundFont synthesizer.
type sfSynth struct {
	sf     *SoundFont
	opts   Options
	rate   float64
	chans  []channel
	voices []sfVoice
	free   []int32 // indices of inactive voices
	active []int32 // indices of sounding voices, in start order
	clock  uint64
	mixL   []float32
	fx     *effects
}

// NewSoundFontSynth returns a live Synth playing sf.
func NewSoundFontSynth(sf *SoundFont, opts Options) Synth {
	opts = opts.withDefaults(sfGain)
	s := &sfSynth{sf: sf, opts: opts, rate: float64(opts.SampleRate), voices: make([]sfVoice, opts.MaxVoices)}
	if opts.Reverb || opts.Chorus {
		s.fx = newEffects(opts.SampleRate, opts.Reverb, opts.Chorus)
	}
	s.Reset()
	return s
}

func (s *sfSynth) SampleRate() int { return int(s.rate) }
func (s *sfSynth) Active() int     { return len(s.active) }

func (s *sfSynth) Reset() {
	s.free = s.free[:0]
	for i := len(s.voices) - 1; i >= 0; i-- {
		s.voices[i].on = false
		s.free = append(s.free, int32(i))
	}
	s.active = s.active[:0]
	for i := range s.chans {
		s.chans[i].reset()
	}
	if s.fx != nil {
		s.fx.reset()
	}
}

func (s *sfSynth) ch(c int) *channel {
	if c < 0 || c > 4096 {
		c = 0
	}
	for len(s.chans) <= c {
		s.chans = append(s.chans, channel{})
		s.chans[len(s.chans)-1].reset()
		s.chans[len(s.chans)-1].preset = s.sf.Preset(0, 0)
	}
	return &s.chans[c]
}

func (s *sfSynth) Program(c, program int, drum bool) {
	ch := s.ch(c)
	ch.program, ch.drum = program&0x7f, drum
	bank := 0
	if drum {
		bank = 128
	}
	ch.preset = s.sf.Preset(bank, ch.program)
}

func (s *sfSynth) PitchBend(c, bend int) {
	ch := s.ch(c)
	bend = min(max(bend, -8192), 8191)
	ch.bend = float64(bend) / 8192 * ch.bendRange * 100
}

func (s *sfSynth) Control(c, cc, value int) {
	ch := s.ch(c)
	value = min(max(value, 0), 127)
	ch.set(cc, value)
	switch cc {
	case 64:
		if !ch.sustain {
			for _, vi := range s.active {
				v := &s.voices[vi]
				if v.ch == c && v.sustained {
					v.sustained = false
					v.release()
				}
			}
		}
	case 91:
		ch.reverb = value
	case 93:
		ch.chorus = value
	case 120, 123: // all sound off, all notes off
		for _, vi := range s.active {
			v := &s.voices[vi]
			if v.ch == c {
				if cc == 120 {
					v.on = false
				} else {
					v.release()
				}
			}
		}
		s.compact()
	case 121:
		ch.reset()
	}
	// Channel-wide levels apply to sounding voices too.
	if cc == 7 || cc == 10 || cc == 11 || cc == 91 || cc == 93 {
		for _, vi := range s.active {
			if v := &s.voices[vi]; v.ch == c {
				v.mix(ch)
			}
		}
	}
}

func (s *sfSynth) NoteOff(c, key int) {
	ch := s.ch(c)
	for _, vi := range s.active {
		v := &s.voices[vi]
		if v.ch == c && int(v.key) == key && !v.released {
			if ch.sustain {
				v.sustained = true
			} else {
				v.release()
			}
		}
	}
}

func (s *sfSynth) NoteOn(c, key, vel int) {
	if vel <= 0 {
		s.NoteOff(c, key)
		return
	}
	if key < 0 || key > 127 {
		return
	}
	vel = min(vel, 127)
	ch := s.ch(c)
	p := ch.preset
	if p == nil {
		return
	}
	for ri := range p.Regions {
		r := &p.Regions[ri]
		if uint8(key) < r.KeyLo || uint8(key) > r.KeyHi || uint8(vel) < r.VelLo || uint8(vel) > r.VelHi {
			continue
		}
		if ex := r.Gen[genExclusiveClass]; ex != 0 {
			for _, vi := range s.active {
				if v := &s.voices[vi]; v.ch == c && v.exclusive == ex {
					v.kill(s.rate)
				}
			}
		}
		v := s.alloc()
		s.clock++
		v.start(s, c, ch, r, key, vel, s.clock)
	}
}

// alloc returns a voice to start, stealing one when all are busy.
func (s *sfSynth) alloc() *sfVoice {
	if n := len(s.free); n > 0 {
		vi := s.free[n-1]
		s.free = s.free[:n-1]
		s.active = append(s.active, vi)
		return &s.voices[vi]
	}
	// Steal: the quietest released voice, else the oldest.
	best, bestScore := 0, math.Inf(1)
	for i, vi := range s.active {
		v := &s.voices[vi]
		score := float64(v.age)
		if v.released {
			score = -1e18 + float64(v.amp)*1e12
		}
		if score < bestScore {
			best, bestScore = i, score
		}
	}
	vi := s.active[best]
	copy(s.active[best:], s.active[best+1:])
	s.active[len(s.active)-1] = vi
	return &s.voices[vi]
}

// compact returns finished voices to the free list, keeping start order.
func (s *sfSynth) compact() {
	j := 0
	for _, vi := range s.active {
		if s.voices[vi].on {
			s.active[j] = vi
			j++
		} else {
			s.free = append(s.free, vi)
		}
	}
	s.active = s.active[:j]
}

func (s *sfSynth) Process(dst []float32) {
	clear(dst)
	frames := len(dst) / 2
	var fxBuf []float32
	if s.fx != nil {
		fxBuf = s.fx.input(frames)
	}
	for off := 0; off < frames; off += ctrlBlock {
		n := min(ctrlBlock, frames-off)
		out := dst[2*off : 2*(off+n)]
		var rv, chs []float32
		if fxBuf != nil {
			rv = fxBuf[2*off : 2*(off+n)]
			chs = fxBuf[2*frames+2*off : 2*frames+2*(off+n)]
		}
		for _, vi := range s.active {
			v := &s.voices[vi]
			v.render(s, out, n, rv, chs)
		}
		s.compact()
	}
	if s.fx != nil {
		s.fx.process(dst, frames)
	}
	limit(dst, float32(s.opts.Gain))
}

// limit applies the master gain and a soft limiter that keeps every sample
// inside (−1, 1): linear up to 0.75, then a smooth knee.
func limit(dst []float32, gain float32) {
	for i, x := range dst {
		x *= gain
		a := x
		if a < 0 {
			a = -a
		}
		if a > 0.75 {
			// 0.75 + 0.25·(1 − e^{−(a−0.75)/0.25}) is continuous with slope 1 and < 1.
			y := 0.75 + 0.25*float32(-math.Expm1(-float64(a-0.75)*4))
			if x < 0 {
				y = -y
			}
			x = y
		}
		dst[i] = x
	}
}

// tc2sec converts timecents to seconds; very small values are zero.
func tc2sec(tc float64) float64 {
	if tc <= -12000 {
		return 0
	}
	return math.Exp2(tc / 1200)
}

// absCentsToHz converts absolute cents (8.176 Hz = 0) to Hz.
func absCentsToHz(c float64) float64 { return 8.176 * math.Exp2(c/1200) }

func clampF(v, lo, hi float64) float64 { return min(max(v, lo), hi) }

// envelope is the SF2 DAHDSR envelope. For the volume envelope the level
// is an attenuation in dB after the attack; for the modulation envelope it
// is a 0…1 value.
type envelope struct {
	stage                      uint8
	vol                        bool
	t                          float64 // time spent in the stage
	level                      float64 // mod: 0…1; vol: linear amplitude
	att                        float64 // vol: attenuation in dB after attack
	delay, attack, hold, decay float64 // seconds
	sustain                    float64 // mod: level 0…1; vol: dB of attenuation
	release                    float64 // seconds for a full-range change
}

const (
	stDelay = iota
	stAttack
	stHold
	stDecay
	stSustain
	stRelease
	stDone
)

// advance moves the envelope by dt seconds and returns its output.
func (e *envelope) advance(dt float64) float64 {
	for dt > 0 {
		switch e.stage {
		case stDelay, stAttack, stHold:
			d := e.delay
			if e.stage == stAttack {
				d = e.attack
			} else if e.stage == stHold {
				d = e.hold
			}
			if e.t+dt < d {
				e.t += dt
				dt = 0
			} else {
				dt -= d - e.t
				e.t = 0
				e.stage++
			}
		case stDecay:
			if e.vol {
				e.att += dt * 100 / max(e.decay, 1e-3)
				if e.att >= e.sustain {
					e.att = e.sustain
					e.stage = stSustain
				}
			} else {
				e.level -= dt / max(e.decay, 1e-3)
				if e.level <= e.sustain {
					e.level = e.sustain
					e.stage = stSustain
				}
			}
			dt = 0
		case stSustain:
			dt = 0
		case stRelease:
			if e.vol {
				e.att += dt * 100 / max(e.release, 1e-3)
				if e.att >= 96 {
					e.stage = stDone
				}
			} else {
				e.level -= dt / max(e.release, 1e-3)
				if e.level <= 0 {
					e.level = 0
					e.stage = stDone
				}
			}
			dt = 0
		default:
			dt = 0
		}
	}
	return e.value()
}

func (e *envelope) value() float64 {
	switch e.stage {
	case stDelay:
		return 0
	case stAttack:
		if e.attack <= 0 {
			return 1
		}
		if e.vol {
			return e.t / e.attack
		}
		e.level = e.t / e.attack
		return e.level
	case stHold:
		if !e.vol {
			e.level = 1
		}
		return 1
	case stDone:
		return 0
	}
	if e.vol {
		return math.Exp(-e.att * (math.Ln10 / 20))
	}
	return e.level
}

// noteOff moves the envelope to its release stage.
func (e *envelope) noteOff() {
	if e.stage >= stRelease {
		return
	}
	if e.vol {
		switch e.stage {
		case stDelay:
			e.stage = stDone
			return
		case stAttack:
			a := e.value()
			e.att = -20 * math.Log10(max(a, 1e-5))
		case stHold:
			e.att = 0
		}
	} else {
		e.level = e.value()
	}
	e.stage = stRelease
	e.t = 0
}

// lfo is a triangle wave −1…1 after a delay.
type lfo struct {
	delay, phase, inc float64 // inc: cycles per second
}

func (l *lfo) advance(dt float64) float64 {
	if l.delay > 0 {
		l.delay -= dt
		return 0
	}
	l.phase += l.inc * dt
	l.phase -= math.Floor(l.phase)
	// 0 → 0, 0.25 → 1, 0.75 → −1
	p := l.phase
	switch {
	case p < 0.25:
		return 4 * p
	case p < 0.75:
		return 2 - 4*p
	default:
		return 4*p - 4
	}
}
