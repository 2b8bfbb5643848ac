package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/amtstudio/amt/engine/nn"
)

func randBuf(be *Backend, rng *rand.Rand, n int, scale float32) nn.Buffer {
	b := be.Alloc(n)
	for i := range b.Host() {
		b.Host()[i] = (rng.Float32()*2 - 1) * scale
	}
	return b
}

func dot64(a, r []float32) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(r[i])
	}
	return s
}

// checkGrad compares analytic gradients of f with respect to x against
// central finite differences, on up to 40 evenly spread coordinates.
func checkGrad(t *testing.T, name string, x, analytic []float32, f func() float64) {
	t.Helper()
	const eps = 1e-2
	step := max(1, len(x)/40)
	bad := 0
	for i := 0; i < len(x); i += step {
		orig := x[i]
		x[i] = orig + eps
		fp := f()
		x[i] = orig - eps
		fm := f()
		x[i] = orig
		num := (fp - fm) / (2 * eps)
		ana := float64(analytic[i])
		if d := math.Abs(num - ana); d > 2e-3+2e-2*math.Abs(num) {
			bad++
			if bad < 5 {
				t.Errorf("%s[%d]: analytic %.6g, finite difference %.6g", name, i, ana, num)
			}
		}
	}
}

func TestMatmulMatchesNaive(t *testing.T) {
	for _, workers := range []int{1, 3} {
		be := NewWorkers(workers)
		defer be.Close()
		rng := rand.New(rand.NewPCG(1, 2))
		for _, sh := range [][3]int{{1, 17, 33}, {3, 16, 70}, {50, 24, 65}, {200, 8, 9}, {1, 1024, 1100}, {3, 700, 1500}} {
			N, C, OC := sh[0], sh[1], sh[2]
			for _, wT := range []bool{false, true} {
				inp, w, bias := randBuf(be, rng, N*C, 1), randBuf(be, rng, C*OC, 1), randBuf(be, rng, OC, 1)
				out := be.Alloc(N * OC)
				be.MatmulForward(out, inp, w, bias, N, C, OC, wT)
				for n := 0; n < N; n++ {
					for o := 0; o < OC; o++ {
						s := float64(bias.Host()[o])
						for c := 0; c < C; c++ {
							wv := w.Host()[c*OC+o]
							if wT {
								wv = w.Host()[o*C+c]
							}
							s += float64(inp.Host()[n*C+c]) * float64(wv)
						}
						if d := math.Abs(s - float64(out.Host()[n*OC+o])); d > 1e-4 {
							t.Fatalf("workers %d shape %v wT %v: out[%d,%d] = %g, want %g", workers, sh, wT, n, o, out.Host()[n*OC+o], s)
						}
					}
				}
			}
		}
	}
}

func TestMatmulGradients(t *testing.T) {
	be := NewWorkers(2)
	defer be.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sh := range [][3]int{{40, 12, 20}, {2, 9, 130}} {
		N, C, OC := sh[0], sh[1], sh[2]
		for _, wT := range []bool{false, true} {
			inp, w, bias := randBuf(be, rng, N*C, 1), randBuf(be, rng, C*OC, 1), randBuf(be, rng, OC, 1)
			r := randBuf(be, rng, N*OC, 1)
			out := be.Alloc(N * OC)
			f := func() float64 {
				be.MatmulForward(out, inp, w, bias, N, C, OC, wT)
				return dot64(out.Host(), r.Host())
			}
			dinp, dw, db := be.Alloc(N*C), be.Alloc(C*OC), be.Alloc(OC)
			be.MatmulBackward(dinp, dw, db, r, inp, w, N, C, OC, wT)
			checkGrad(t, "matmul dinp", inp.Host(), dinp.Host(), f)
			checkGrad(t, "matmul dw", w.Host(), dw.Host(), f)
			checkGrad(t, "matmul dbias", bias.Host(), db.Host(), f)
		}
	}
}

func TestEncoderGradients(t *testing.T) {
	be := NewWorkers(2)
	defer be.Close()
	rng := rand.New(rand.NewPCG(5, 6))
	B, T, C, V := 2, 5, 8, 7
	tokens := []int32{1, 3, 3, 0, 6, 3, 2, 1, 1, 5}
	wte, wpe := randBuf(be, rng, V*C, 1), randBuf(be, rng, T*C, 1)
	r := randBuf(be, rng, B*T*C, 1)
	out := be.Alloc(B * T * C)
	f := func() float64 {
		be.EncoderForward(out, wte, wpe, tokens, B, T, C)
		return dot64(out.Host(), r.Host())
	}
	f()
	if got, want := out.Host()[1*C+2], wte.Host()[3*C+2]+wpe.Host()[1*C+2]; got != want {
		t.Fatalf("encoder out[0,1,2] = %g, want %g", got, want)
	}
	dwte, dwpe := be.Alloc(V*C), be.Alloc(T*C)
	be.EncoderBackward(dwte, dwpe, r, tokens, B, T, C)
	checkGrad(t, "dwte", wte.Host(), dwte.Host(), f)
	checkGrad(t, "dwpe", wpe.Host(), dwpe.Host(), f)
}

func TestLayerNormGradients(t *testing.T) {
	be := NewWorkers(3)
	defer be.Close()
	rng := rand.New(rand.NewPCG(7, 8))
	N, C := 700, 24 // enough rows to split across workers
	inp, w, bias := randBuf(be, rng, N*C, 2), randBuf(be, rng, C, 1), randBuf(be, rng, C, 1)
	r := randBuf(be, rng, N*C, 1)
	out, mean, rstd := be.Alloc(N*C), be.Alloc(N), be.Alloc(N)
	f := func() float64 {
		be.LayerNormForward(out, mean, rstd, inp, w, bias, N, C, 1e-5)
		return dot64(out.Host(), r.Host())
	}
	f()
	// Row 0 by hand.
	m, v := 0.0, 0.0
	for _, x := range inp.Host()[:C] {
		m += float64(x)
	}
	m /= float64(C)
	for _, x := range inp.Host()[:C] {
		v += (float64(x) - m) * (float64(x) - m)
	}
	v /= float64(C)
	want := (float64(inp.Host()[3])-m)/math.Sqrt(v+1e-5)*float64(w.Host()[3]) + float64(bias.Host()[3])
	if math.Abs(want-float64(out.Host()[3])) > 1e-5 {
		t.Fatalf("layernorm out[0,3] = %g, want %g", out.Host()[3], want)
	}
	dinp, dw, db := be.Alloc(N*C), be.Alloc(C), be.Alloc(C)
	be.LayerNormBackward(dinp, dw, db, r, inp, w, mean, rstd, N, C)
	checkGrad(t, "ln dinp", inp.Host(), dinp.Host(), f)
	checkGrad(t, "ln dw", w.Host(), dw.Host(), f)
	checkGrad(t, "ln db", bias.Host(), db.Host(), f)
}

func TestGeluGradient(t *testing.T) {
	be := NewWorkers(2)
	defer be.Close()
	rng := rand.New(rand.NewPCG(9, 10))
	n := 300
	inp, r, out := randBuf(be, rng, n, 4), randBuf(be, rng, n, 1), be.Alloc(n)
	f := func() float64 {
		be.GeluForward(out, inp, n)
		return dot64(out.Host(), r.Host())
	}
	f()
	x := float64(inp.Host()[0])
	want := 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
	if math.Abs(want-float64(out.Host()[0])) > 1e-6 {
		t.Fatalf("gelu(%g) = %g, want %g", x, out.Host()[0], want)
	}
	dinp := be.Alloc(n)
	be.GeluBackward(dinp, inp, r, n)
	checkGrad(t, "gelu", inp.Host(), dinp.Host(), f)
}

func TestCrossEntropyGradient(t *testing.T) {
	be := NewWorkers(2)
	defer be.Close()
	rng := rand.New(rand.NewPCG(11, 12))
	N, V := 6, 11
	logits := randBuf(be, rng, N*V, 3)
	targets := []int32{0, 10, -1, 4, 4, 7}
	losses, probs := be.Alloc(N), be.Alloc(N*V)
	f := func() float64 {
		be.CrossEntropyForward(losses, probs, logits, targets, N, V)
		s := 0.0
		for _, l := range losses.Host() {
			s += float64(l)
		}
		return s
	}
	f()
	// Row 1 by hand: log Σ exp(l) - l[target].
	s := 0.0
	for _, l := range logits.Host()[V : 2*V] {
		s += math.Exp(float64(l))
	}
	if want := math.Log(s) - float64(logits.Host()[V+10]); math.Abs(want-float64(losses.Host()[1])) > 1e-5 {
		t.Fatalf("loss[1] = %g, want %g", losses.Host()[1], want)
	}
	if losses.Host()[2] != 0 {
		t.Fatalf("ignored target gave loss %g", losses.Host()[2])
	}
	dl := be.Alloc(N * V)
	be.CrossEntropyBackward(dl, probs, targets, N, V, 1)
	checkGrad(t, "ce dlogits", logits.Host(), dl.Host(), f)
}

func TestAttentionGradients(t *testing.T) {
	be := NewWorkers(2)
	defer be.Close()
	rng := rand.New(rand.NewPCG(13, 14))
	B, T, C, NH := 2, 7, 12, 3
	qkv, r := randBuf(be, rng, B*T*3*C, 1), randBuf(be, rng, B*T*C, 1)
	out, att := be.Alloc(B*T*C), be.Alloc(B*NH*T*T)
	f := func() float64 {
		be.AttentionForward(out, att, qkv, B, T, C, NH)
		return dot64(out.Host(), r.Host())
	}
	f()
	// Naive reference for batch 1, head 2, time 4.
	hs := C / NH
	b, h, tq := 1, 2, 4
	q := func(t, i int) float64 { return float64(qkv.Host()[(b*T+t)*3*C+h*hs+i]) }
	k := func(t, i int) float64 { return float64(qkv.Host()[(b*T+t)*3*C+C+h*hs+i]) }
	v := func(t, i int) float64 { return float64(qkv.Host()[(b*T+t)*3*C+2*C+h*hs+i]) }
	w := make([]float64, tq+1)
	z := 0.0
	for j := 0; j <= tq; j++ {
		s := 0.0
		for i := 0; i < hs; i++ {
			s += q(tq, i) * k(j, i)
		}
		w[j] = math.Exp(s / math.Sqrt(float64(hs)))
		z += w[j]
	}
	for i := 0; i < hs; i++ {
		o := 0.0
		for j := 0; j <= tq; j++ {
			o += w[j] / z * v(j, i)
		}
		if got := float64(out.Host()[(b*T+tq)*C+h*hs+i]); math.Abs(got-o) > 1e-5 {
			t.Fatalf("attention out[%d] = %g, want %g", i, got, o)
		}
	}
	dqkv := be.Alloc(B * T * 3 * C)
	be.AttentionBackward(dqkv, r, qkv, att, B, T, C, NH)
	checkGrad(t, "attention dqkv", qkv.Host(), dqkv.Host(), f)

	// A decoding step over the cache equals the full forward's row.
	B1 := 1
	q1 := qkv.Slice(0, T*3*C)
	full, att1 := be.Alloc(T*C), be.Alloc(NH*T*T)
	be.AttentionForward(full, att1, q1, B1, T, C, NH)
	step, scratch := be.Alloc(C), be.Alloc(NH*T*T)
	for pos := 0; pos < T; pos++ {
		be.AttentionStep(step, scratch, q1, pos, T, C, NH)
		for i := 0; i < C; i++ {
			if d := math.Abs(float64(step.Host()[i] - full.Host()[pos*C+i])); d > 1e-5 {
				t.Fatalf("step pos %d [%d] = %g, full %g", pos, i, step.Host()[i], full.Host()[pos*C+i])
			}
		}
	}
}

func TestAdamWOneStepByHand(t *testing.T) {
	be := NewWorkers(2)
	defer be.Close()
	p := nn.HostBuffer([]float32{1, -2})
	g := nn.HostBuffer([]float32{0.5, 0.25})
	m := nn.HostBuffer([]float32{0.1, 0})
	v := nn.HostBuffer([]float32{0.01, 0})
	hp := nn.AdamW{LR: 0.1, Beta1: 0.9, Beta2: 0.99, Eps: 1e-8, WeightDecay: 0.1, Step: 2, GradScale: 2}
	be.AdamWUpdate(p, g, m, v, hp)
	// coordinate 0 by hand: g=1 after scale; m=0.09+0.1=0.19; v=0.0099+0.01=0.0199
	mh, vh := 0.19/(1-0.81), 0.0199/(1-0.9801)
	want := 1 - 0.1*(mh/(math.Sqrt(vh)+1e-8)+0.1*1)
	if math.Abs(float64(p.Host()[0])-want) > 1e-5 {
		t.Fatalf("p[0] = %g, want %g", p.Host()[0], want)
	}
	if math.Abs(float64(m.Host()[0])-0.19) > 1e-7 || math.Abs(float64(v.Host()[0])-0.0199) > 1e-7 {
		t.Fatalf("moments %g %g", m.Host()[0], v.Host()[0])
	}
}

func TestSumSquaresAndAdd(t *testing.T) {
	be := NewWorkers(3)
	defer be.Close()
	n := 100000
	a, c, out := be.Alloc(n), be.Alloc(n), be.Alloc(n)
	for i := range a.Host() {
		a.Host()[i] = float32(i % 7)
		c.Host()[i] = 1
	}
	be.Add(out, a, c, n)
	be.Accumulate(out, c, n)
	want := 0.0
	for i := 0; i < n; i++ {
		x := float64(i%7) + 2
		if out.Host()[i] != float32(x) {
			t.Fatalf("add/accumulate [%d] = %g, want %g", i, out.Host()[i], x)
		}
		want += x * x
	}
	if got := be.SumSquares(out); got != want {
		t.Fatalf("SumSquares = %g, want %g", got, want)
	}
}

func TestKernelsDoNotAllocate(t *testing.T) {
	be := NewWorkers(2)
	defer be.Close()
	rng := rand.New(rand.NewPCG(1, 1))
	N, C, OC, T, NH := 64, 32, 96, 32, 4
	inp, w, bias, out := randBuf(be, rng, N*C, 1), randBuf(be, rng, C*OC, 1), randBuf(be, rng, OC, 1), be.Alloc(N*OC)
	qkv, att, ao := randBuf(be, rng, 2*T*3*C, 1), be.Alloc(2*NH*T*T), be.Alloc(2*T*C)
	dqkv := be.Alloc(2 * T * 3 * C)
	mean, rstd, ln := be.Alloc(N), be.Alloc(N), be.Alloc(N*C)
	dinp, dw, db := be.Alloc(N*C), be.Alloc(C), be.Alloc(C)
	allocs := testing.AllocsPerRun(20, func() {
		be.MatmulForward(out, inp, w, bias, N, C, OC, false)
		be.MatmulForward(out.Slice(0, OC), inp.Slice(0, C), w, bias, 1, C, OC, false)
		be.AttentionForward(ao, att, qkv, 2, T, C, NH)
		be.AttentionBackward(dqkv, ao, qkv, att, 2, T, C, NH)
		be.AttentionStep(ao.Slice(0, C), att, qkv.Slice(0, T*3*C), 5, T, C, NH)
		be.LayerNormForward(ln, mean, rstd, inp, w.Slice(0, C), bias.Slice(0, C), N, C, 1e-5)
		be.LayerNormBackward(dinp, dw, db, ln, inp, w.Slice(0, C), mean, rstd, N, C)
		be.GeluForward(out, out, N*OC)
		_ = be.SumSquares(out)
	})
	if allocs != 0 {
		t.Fatalf("kernels allocated %v times per run", allocs)
	}
}
