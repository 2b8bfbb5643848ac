package app

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/cpu"
	"github.com/amtstudio/amt/engine/token"
)

// EngineBench is the JSON of `amt bench engine`. Each figure is the best of
// Repeat measurements; the *_spread fields give [worst, best] so the noise of
// a shared machine shows.
type EngineBench struct {
	MatmulShape          [3]int     `json:"matmul_shape"` // N, C, OC
	MatmulGFLOPS         float64    `json:"matmul_gflops"`
	OpenBLASGFLOPS       float64    `json:"openblas_gflops"`
	MatmulRatio          float64    `json:"matmul_ratio"`
	MatmulSpread         [2]float64 `json:"matmul_gflops_spread"`
	OpenBLASSpread       [2]float64 `json:"openblas_gflops_spread"`
	TrainTokensPerSecond float64    `json:"train_tokens_per_second"`
	TrainSpread          [2]float64 `json:"train_tokens_per_second_spread"`
	TrainCPUSecondsStep  float64    `json:"train_cpu_seconds_per_step"`
	GenerateSeconds1024  float64    `json:"generate_seconds_1024"`
	GenerateSpread       [2]float64 `json:"generate_seconds_1024_spread"`
	GenerateCPUSeconds   float64    `json:"generate_cpu_seconds_1024"`
	GenerateWindow       int        `json:"generate_window"`
	// the same 1,024 tokens with the compact sampler (CPU only; 0 otherwise)
	GenerateCompactSeconds1024 float64    `json:"generate_compact_seconds_1024,omitempty"`
	GenerateCompactSpread      [2]float64 `json:"generate_compact_seconds_1024_spread,omitempty"`
	Params                     int        `json:"params"`
	Vocab                      int        `json:"vocab"`
	Workers                    int        `json:"workers"`
	BLASCore                   string     `json:"blas_core"` // OpenBLAS kernel set (OPENBLAS_CORETYPE or detected)
	PeakRSSMB                  float64    `json:"peak_rss_mb"`
	LoadAverage                string     `json:"load_average"`
	Repeat                     int        `json:"repeat"`
	// Device is the backend measured and why; on a GPU the OpenBLAS
	// baseline is left out (0) and TrainStageMS holds the device's time per
	// training step by stage (events).
	Device       string             `json:"device"`
	TrainStageMS map[string]float64 `json:"train_stage_ms,omitempty"`
}

func spreadOf(xs []float64, higherBetter bool) (best float64, spread [2]float64) {
	lo, hi := slices.Min(xs), slices.Max(xs)
	if higherBetter {
		return hi, [2]float64{lo, hi}
	}
	return lo, [2]float64{hi, lo}
}

// BenchEngine measures the engine as `amt bench engine` reports it, on the
// backend a --device value names ("" or "cpu": the CPU, with the OpenBLAS
// baseline).
func BenchEngine(ctx context.Context, repeat, steps int, device string) (EngineBench, error) {
	v := token.DefaultVocab()
	r := EngineBench{Vocab: v.Size(), Repeat: repeat, Workers: runtime.GOMAXPROCS(0), BLASCore: cpu.BLASCore()}
	var be nn.Backend
	if d := strings.ToLower(device); d == "" || d == "cpu" {
		be = cpu.New()
		r.Device = "cpu"
	} else {
		b, ch, err := OpenDevice(device, 0)
		if err != nil {
			return r, fmt.Errorf("bench engine: %w", err)
		}
		be, r.Device = b, ch.Reason
	}
	defer be.Close()
	_, onCPU := be.(*cpu.Backend)
	sync := func() {
		if s, ok := be.(interface{ Synchronize() error }); ok {
			s.Synchronize()
		}
	}
	timer, _ := be.(interface {
		EnableStageTiming(bool)
		BeginStage(string)
		EndStage(string)
		StageSeconds() map[string]float64
	})
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(b nn.Buffer) {
		h := make([]float32, b.Len())
		for i := range h {
			h[i] = rng.Float32() - 0.5
		}
		be.Upload(b, h)
	}

	// Matmul: the MLP's first product of the small preset at B·T = 2048.
	N, C, OC := 2048, 256, 1024
	r.MatmulShape = [3]int{N, C, OC}
	inp, w, bias, out := be.Alloc(N*C), be.Alloc(C*OC), be.Alloc(OC), be.Alloc(N*OC)
	fill(inp)
	fill(w)
	fill(bias)
	flop := 2 * float64(N) * float64(C) * float64(OC)
	const reps = 20
	var eng, blas []float64
	for i := 0; i < repeat; i++ {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		// Engine: its worker pool, single-threaded OpenBLAS per block, bias
		// included (or the device's product).
		be.MatmulForward(out, inp, w, bias, N, C, OC, false)
		sync()
		t := time.Now()
		for k := 0; k < reps; k++ {
			be.MatmulForward(out, inp, w, bias, N, C, OC, false)
		}
		sync()
		eng = append(eng, flop*reps/time.Since(t).Seconds()/1e9)
		if !onCPU {
			continue
		}
		// Baseline: one cblas_sgemm call on the whole shape, OpenBLAS's own threads.
		cpu.SetBLASThreads(runtime.GOMAXPROCS(0))
		cpu.Sgemm(false, false, N, OC, C, 1, inp.Host(), C, w.Host(), OC, 0, out.Host(), OC)
		t = time.Now()
		for k := 0; k < reps; k++ {
			cpu.Sgemm(false, false, N, OC, C, 1, inp.Host(), C, w.Host(), OC, 0, out.Host(), OC)
		}
		blas = append(blas, flop*reps/time.Since(t).Seconds()/1e9)
		cpu.SetBLASThreads(1)
	}
	r.MatmulGFLOPS, r.MatmulSpread = spreadOf(eng, true)
	if onCPU {
		r.OpenBLASGFLOPS, r.OpenBLASSpread = spreadOf(blas, true)
		r.MatmulRatio = r.MatmulGFLOPS / r.OpenBLASGFLOPS
	}

	// Training: small preset, batch 8 × context 256, AdamW included.
	cfg, err := gpt.Preset("small", v.Size())
	if err != nil {
		return r, err
	}
	m, err := gpt.New(be, cfg)
	if err != nil {
		return r, err
	}
	m.Init(1)
	r.Params = m.NumParams()
	B, T := 8, 256
	toks := make([]int32, B*T+1)
	for i := range toks {
		toks[i] = int32(rng.IntN(v.Size()))
	}
	mo, vo := be.Alloc(m.NumParams()), be.Alloc(m.NumParams())
	begin, end := func(string) {}, func(string) {}
	if timer != nil {
		timer.EnableStageTiming(true)
		begin, end = timer.BeginStage, timer.EndStage
	}
	step := func(i int) error {
		begin("forward")
		if _, err := m.Forward(toks[:B*T], toks[1:], B, T); err != nil {
			return err
		}
		end("forward")
		begin("backward")
		m.ZeroGrad()
		if err := m.Backward(1); err != nil {
			return err
		}
		end("backward")
		begin("optimizer")
		norm := be.SumSquares(m.Grads())
		_ = norm
		be.AdamWUpdate(m.Params(), m.Grads(), mo, vo, nn.AdamW{LR: 1e-4, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, WeightDecay: 0.1, Step: i + 1})
		end("optimizer")
		return nil
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	if err := step(0); err != nil { // first touch of the activations
		return r, err
	}
	if timer != nil {
		timer.StageSeconds() // leave out the first step
	}
	var tps []float64
	cpuStart, _ := cpuSeconds()
	for i := 0; i < repeat; i++ {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		t := time.Now()
		for k := 0; k < steps; k++ {
			if err := step(k + 1); err != nil {
				return r, err
			}
		}
		sync()
		tps = append(tps, float64(B*T*steps)/time.Since(t).Seconds())
	}
	if timer != nil {
		r.TrainStageMS = map[string]float64{}
		for k, v := range timer.StageSeconds() {
			r.TrainStageMS[k] = v * 1000 / float64(repeat*steps)
		}
		timer.EnableStageTiming(false)
	}
	if e, ok := be.(interface{ Err() error }); ok && e.Err() != nil {
		return r, fmt.Errorf("bench engine: device: %w", e.Err())
	}
	cpuEnd, _ := cpuSeconds()
	r.TrainCPUSecondsStep = (cpuEnd - cpuStart) / float64(repeat*steps)
	r.TrainTokensPerSecond, r.TrainSpread = spreadOf(tps, true)

	// Generation: 1,024 new tokens from BOS with the window a model trained
	// at context 256 uses.
	m.Config.TrainContext = 256
	s := m.NewSampler(0)
	r.GenerateWindow = s.W
	opts := gpt.SampleOptions{MaxTokens: 1024, Temperature: 1, TopP: 0.95, Seed: 1, EOS: -1}
	if _, err := s.Generate(ctx, []uint16{v.BOS}, opts); err != nil {
		return r, err
	}
	var gen []float64
	genCPU, _ := cpuSeconds()
	for i := 0; i < repeat; i++ {
		t := time.Now()
		out, err := s.Generate(ctx, []uint16{v.BOS}, opts)
		if err != nil {
			return r, err
		}
		if len(out) != 1024 {
			return r, fmt.Errorf("bench engine: generated %d tokens, want 1024", len(out))
		}
		gen = append(gen, time.Since(t).Seconds())
	}
	genCPUEnd, _ := cpuSeconds()
	r.GenerateCPUSeconds = (genCPUEnd - genCPU) / float64(repeat)
	r.GenerateSeconds1024, r.GenerateSpread = spreadOf(gen, false)
	if onCPU {
		// the compact sampler (int8 weights, half-precision cache) on the
		// same job, runs interleaved with nothing else between
		cs := m.NewCompactSampler(0, m.Compact())
		gen = gen[:0]
		for i := 0; i <= repeat; i++ {
			t := time.Now()
			out, err := cs.Generate(ctx, []uint16{v.BOS}, opts)
			if err != nil {
				return r, err
			}
			if len(out) != 1024 {
				return r, fmt.Errorf("bench engine: compact sampler generated %d tokens, want 1024", len(out))
			}
			if i > 0 { // the first is a warm-up
				gen = append(gen, time.Since(t).Seconds())
			}
		}
		r.GenerateCompactSeconds1024, r.GenerateCompactSpread = spreadOf(gen, false)
	}
	r.PeakRSSMB = PeakRSSMB()
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		r.LoadAverage = strings.Join(strings.Fields(string(la))[:3], " ")
	}
	return r, nil
}
