package cpu

import (
	"math"

	"github.com/amtstudio/amt/engine/nn"
)

// attJob handles (batch, head) pairs [lo,hi): two products through sgemm and
// a causal softmax between them.
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
		// (T,T) = q (T,hs) · kᵀ (hs,T), scaled
		sgemm(false, true, T, T, hs, scale, q, C3, k, C3, 0, att, T)
		for t := 0; t < T; t++ {
			row := att[t*T : t*T+T]
			mx := row[0]
			for _, x := range row[:t+1] {
				mx = max(mx, x)
			}
			sum := float32(0)
			for i, x := range row[:t+1] {
				e := exp32(x - mx)
				row[i] = e
				sum += e
			}
			inv := 1 / sum
			for i := range row[:t+1] {
				row[i] *= inv
			}
			clear(row[t+1:])
		}
		// out (T,hs) = att (T,T) · v (T,hs)
		sgemm(false, false, T, hs, T, 1, att, T, v, C3, 0, j.out[b*T*C+h*hs:], C)
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
		// datt (T,T) = dout (T,hs) · vᵀ
		sgemm(false, true, T, T, hs, 1, do, C, v, C3, 0, datt, T)
		// dv (T,hs) += attᵀ · dout
		sgemm(true, false, T, hs, T, 1, att, T, do, C, 1, dv, C3)
		// softmax backward, then the scale: dpre = att ⊙ (datt - Σ att·datt)·scale
		for t := 0; t < T; t++ {
			a := att[t*T : t*T+t+1]
			d := datt[t*T : t*T+T]
			s := float32(0)
			for i, x := range a {
				s += x * d[i]
			}
			for i, x := range a {
				d[i] = x * (d[i] - s) * scale
			}
			clear(d[t+1:])
		}
		// dq (T,hs) += dpre · k; dk (T,hs) += dpreᵀ · q
		sgemm(false, false, T, hs, T, 1, datt, T, k, C3, 1, dq, C3)
		sgemm(true, false, T, hs, T, 1, datt, T, q, C3, 1, dk, C3)
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
		sum := float32(0)
		for i, x := range sc {
			e := exp32(x - mx)
			sc[i] = e
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
