package synth

import (
	"math"
	"sync"
)

// The built-in synthesizer: band-limited wavetables (one per octave, so
// high notes do not alias) with an envelope and a one-pole low-pass per
// voice, a timbre per General MIDI family, and drums synthesized from
// sine sweeps and filtered noise. It needs no files.

// NewBuiltinRenderer returns the built-in synthesizer as a Renderer.
func NewBuiltinRenderer(opts Options) Renderer {
	opts = opts.withDefaults(builtinGain)
	return &base{name: "built-in", rate: opts.SampleRate, newSyn: func() Synth { return NewBuiltinSynth(opts) }}
}

// builtinGain is the built-in synthesizer's default master gain: POP909
// song 001 peaks near 0.7 before the limiter.
const builtinGain = 0.8

// timbre describes one family's sound.
type timbre struct {
	harm      func(k int) float64 // amplitude of harmonic k ≥ 1
	attack    float64             // seconds
	decay     float64             // seconds to fall to sustain (exponential time constant)
	sustain   float64             // level 0…1 held while the key is down
	release   float64             // seconds from note-off to silence (−80 dB)
	percuss   bool                // decays to silence while held, faster for high notes
	bright    float64             // low-pass cutoff at onset, as a multiple of the fundamental
	dark      float64             // cutoff after the decay (multiple of the fundamental)
	detune    float64             // cents of a second oscillator (0 for none)
	vibrato   float64             // cents, 5 Hz, after 0.3 s
	level     float64
	tables    [nOctaves][]float32 // built lazily
	tablesOne sync.Once
}

const (
	tableSize = 2048
	nOctaves  = 11
)

// Timbres, indexed by the values of familyTimbre.
const (
	tPiano = iota
	tOrgan
	tStrings
	tBass
	tPluck
	tLead
	tPad
	tFlute
	nTimbres
)

var timbres = [nTimbres]*timbre{
	tPiano: {harm: func(k int) float64 { return math.Pow(float64(k), -1.6) * (1 + 0.3*math.Sin(float64(k))) },
		attack: 0.002, decay: 1.2, percuss: true, release: 0.12, bright: 10, dark: 3, level: 1},
	tOrgan: {harm: func(k int) float64 {
		switch k {
		case 1:
			return 1
		case 2:
			return 0.6
		case 3:
			return 0.45
		case 4:
			return 0.35
		case 6:
			return 0.2
		case 8:
			return 0.15
		}
		return 0
	}, attack: 0.01, decay: 0.1, sustain: 1, release: 0.06, bright: 40, dark: 40, level: 0.6},
	tStrings: {harm: func(k int) float64 { return 1 / float64(k) }, attack: 0.12, decay: 0.3, sustain: 0.9, release: 0.25,
		bright: 6, dark: 5, detune: 6, vibrato: 12, level: 0.55},
	tBass: {harm: func(k int) float64 { return math.Pow(float64(k), -2) }, attack: 0.004, decay: 0.9, sustain: 0.3, release: 0.08,
		bright: 8, dark: 3, level: 1},
	tPluck: {harm: func(k int) float64 { return 1 / float64(k) }, attack: 0.001, decay: 0.7, percuss: true, release: 0.1,
		bright: 14, dark: 2, level: 0.9},
	tLead: {harm: func(k int) float64 {
		if k%2 == 0 {
			return 0.25 / float64(k)
		}
		return 1 / float64(k)
	}, attack: 0.015, decay: 0.4, sustain: 0.8, release: 0.08, bright: 8, dark: 6, vibrato: 8, level: 0.45},
	tPad: {harm: func(k int) float64 { return 1 / float64(k) }, attack: 0.35, decay: 1, sustain: 0.85, release: 0.7,
		bright: 3, dark: 3, detune: 9, level: 0.45},
	tFlute: {harm: func(k int) float64 { return []float64{0, 1, 0.25, 0.1, 0.04}[min(k, 4)] * b2f(k <= 4) }, attack: 0.04, decay: 0.2,
		sustain: 0.9, release: 0.08, bright: 20, dark: 20, vibrato: 10, level: 0.7},
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// familyTimbre maps the 16 General MIDI families (program/8) to timbres.
var familyTimbre = [16]int{
	tPiano,   // piano
	tPluck,   // chromatic percussion
	tOrgan,   // organ
	tPluck,   // guitar
	tBass,    // bass
	tStrings, // strings
	tStrings, // ensemble
	tLead,    // brass
	tLead,    // reed
	tFlute,   // pipe
	tLead,    // synth lead
	tPad,     // synth pad
	tPad,     // synth effects
	tPluck,   // ethnic
	tPluck,   // percussive
	tPad,     // sound effects
}

// table returns the wavetable for a fundamental of f Hz: octave o holds
// only the harmonics below 20 kHz at 44.1 kHz for the top of its range.
// Each table has one guard point at the end for interpolation.
func (tb *timbre) table(f, rate float64) []float32 {
	tb.tablesOne.Do(func() {
		var sine [tableSize]float64
		for i := range sine {
			sine[i] = math.Sin(2 * math.Pi * float64(i) / tableSize)
		}
		for o := range tb.tables {
			top := 8.176 * math.Exp2(float64(o+1)) * 1.5 // highest fundamental this octave serves (with bend room)
			nh := min(64, max(1, int(19000/top)))
			t := make([]float32, tableSize+1)
			peak := 0.0
			acc := make([]float64, tableSize)
			for k := 1; k <= nh; k++ {
				a := tb.harm(k)
				if a == 0 {
					continue
				}
				for i := range acc {
					acc[i] += a * sine[(k*i)%tableSize]
				}
			}
			for _, v := range acc {
				peak = max(peak, math.Abs(v))
			}
			for i, v := range acc {
				t[i] = float32(v / max(peak, 1e-9))
			}
			t[tableSize] = t[0]
			tb.tables[o] = t
		}
	})
	o := int(math.Log2(max(f, 8.2) / 8.176))
	return tb.tables[min(max(o, 0), nOctaves-1)]
}

type bChannel struct {
	controls
	program int
	drum    bool
	timbre  int
	bend    float64 // cents
}

func (c *bChannel) reset() {
	*c = bChannel{program: c.program, drum: c.drum, timbre: c.timbre}
	c.resetControls()
}

type builtinSynth struct {
	opts   Options
	rate   float64
	chans  []bChannel
	voices []bVoice
	clock  uint64
	n      int // sounding voices (voices[:n])
}

// NewBuiltinSynth returns the built-in synthesizer as a live Synth.
func NewBuiltinSynth(opts Options) Synth {
	opts = opts.withDefaults(builtinGain)
	return &builtinSynth{opts: opts, rate: float64(opts.SampleRate), voices: make([]bVoice, opts.MaxVoices)}
}

func (s *builtinSynth) SampleRate() int { return int(s.rate) }
func (s *builtinSynth) Active() int     { return s.n }
func (s *builtinSynth) Reset() {
	s.n = 0
	for i := range s.chans {
		s.chans[i].reset()
	}
}

func (s *builtinSynth) ch(c int) *bChannel {
	if c < 0 || c > 4096 {
		c = 0
	}
	for len(s.chans) <= c {
		s.chans = append(s.chans, bChannel{})
		s.chans[len(s.chans)-1].reset()
	}
	return &s.chans[c]
}

func (s *builtinSynth) Program(c, program int, drum bool) {
	ch := s.ch(c)
	ch.program, ch.drum = program&0x7f, drum
	ch.timbre = familyTimbre[ch.program/8]
}

func (s *builtinSynth) PitchBend(c, bend int) {
	s.ch(c).bend = float64(min(max(bend, -8192), 8191)) / 8192 * 200
}

func (s *builtinSynth) Control(c, cc, value int) {
	ch := s.ch(c)
	value = min(max(value, 0), 127)
	ch.set(cc, value)
	switch cc {
	case 64:
		if !ch.sustain {
			for i := 0; i < s.n; i++ {
				if v := &s.voices[i]; v.ch == c && v.sustained {
					v.sustained = false
					v.released = true
				}
			}
		}
	case 120, 123:
		for i := 0; i < s.n; i++ {
			if v := &s.voices[i]; v.ch == c {
				v.released = true
				if cc == 120 {
					v.on = false
				}
			}
		}
	case 121:
		ch.reset()
	}
}

func (s *builtinSynth) NoteOff(c, key int) {
	ch := s.ch(c)
	for i := 0; i < s.n; i++ {
		if v := &s.voices[i]; v.ch == c && int(v.key) == key && !v.released {
			if ch.sustain {
				v.sustained = true
			} else {
				v.released = true
			}
		}
	}
}

func (s *builtinSynth) NoteOn(c, key, vel int) {
	if vel <= 0 {
		s.NoteOff(c, key)
		return
	}
	if key < 0 || key > 127 {
		return
	}
	ch := s.ch(c)
	var v *bVoice
	if s.n < len(s.voices) {
		v = &s.voices[s.n]
		s.n++
	} else { // steal the oldest voice, preferring released ones
		best := 0
		for i := 1; i < s.n; i++ {
			a, b := &s.voices[i], &s.voices[best]
			if (a.released && !b.released) || (a.released == b.released && a.age < b.age) {
				best = i
			}
		}
		v = &s.voices[best]
	}
	s.clock++
	v.start(s, c, ch, key, min(vel, 127), s.clock)
}

func (s *builtinSynth) Process(dst []float32) {
	clear(dst)
	frames := len(dst) / 2
	for off := 0; off < frames; off += ctrlBlock {
		n := min(ctrlBlock, frames-off)
		out := dst[2*off : 2*(off+n)]
		for i := 0; i < s.n; i++ {
			s.voices[i].render(s, out, n)
		}
		j := 0
		for i := 0; i < s.n; i++ {
			if s.voices[i].on {
				s.voices[j] = s.voices[i]
				j++
			}
		}
		s.n = j
	}
	limit(dst, float32(s.opts.Gain))
}

// Drum kinds.
const (
	dKick = iota
	dSnare
	dClap
	dHatClosed
	dHatOpen
	dTom
	dCrash
	dRide
	dClick
	dBell
)

// drumKind maps a GM percussion key to a kind and a pitch (Hz) for tuned drums.
func drumKind(key int) (kind int, f float64) {
	switch key {
	case 35, 36:
		return dKick, 55
	case 37, 31, 33, 34, 75, 76, 77:
		return dClick, 1800
	case 38, 40:
		return dSnare, 190
	case 39, 28:
		return dClap, 0
	case 42, 44, 54, 69, 70, 82:
		return dHatClosed, 0
	case 46:
		return dHatOpen, 0
	case 41, 43, 45, 47, 48, 50, 60, 61, 62, 63, 64, 65, 66, 78, 79:
		return dTom, 70 * math.Exp2(float64(key-41)/12)
	case 49, 52, 55, 57:
		return dCrash, 0
	case 51, 53, 59:
		return dRide, 0
	case 56, 67, 68, 80, 81:
		return dBell, 560 * math.Exp2(float64(key-56)/24)
	}
	return dHatClosed, 0
}

type bVoice struct {
	on, released, sustained bool
	drum                    bool
	kind                    int
	ch                      int
	key                     uint8
	age                     uint64
	t                       float64 // seconds since onset
	relT                    float64 // seconds since release
	tb                      *timbre
	table                   []float32
	phase, phase2           float64
	f0                      float64 // Hz
	velGain                 float64
	env, relLevel           float64
	amp                     float32
	lp, lp2, hp             float32 // filter states
	noise                   uint32
	gainL, gainR            float32
}

func (v *bVoice) start(s *builtinSynth, c int, ch *bChannel, key, vel int, clock uint64) {
	*v = bVoice{on: true, ch: c, key: uint8(key), age: clock, drum: ch.drum, noise: uint32(key)*2654435761 + uint32(clock)*40503 + 1}
	vg := float64(vel) / 127
	v.velGain = vg * vg
	v.f0 = 440 * math.Exp2(float64(key-69)/12)
	if ch.drum {
		v.kind, v.f0 = drumKind(key)
	} else {
		v.tb = timbres[ch.timbre]
		v.table = v.tb.table(v.f0, s.rate)
	}
	vol := float64(ch.volume) / 127 * float64(ch.expression) / 127
	vol *= vol
	theta := float64(ch.pan) / 127 * math.Pi / 2
	v.gainL = float32(vol * math.Cos(theta) * math.Sqrt2 * 0.35)
	v.gainR = float32(vol * math.Sin(theta) * math.Sqrt2 * 0.35)
}

// silence (−80 dB) ends a voice; the release time constant is such that a
// full-level note reaches it in the timbre's release time.
const silence = 1e-4

var releaseTaus = -math.Log(silence) // ≈ 9.2 time constants

// envelope advances the voice by dt and returns its amplitude.
func (v *bVoice) envelope(dt float64) float64 {
	tb := v.tb
	v.t += dt
	var e float64
	switch {
	case v.t < tb.attack:
		e = v.t / tb.attack
	case tb.percuss:
		// Higher notes die faster, as on a piano or a string.
		tau := tb.decay * math.Exp2(-(float64(v.key)-60)/24)
		e = math.Exp(-(v.t - tb.attack) / tau)
	default:
		e = tb.sustain + (1-tb.sustain)*math.Exp(-(v.t-tb.attack)/(tb.decay/3))
	}
	if v.released {
		if v.relT == 0 {
			v.relLevel = e
		}
		v.relT += dt
		e = min(e, v.relLevel) * math.Exp(-v.relT/(tb.release/releaseTaus))
	}
	return e
}

func (v *bVoice) render(s *builtinSynth, out []float32, n int) {
	if v.drum {
		v.renderDrum(s, out, n)
		return
	}
	dt := float64(n) / s.rate
	e := v.envelope(dt)
	if e < silence && (v.released || v.t > v.tb.attack) {
		v.on = false
		return
	}
	ch := &s.chans[v.ch]
	tb := v.tb
	cents := ch.bend
	if vib := tb.vibrato + 30*float64(ch.modWheel)/127; vib > 0 && v.t > 0.3 {
		cents += vib * math.Sin(2*math.Pi*5*v.t)
	}
	f := v.f0 * math.Exp2(cents/1200)
	inc := f / s.rate * tableSize
	inc2 := inc * math.Exp2(tb.detune/1200)
	// Brightness falls from bright to dark over the decay.
	mult := tb.dark + (tb.bright-tb.dark)*math.Exp(-v.t/(0.25*tb.decay))
	fc := min(f*mult, 0.45*s.rate)
	c := float32(1 - math.Exp(-2*math.Pi*fc/s.rate))
	a0 := v.amp
	a1 := float32(e * v.velGain * tb.level)
	v.amp = a1
	da := (a1 - a0) / float32(n)
	amp := a0
	t := v.table
	ph, ph2 := v.phase, v.phase2
	lp := v.lp
	lp2 := v.lp2
	gl, gr := v.gainL, v.gainR
	two := tb.detune != 0
	for i := 0; i < n; i++ {
		j := int(ph)
		fr := float32(ph - float64(j))
		x := t[j] + (t[j+1]-t[j])*fr
		ph += inc
		if ph >= tableSize {
			ph -= tableSize
		}
		if two {
			j2 := int(ph2)
			fr2 := float32(ph2 - float64(j2))
			x = 0.6 * (x + t[j2] + (t[j2+1]-t[j2])*fr2)
			ph2 += inc2
			if ph2 >= tableSize {
				ph2 -= tableSize
			}
		}
		// Two one-pole low-passes in series (12 dB/octave).
		lp += c * (x - lp)
		lp2 += c * (lp - lp2)
		y := lp2 * amp
		amp += da
		out[2*i] += y * gl
		out[2*i+1] += y * gr
	}
	v.phase, v.phase2, v.lp, v.lp2 = ph, ph2, lp, lp2
}

func (v *bVoice) rand() float32 {
	x := v.noise
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	v.noise = x
	return float32(int32(x)) / (1 << 31)
}

// renderDrum synthesizes one block of a drum hit.
func (v *bVoice) renderDrum(s *builtinSynth, out []float32, n int) {
	dt := 1 / s.rate
	gl, gr := v.gainL, v.gainR
	g := float32(v.velGain) * 1.4
	var decay float64 // amplitude time constant, seconds
	switch v.kind {
	case dKick:
		decay = 0.18
	case dSnare:
		decay = 0.09
	case dClap:
		decay = 0.07
	case dHatClosed:
		decay = 0.025
	case dHatOpen:
		decay = 0.2
	case dTom:
		decay = 0.2
	case dCrash:
		decay = 0.7
	case dRide:
		decay = 0.45
	case dClick:
		decay = 0.012
	default:
		decay = 0.15
	}
	// Drums ring out regardless of note-off (GM players ignore it too).
	if v.t > 8*decay {
		v.on = false
		return
	}
	k := math.Exp(-dt / decay)
	e := math.Exp(-v.t / decay)
	// The pitch sweep of kick and toms and the snare's tone decay follow
	// e^(−t/τ), advanced by one multiplication a sample.
	var tau float64
	switch v.kind {
	case dKick:
		tau = 0.03
	case dTom:
		tau = 0.05
	default:
		tau = 0.04
	}
	ks := math.Exp(-dt / tau)
	sw := math.Exp(-v.t / tau)
	for i := 0; i < n; i++ {
		var x float32
		switch v.kind {
		case dKick:
			v.phase += (v.f0 + 110*sw) * dt
			x = fastSin(v.phase) * 1.2
		case dTom:
			v.phase += v.f0 * (1 + 0.5*sw) * dt
			x = fastSin(v.phase)
		case dSnare:
			v.phase += v.f0 * dt
			nz := v.rand()
			v.hp += 0.5 * (nz - v.hp)
			x = 0.5*fastSin(v.phase)*float32(sw) + 0.8*(nz-v.hp)
		case dClap:
			nz := v.rand()
			burst := float32(1)
			if v.t < 0.03 && int(v.t/0.01)%2 == 1 {
				burst = 0.3
			}
			v.lp += 0.3 * (nz - v.lp)
			x = (nz - v.lp) * burst
		case dHatClosed, dHatOpen, dCrash, dRide:
			nz := v.rand()
			// A high-pass (noise minus its low-pass) gives the hiss of metal.
			v.lp += 0.6 * (nz - v.lp)
			x = (nz - v.lp) * 0.7
			if v.kind == dRide {
				v.phase += 4200 * dt
				x = 0.5*x + 0.2*fastSin(v.phase)
			}
		case dClick:
			v.phase += v.f0 * dt
			x = fastSin(v.phase) + 0.3*v.rand()
		case dBell:
			v.phase += v.f0 * dt
			v.phase2 += v.f0 * 1.48 * dt
			x = 0.6 * (fastSin(v.phase) + fastSin(v.phase2))
		}
		if v.phase >= 1 {
			v.phase -= math.Floor(v.phase)
		}
		if v.phase2 >= 1 {
			v.phase2 -= math.Floor(v.phase2)
		}
		a := float32(e) * g
		if v.t < 0.001 { // 1 ms onset ramp against clicks
			a *= float32(v.t / 0.001)
		}
		x *= a
		out[2*i] += x * gl
		out[2*i+1] += x * gr
		e *= k
		sw *= ks
		v.t += dt
	}
}

// sineTable holds one cycle of a sine (plus a guard point) for fastSin.
var sineTable = func() (t [1025]float32) {
	for i := range t {
		t[i] = float32(math.Sin(2 * math.Pi * float64(i) / 1024))
	}
	return t
}()

// fastSin returns sin(2π·phase) for phase in [0, 1) (wrapping otherwise)
// by table lookup with linear interpolation (error < 5e-6).
func fastSin(phase float64) float32 {
	p := (phase - math.Floor(phase)) * 1024
	i := int(p)
	if i >= 1024 || i < 0 { // phase − ⌊phase⌋ rounded up to 1, or NaN
		return 0
	}
	fr := float32(p - float64(i))
	return sineTable[i] + (sineTable[i+1]-sineTable[i])*fr
}
