package gpt

import (
	"context"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"

	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/cpu"
)

// benchVocab approximates the token vocabulary's size.
const benchVocab = 1030 // token.DefaultVocab().Size() when measured

func benchModel(b *testing.B) (*Model, *cpu.Backend) {
	be := cpu.New()
	b.Cleanup(be.Close)
	c, _ := Preset("small", benchVocab)
	m, err := New(be, c)
	if err != nil {
		b.Fatal(err)
	}
	m.Init(1)
	return m, be
}

// BenchmarkTrainStepSmall: one forward+backward+AdamW step, B=8, T=256.
func BenchmarkTrainStepSmall(b *testing.B) {
	m, be := benchModel(b)
	B, T := 8, 256
	rng := rand.New(rand.NewPCG(1, 1))
	tok := randTokens(rng, B*T+1, benchVocab)
	mo, vo := be.Alloc(m.NumParams()), be.Alloc(m.NumParams())
	// One step first: the first touch of ~0.4 GB of activations is page
	// faults, not the steady state.
	m.Forward(tok[:B*T], tok[1:], B, T)
	m.ZeroGrad()
	m.Backward(1)
	runtime.GC() // the setup's garbage is not the step's
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Forward(tok[:B*T], tok[1:], B, T)
		m.ZeroGrad()
		m.Backward(1)
		be.AdamWUpdate(m.Params(), m.Grads(), mo, vo, nn.AdamW{LR: 1e-4, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8, Step: i + 1})
	}
	b.StopTimer()
	b.ReportMetric(float64(B*T*b.N)/b.Elapsed().Seconds(), "tokens/s")
	// CPU seconds (user+system of the process) per step: what other
	// processes on a shared machine do not inflate.
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/step")
}

// cpuSeconds is the process's user+system time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkGenerate1024Small: 1,024 new tokens with the small preset.
func BenchmarkGenerate1024Small(b *testing.B) {
	m, _ := benchModel(b)
	s := m.NewSampler(0)
	s.Generate(context.Background(), []uint16{0}, SampleOptions{MaxTokens: 1024, Temperature: 1, Seed: 1, EOS: -1})
	runtime.GC()
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Generate(context.Background(), []uint16{0}, SampleOptions{MaxTokens: 1024, Temperature: 1, Seed: 1, EOS: -1}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// BenchmarkGenerate1024Window256: as `amt bench engine` measures generation:
// a model trained at context 256 samples with a 256-token window (the cache
// is re-encoded from the last 128 tokens whenever it fills).
func BenchmarkGenerate1024Window256(b *testing.B) {
	m, _ := benchModel(b)
	m.Config.TrainContext = 256
	s := m.NewSampler(0)
	opts := SampleOptions{MaxTokens: 1024, Temperature: 1, TopP: 0.95, Seed: 1, EOS: -1}
	s.Generate(context.Background(), []uint16{0}, opts)
	runtime.GC()
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Generate(context.Background(), []uint16{0}, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}
