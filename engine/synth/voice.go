package synth

import "math"

// sfVoice is one sounding sample of a SoundFont region.
type sfVoice struct {
	on, released, sustained bool
	looping                 bool // currently looping (mode 1, or mode 3 until release)
	loopMode                int32
	ch                      int
	key, vel                uint8
	exclusive               int32
	age                     uint64

	data               []int16 // SoundFont.Data
	data24             []uint8 // SoundFont.Data24
	phase              float64
	end                float64 // last usable index (exclusive of the +1 read)
	loopStart, loopEnd float64
	pitchInc           float64 // phase increment without modulation
	centsBase          float64 // for recomputation with pitch bend

	volEnv, modEnv envelope
	modLFO, vibLFO lfo

	modLfoToPitch, vibLfoToPitch, modEnvToPitch float64
	fcBase, modLfoToFc, modEnvToFc              float64
	modLfoToVol                                 float64 // cB
	attBase                                     float64 // cB: initial attenuation + velocity
	regionPan                                   float64
	reverbSend, chorusSend                      float64
	filterQ, filterGain                         float64
	useFilter, modulated                        bool

	gainL, gainR float32 // pan × channel volume × attenuation (without envelope)
	amp          float32 // envelope × LFO gain at the end of the last block
	// biquad (transposed direct form II)
	b0, b1, b2, a1, a2 float32
	z1, z2             float32
	lastFc             float64
	rvL, chL           float32 // effect sends
}

// concave is the SF2 concave transform used for velocity and volume
// controllers: attenuation in cB for a 0…127 value, at most 960.
func concaveCB(v int) float64 {
	if v <= 0 {
		return 960
	}
	return min(960, -400*math.Log10(float64(v)/127))
}

func (v *sfVoice) start(s *sfSynth, c int, ch *channel, r *Region, key, vel int, clock uint64) {
	g := &r.Gen
	sh := &s.sf.Samples[r.Sample]
	*v = sfVoice{on: true, ch: c, key: uint8(key), vel: uint8(vel), age: clock, data: s.sf.Data, data24: s.sf.Data24,
		exclusive: g[genExclusiveClass], loopMode: g[genSampleModes] & 3}
	if g[genVelocity] >= 0 && g[genVelocity] <= 127 {
		vel = int(g[genVelocity])
	}
	pitchKey := key
	if g[genKeynum] >= 0 && g[genKeynum] <= 127 {
		pitchKey = int(g[genKeynum])
	}

	// Sample addresses, clamped to the sample data.
	n := float64(len(v.data))
	start := clampF(float64(sh.Start)+float64(g[genStartAddrsOffset])+32768*float64(g[genStartAddrsCoarse]), 0, n-1)
	end := clampF(float64(sh.End)+float64(g[genEndAddrsOffset])+32768*float64(g[genEndAddrsCoarse]), start, n-1)
	ls := clampF(float64(sh.LoopStart)+float64(g[genStartloopAddrsOffset])+32768*float64(g[genStartloopAddrsCoarse]), start, end)
	le := clampF(float64(sh.LoopEnd)+float64(g[genEndloopAddrsOffset])+32768*float64(g[genEndloopAddrsCoarse]), start, end)
	v.phase, v.end, v.loopStart, v.loopEnd = start, end-1, ls, le
	if v.loopMode == 2 || le-ls < 2 {
		v.loopMode = 0
	}
	v.looping = v.loopMode == 1 || v.loopMode == 3
	if v.end <= v.phase {
		v.on = false
		return
	}

	// Pitch.
	root := float64(sh.OriginalPitch)
	if sh.OriginalPitch > 127 {
		root = 60
	}
	if g[genOverridingRootKey] >= 0 && g[genOverridingRootKey] <= 127 {
		root = float64(g[genOverridingRootKey])
	}
	v.centsBase = float64(g[genScaleTuning])*(float64(pitchKey)-root) + 100*float64(g[genCoarseTune]) + float64(g[genFineTune]) + float64(sh.PitchCorrection)
	rate := float64(sh.SampleRate)
	if rate < 400 || rate > 400000 {
		rate = s.rate
	}
	v.pitchInc = rate / s.rate

	// Envelopes: key number scales hold and decay (§8.1.2, gens 31/32/39/40).
	kd := float64(60 - pitchKey)
	v.volEnv = envelope{vol: true,
		delay:   tc2sec(clampF(float64(g[genDelayVolEnv]), -12000, 5000)),
		attack:  tc2sec(clampF(float64(g[genAttackVolEnv]), -12000, 8000)),
		hold:    tc2sec(clampF(float64(g[genHoldVolEnv])+float64(g[genKeynumToVolEnvHold])*kd, -12000, 5000)),
		decay:   tc2sec(clampF(float64(g[genDecayVolEnv])+float64(g[genKeynumToVolEnvDecay])*kd, -12000, 8000)),
		sustain: clampF(float64(g[genSustainVolEnv]), 0, 1440) / 10,
		release: tc2sec(clampF(float64(g[genReleaseVolEnv]), -12000, 8000)),
	}
	v.modEnv = envelope{
		delay:   tc2sec(clampF(float64(g[genDelayModEnv]), -12000, 5000)),
		attack:  tc2sec(clampF(float64(g[genAttackModEnv]), -12000, 8000)),
		hold:    tc2sec(clampF(float64(g[genHoldModEnv])+float64(g[genKeynumToModEnvHold])*kd, -12000, 5000)),
		decay:   tc2sec(clampF(float64(g[genDecayModEnv])+float64(g[genKeynumToModEnvDecay])*kd, -12000, 8000)),
		sustain: 1 - clampF(float64(g[genSustainModEnv]), 0, 1000)/1000,
		release: tc2sec(clampF(float64(g[genReleaseModEnv]), -12000, 8000)),
	}
	v.modLFO = lfo{delay: tc2sec(clampF(float64(g[genDelayModLFO]), -12000, 5000)), inc: absCentsToHz(clampF(float64(g[genFreqModLFO]), -16000, 4500))}
	v.vibLFO = lfo{delay: tc2sec(clampF(float64(g[genDelayVibLFO]), -12000, 5000)), inc: absCentsToHz(clampF(float64(g[genFreqVibLFO]), -16000, 4500))}
	v.modLfoToPitch = clampF(float64(g[genModLfoToPitch]), -12000, 12000)
	v.vibLfoToPitch = clampF(float64(g[genVibLfoToPitch]), -12000, 12000)
	v.modEnvToPitch = clampF(float64(g[genModEnvToPitch]), -12000, 12000)
	v.modLfoToFc = clampF(float64(g[genModLfoToFilterFc]), -12000, 12000)
	v.modEnvToFc = clampF(float64(g[genModEnvToFilterFc]), -12000, 12000)
	v.modLfoToVol = clampF(float64(g[genModLfoToVolume]), -960, 960)

	// Default modulators (§8.4): velocity → attenuation (concave, 960 cB)
	// and velocity → filter cutoff (−2400 cents, linear).
	v.fcBase = clampF(float64(g[genInitialFilterFc]), 1500, 13500) - 2400*(1-float64(vel)/127)
	v.attBase = clampF(float64(g[genInitialAttenuation]), 0, 1440) + concaveCB(vel)
	qdB := clampF(float64(g[genInitialFilterQ]), 0, 960) / 10
	v.filterQ = max(math.Pow(10, qdB/20), 1/math.Sqrt2)
	v.filterGain = 1 / math.Sqrt(max(1, math.Pow(10, qdB/20)))
	v.useFilter = v.fcBase < 13500 || v.modLfoToFc != 0 || v.modEnvToFc != 0 || qdB > 0
	v.modulated = v.modLfoToPitch != 0 || v.vibLfoToPitch != 0 || v.modEnvToPitch != 0 || v.modLfoToFc != 0 || v.modEnvToFc != 0 || v.modLfoToVol != 0
	v.regionPan = clampF(float64(g[genPan]), -500, 500)
	v.reverbSend = clampF(float64(g[genReverbSend]), 0, 1000) / 1000
	v.chorusSend = clampF(float64(g[genChorusSend]), 0, 1000) / 1000
	v.lastFc = -1
	v.mix(ch)
}

// mix recomputes the static stereo gains from the channel controllers.
func (v *sfVoice) mix(ch *channel) {
	att := v.attBase + concaveCB(ch.volume) + concaveCB(ch.expression)
	gain := math.Exp(-att * (math.Ln10 / 200))
	pan := clampF(v.regionPan+float64(ch.pan-64)/64*500, -500, 500)
	theta := (pan + 500) / 1000 * math.Pi / 2
	v.gainL = float32(gain * math.Cos(theta) * math.Sqrt2)
	v.gainR = float32(gain * math.Sin(theta) * math.Sqrt2)
	// Reverb and chorus sends: the region's value plus the channel's
	// CC91/CC93 at 20% (default modulators 8.4.8/8.4.9).
	v.rvL = float32(min(1, v.reverbSend+0.2*float64(ch.reverb)/127))
	v.chL = float32(min(1, v.chorusSend+0.2*float64(ch.chorus)/127))
}

func (v *sfVoice) release() {
	if v.released {
		return
	}
	v.released = true
	v.volEnv.noteOff()
	v.modEnv.noteOff()
	if v.loopMode == 3 {
		v.looping = false
	}
}

// kill ends a voice quickly (exclusive class): a 5 ms release.
func (v *sfVoice) kill(rate float64) {
	v.release()
	v.volEnv.release = 0.005
}

// render adds n frames of this voice to out (stereo) and to the effect
// sends rv and ch when they are not nil.
func (v *sfVoice) render(s *sfSynth, out []float32, n int, rv, chs []float32) {
	dt := float64(n) / s.rate
	ch := &s.chans[v.ch]
	env := v.volEnv.advance(dt)
	if v.volEnv.stage == stDone {
		v.on = false
		return
	}
	cents := v.centsBase + ch.bend
	fc := v.fcBase
	gain := env
	if v.modulated || ch.modWheel != 0 {
		me := v.modEnv.advance(dt)
		ml := v.modLFO.advance(dt)
		vl := v.vibLFO.advance(dt)
		// Default modulator 8.4.4: mod wheel → vibrato LFO pitch depth, 50 cents.
		cents += ml*v.modLfoToPitch + vl*(v.vibLfoToPitch+50*float64(ch.modWheel)/127) + me*v.modEnvToPitch
		fc += ml*v.modLfoToFc + me*v.modEnvToFc
		if v.modLfoToVol != 0 {
			gain *= math.Exp(-ml * v.modLfoToVol * (math.Ln10 / 200))
		}
	}
	inc := v.pitchInc * math.Exp2(cents/1200)
	if v.useFilter {
		fc = clampF(fc, 1500, 13500)
		if math.Abs(fc-v.lastFc) > 5 {
			v.setFilter(absCentsToHz(fc), s.rate)
			v.lastFc = fc
		}
	}
	a0 := v.amp
	a1 := float32(gain)
	v.amp = a1
	da := (a1 - a0) / float32(n)
	amp := a0

	data, data24 := v.data, v.data24
	// The points are interpolated as stored and scaled after: exact, the
	// scale being a power of two (see point).
	scale := float32(1.0 / (1 << 15))
	if data24 != nil {
		scale = 1.0 / (1 << 23)
	}
	ph := v.phase
	lim := v.end
	if v.looping {
		lim = v.loopEnd
	}
	gl, gr := v.gainL, v.gainR
	b0, b1, b2, fa1, fa2, z1, z2 := v.b0, v.b1, v.b2, v.a1, v.a2, v.z1, v.z2
	filt := v.useFilter
	i := 0
	for ; i < n; i++ {
		idx := int(ph)
		if idx < 0 || idx >= len(data)-1 {
			v.on = false
			break
		}
		fr := float32(ph - float64(idx))
		d := data[idx : idx+2]
		f0, f1 := float32(d[0]), float32(d[1])
		if data24 != nil { // 24-bit points: sm24 adds a low byte
			f0, f1 = float32(int32(d[0])<<8|int32(data24[idx])), float32(int32(d[1])<<8|int32(data24[idx+1]))
		}
		x := (f0 + (f1-f0)*fr) * scale
		if filt {
			y := b0*x + z1
			z1 = b1*x - fa1*y + z2
			z2 = b2*x - fa2*y
			x = y
		}
		x *= amp
		amp += da
		out[2*i] += x * gl
		out[2*i+1] += x * gr
		if rv != nil {
			rv[2*i] += x * gl * v.rvL
			rv[2*i+1] += x * gr * v.rvL
			chs[2*i] += x * gl * v.chL
			chs[2*i+1] += x * gr * v.chL
		}
		ph += inc
		if ph >= lim {
			if v.looping {
				ph -= v.loopEnd - v.loopStart
				if ph >= lim { // an increment longer than the loop
					ph = v.loopStart
				}
			} else {
				v.on = false
				i++
				break
			}
		}
	}
	v.phase = ph
	v.z1, v.z2 = z1, z2
}

// setFilter sets the RBJ low-pass biquad for cutoff f Hz.
func (v *sfVoice) setFilter(f, rate float64) {
	f = min(f, 0.45*rate)
	w := 2 * math.Pi * f / rate
	sn, cs := math.Sincos(w)
	alpha := sn / (2 * v.filterQ)
	a0 := 1 + alpha
	g := v.filterGain / a0
	v.b0 = float32((1 - cs) / 2 * g)
	v.b1 = float32((1 - cs) * g)
	v.b2 = v.b0
	v.a1 = float32(-2 * cs / a0)
	v.a2 = float32((1 - alpha) / a0)
}
