package cpu

import (
	"math"

	"github.com/amtstudio/amt/engine/nn"
)

// attBlock is the row block of the causal products: queries [t0,t1) only
// ever see keys [0,t1), so each product covers the lower-triangle blocks and
// skips the masked ones (about 5/8 of the full T×T work at T = 256).
var attBlock = 64

// attJob handles (batch, head) pairs [lo,hi): for each block of query rows,
// scores through sgemm, a causal softmax, and the weighted sum of values.
type attJob struct {
	out, att, qkv []float32
	T, C, NH      int
}

func (j *attJob) Do(lo, hi, _ int) {
	T, C, NH := j.T, j.C, j.NH
	hs := C / NH
	C3 := 3 * C
	scale := float32(1 / math.Sqrt(float64(hs)))
	for idx := lo; idx < hi; idx++ {
		b, h := idx/NH, idx%NH
		base := b*T*C3 + h*hs
		q, k, v := j.qkv[base:], j.qkv[base+C:], j.qkv[base+2*C:]
		att := j.att[idx*T*T : (idx+1)*T*T]
		out := j.out[b*T*C+h*hs:]
		for t0 := 0; t0 < T; t0 += attBlock {
			t1 := min(t0+attBlock, T)
			m := t1 - t0
			// rows t0..t1 of (T,T) = q (T,hs) · kᵀ (hs,T), scaled, keys 0..t1
			sgemm(false, true, m, t1, hs, scale, q[t0*C3:], C3, k, C3, 0, att[t0*T:], T)
			for t := t0; t < t1; t++ {
				row := att[t*T : t*T+T]
				p := row[:t+1]
				mx := p[0]
				for _, x := range p {
					mx = max(mx, x)
				}
				for i, x := range p {
					p[i] = x - mx
				}
				expfs(p)
				sum := float32(0)
				for _, e := range p {
					sum += e
				}
				inv := 1 / sum
				for i := range p {
					p[i] *= inv
				}
				clear(row[t+1:])
			}
			// out rows t0..t1 (hs) = att[t0:t1, 0:t1] · v[0:t1]
			sgemm(false, false, m, hs, t1, 1, att[t0*T:], T, v, C3, 0, out[t0*C:], C)
		}
	}
}

func (b *Backend) AttentionForward(out, att, qkv nn.Buffer, B, T, C, NH int) {
	b.jAtt = attJob{out: out.Host(), att: att.Host(), qkv: qkv.Host(), T: T, C: C, NH: NH}
	b.pool.run(B*NH, 1, &b.jAtt)
}

type attBackJob struct {
	b                    *Backend
	dqkv, dout, qkv, att []float32
	T, C, NH             int
}

func (j *attBackJob) Do(lo, hi, w int) {
	T, C, NH := j.T, j.C, j.NH
	hs := C / NH
	C3 := 3 * C
	scale := float32(1 / math.Sqrt(float64(hs)))
	datt := j.b.scratch[w][:T*T]
	for idx := lo; idx < hi; idx++ {
		b, h := idx/NH, idx%NH
		base := b*T*C3 + h*hs
		q, k, v := j.qkv[base:], j.qkv[base+C:], j.qkv[base+2*C:]
		dq, dk, dv := j.dqkv[base:], j.dqkv[base+C:], j.dqkv[base+2*C:]
		att := j.att[idx*T*T : (idx+1)*T*T]
		do := j.dout[b*T*C+h*hs:]
		for t0 := 0; t0 < T; t0 += attBlock {
			t1 := min(t0+attBlock, T)
			m := t1 - t0
			// datt rows t0..t1, keys 0..t1 = dout (m,hs) · v[0:t1]ᵀ
			sgemm(false, true, m, t1, hs, 1, do[t0*C:], C, v, C3, 0, datt[t0*T:], T)
			// dv[0:t1] += att[t0:t1, 0:t1]ᵀ · dout[t0:t1]
			sgemm(true, false, t1, hs, m, 1, att[t0*T:], T, do[t0*C:], C, 1, dv, C3)
			// softmax backward, then the scale: dpre = att ⊙ (datt - Σ att·datt)·scale;
			// the masked entries up to t1 become 0 for the products below
			for t := t0; t < t1; t++ {
				a := att[t*T : t*T+t+1]
				d := datt[t*T : t*T+t1]
				s := float32(0)
				for i, x := range a {
					s += x * d[i]
				}
				for i, x := range a {
					d[i] = x * (d[i] - s) * scale
				}
				clear(d[t+1:])
			}
			// dq[t0:t1] += dpre (m,t1) · k[0:t1]; dk[0:t1] += dpreᵀ · q[t0:t1]
			sgemm(false, false, m, hs, t1, 1, datt[t0*T:], T, k, C3, 1, dq[t0*C3:], C3)
			sgemm(true, false, t1, hs, m, 1, datt[t0*T:], T, q[t0*C3:], C3, 1, dk, C3)
		}
	}
}

func (b *Backend) AttentionBackward(dqkv, dout, qkv, att nn.Buffer, B, T, C, NH int) {
	b.ensureScratch(T * T)
	b.jAttB = attBackJob{b: b, dqkv: dqkv.Host(), dout: dout.Host(), qkv: qkv.Host(), att: att.Host(), T: T, C: C, NH: NH}
	b.pool.run(B*NH, 1, &b.jAttB)
}

// attStepJob handles heads [lo,hi) of one query row against the cache.
type attStepJob struct {
	out, att, qkv []float32
	pos, T, C, NH int
}

func (j *attStepJob) Do(lo, hi, _ int) {
	T, C, NH, pos := j.T, j.C, j.NH, j.pos
	hs := C / NH
	C3 := 3 * C
	scale := float32(1 / math.Sqrt(float64(hs)))
	for h := lo; h < hi; h++ {
		q := j.qkv[pos*C3+h*hs : pos*C3+h*hs+hs]
		sc := j.att[(h*T+pos)*T : (h*T+pos)*T+pos+1]
		// scores (pos+1) = K (pos+1,hs) · q
		sgemv(false, pos+1, hs, scale, j.qkv[C+h*hs:], C3, q, 0, sc)
		mx := sc[0]
		for _, x := range sc {
			mx = max(mx, x)
		}
		for i, x := range sc {
			sc[i] = x - mx
		}
		expfs(sc)
		sum := float32(0)
		for _, e := range sc {
			sum += e
		}
		inv := 1 / sum
		for i := range sc {
			sc[i] *= inv
		}
		// out_h (hs) = Vᵀ (hs,pos+1) · p
		sgemv(true, pos+1, hs, 1, j.qkv[2*C+h*hs:], C3, sc, 0, j.out[h*hs:h*hs+hs])
	}
}

func (b *Backend) AttentionStep(out, att, qkv nn.Buffer, pos, T, C, NH int) {
	b.jAttS = attStepJob{out: out.Host(), att: att.Host(), qkv: qkv.Host(), pos: pos, T: T, C: C, NH: NH}
	g := 1
	if (pos+1)*C < 1<<16 {
		g = NH // short caches: inline, the hand-off costs more than the work
	}
	b.pool.run(NH, g, &b.jAttS)
}
