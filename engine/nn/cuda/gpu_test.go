//go:build cuda && cgo && linux

// GPU tests: every kernel against the CPU backend on random inputs, a
// 50-step training run against the CPU loss curve, greedy generation equal
// on both, and the GPU benchmarks. `make test` runs them against the CUDA
// emulator (engine/nn/cuda/emu: AMT_CUDA_EMU names its folder); on a GPU
// machine build them with
//
//	go test -c -tags cuda -o amt-cuda.test ./engine/nn/cuda
//
// and run them there (docs/GPU.md). Without a driver or a GPU they skip,
// unless AMT_CUDA_EMU or AMT_GPU_REQUIRED=1 says one must be there; any
// other failure to open (no cuBLAS, no PTX) fails them.
package cuda_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/cpu"
	"github.com/amtstudio/amt/engine/nn/cuda"
)

// emulated reports whether the tests run against the CUDA emulator.
func emulated() bool { return os.Getenv("AMT_CUDA_EMU") != "" }

// gpuOptions are the backend's options for precision p, with the
// emulator's libraries when the tests run against it.
func gpuOptions(p cuda.Precision) cuda.Options {
	o := cuda.Options{Precision: p}
	if d := os.Getenv("AMT_CUDA_EMU"); d != "" {
		o.DriverPath, o.CublasPath = filepath.Join(d, "libcuda.so.1"), filepath.Join(d, "libcublas.so.12")
	}
	return o
}

// skippable: the errors that mean "no GPU here", the only ones a GPU test
// may skip on, and only when no GPU is required.
func skippable(err error) bool {
	required := emulated() || os.Getenv("AMT_GPU_REQUIRED") == "1"
	return !required && (errors.Is(err, cuda.ErrNoDriver) || errors.Is(err, cuda.ErrNoDevice))
}

// The tests may skip only where there is no GPU to test: a driver and a
// device without cuBLAS or PTX is a broken setup, and under the emulator
// (or AMT_GPU_REQUIRED=1) nothing may skip.
func TestGPUSkipPolicy(t *testing.T) {
	noDriver := fmt.Errorf("open: %w", cuda.ErrNoDriver)
	t.Setenv("AMT_CUDA_EMU", "")
	t.Setenv("AMT_GPU_REQUIRED", "")
	if !skippable(noDriver) || !skippable(cuda.ErrNoDevice) {
		t.Error("no driver or no device must skip on a machine without a GPU")
	}
	if skippable(fmt.Errorf("%w: none found", cuda.ErrNoCUBLAS)) || skippable(cuda.ErrNoPTX) {
		t.Error("a missing cuBLAS or PTX must fail, not skip")
	}
	t.Setenv("AMT_GPU_REQUIRED", "1")
	if skippable(noDriver) {
		t.Error("AMT_GPU_REQUIRED=1: no driver must fail")
	}
	t.Setenv("AMT_GPU_REQUIRED", "")
	t.Setenv("AMT_CUDA_EMU", "/somewhere")
	if skippable(noDriver) {
		t.Error("under the emulator no driver must fail")
	}
}

// emuLog collects the emulator's reports for one test.
type emuLog struct{ path string }

// watchEmu sends the emulator's reports to a file of the test; when the
// test ends, any "misuse" or "fault" report left in it fails the test (a
// test that provokes one on purpose takes it out with take). Calls from the
// same test share one file. Without the emulator it does nothing.
func watchEmu(tb testing.TB) *emuLog {
	tb.Helper()
	if !emulated() {
		return &emuLog{}
	}
	if l, ok := emuLogs.Load(tb); ok {
		return l.(*emuLog)
	}
	l := &emuLog{path: filepath.Join(tb.TempDir(), "emu.log")}
	emuLogs.Store(tb, l)
	tb.Setenv("AMT_EMU_LOG", l.path)
	tb.Cleanup(func() {
		emuLogs.Delete(tb)
		for _, line := range strings.Split(l.take(), "\n") {
			if strings.Contains(line, " misuse: ") || strings.Contains(line, " fault: ") {
				tb.Errorf("emulator report: %s", line)
			}
		}
	})
	return l
}

var emuLogs sync.Map // testing.TB → *emuLog

// take returns the reports so far and forgets them.
func (l *emuLog) take() string {
	if l.path == "" {
		return ""
	}
	b, _ := os.ReadFile(l.path)
	os.WriteFile(l.path, nil, 0o644)
	return string(b)
}

func openGPU(tb testing.TB, p cuda.Precision) *cuda.Backend {
	tb.Helper()
	watchEmu(tb)
	be, err := cuda.Open(gpuOptions(p))
	if err != nil {
		if skippable(err) {
			tb.Skipf("no GPU backend: %v", err)
		}
		tb.Fatalf("GPU backend: %v", err)
	}
	tb.Cleanup(be.Close)
	return be
}

// pair holds the same tensors on both backends.
type pair struct {
	c      *cpu.Backend
	g      *cuda.Backend
	rng    *rand.Rand
	cb, gb []nn.Buffer
	host   [][]float32
}

func newPair(t *testing.T, p cuda.Precision) *pair {
	c := cpu.NewWorkers(2)
	t.Cleanup(c.Close)
	return &pair{c: c, g: openGPU(t, p), rng: rand.New(rand.NewPCG(1, 2))}
}

// buf makes a tensor of n values (uniform in [-s, s]; s = 0 for zeros) on both.
func (p *pair) buf(n int, s float32) int {
	h := make([]float32, n)
	for i := range h {
		h[i] = (p.rng.Float32()*2 - 1) * s
	}
	cb, gb := p.c.Alloc(n), p.g.Alloc(n)
	p.c.Upload(cb, h)
	p.g.Upload(gb, h)
	p.cb, p.gb, p.host = append(p.cb, cb), append(p.gb, gb), append(p.host, h)
	return len(p.cb) - 1
}

// check compares tensor i on both backends: max |gpu-cpu| / max(1, max|cpu|).
func (p *pair) check(t *testing.T, name string, i int, tol float64) {
	t.Helper()
	n := p.cb[i].Len()
	want, got := make([]float32, n), make([]float32, n)
	p.c.Download(want, p.cb[i])
	p.g.Download(got, p.gb[i])
	if err := p.g.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	scale, worst, at := 1.0, 0.0, 0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(float64(v)))
	}
	for j := range want {
		d := math.Abs(float64(got[j]) - float64(want[j]))
		if d > worst || math.IsNaN(d) {
			worst, at = d, j
		}
	}
	if worst/scale > tol || math.IsNaN(worst) {
		t.Errorf("%s: max error %.3g (relative %.3g > %.3g) at %d: gpu %v cpu %v", name, worst, worst/scale, tol, at, got[at], want[at])
	}
}

func tokens(rng *rand.Rand, n, V int) []int32 {
	t := make([]int32, n)
	for i := range t {
		t[i] = int32(rng.IntN(V))
	}
	return t
}

func TestGPUKernelsMatchCPU(t *testing.T) {
	const tol = 2e-5
	t.Run("encoder", func(t *testing.T) {
		p := newPair(t, cuda.FP32)
		B, T, C, V := 3, 17, 40, 11
		tok := tokens(p.rng, B*T, V)
		out, wte, wpe := p.buf(B*T*C, 0), p.buf(V*C, 1), p.buf(T*C, 1)
		dout, dwte, dwpe := p.buf(B*T*C, 1), p.buf(V*C, 0), p.buf(T*C, 0)
		for _, be := range []struct {
			b  nn.Backend
			bs []nn.Buffer
		}{{p.c, p.cb}, {p.g, p.gb}} {
			be.b.EncoderForward(be.bs[out], be.bs[wte], be.bs[wpe], tok, B, T, C)
			be.b.EncoderBackward(be.bs[dwte], be.bs[dwpe], be.bs[dout], tok, B, T, C)
		}
		p.check(t, "out", out, tol)
		p.check(t, "dwte", dwte, tol)
		p.check(t, "dwpe", dwpe, tol)
	})
	t.Run("layernorm", func(t *testing.T) {
		p := newPair(t, cuda.FP32)
		N, C := 200, 96
		out, mean, rstd, inp, w, b := p.buf(N*C, 0), p.buf(N, 0), p.buf(N, 0), p.buf(N*C, 2), p.buf(C, 1), p.buf(C, 1)
		dinp, dw, db, dout := p.buf(N*C, 1), p.buf(C, 1), p.buf(C, 1), p.buf(N*C, 1)
		for _, x := range []struct {
			b  nn.Backend
			bs []nn.Buffer
		}{{p.c, p.cb}, {p.g, p.gb}} {
			s := x.bs
			x.b.LayerNormForward(s[out], s[mean], s[rstd], s[inp], s[w], s[b], N, C, 1e-5)
			x.b.LayerNormBackward(s[dinp], s[dw], s[db], s[dout], s[inp], s[w], s[mean], s[rstd], N, C)
		}
		for _, c := range []struct {
			n string
			i int
		}{{"out", out}, {"mean", mean}, {"rstd", rstd}, {"dinp", dinp}, {"dw", dw}, {"db", db}} {
			p.check(t, c.n, c.i, 1e-4)
		}
	})
	for _, prec := range []cuda.Precision{cuda.FP32, cuda.TF32, cuda.BF16} {
		for _, wT := range []bool{false, true} {
			t.Run(fmt.Sprintf("matmul/%s/wT=%v", prec, wT), func(t *testing.T) {
				p := newPair(t, prec)
				N, C, OC := 70, 48, 100
				tl := map[cuda.Precision]float64{cuda.FP32: 1e-5, cuda.TF32: 5e-3, cuda.BF16: 2e-2}[prec]
				out, inp, w, bias := p.buf(N*OC, 0), p.buf(N*C, 1), p.buf(C*OC, 1), p.buf(OC, 1)
				dinp, dw, dbias, dout := p.buf(N*C, 1), p.buf(C*OC, 1), p.buf(OC, 1), p.buf(N*OC, 1)
				for _, x := range []struct {
					b  nn.Backend
					bs []nn.Buffer
				}{{p.c, p.cb}, {p.g, p.gb}} {
					s := x.bs
					x.b.MatmulForward(s[out], s[inp], s[w], s[bias], N, C, OC, wT)
					x.b.MatmulBackward(s[dinp], s[dw], s[dbias], s[dout], s[inp], s[w], N, C, OC, wT)
				}
				p.check(t, "out", out, tl)
				p.check(t, "dinp", dinp, tl)
				p.check(t, "dw", dw, tl)
				p.check(t, "dbias", dbias, 1e-5)
			})
		}
	}
	for _, sh := range []struct{ B, T, C, NH int }{{2, 1, 32, 2}, {2, 7, 32, 2}, {2, 130, 128, 2}, {1, 200, 256, 4}, {2, 70, 256, 2}} {
		t.Run(fmt.Sprintf("attention/B%dT%dC%dNH%d", sh.B, sh.T, sh.C, sh.NH), func(t *testing.T) {
			p := newPair(t, cuda.FP32)
			B, T, C, NH := sh.B, sh.T, sh.C, sh.NH
			out, att, qkv := p.buf(B*T*C, 0), p.buf(B*NH*T*T, 0), p.buf(B*T*3*C, 1)
			dqkv, dout := p.buf(B*T*3*C, 1), p.buf(B*T*C, 1)
			for _, x := range []struct {
				b  nn.Backend
				bs []nn.Buffer
			}{{p.c, p.cb}, {p.g, p.gb}} {
				s := x.bs
				x.b.AttentionForward(s[out], s[att], s[qkv], B, T, C, NH)
				x.b.AttentionBackward(s[dqkv], s[dout], s[qkv], s[att], B, T, C, NH)
			}
			p.check(t, "out", out, 1e-4)
			p.check(t, "dqkv", dqkv, 1e-4)
		})
	}
	t.Run("attention-legacy-bf16", func(t *testing.T) {
		// the fp32 kernels where the tensor-core ones do not apply (head size 32)
		p := newPair(t, cuda.BF16)
		B, T, C, NH := 2, 70, 64, 2
		if p.g.FlashAttention(C, NH) {
			t.Fatal("head size 32 must not take the tensor-core kernels")
		}
		out, att, qkv := p.buf(B*T*C, 0), p.buf(B*NH*T*T, 0), p.buf(B*T*3*C, 1)
		dqkv, dout := p.buf(B*T*3*C, 1), p.buf(B*T*C, 1)
		for _, x := range []struct {
			b  nn.Backend
			bs []nn.Buffer
		}{{p.c, p.cb}, {p.g, p.gb}} {
			s := x.bs
			x.b.AttentionForward(s[out], s[att], s[qkv], B, T, C, NH)
			x.b.AttentionBackward(s[dqkv], s[dout], s[qkv], s[att], B, T, C, NH)
		}
		p.check(t, "out", out, 1e-4)
		p.check(t, "dqkv", dqkv, 1e-4)
	})
	for _, prec := range []cuda.Precision{cuda.FP32, cuda.BF16} {
		t.Run("fused-epilogues/"+prec.String(), func(t *testing.T) {
			// the CUDA backend's nn.FusedForward against the CPU's unfused calls
			p := newPair(t, prec)
			N, C, OC := 70, 64, 96
			tl := map[cuda.Precision]float64{cuda.FP32: 1e-5, cuda.BF16: 2e-2}[prec]
			inp, w, bias, res := p.buf(N*C, 1), p.buf(C*OC, 1), p.buf(OC, 1), p.buf(N*OC, 3)
			pre, out, sum, proj := p.buf(N*OC, 1), p.buf(N*OC, 1), p.buf(N*OC, 1), p.buf(N*OC, 0)
			c := p.cb
			p.c.MatmulForward(c[pre], c[inp], c[w], c[bias], N, C, OC, false)
			p.c.GeluForward(c[out], c[pre], N*OC)
			p.c.MatmulForward(c[proj], c[inp], c[w], c[bias], N, C, OC, false)
			p.c.Add(c[sum], c[res], c[proj], N*OC)
			g := p.gb
			p.g.MatmulGeluForward(g[pre], g[out], g[inp], g[w], g[bias], N, C, OC)
			p.g.MatmulResidualForward(g[sum], g[res], g[inp], g[w], g[bias], N, C, OC)
			p.check(t, "pre", pre, tl)
			p.check(t, "gelu", out, tl)
			p.check(t, "residual", sum, tl)
		})
	}
	t.Run("attention-step", func(t *testing.T) {
		p := newPair(t, cuda.FP32)
		T, C, NH := 300, 256, 4
		out, att, qkv := p.buf(C, 0), p.buf(NH*T*T, 0), p.buf(T*3*C, 1)
		for _, pos := range []int{0, 1, 63, 299} {
			p.c.AttentionStep(p.cb[out], p.cb[att], p.cb[qkv], pos, T, C, NH)
			p.g.AttentionStep(p.gb[out], p.gb[att], p.gb[qkv], pos, T, C, NH)
			p.check(t, fmt.Sprintf("out@%d", pos), out, 1e-5)
		}
	})
	t.Run("elementwise", func(t *testing.T) {
		p := newPair(t, cuda.FP32)
		n := 10007
		a, b, o, g, d := p.buf(n, 4), p.buf(n, 1), p.buf(n, 0), p.buf(n, 0), p.buf(n, 1)
		for _, x := range []struct {
			b  nn.Backend
			bs []nn.Buffer
		}{{p.c, p.cb}, {p.g, p.gb}} {
			s := x.bs
			x.b.GeluForward(s[o], s[a], n)
			x.b.GeluBackward(s[g], s[a], s[d], n)
			x.b.Add(s[b], s[b], s[o], n)
			x.b.Accumulate(s[d], s[b], n)
		}
		p.check(t, "gelu", o, 1e-5)
		p.check(t, "gelu'", g, 1e-5)
		p.check(t, "add", b, 1e-5)
		p.check(t, "accumulate", d, 1e-5)
		cs, gs := p.c.SumSquares(p.cb[a]), p.g.SumSquares(p.gb[a])
		if math.Abs(cs-gs) > 1e-9*cs {
			t.Errorf("SumSquares: gpu %v cpu %v", gs, cs)
		}
	})
	t.Run("crossentropy", func(t *testing.T) {
		p := newPair(t, cuda.FP32)
		N, V := 33, 1030
		tg := tokens(p.rng, N, V)
		tg[3], tg[9] = -1, -1
		losses, probs, logits, dl := p.buf(N, 0), p.buf(N*V, 0), p.buf(N*V, 5), p.buf(N*V, 1)
		for _, x := range []struct {
			b  nn.Backend
			bs []nn.Buffer
		}{{p.c, p.cb}, {p.g, p.gb}} {
			s := x.bs
			x.b.CrossEntropyForward(s[losses], s[probs], s[logits], tg, N, V)
			x.b.CrossEntropyBackward(s[dl], s[probs], tg, N, V, 0.25)
		}
		p.check(t, "losses", losses, 1e-5)
		p.check(t, "probs", probs, 1e-5)
		p.check(t, "dlogits", dl, 1e-5)
	})
	t.Run("adamw", func(t *testing.T) {
		p := newPair(t, cuda.FP32)
		n := 5000
		par, g, m, v := p.buf(n, 1), p.buf(n, 1), p.buf(n, 0), p.buf(n, 0)
		for step := 1; step <= 3; step++ {
			hp := nn.AdamW{LR: 1e-2, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1, Step: step, GradScale: 0.5}
			p.c.AdamWUpdate(p.cb[par], p.cb[g], p.cb[m], p.cb[v], hp)
			p.g.AdamWUpdate(p.gb[par], p.gb[g], p.gb[m], p.gb[v], hp)
		}
		p.check(t, "params", par, 1e-5)
		p.check(t, "m", m, 1e-5)
		p.check(t, "v", v, 1e-5)
	})
}

// The tensor-core attention (kernels/flash.cu, head size 64, bf16
// operands, fp32 accumulation) against the CPU's fp32 attention: T of one
// row, below, at and past a 64-row tile, a long context, several batches
// and heads; out and the gradient of q, k and v (dqkv accumulates onto
// what it held). The tolerance is bf16's: operands rounded to 8 bits of
// mantissa (relative 2⁻⁹) in products of 64 terms.
func TestGPUFlashAttentionMatchesCPU(t *testing.T) {
	for _, sh := range []struct{ B, T, NH int }{{1, 1, 1}, {2, 7, 2}, {1, 64, 2}, {2, 65, 1}, {3, 130, 2}, {1, 1024, 2}} {
		t.Run(fmt.Sprintf("B%dT%dNH%d", sh.B, sh.T, sh.NH), func(t *testing.T) {
			p := newPair(t, cuda.BF16)
			B, T, NH := sh.B, sh.T, sh.NH
			C := 64 * NH
			if !p.g.FlashAttention(C, NH) {
				t.Fatal("head size 64 in bf16 does not take the tensor-core kernels")
			}
			att := p.g.AttentionScratch(B, T, C, NH)
			if want := 2*B*NH*T + (B*T*C+1)/2; att != want {
				t.Errorf("AttentionScratch = %d, want %d", att, want)
			}
			out, qkv := p.buf(B*T*C, 0), p.buf(B*T*3*C, 1)
			dqkv, dout := p.buf(B*T*3*C, 1), p.buf(B*T*C, 1)
			catt, gatt := p.c.Alloc(nn.AttentionScratch(p.c, B, T, C, NH)), p.g.Alloc(att)
			p.c.AttentionForward(p.cb[out], catt, p.cb[qkv], B, T, C, NH)
			p.g.AttentionForward(p.gb[out], gatt, p.gb[qkv], B, T, C, NH)
			p.c.AttentionBackward(p.cb[dqkv], p.cb[dout], p.cb[qkv], catt, B, T, C, NH)
			p.g.AttentionBackward(p.gb[dqkv], p.gb[dout], p.gb[qkv], gatt, B, T, C, NH)
			p.check(t, "out", out, 1e-2)
			p.check(t, "dqkv", dqkv, 1e-2)
			t.Logf("out max error %.2g, dqkv %.2g", p.maxErr(out), p.maxErr(dqkv))
		})
	}
}

// AMT_CUDA_ATTENTION=legacy (or Options.Attention) keeps the fp32 kernels
// for every head size: the fallback should the tensor-core ones fail on a
// GPU. Flash wins over the environment; a bad value fails Open.
func TestGPUAttentionSwitch(t *testing.T) {
	t.Setenv("AMT_CUDA_ATTENTION", "legacy")
	if g := openGPU(t, cuda.BF16); g.FlashAttention(128, 2) || g.AttentionScratch(2, 10, 128, 2) != 2*2*10 {
		t.Error("AMT_CUDA_ATTENTION=legacy: the tensor-core kernels are still chosen")
	}
	o := gpuOptions(cuda.BF16)
	o.Attention = cuda.AttentionFlash
	if g, err := cuda.Open(o); err != nil || !g.FlashAttention(128, 2) {
		t.Errorf("Options.Attention = flash under AMT_CUDA_ATTENTION=legacy: %v", err)
	} else {
		g.Close()
	}
	t.Setenv("AMT_CUDA_ATTENTION", "")
	if g := openGPU(t, cuda.BF16); !g.FlashAttention(128, 2) || g.FlashAttention(64, 2) || g.FlashAttention(256, 2) {
		t.Error("default: tensor-core kernels for head size 64 only")
	}
	if g := openGPU(t, cuda.TF32); g.FlashAttention(128, 2) {
		t.Error("tf32 keeps fp32 attention")
	}
	t.Setenv("AMT_CUDA_ATTENTION", "fast")
	if g, err := cuda.Open(gpuOptions(cuda.BF16)); err == nil || !strings.Contains(err.Error(), "AMT_CUDA_ATTENTION") {
		if g != nil {
			g.Close()
		}
		t.Errorf("a bad AMT_CUDA_ATTENTION: %v", err)
	}
}

// maxErr is max |gpu-cpu| / max(1, max|cpu|) of tensor i.
func (p *pair) maxErr(i int) float64 {
	n := p.cb[i].Len()
	want, got := make([]float32, n), make([]float32, n)
	p.c.Download(want, p.cb[i])
	p.g.Download(got, p.gb[i])
	scale, worst := 1.0, 0.0
	for j, v := range want {
		scale = math.Max(scale, math.Abs(float64(v)))
		worst = math.Max(worst, math.Abs(float64(got[j])-float64(v)))
	}
	return worst / scale
}

// trainLosses trains the tiny preset for steps on a fixed stream and
// returns the loss of each step.
func trainLosses(t *testing.T, be nn.Backend, steps int) []float64 {
	return trainLossesWith(t, be, steps, false)
}

// trainLossesWith: with prefetch, each step hands the next step's batch to
// the backend's Prefetch before its own forward pass, as engine/train does.
func trainLossesWith(t *testing.T, be nn.Backend, steps int, prefetch bool) []float64 {
	c, _ := gpt.Preset("tiny", 97)
	return trainLossesOf(t, be, c, steps, prefetch)
}

// flashConfig is a tiny model with head size 64, the size the tensor-core
// attention serves (the presets small and base have it).
func flashConfig() gpt.Config {
	c, _ := gpt.Preset("tiny", 97)
	c.NEmbd, c.NHead = 128, 2
	return c
}

func trainLossesOf(t *testing.T, be nn.Backend, c gpt.Config, steps int, prefetch bool) []float64 {
	m, err := gpt.New(be, c)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(7)
	n := m.NumParams()
	mo, vo := be.Alloc(n), be.Alloc(n)
	rng := rand.New(rand.NewPCG(3, 4))
	data := make([]int32, 4096)
	for i := range data { // a learnable stream: mostly a cycle, some noise; ids 0..96
		data[i] = int32(((i*7)%97 + rng.IntN(2)) % 97)
	}
	B, T := 4, 64
	type batch struct{ in, tg []int32 }
	batches := make([]batch, steps+1)
	for s := range batches {
		in, tg := make([]int32, B*T), make([]int32, B*T)
		for b := 0; b < B; b++ {
			off := rng.IntN(len(data) - T - 1)
			copy(in[b*T:], data[off:off+T])
			copy(tg[b*T:], data[off+1:off+T+1])
		}
		batches[s] = batch{in, tg}
	}
	pf, _ := be.(interface{ Prefetch(tokens, targets []int32) })
	var losses []float64
	for s := 1; s <= steps; s++ {
		in, tg := batches[s-1].in, batches[s-1].tg
		if prefetch && pf != nil {
			next := batches[s]
			pf.Prefetch(next.in, next.tg)
		}
		l, err := m.Forward(in, tg, B, T)
		if err != nil {
			t.Fatal(err)
		}
		m.ZeroGrad()
		if err := m.Backward(1); err != nil {
			t.Fatal(err)
		}
		norm := math.Sqrt(be.SumSquares(m.Grads()))
		scale := float32(1)
		if norm > 1 {
			scale = float32(1 / norm)
		}
		be.AdamWUpdate(m.Params(), m.Grads(), mo, vo, nn.AdamW{LR: 3e-3, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, Step: s, GradScale: scale})
		losses = append(losses, float64(l))
	}
	return losses
}

func TestGPUTrainingTracksCPU(t *testing.T) {
	tiny, _ := gpt.Preset("tiny", 97)
	for _, c := range []struct {
		name  string
		p     cuda.Precision
		cfg   gpt.Config
		steps int
		tol   float64
	}{{"fp32", cuda.FP32, tiny, 50, 2e-3}, {"bf16", cuda.BF16, tiny, 50, 5e-2}, {"bf16-hs64", cuda.BF16, flashConfig(), 20, 5e-2}} {
		t.Run(c.name, func(t *testing.T) {
			g := openGPU(t, c.p)
			if hs64 := c.cfg.NEmbd == 64*c.cfg.NHead; g.FlashAttention(c.cfg.NEmbd, c.cfg.NHead) != (hs64 && c.p == cuda.BF16) {
				t.Fatalf("tensor-core attention chosen wrongly for %s", c.name)
			}
			cp := cpu.NewWorkers(2)
			defer cp.Close()
			want, got := trainLossesOf(t, cp, c.cfg, c.steps, false), trainLossesOf(t, g, c.cfg, c.steps, false)
			if err := g.Err(); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if math.Abs(got[i]-want[i]) > c.tol {
					t.Errorf("step %d: gpu loss %.5f, cpu %.5f (tolerance %g)", i+1, got[i], want[i], c.tol)
				}
			}
			last := c.steps - 1
			if want[last] > want[0]-0.5 {
				t.Errorf("the CPU run did not learn (%.3f → %.3f): the comparison says little", want[0], want[last])
			}
			t.Logf("loss %.4f → %.4f (cpu %.4f → %.4f)", got[0], got[last], want[0], want[last])
		})
	}
}

func TestGPUGreedyGenerationMatchesCPU(t *testing.T) {
	g := openGPU(t, cuda.FP32)
	cp := cpu.NewWorkers(2)
	defer cp.Close()
	gen := func(be nn.Backend) []uint16 {
		c, _ := gpt.Preset("tiny", 97)
		m, err := gpt.New(be, c)
		if err != nil {
			t.Fatal(err)
		}
		m.Init(11)
		s := m.NewSampler(64) // short window: exercises the slide (re-prefill) too
		out, err := s.Generate(context.Background(), []uint16{1, 5, 9}, gpt.SampleOptions{MaxTokens: 150, Temperature: 0, EOS: -1})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	want, got := gen(cp), gen(g)
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Fatalf("greedy tokens differ:\ncpu %v\ngpu %v", want, got)
	}
}

// Decoding on the device (nn.Decoder: kernels/decode.cu, replayed as a
// CUDA graph) against the CPU sampler's step: the logits of every step
// match the CPU's in fp32, for head sizes 16 and 64, past a prefill and up
// to the window's end; with graphs off (AMT_CUDA_GRAPHS=0) the kernels
// launched one by one give the same logits bit for bit.
func TestGPUDecodeMatchesCPU(t *testing.T) {
	tiny, _ := gpt.Preset("tiny", 97)
	tiny.NPositions = 200
	for _, c := range []struct {
		cfg    gpt.Config
		window int
	}{{tiny, 200}, {flashConfig(), 40}} {
		cfg, window := c.cfg, c.window // 200: two blocks of 128 cache rows a head
		t.Run(fmt.Sprintf("C%dNH%dW%d", cfg.NEmbd, cfg.NHead, window), func(t *testing.T) {
			cp := cpu.NewWorkers(2)
			defer cp.Close()
			run := func(be nn.Backend) [][]float32 {
				m, err := gpt.New(be, cfg)
				if err != nil {
					t.Fatal(err)
				}
				m.Init(5)
				s := m.NewSampler(window)
				l, err := s.Prefill([]uint16{1, 2, 3})
				if err != nil {
					t.Fatal(err)
				}
				out := [][]float32{append([]float32(nil), l...)}
				for i := 0; s.Pos() < window; i++ {
					if l, err = s.Step(uint16((i*7 + 5) % cfg.VocabSize)); err != nil {
						t.Fatal(err)
					}
					out = append(out, append([]float32(nil), l...))
				}
				return out
			}
			want := run(cp)
			got := run(openGPU(t, cuda.FP32))
			for i := range want {
				worst := 0.0
				for j := range want[i] {
					worst = math.Max(worst, math.Abs(float64(got[i][j]-want[i][j])))
				}
				if worst > 1e-4 || math.IsNaN(worst) {
					t.Fatalf("step %d: logits differ by %.3g", i, worst)
				}
			}
			t.Setenv("AMT_CUDA_GRAPHS", "0")
			direct := run(openGPU(t, cuda.FP32))
			for i := range got {
				if !slices.Equal(direct[i], got[i]) {
					t.Fatalf("step %d: kernels launched one by one differ from the graph's", i)
				}
			}
		})
	}
}

// Sampling in bf16 with head size 64: the prefills run the tensor-core
// attention, whose scratch is larger than a short window's (NH,T,T); the
// sampler's activations make room for it. Logits within bf16's reach of the
// CPU's, window refills included.
func TestGPUSampleBF16ShortWindow(t *testing.T) {
	cfg := flashConfig()
	cp := cpu.NewWorkers(2)
	defer cp.Close()
	g := openGPU(t, cuda.BF16)
	run := func(be nn.Backend) [][]float32 {
		m, err := gpt.New(be, cfg)
		if err != nil {
			t.Fatal(err)
		}
		m.Init(9)
		s := m.NewSampler(16)
		var out [][]float32
		for _, n := range []int{10, 16, 5} {
			prompt := make([]uint16, n)
			for i := range prompt {
				prompt[i] = uint16(i*5 + 1)
			}
			l, err := s.Prefill(prompt)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, append([]float32(nil), l...))
			if s.Pos() < 16 {
				if l, err = s.Step(3); err != nil {
					t.Fatal(err)
				}
				out = append(out, append([]float32(nil), l...))
			}
		}
		return out
	}
	want, got := run(cp), run(g)
	if err := g.Err(); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		worst := 0.0
		for j := range want[i] {
			worst = math.Max(worst, math.Abs(float64(got[i][j]-want[i][j])))
		}
		if worst > 5e-2 || math.IsNaN(worst) {
			t.Errorf("logits %d differ by %.3g", i, worst)
		}
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// benchTrain: forward + backward + AdamW per iteration, preset at
// AMT_BENCH_B × AMT_BENCH_T (default 16 × 1024, as scripts/bench_pytorch_gpt2.py).
func benchTrain(b *testing.B, preset string) {
	prec, _ := cuda.ParsePrecision(os.Getenv("AMT_CUDA_PRECISION"))
	g := openGPU(b, prec)
	g.EnableStageTiming(true)
	c, _ := gpt.Preset(preset, 1030)
	m, err := gpt.New(g, c)
	if err != nil {
		b.Fatal(err)
	}
	m.Init(1)
	B, T := envInt("AMT_BENCH_B", 16), envInt("AMT_BENCH_T", 1024)
	rng := rand.New(rand.NewPCG(1, 1))
	tok := tokens(rng, B*T+1, 1030)
	n := m.NumParams()
	mo, vo := g.Alloc(n), g.Alloc(n)
	step := func(i int) {
		g.BeginStage("forward")
		m.Forward(tok[:B*T], tok[1:], B, T)
		g.EndStage("forward")
		g.BeginStage("backward")
		m.ZeroGrad()
		m.Backward(1)
		g.EndStage("backward")
		g.BeginStage("optimizer")
		g.AdamWUpdate(m.Params(), m.Grads(), mo, vo, nn.AdamW{LR: 1e-4, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, Step: i + 1})
		g.EndStage("optimizer")
	}
	step(0)
	if err := g.Synchronize(); err != nil {
		b.Fatal(err)
	}
	g.StageSeconds()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step(i + 1)
	}
	if err := g.Synchronize(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(B*T*b.N)/b.Elapsed().Seconds(), "tokens/s")
	for name, s := range g.StageSeconds() {
		b.ReportMetric(s/float64(b.N)*1000, name+"-ms/step")
	}
	free, total, _ := g.MemInfo()
	b.ReportMetric(float64(total-free)/(1<<20), "gpu-MiB")
	b.Logf("%s, %d params, B=%d T=%d, %s", g.Describe(), n, B, T, preset)
}

func BenchmarkGPUTrainSmall(b *testing.B) { benchTrain(b, "small") }
func BenchmarkGPUTrainBase(b *testing.B)  { benchTrain(b, "base") }

func benchGenerate(b *testing.B, preset string) {
	g := openGPU(b, cuda.FP32)
	c, _ := gpt.Preset(preset, 1030)
	m, err := gpt.New(g, c)
	if err != nil {
		b.Fatal(err)
	}
	m.Init(1)
	s := m.NewSampler(1024)
	for i := 0; i < b.N; i++ {
		if _, err := s.Generate(context.Background(), []uint16{1}, gpt.SampleOptions{MaxTokens: 1023, Temperature: 1, Seed: uint64(i), EOS: -1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(1023*b.N)/b.Elapsed().Seconds(), "tokens/s")
	graphed, direct := g.DecodeSteps()
	b.ReportMetric(float64(graphed)/float64(max(1, graphed+direct)), "graphed-share")
	if err := g.GraphErr(); err != nil {
		b.Logf("decoding steps launched kernel by kernel: %v", err)
	}
}

func BenchmarkGPUGenerateSmall(b *testing.B) { benchGenerate(b, "small") }
func BenchmarkGPUGenerateBase(b *testing.B)  { benchGenerate(b, "base") }
