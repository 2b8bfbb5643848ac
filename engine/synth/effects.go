package synth

import "math"

// effects are the reverb and chorus send buses: a Schroeder reverb (four
// damped comb filters and two all-passes per side, in the manner of
// Freeverb) and a one-voice chorus (a delay line swept by a sine LFO).
type effects struct {
	rate           float64
	reverb, chorus bool
	buf            []float32 // sends: reverb L/R interleaved, then chorus L/R
	combs          [2][4]comb
	aps            [2][2]allpass
	cd             [2][]float32 // chorus delay lines
	cpos           int
	cphase         float64
}

type comb struct {
	buf      []float32
	pos      int
	store    float32
	feedback float32
	damp     float32
}

type allpass struct {
	buf []float32
	pos int
}

func newEffects(rate int, reverb, chorus bool) *effects {
	e := &effects{rate: float64(rate), reverb: reverb, chorus: chorus}
	scale := float64(rate) / 44100
	combLen := []int{1116, 1188, 1277, 1356}
	apLen := []int{556, 441}
	for side := 0; side < 2; side++ {
		spread := 23 * side // decorrelate left and right
		for i := range e.combs[side] {
			e.combs[side][i] = comb{buf: make([]float32, int(float64(combLen[i]+spread)*scale)), feedback: 0.84, damp: 0.2}
		}
		for i := range e.aps[side] {
			e.aps[side][i] = allpass{buf: make([]float32, int(float64(apLen[i]+spread)*scale))}
		}
		e.cd[side] = make([]float32, int(0.05*float64(rate)))
	}
	return e
}

func (e *effects) reset() {
	for side := range 2 {
		for i := range e.combs[side] {
			clear(e.combs[side][i].buf)
			e.combs[side][i].store = 0
		}
		for i := range e.aps[side] {
			clear(e.aps[side][i].buf)
		}
		clear(e.cd[side])
	}
}

// input returns zeroed send buffers for frames frames.
func (e *effects) input(frames int) []float32 {
	if cap(e.buf) < 4*frames {
		e.buf = make([]float32, 4*frames)
	}
	e.buf = e.buf[:4*frames]
	clear(e.buf)
	return e.buf
}

// process adds the wet signal of the sends to dst.
func (e *effects) process(dst []float32, frames int) {
	rv := e.buf[:2*frames]
	ch := e.buf[2*frames : 4*frames]
	if e.reverb {
		for side := 0; side < 2; side++ {
			for i := 0; i < frames; i++ {
				x := rv[2*i+side] * 0.3
				var y float32
				for c := range e.combs[side] {
					cb := &e.combs[side][c]
					o := cb.buf[cb.pos]
					cb.store = o*(1-cb.damp) + cb.store*cb.damp
					cb.buf[cb.pos] = x + cb.store*cb.feedback
					if cb.pos++; cb.pos == len(cb.buf) {
						cb.pos = 0
					}
					y += o
				}
				for a := range e.aps[side] {
					ap := &e.aps[side][a]
					o := ap.buf[ap.pos]
					ap.buf[ap.pos] = y + o*0.5
					y = o - y
					if ap.pos++; ap.pos == len(ap.buf) {
						ap.pos = 0
					}
				}
				dst[2*i+side] += y * 0.5
			}
		}
	}
	if e.chorus {
		n := len(e.cd[0])
		base, depth := 0.012*e.rate, 0.004*e.rate
		for i := 0; i < frames; i++ {
			e.cphase += 0.8 / e.rate
			if e.cphase >= 1 {
				e.cphase--
			}
			for side := 0; side < 2; side++ {
				e.cd[side][e.cpos] = ch[2*i+side]
				d := base + depth*math.Sin(2*math.Pi*(e.cphase+0.25*float64(side)))
				rp := float64(e.cpos) - d
				for rp < 0 {
					rp += float64(n)
				}
				j := int(rp)
				fr := float32(rp - float64(j))
				a, b := e.cd[side][j%n], e.cd[side][(j+1)%n]
				dst[2*i+side] += a + (b-a)*fr
			}
			if e.cpos++; e.cpos == n {
				e.cpos = 0
			}
		}
	}
}
