package cpu

import (
	"math"

	"github.com/amtstudio/amt/engine/nn"
)

// ---- token + position embedding ----

type encJob struct {
	out, wte, wpe []float32
	tokens        []int32
	T, C          int
}

// Do handles rows [lo,hi) of the (B·T) rows.
func (j *encJob) Do(lo, hi, _ int) {
	C := j.C
	for r := lo; r < hi; r++ {
		t := r % j.T
		o := j.out[r*C : r*C+C]
		we := j.wte[int(j.tokens[r])*C : int(j.tokens[r])*C+C]
		wp := j.wpe[t*C : t*C+C]
		for i := range o {
			o[i] = we[i] + wp[i]
		}
	}
}

func (b *Backend) EncoderForward(out, wte, wpe nn.Buffer, tokens []int32, B, T, C int) {
	b.jEnc = encJob{out: out.Host(), wte: wte.Host(), wpe: wpe.Host(), tokens: tokens[:B*T], T: T, C: C}
	b.pool.run(B*T, grainRows(C), &b.jEnc)
}

// encBackJob splits the channels: each worker owns columns [lo,hi) of every
// row of dwte and dwpe, so repeated tokens never race.
type encBackJob struct {
	dwte, dwpe, dout []float32
	tokens           []int32
	B, T, C          int
}

func (j *encBackJob) Do(lo, hi, _ int) {
	C := j.C
	for r := 0; r < j.B*j.T; r++ {
		t := r % j.T
		d := j.dout[r*C+lo : r*C+hi]
		we := j.dwte[int(j.tokens[r])*C+lo : int(j.tokens[r])*C+hi]
		wp := j.dwpe[t*C+lo : t*C+hi]
		for i, v := range d {
			we[i] += v
			wp[i] += v
		}
	}
}

func (b *Backend) EncoderBackward(dwte, dwpe, dout nn.Buffer, tokens []int32, B, T, C int) {
	b.jEncB = encBackJob{dwte: dwte.Host(), dwpe: dwpe.Host(), dout: dout.Host(), tokens: tokens[:B*T], B: B, T: T, C: C}
	b.pool.run(C, max(1, C/b.pool.n), &b.jEncB)
}

// ---- layer norm ----

type lnJob struct {
	out, mean, rstd, inp, w, bias []float32
	C                             int
	eps                           float32
}

func (j *lnJob) Do(lo, hi, _ int) {
	C := j.C
	for r := lo; r < hi; r++ {
		x := j.inp[r*C : r*C+C]
		m := 0.0
		for _, v := range x {
			m += float64(v)
		}
		m /= float64(C)
		va := 0.0
		for _, v := range x {
			d := float64(v) - m
			va += d * d
		}
		va /= float64(C)
		s := float32(1 / math.Sqrt(va+float64(j.eps)))
		mf := float32(m)
		o := j.out[r*C : r*C+C]
		w, bb := j.w[:C], j.bias[:C]
		for i, v := range x {
			o[i] = (v-mf)*s*w[i] + bb[i]
		}
		j.mean[r], j.rstd[r] = mf, s
	}
}

func (b *Backend) LayerNormForward(out, mean, rstd, inp, w, bias nn.Buffer, N, C int, eps float32) {
	b.jLN = lnJob{out: out.Host(), mean: mean.Host(), rstd: rstd.Host(), inp: inp.Host(), w: w.Host(), bias: bias.Host(), C: C, eps: eps}
	b.pool.run(N, grainRows(C), &b.jLN)
}

// lnBackJob: each worker accumulates its rows' dw, db into its scratch
// (2C floats), summed afterwards in worker order.
type lnBackJob struct {
	b                              *Backend
	dinp, dout, inp, w, mean, rstd []float32
	C                              int
}

func (j *lnBackJob) Do(lo, hi, wk int) {
	C := j.C
	sc := j.b.scratch[wk][:2*C]
	clear(sc)
	dw, db := sc[:C], sc[C:]
	for r := lo; r < hi; r++ {
		x := j.inp[r*C : r*C+C]
		g := j.dout[r*C : r*C+C]
		di := j.dinp[r*C : r*C+C]
		m, s := j.mean[r], j.rstd[r]
		// dnorm = g·w; dx = s·(dnorm - mean(dnorm) - norm·mean(dnorm·norm))
		var sumD, sumDN float32
		for i := range x {
			n := (x[i] - m) * s
			d := g[i] * j.w[i]
			sumD += d
			sumDN += d * n
		}
		sumD /= float32(C)
		sumDN /= float32(C)
		for i := range x {
			n := (x[i] - m) * s
			d := g[i] * j.w[i]
			db[i] += g[i]
			dw[i] += n * g[i]
			di[i] += s * (d - sumD - n*sumDN)
		}
	}
}

func (b *Backend) LayerNormBackward(dinp, dw, db, dout, inp, w, mean, rstd nn.Buffer, N, C int) {
	b.ensureScratch(2 * C)
	g := grainRows(C)
	parts := b.partsFor(N, g)
	b.jLNB = lnBackJob{b: b, dinp: dinp.Host(), dout: dout.Host(), inp: inp.Host(), w: w.Host(), mean: mean.Host(), rstd: rstd.Host(), C: C}
	b.pool.run(N, g, &b.jLNB)
	// dw and db are adjacent in every scratch; reduce each.
	for p := 0; p < parts; p++ {
		sc := b.scratch[p][:2*C]
		addTo(dw.Host()[:C], sc[:C])
		addTo(db.Host()[:C], sc[C:])
	}
}

func addTo(dst, src []float32) {
	for i := range dst {
		dst[i] += src[i]
	}
}

// ---- GELU (tanh form, as GPT-2's "gelu_new") ----

const geluK = 0.7978845608028654 // sqrt(2/pi)

type geluJob struct{ out, inp []float32 }

// The tanh form is computed as x·σ(2u): 0.5·(1+tanh u) = 1/(1+e^{-2u})
// exactly, so one expf and one division per element, with no cancellation
// near 0 and no overflow (expf clamps). The backward uses the same σ:
// 1-tanh²u = 4σ(1-σ). Elements go in chunks through a stack buffer so that
// expfs runs as one loop.
const geluChunk = 256

func (j *geluJob) Do(lo, hi, _ int) {
	var buf [geluChunk]float32
	for c0 := lo; c0 < hi; c0 += geluChunk {
		c1 := min(c0+geluChunk, hi)
		x, o := j.inp[c0:c1], j.out[c0:c1]
		e := buf[:len(x)]
		for i, v := range x {
			e[i] = (-2 * geluK) * (v + 0.044715*v*v*v)
		}
		expfs(e)
		o = o[:len(x)]
		for i, v := range x {
			o[i] = v / (1 + e[i])
		}
	}
}

func (b *Backend) GeluForward(out, inp nn.Buffer, n int) {
	b.jGelu = geluJob{out: out.Host()[:n], inp: inp.Host()[:n]}
	b.pool.run(n, grainElems/4, &b.jGelu)
}

type geluBackJob struct{ dinp, inp, dout []float32 }

func (j *geluBackJob) Do(lo, hi, _ int) {
	var buf [geluChunk]float32
	for c0 := lo; c0 < hi; c0 += geluChunk {
		c1 := min(c0+geluChunk, hi)
		x := j.inp[c0:c1]
		di, g := j.dinp[c0:c1], j.dout[c0:c1]
		di, g = di[:len(x)], g[:len(x)]
		e := buf[:len(x)]
		for i, v := range x {
			e[i] = (-2 * geluK) * (v + 0.044715*v*v*v)
		}
		expfs(e)
		for i, v := range x {
			s := 1 / (1 + e[i])
			// d/dv 0.5·v·(1+tanh u) = s + 2·v·s·(1-s)·u'
			local := s + 2*v*s*(1-s)*(geluK*(1+3*0.044715*v*v))
			di[i] += local * g[i]
		}
	}
}

func (b *Backend) GeluBackward(dinp, inp, dout nn.Buffer, n int) {
	b.jGeluB = geluBackJob{dinp: dinp.Host()[:n], inp: inp.Host()[:n], dout: dout.Host()[:n]}
	b.pool.run(n, grainElems/4, &b.jGeluB)
}

// ---- softmax + cross-entropy ----

type ceJob struct {
	losses, probs, logits []float32
	targets               []int32
	V                     int
}

func (j *ceJob) Do(lo, hi, _ int) {
	V := j.V
	for r := lo; r < hi; r++ {
		l := j.logits[r*V : r*V+V]
		p := j.probs[r*V : r*V+V]
		mx := l[0]
		for _, v := range l {
			mx = max(mx, v)
		}
		for i, v := range l {
			p[i] = v - mx
		}
		expfs(p)
		sum := 0.0
		for _, e := range p {
			sum += float64(e)
		}
		inv := float32(1 / sum)
		for i := range p {
			p[i] *= inv
		}
		if j.targets == nil || j.targets[r] < 0 {
			j.losses[r] = 0
			continue
		}
		// -log softmax computed from the logits, not the rounded prob.
		j.losses[r] = float32(math.Log(sum)) - (l[j.targets[r]] - mx)
	}
}

func (b *Backend) CrossEntropyForward(losses, probs, logits nn.Buffer, targets []int32, N, V int) {
	if targets != nil {
		targets = targets[:N]
	}
	b.jCE = ceJob{losses: losses.Host(), probs: probs.Host(), logits: logits.Host(), targets: targets, V: V}
	b.pool.run(N, grainRows(V), &b.jCE)
}

type ceBackJob struct {
	dlogits, probs []float32
	targets        []int32
	V              int
	scale          float32
}

func (j *ceBackJob) Do(lo, hi, _ int) {
	V := j.V
	for r := lo; r < hi; r++ {
		t := j.targets[r]
		if t < 0 {
			continue
		}
		d := j.dlogits[r*V : r*V+V]
		p := j.probs[r*V : r*V+V]
		for i := range d {
			d[i] += p[i] * j.scale
		}
		d[t] -= j.scale
	}
}

func (b *Backend) CrossEntropyBackward(dlogits, probs nn.Buffer, targets []int32, N, V int, scale float32) {
	b.jCEB = ceBackJob{dlogits: dlogits.Host(), probs: probs.Host(), targets: targets[:N], V: V, scale: scale}
	b.pool.run(N, grainRows(V), &b.jCEB)
}
