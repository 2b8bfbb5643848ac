package gpt

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/amtstudio/amt/engine/nn/cpu"
)

// refForward is an independent float64 implementation of GPT-2's maths
// (written from the definitions, one position at a time), returning the
// logits (B,T,V) and the mean loss over targets ≥ 0.
func refForward(c Config, params []float64, tokens, targets []int32, B, T int) ([]float64, float64) {
	get := map[string][]float64{}
	for _, t := range c.Tensors() {
		get[t.Name] = params[t.Off : t.Off+t.Size()]
	}
	C, V, NH := c.NEmbd, c.VocabSize, c.NHead
	hs := C / NH
	ln := func(x, w, b []float64) []float64 {
		m, v := 0.0, 0.0
		for _, e := range x {
			m += e
		}
		m /= float64(len(x))
		for _, e := range x {
			v += (e - m) * (e - m)
		}
		v /= float64(len(x))
		out := make([]float64, len(x))
		for i, e := range x {
			out[i] = (e-m)/math.Sqrt(v+c.LayerNormEps)*w[i] + b[i]
		}
		return out
	}
	lin := func(x, w, b []float64, out int) []float64 { // Conv1D: x·W + b, W (in,out)
		y := make([]float64, out)
		for o := range y {
			s := b[o]
			for i, e := range x {
				s += e * w[i*out+o]
			}
			y[o] = s
		}
		return y
	}
	logits := make([]float64, B*T*V)
	loss, n := 0.0, 0
	for b := 0; b < B; b++ {
		xs := make([][]float64, T)
		for t := 0; t < T; t++ {
			x := make([]float64, C)
			tok := int(tokens[b*T+t])
			for i := range x {
				x[i] = get["transformer.wte.weight"][tok*C+i] + get["transformer.wpe.weight"][t*C+i]
			}
			xs[t] = x
		}
		for l := 0; l < c.NLayer; l++ {
			p := func(s string) []float64 { return get["transformer.h."+string(rune('0'+l))+"."+s] }
			qkv := make([][]float64, T)
			for t := range xs {
				qkv[t] = lin(ln(xs[t], p("ln_1.weight"), p("ln_1.bias")), p("attn.c_attn.weight"), p("attn.c_attn.bias"), 3*C)
			}
			for t := range xs {
				y := make([]float64, C)
				for h := 0; h < NH; h++ {
					sc := make([]float64, t+1)
					mx := math.Inf(-1)
					for j := 0; j <= t; j++ {
						d := 0.0
						for i := 0; i < hs; i++ {
							d += qkv[t][h*hs+i] * qkv[j][C+h*hs+i]
						}
						sc[j] = d / math.Sqrt(float64(hs))
						mx = math.Max(mx, sc[j])
					}
					z := 0.0
					for j := range sc {
						sc[j] = math.Exp(sc[j] - mx)
						z += sc[j]
					}
					for j := range sc {
						for i := 0; i < hs; i++ {
							y[h*hs+i] += sc[j] / z * qkv[j][2*C+h*hs+i]
						}
					}
				}
				proj := lin(y, p("attn.c_proj.weight"), p("attn.c_proj.bias"), C)
				for i := range proj {
					xs[t][i] += proj[i]
				}
			}
			for t := range xs {
				f := lin(ln(xs[t], p("ln_2.weight"), p("ln_2.bias")), p("mlp.c_fc.weight"), p("mlp.c_fc.bias"), 4*C)
				for i, e := range f {
					f[i] = 0.5 * e * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(e+0.044715*e*e*e)))
				}
				proj := lin(f, p("mlp.c_proj.weight"), p("mlp.c_proj.bias"), C)
				for i := range proj {
					xs[t][i] += proj[i]
				}
			}
		}
		for t := range xs {
			h := ln(xs[t], get["transformer.ln_f.weight"], get["transformer.ln_f.bias"])
			lg := logits[(b*T+t)*V : (b*T+t+1)*V]
			wte := get["transformer.wte.weight"]
			for v := range lg {
				s := 0.0
				for i, e := range h {
					s += e * wte[v*C+i]
				}
				lg[v] = s
			}
			if targets != nil && targets[b*T+t] >= 0 {
				mx := math.Inf(-1)
				for _, e := range lg {
					mx = math.Max(mx, e)
				}
				z := 0.0
				for _, e := range lg {
					z += math.Exp(e - mx)
				}
				loss += math.Log(z) + mx - lg[targets[b*T+t]]
				n++
			}
		}
	}
	if n > 0 {
		loss /= float64(n)
	}
	return logits, loss
}

func tinyModel(t testing.TB, vocab int, seed uint64) (*Model, *cpu.Backend) {
	t.Helper()
	be := cpu.NewWorkers(2)
	t.Cleanup(be.Close)
	c, err := Preset("tiny", vocab)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(be, c)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(seed)
	// Perturb biases and layer norms too, so their gradients are exercised.
	h := m.Params().Host()
	rng := rand.New(rand.NewPCG(seed, 7))
	for _, tn := range c.Tensors() {
		if !tn.Decay {
			for i := tn.Off; i < tn.Off+tn.Size(); i++ {
				h[i] += float32(rng.NormFloat64() * 0.1)
			}
		}
	}
	// Larger weights than GPT-2's init make the check more sensitive.
	for i := range h {
		h[i] *= 3
	}
	return m, be
}

func randTokens(rng *rand.Rand, n, vocab int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(rng.IntN(vocab))
	}
	return out
}

func TestForwardMatchesFloat64Reference(t *testing.T) {
	m, _ := tinyModel(t, 23, 1)
	rng := rand.New(rand.NewPCG(2, 2))
	B, T := 2, 9
	tokens, targets := randTokens(rng, B*T, 23), randTokens(rng, B*T, 23)
	targets[3] = -1
	loss, err := m.Forward(tokens, targets, B, T)
	if err != nil {
		t.Fatal(err)
	}
	p64 := make([]float64, m.NumParams())
	for i, v := range m.Params().Host() {
		p64[i] = float64(v)
	}
	refLogits, refLoss := refForward(m.Config, p64, tokens, targets, B, T)
	if math.Abs(float64(loss)-refLoss) > 1e-5*math.Max(1, refLoss) {
		t.Fatalf("loss %v, float64 reference %v", loss, refLoss)
	}
	logits := make([]float32, B*T*23)
	m.Logits(logits)
	worst := 0.0
	for i, l := range logits {
		worst = math.Max(worst, math.Abs(float64(l)-refLogits[i]))
	}
	if worst > 1e-4 {
		t.Fatalf("logits differ from the float64 reference by up to %g", worst)
	}
	t.Logf("loss %.6f (reference %.6f), worst logit difference %.2g", loss, refLoss, worst)
}

// TestGradientsMatchFiniteDifferences checks the analytic gradient of every
// tensor of the tiny model against central differences of the float64
// reference loss.
func TestGradientsMatchFiniteDifferences(t *testing.T) {
	m, _ := tinyModel(t, 19, 3)
	rng := rand.New(rand.NewPCG(4, 4))
	B, T := 2, 6
	tokens, targets := randTokens(rng, B*T, 19), randTokens(rng, B*T, 19)
	if _, err := m.Forward(tokens, targets, B, T); err != nil {
		t.Fatal(err)
	}
	m.ZeroGrad()
	if err := m.Backward(1); err != nil {
		t.Fatal(err)
	}
	grads := m.Grads().Host()
	p64 := make([]float64, m.NumParams())
	for i, v := range m.Params().Host() {
		p64[i] = float64(v)
	}
	const eps = 1e-5
	for _, tn := range m.Config.Tensors() {
		bad := 0
		for k := 0; k < 6; k++ {
			i := tn.Off + rng.IntN(tn.Size())
			if tn.Name == "transformer.wte.weight" && k < 3 {
				i = tn.Off + int(tokens[k])*m.Config.NEmbd + k // rows that are used as input
			}
			orig := p64[i]
			p64[i] = orig + eps
			_, lp := refForward(m.Config, p64, tokens, targets, B, T)
			p64[i] = orig - eps
			_, lm := refForward(m.Config, p64, tokens, targets, B, T)
			p64[i] = orig
			num := (lp - lm) / (2 * eps)
			if d := math.Abs(num - float64(grads[i])); d > 1e-4+1e-2*math.Abs(num) {
				bad++
				t.Errorf("%s[%d]: analytic %.6g, finite difference %.6g", tn.Name, i-tn.Off, grads[i], num)
			}
		}
	}
}

func TestTinyModelMemorises(t *testing.T) {
	m, be := tinyModel(t, 16, 5)
	m.Init(5)
	seq := []int32{1, 5, 9, 2, 7, 7, 3, 12, 4, 8, 15, 0, 6, 11, 2, 9, 13}
	T := len(seq) - 1
	mo, vo := be.Alloc(m.NumParams()), be.Alloc(m.NumParams())
	var loss float32
	for step := 1; step <= 300; step++ {
		var err error
		loss, err = m.Forward(seq[:T], seq[1:], 1, T)
		if err != nil {
			t.Fatal(err)
		}
		if loss < 0.05 {
			t.Logf("loss %.4f after %d steps", loss, step)
			return
		}
		m.ZeroGrad()
		m.Backward(1)
		be.AdamWUpdate(m.Params(), m.Grads(), mo, vo, nnAdam(step))
	}
	t.Fatalf("loss %.4f after 300 steps, want < 0.05", loss)
}
