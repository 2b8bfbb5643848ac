//go:build cuda && cgo && linux

// Tests that need the CUDA emulator's controls (engine/nn/cuda/emu): lazy
// streams, several devices, injected failures, the trace of launches. They
// skip on a real GPU, where none of these can be arranged.
package cuda_test

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/cpu"
	"github.com/amtstudio/amt/engine/nn/cuda"
)

func requireEmu(t *testing.T) {
	t.Helper()
	if !emulated() {
		t.Skip("needs the CUDA emulator (AMT_CUDA_EMU; make gpu-emu)")
	}
}

// openEmu opens a backend on the emulator with the environment set by the
// caller (AMT_EMU_*), closing it at the end unless the test does.
func openEmu(t *testing.T, o cuda.Options) *cuda.Backend {
	t.Helper()
	base := gpuOptions(o.Precision)
	o.DriverPath, o.CublasPath = base.DriverPath, base.CublasPath
	be, err := cuda.Open(o)
	if err != nil {
		t.Fatalf("open the emulated GPU: %v", err)
	}
	t.Cleanup(be.Close)
	return be
}

// A prefetched batch's ids must reach the kernels whatever the streams'
// timing: with the compute stream lazy (its work runs only when needed),
// the zero-fill of a new slot used to run after the copy stream had written
// the ids into it, and the embeddings came from token 0.
func TestEmuPrefetchWithLazyStreams(t *testing.T) {
	requireEmu(t)
	for _, lazy := range []string{"", "0", "1", "all"} {
		t.Run("lazy="+lazy, func(t *testing.T) {
			t.Setenv("AMT_EMU_LAZY", lazy)
			p := newPair(t, cuda.FP32)
			B, T, C, V := 2, 9, 16, 13
			out, wte, wpe := p.buf(B*T*C, 0), p.buf(V*C, 1), p.buf(T*C, 1)
			for round := range 5 { // more batches than the three slots
				tok := tokens(p.rng, B*T, V)
				tok[0] = int32(1 + round%(V-1)) // never all zero
				p.g.Prefetch(tok, nil)
				p.c.EncoderForward(p.cb[out], p.cb[wte], p.cb[wpe], tok, B, T, C)
				p.g.EncoderForward(p.gb[out], p.gb[wte], p.gb[wpe], tok, B, T, C)
				p.check(t, fmt.Sprintf("round %d", round), out, 1e-6)
			}
		})
	}
}

// Training with the next batch prefetched every step, every stream lazy,
// tracks the CPU as the plain run does.
func TestEmuTrainingWithPrefetchTracksCPU(t *testing.T) {
	requireEmu(t)
	t.Setenv("AMT_EMU_LAZY", "all")
	g := openGPU(t, cuda.FP32)
	cp := cpu.NewWorkers(2)
	defer cp.Close()
	want, got := trainLossesWith(t, cp, 12, false), trainLossesWith(t, g, 12, true)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 2e-3 {
			t.Errorf("step %d: gpu loss %.5f, cpu %.5f", i+1, got[i], want[i])
		}
	}
}

// Close waits for the copy stream too: a prefetch still queued there must
// not read pinned memory that Close has freed. A second Close does nothing.
func TestEmuCloseWaitsForQueuedCopies(t *testing.T) {
	requireEmu(t)
	watchEmu(t)
	t.Setenv("AMT_EMU_LAZY", "1") // the copy stream
	be := openEmu(t, cuda.Options{Precision: cuda.FP32})
	be.Prefetch([]int32{1, 2, 3, 4}, []int32{2, 3, 4, 5})
	be.Close()
	be.Close()
}

// Two devices, two backends: each keeps its own context, on any thread.
// (One global context used to send the first backend's work to the second
// device once that one opened.)
func TestEmuTwoDevices(t *testing.T) {
	requireEmu(t)
	watchEmu(t)
	t.Setenv("AMT_EMU_DEVICES", "2")
	a := openEmu(t, cuda.Options{Device: 0, Precision: cuda.FP32})
	b := openEmu(t, cuda.Options{Device: 1, Precision: cuda.FP32})
	run := func(be *cuda.Backend) []float32 {
		x := be.Alloc(100)
		h := make([]float32, 100)
		for i := range h {
			h[i] = float32(i) - 50
		}
		be.Upload(x, h)
		y := be.Alloc(100)
		be.GeluForward(y, x, 100)
		be.Add(y, y, x, 100)
		be.Download(h, y)
		be.Free(x)
		be.Free(y)
		return h
	}
	want := run(a)
	for round := range 3 {
		done := make(chan [2][]float32)
		go func() { // a fresh OS thread each round: no context current on it yet
			runtime.LockOSThread()
			done <- [2][]float32{run(a), run(b)}
		}()
		got := <-done
		for i := range want {
			if got[0][i] != want[i] || got[1][i] != want[i] {
				t.Fatalf("round %d: element %d: device 0 %v, device 1 %v, want %v", round, i, got[0][i], got[1][i], want[i])
			}
		}
	}
	for _, be := range []*cuda.Backend{a, b} {
		if err := be.Err(); err != nil {
			t.Errorf("%s: %v", be.Info().Name, err)
		}
	}
}

// A failed event timing is not a failed computation: the stages measured
// are returned, the error is reported apart, and the training goes on.
// A stage begun twice (its first end never recorded) is not timed.
func TestEmuStageTimingErrorIsNotSticky(t *testing.T) {
	requireEmu(t)
	t.Setenv("AMT_EMU_FAIL", "cuEventElapsedTime:2")
	g := openGPU(t, cuda.FP32)
	g.EnableStageTiming(true)
	x := g.Alloc(1000)
	y := g.Alloc(1000)
	for range 2 {
		g.BeginStage("forward")
		g.GeluForward(y, x, 1000)
		g.EndStage("forward")
		g.BeginStage("backward")
		g.BeginStage("backward") // begun twice: the first pair has no end
		g.GeluForward(x, y, 1000)
		g.EndStage("backward")
		g.StageSeconds()
	}
	if err := g.Err(); err != nil {
		t.Fatalf("a timing error became the backend's error: %v", err)
	}
	if err := g.StageTimingErr(); err == nil || !strings.Contains(err.Error(), "cuEventElapsedTime") {
		t.Errorf("StageTimingErr = %v, want the injected cuEventElapsedTime failure", err)
	}
	if s := g.SumSquares(x); math.IsNaN(s) {
		t.Error("SumSquares is NaN after a timing error")
	}
	g.BeginStage("forward")
	g.GeluForward(y, x, 1000)
	g.EndStage("forward")
	if st := g.StageSeconds(); len(st) != 1 || st["forward"] < 0 {
		t.Errorf("stages after the error: %v", st)
	}
}

// Every failure the driver or cuBLAS can report reaches the caller as the
// backend's error, named, with NaN results, and nothing leaks into a later
// backend.
func TestEmuFailurePaths(t *testing.T) {
	requireEmu(t)
	work := func(be *cuda.Backend) (float32, float64) {
		x, y := be.Alloc(256), be.Alloc(256)
		w, o := be.Alloc(256), be.Alloc(256)
		h := make([]float32, 256)
		for i := range h {
			h[i] = 0.01 * float32(i)
		}
		be.Upload(x, h)
		be.Upload(w, h)
		be.GeluForward(y, x, 256)
		be.MatmulForward(o, y, w, nn.Buffer{}, 16, 16, 16, false)
		be.Download(h, o)
		return h[0], be.SumSquares(o)
	}
	for _, c := range []struct{ fail, name string }{
		{"cuMemAlloc_v2:3", "CUDA_ERROR_OUT_OF_MEMORY"},
		{"cuMemcpyHtoDAsync_v2:2", "CUDA_ERROR_UNKNOWN"},
		{"cuLaunchKernel:1", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
		{"kernel/gelu_forward:1", "CUDA_ERROR_LAUNCH_FAILED"}, // found at the next synchronisation
		{"cublasGemmEx:1", "CUBLAS_STATUS_EXECUTION_FAILED"},
		{"cuMemsetD32Async:2", "CUDA_ERROR_UNKNOWN"},
	} {
		t.Run(c.fail, func(t *testing.T) {
			watchEmu(t)
			t.Setenv("AMT_EMU_FAIL", c.fail)
			be := openEmu(t, cuda.Options{Precision: cuda.FP32})
			v, s := work(be)
			var de *cuda.DriverError
			if err := be.Err(); !errors.As(err, &de) || de.Name != c.name {
				t.Fatalf("Err = %v, want a %s", err, c.name)
			}
			if !math.IsNaN(float64(v)) || !math.IsNaN(s) {
				t.Errorf("results after the failure: Download %v, SumSquares %v; want NaN", v, s)
			}
			be.Close()
			t.Setenv("AMT_EMU_FAIL", "")
			again := openEmu(t, cuda.Options{Precision: cuda.FP32})
			if v, _ := work(again); math.IsNaN(float64(v)) || again.Err() != nil {
				t.Errorf("a backend opened after the failure: %v, %v", v, again.Err())
			}
		})
	}
	for _, c := range []struct{ fail, want string }{
		{"cuModuleLoadDataEx:2", "injected failure"}, // the JIT log is in the error
		{"cuStreamCreate:2", "cuStreamCreate"},
		{"cuEventCreate:3", "cuEventCreate"},
		{"cublasCreate_v2:1", "cublasCreate"},
		{"cuDevicePrimaryCtxRetain:1", "cuDevicePrimaryCtxRetain"},
	} {
		t.Run("open/"+c.fail, func(t *testing.T) {
			watchEmu(t)
			t.Setenv("AMT_EMU_FAIL", c.fail)
			be, err := cuda.Open(gpuOptions(cuda.FP32))
			if err == nil {
				be.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("Open: %v; want it to name %s", err, c.want)
			}
			t.Setenv("AMT_EMU_FAIL", "")
			openEmu(t, cuda.Options{Precision: cuda.FP32}) // the failed Open left nothing behind
		})
	}
	t.Run("device memory exhausted", func(t *testing.T) {
		watchEmu(t)
		t.Setenv("AMT_EMU_MEM_MB", "1")
		be := openEmu(t, cuda.Options{Precision: cuda.FP32})
		be.Alloc(1 << 20)
		if err := be.Err(); err == nil || !strings.Contains(err.Error(), "alloc 4 MiB") || !strings.Contains(err.Error(), "OUT_OF_MEMORY") {
			t.Errorf("Err = %v", err)
		}
	})
}

// Grids beyond the device's limits are split: attention over more than
// 65,535 batch×heads, bias gradients over more than 65,535×64 rows.
func TestEmuGridLimits(t *testing.T) {
	requireEmu(t)
	t.Run("attention B·NH = 65,536", func(t *testing.T) {
		p := newPair(t, cuda.FP32)
		B, T, C, NH := 32768, 1, 64, 2
		out, att, qkv := p.buf(B*T*C, 0), p.buf(B*NH*T*T, 0), p.buf(B*T*3*C, 1)
		p.c.AttentionForward(p.cb[out], p.cb[att], p.cb[qkv], B, T, C, NH)
		p.g.AttentionForward(p.gb[out], p.gb[att], p.gb[qkv], B, T, C, NH)
		p.check(t, "out", out, 1e-5)
	})
	t.Run("bias gradient over 4,194,241 rows", func(t *testing.T) {
		p := newPair(t, cuda.FP32)
		N, C, OC := 65535*64+1, 1, 1
		inp, w, dout := p.buf(N*C, 1), p.buf(C*OC, 1), p.buf(N*OC, 1)
		dinp, dw, dbias := p.buf(N*C, 0), p.buf(C*OC, 0), p.buf(OC, 0)
		for _, x := range []struct {
			b  nn.Backend
			bs []nn.Buffer
		}{{p.c, p.cb}, {p.g, p.gb}} {
			s := x.bs
			x.b.MatmulBackward(s[dinp], s[dw], s[dbias], s[dout], s[inp], s[w], N, C, OC, false)
		}
		p.check(t, "dbias", dbias, 1e-4)
		p.check(t, "dw", dw, 1e-4)
	})
}

// Zeroing a gradient or an activation keeps the bf16 copies of the
// weights; writing a weight (Upload, Zero, AdamW) renews its copy.
func TestEmuBF16WeightCache(t *testing.T) {
	requireEmu(t)
	t.Setenv("AMT_EMU_TRACE", "1")
	log := watchEmu(t)
	g := openGPU(t, cuda.BF16)
	N, C, OC := 8, 16, 24
	inp, w, out, grad := g.Alloc(N*C), g.Alloc(C*OC), g.Alloc(N*OC), g.Alloc(N*OC)
	h := make([]float32, C*OC)
	for i := range h {
		h[i] = 1
	}
	g.Upload(w, h)
	g.Upload(inp, h[:N*C])
	conversions := func() int {
		n := strings.Count(log.take(), "cuLaunchKernel: f32_to_bf16 ")
		return n
	}
	g.MatmulForward(out, inp, w, nn.Buffer{}, N, C, OC, false)
	if n := conversions(); n != 2 {
		t.Fatalf("first product: %d conversions, want 2 (weight and input)", n)
	}
	g.Zero(grad)
	g.MatmulForward(out, inp, w, nn.Buffer{}, N, C, OC, false)
	if n := conversions(); n != 1 {
		t.Errorf("after zeroing another buffer: %d conversions, want 1 (the input; the weight's copy is kept)", n)
	}
	g.Zero(w)
	g.MatmulForward(out, inp, w, nn.Buffer{}, N, C, OC, false)
	res := make([]float32, N*OC)
	g.Download(res, out)
	if n := conversions(); n != 2 || res[0] != 0 {
		t.Errorf("after zeroing the weight: %d conversions (want 2), out[0] = %v (want 0)", n, res[0])
	}
	g.Upload(w.Slice(0, 1), []float32{2})
	g.MatmulForward(out, inp, w, nn.Buffer{}, N, C, OC, false)
	g.Download(res, out)
	if res[0] != 2 {
		t.Errorf("after uploading into the weight: out[0] = %v, want 2", res[0])
	}
}

// countingBackend counts the floats a backend allocates.
type countingBackend struct {
	nn.Backend
	floats int
}

func (c *countingBackend) Alloc(n int) nn.Buffer { c.floats += n; return c.Backend.Alloc(n) }

// The backend tells gpt how much attention scratch it needs: the log-sum-
// exp per row, not the (T,T) weights, and gpt allocates that much.
func TestEmuAttentionScratch(t *testing.T) {
	requireEmu(t)
	g := openGPU(t, cuda.FP32)
	B, T, NH := 8, 128, 2
	if got := g.AttentionScratch(B, T, 32, NH); got != B*NH*T {
		t.Errorf("AttentionScratch(%d, %d, %d) = %d, want %d", B, T, NH, got, B*NH*T)
	}
	c, _ := gpt.Preset("tiny", 97)
	forward := func(be nn.Backend) {
		m, err := gpt.New(be, c)
		if err != nil {
			t.Fatal(err)
		}
		m.Init(1)
		tok := make([]int32, B*T)
		if _, err := m.Forward(tok, tok, B, T); err != nil {
			t.Fatal(err)
		}
	}
	cp := &countingBackend{Backend: cpu.NewWorkers(1)}
	defer cp.Close()
	forward(cp)
	free0, _, _ := g.MemInfo()
	forward(g) // the GPU's own Alloc: nothing wraps it
	free1, _, _ := g.MemInfo()
	gpuFloats := int(free0-free1) / 4
	saved := cp.floats - gpuFloats
	want := c.NLayer * (B*NH*T*T - B*NH*T)
	slots := 2 * B * T // the GPU's pinned-slot copies of tokens and targets
	if saved < want-slots || saved > want {
		t.Errorf("the GPU model took %d floats, the CPU one %d: saved %d, want %d (± the %d of token slots)", gpuFloats, cp.floats, saved, want, slots)
	}
}

// stepTrace runs one training step (forward, backward, AdamW) of preset
// at B×T on the emulated GPU after a warm-up step and returns the launch
// trace of the second: kernels by name, cuBLAS products, f32→bf16
// conversions.
func stepTrace(t *testing.T, cfg gpt.Config, prec cuda.Precision, B, T int) (kernels map[string]int, launches, gemms int) {
	t.Helper()
	t.Setenv("AMT_EMU_TRACE", "1")
	log := watchEmu(t)
	g := openGPU(t, prec)
	m, err := gpt.New(g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(1)
	n := m.NumParams()
	mo, vo := g.Alloc(n), g.Alloc(n)
	tok := make([]int32, B*T+1)
	for i := range tok {
		tok[i] = int32(i * 7 % cfg.VocabSize)
	}
	step := func(s int) {
		if _, err := m.Forward(tok[:B*T], tok[1:], B, T); err != nil {
			t.Fatal(err)
		}
		m.ZeroGrad()
		if err := m.Backward(1); err != nil {
			t.Fatal(err)
		}
		g.AdamWUpdate(m.Params(), m.Grads(), mo, vo, nn.AdamW{LR: 1e-3, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, Step: s})
	}
	step(1)
	if err := g.Synchronize(); err != nil {
		t.Fatal(err)
	}
	log.take()
	step(2)
	if err := g.Synchronize(); err != nil {
		t.Fatal(err)
	}
	kernels = map[string]int{}
	for _, line := range strings.Split(log.take(), "\n") {
		if i := strings.Index(line, "cuLaunchKernel: "); i >= 0 {
			name := strings.Fields(line[i+len("cuLaunchKernel: "):])[0]
			kernels[name]++
			launches++
		}
		if strings.Contains(line, "cublasGemmEx: ") {
			gemms++
		}
	}
	return kernels, launches, gemms
}

// What one bf16 training step of the small preset's shape launches (at
// B 1, T 64 on the emulator; the counts do not depend on B and T).
func TestEmuTrainStepLaunches(t *testing.T) {
	requireEmu(t)
	c, _ := gpt.Preset("small", 1030)
	c.NPositions = 64
	k, launches, gemms := stepTrace(t, c, cuda.BF16, 1, 64)
	t.Logf("small, bf16: %d kernel launches, %d cuBLAS products, %d f32→bf16 conversions; by kernel %v", launches, gemms, k["f32_to_bf16"], k)
	// Before the bf16 copies and the fused epilogues (2026-11-28): 195
	// launches, 68 conversions (every product's activation operands, and
	// every weight after each AdamW step). Now only the attention
	// backward's dqkv, whose dq the kernel adds by atomics, is converted.
	if k["f32_to_bf16"] != c.NLayer {
		t.Errorf("%d conversions a step, want %d (dqkv of each layer)", k["f32_to_bf16"], c.NLayer)
	}
	if launches > 110 {
		t.Errorf("%d launches a step, want at most 110", launches)
	}
	for _, name := range []string{"add_forward", "gelu_forward"} {
		if k[name] != 0 {
			t.Errorf("%s launched %d times: the fused epilogues replace it", name, k[name])
		}
	}
}

// A bf16 copy is used only while it is current: the shadow a layer norm
// wrote goes stale when its output is written again, flash attention's
// when its scratch is, and the weights' mirror when a weight is written
// other than by AdamW (which keeps it current). Each stale copy is made
// again by one conversion, and the products match the CPU's.
func TestEmuStaleShadows(t *testing.T) {
	requireEmu(t)
	t.Setenv("AMT_EMU_TRACE", "1")
	log := watchEmu(t)
	p := newPair(t, cuda.BF16)
	conversions := func() int { return strings.Count(log.take(), "cuLaunchKernel: f32_to_bf16 ") }
	N, C, OC := 64, 128, 96
	out, mean, rstd, inp, lw, lb := p.buf(N*C, 0), p.buf(N, 0), p.buf(N, 0), p.buf(N*C, 2), p.buf(C, 1), p.buf(C, 1)
	w, y := p.buf(C*OC, 1), p.buf(N*OC, 0)
	both := func(f func(be nn.Backend, s []nn.Buffer)) { f(p.c, p.cb); f(p.g, p.gb) }
	both(func(be nn.Backend, s []nn.Buffer) {
		be.LayerNormForward(s[out], s[mean], s[rstd], s[inp], s[lw], s[lb], N, C, 1e-5)
	})
	conversions()
	both(func(be nn.Backend, s []nn.Buffer) { be.MatmulForward(s[y], s[out], s[w], nn.Buffer{}, N, C, OC, false) })
	if n := conversions(); n != 1 {
		t.Errorf("a product of a layer norm's output: %d conversions, want 1 (the weight's mirror)", n)
	}
	p.check(t, "product of the layer norm", y, 2e-2)
	h := make([]float32, N*C)
	for i := range h {
		h[i] = float32(i%13) - 6
	}
	p.c.Upload(p.cb[out], h)
	p.g.Upload(p.gb[out], h)
	both(func(be nn.Backend, s []nn.Buffer) { be.MatmulForward(s[y], s[out], s[w], nn.Buffer{}, N, C, OC, false) })
	if n := conversions(); n != 1 {
		t.Errorf("after an upload into the layer norm's output: %d conversions, want 1", n)
	}
	p.check(t, "product after the upload", y, 2e-2)

	// flash attention's bf16 output lives in its scratch
	B, T, NH := 1, 64, 2
	Ca := 64 * NH
	qkv, ao, ay, aw := p.buf(B*T*3*Ca, 1), p.buf(B*T*Ca, 0), p.buf(B*T*Ca, 0), p.buf(Ca*Ca, 1)
	catt, gatt := p.c.Alloc(nn.AttentionScratch(p.c, B, T, Ca, NH)), p.g.Alloc(nn.AttentionScratch(p.g, B, T, Ca, NH))
	p.c.AttentionForward(p.cb[ao], catt, p.cb[qkv], B, T, Ca, NH)
	p.g.AttentionForward(p.gb[ao], gatt, p.gb[qkv], B, T, Ca, NH)
	both(func(be nn.Backend, s []nn.Buffer) {
		be.MatmulForward(s[ay], s[ao], s[aw], nn.Buffer{}, B*T, Ca, Ca, false)
	})
	if n := conversions(); n != 1 {
		t.Errorf("a product of attention's output: %d conversions, want 1 (the weight's mirror)", n)
	}
	p.g.Zero(gatt)
	both(func(be nn.Backend, s []nn.Buffer) {
		be.MatmulForward(s[ay], s[ao], s[aw], nn.Buffer{}, B*T, Ca, Ca, false)
	})
	if n := conversions(); n != 1 {
		t.Errorf("after the attention scratch was zeroed: %d conversions, want 1", n)
	}
	p.check(t, "product of attention's output", ay, 2e-2)

	// AdamW keeps the weights' mirror; Zero does not
	g, m, v := p.buf(C*OC, 1), p.buf(C*OC, 0), p.buf(C*OC, 0)
	both(func(be nn.Backend, s []nn.Buffer) {
		be.AdamWUpdate(s[w], s[g], s[m], s[v], nn.AdamW{LR: 0.1, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, Step: 1})
		be.MatmulForward(s[y], s[out], s[w], nn.Buffer{}, N, C, OC, false)
	})
	if n := conversions(); n != 1 {
		t.Errorf("a product after AdamW: %d conversions, want 1 (the input; the mirror is current)", n)
	}
	p.check(t, "product after AdamW", y, 2e-2)
	both(func(be nn.Backend, s []nn.Buffer) {
		be.Zero(s[w].Slice(0, OC))
		be.MatmulForward(s[y], s[out], s[w], nn.Buffer{}, N, C, OC, false)
	})
	if n := conversions(); n != 2 {
		t.Errorf("a product after zeroing a weight row: %d conversions, want 2", n)
	}
	p.check(t, "product after zeroing a weight row", y, 2e-2)
}

// A sampling step on the emulated GPU is one graph launch: the decoding
// kernels (dec_embed, five a layer, dec_logits) are launched once, while
// the first step captures them, and replayed by every step after.
func TestEmuDecodeGraph(t *testing.T) {
	requireEmu(t)
	t.Setenv("AMT_EMU_TRACE", "1")
	log := watchEmu(t)
	g := openGPU(t, cuda.FP32)
	c, _ := gpt.Preset("tiny", 97)
	m, err := gpt.New(g, c)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(3)
	s := m.NewSampler(64)
	if _, err := s.Prefill([]uint16{1, 2}); err != nil {
		t.Fatal(err)
	}
	log.take()
	const steps = 10
	for i := range steps {
		if _, err := s.Step(uint16(i + 3)); err != nil {
			t.Fatal(err)
		}
	}
	trace := log.take()
	launches, graphs := strings.Count(trace, "cuLaunchKernel: "), strings.Count(trace, "cuGraphLaunch: ")
	if want := 2 + 5*c.NLayer; launches != want || graphs != steps {
		t.Errorf("%d steps: %d kernel launches and %d graph launches, want %d (one capture) and %d", steps, launches, graphs, want, steps)
	}
	if strings.Count(trace, "cuStreamBeginCapture_v2: ") != 1 {
		t.Error("the step was not captured exactly once")
	}
	if gr, di := g.DecodeSteps(); gr != steps || di != 0 || g.GraphErr() != nil {
		t.Errorf("DecodeSteps = %d graphed, %d direct (GraphErr %v); want %d, 0", gr, di, g.GraphErr(), steps)
	}
	// A capture that fails leaves the plan launching kernels one by one,
	// and the backend working.
	t.Setenv("AMT_EMU_FAIL", "cuStreamEndCapture:1")
	s2 := m.NewSampler(64)
	if _, err := s2.Prefill([]uint16{1, 2}); err != nil {
		t.Fatal(err)
	}
	want := make([]float32, c.VocabSize)
	l, err := s.Prefill([]uint16{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	copy(want, l)
	for i := range 3 {
		l1, err1 := s.Step(uint16(i + 3))
		copy(want, l1)
		l2, err2 := s2.Step(uint16(i + 3))
		if err1 != nil || err2 != nil || !slices.Equal(want, l2) {
			t.Fatalf("step %d after a failed capture: %v %v, logits equal %v", i, err1, err2, slices.Equal(want, l2))
		}
	}
	if gr, di := g.DecodeSteps(); di != 3 || g.GraphErr() == nil || g.Err() != nil {
		t.Errorf("after a failed capture: %d graphed, %d direct, GraphErr %v, Err %v", gr, di, g.GraphErr(), g.Err())
	}
	log.take()
}
