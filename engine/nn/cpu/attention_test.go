package cpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naiveAttention64 is causal attention in float64 over every (query, key)
// pair, the masked ones skipped by the test, not by blocks.
func naiveAttention64(qkv []float32, B, T, C, NH int) []float64 {
	hs := C / NH
	out := make([]float64, B*T*C)
	w := make([]float64, T)
	for b := 0; b < B; b++ {
		for h := 0; h < NH; h++ {
			at := func(t, part, i int) float64 { return float64(qkv[(b*T+t)*3*C+part*C+h*hs+i]) }
			for tq := 0; tq < T; tq++ {
				mx := math.Inf(-1)
				for tk := 0; tk <= tq; tk++ {
					s := 0.0
					for i := 0; i < hs; i++ {
						s += at(tq, 0, i) * at(tk, 1, i)
					}
					w[tk] = s / math.Sqrt(float64(hs))
					mx = max(mx, w[tk])
				}
				z := 0.0
				for tk := 0; tk <= tq; tk++ {
					w[tk] = math.Exp(w[tk] - mx)
					z += w[tk]
				}
				for i := 0; i < hs; i++ {
					o := 0.0
					for tk := 0; tk <= tq; tk++ {
						o += w[tk] / z * at(tk, 2, i)
					}
					out[(b*T+tq)*C+h*hs+i] = o
				}
			}
		}
	}
	return out
}

// TestAttentionBlocksMatchNaive covers the causal row blocks: T spans two
// full blocks and a partial one, so the products over keys [0,t1) and the
// masked entries inside each diagonal block are all exercised, forward
// (against float64), backward (finite differences) and the cached step.
func TestAttentionBlocksMatchNaive(t *testing.T) {
	be := NewWorkers(2)
	defer be.Close()
	rng := rand.New(rand.NewPCG(21, 22))
	B, T, C, NH := 2, 2*attBlock+22, 8, 2
	qkv, r := randBuf(be, rng, B*T*3*C, 1.5), randBuf(be, rng, B*T*C, 1)
	out, att := be.Alloc(B*T*C), be.Alloc(B*NH*T*T)
	for i := range att.Host() {
		att.Host()[i] = 7 // stale values must not leak into the masked part
	}
	f := func() float64 {
		be.AttentionForward(out, att, qkv, B, T, C, NH)
		return dot64(out.Host(), r.Host())
	}
	f()
	want := naiveAttention64(qkv.Host(), B, T, C, NH)
	for i, w := range want {
		if d := math.Abs(w - float64(out.Host()[i])); d > 2e-6 {
			t.Fatalf("out[%d] = %g, want %g", i, out.Host()[i], w)
		}
	}
	for idx := 0; idx < B*NH; idx++ {
		for tq := 0; tq < T; tq++ {
			row := att.Host()[(idx*T+tq)*T : (idx*T+tq+1)*T]
			sum := 0.0
			for tk, a := range row {
				if tk > tq && a != 0 {
					t.Fatalf("att[%d,%d,%d] = %g above the diagonal", idx, tq, tk, a)
				}
				sum += float64(a)
			}
			if math.Abs(sum-1) > 1e-5 {
				t.Fatalf("att row %d,%d sums to %g", idx, tq, sum)
			}
		}
	}
	dqkv := be.Alloc(B * T * 3 * C)
	for i := range dqkv.Host() {
		dqkv.Host()[i] = 0.5 // backward accumulates
	}
	be.AttentionBackward(dqkv, r, qkv, att, B, T, C, NH)
	for i := range dqkv.Host() {
		dqkv.Host()[i] -= 0.5
	}
	checkGrad(t, "blocked attention dqkv", qkv.Host(), dqkv.Host(), f)
	// and a decoding step at positions in each block equals the full row
	q1 := qkv.Slice(0, T*3*C)
	full, att1 := be.Alloc(T*C), be.Alloc(NH*T*T)
	be.AttentionForward(full, att1, q1, 1, T, C, NH)
	step, scratch := be.Alloc(C), be.Alloc(NH*T*T)
	for _, pos := range []int{0, attBlock - 1, attBlock, 2 * attBlock, T - 1} {
		be.AttentionStep(step, scratch, q1, pos, T, C, NH)
		for i := 0; i < C; i++ {
			if d := math.Abs(float64(step.Host()[i] - full.Host()[pos*C+i])); d > 1e-5 {
				t.Fatalf("step pos %d [%d] = %g, full %g", pos, i, step.Host()[i], full.Host()[pos*C+i])
			}
		}
	}
}
