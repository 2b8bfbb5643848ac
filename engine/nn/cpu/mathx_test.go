package cpu

import (
	"math"
	"testing"

	"github.com/amtstudio/amt/engine/nn"
)

// TestExpf holds expf to float64 math.Exp: relative error ≤ 4 float32 ulps
// (4.8e-7) over the whole unclamped range, exact at 0, and the documented
// clamps outside it.
func TestExpf(t *testing.T) {
	worst := 0.0
	for i := 0; i <= 2_000_000; i++ {
		x := float32(-87 + 175*float64(i)/2_000_000)
		got, want := float64(expf(x)), math.Exp(float64(x))
		rel := math.Abs(got-want) / want
		worst = max(worst, rel)
		if rel > 4.8e-7 {
			t.Fatalf("expf(%g) = %g, want %g (relative error %.3g)", x, got, want, rel)
		}
	}
	t.Logf("worst relative error %.3g", worst)
	if expf(0) != 1 {
		t.Fatalf("expf(0) = %g", expf(0))
	}
	if got := expf(float32(math.Inf(-1))); got <= 0 || got > 2e-38 {
		t.Fatalf("expf(-Inf) = %g, want the clamp e^-87", got)
	}
	if got := expf(1000); math.IsInf(float64(got), 0) || got < 1e38 {
		t.Fatalf("expf(1000) = %g, want the finite clamp e^88", got)
	}
	if got := expf(float32(math.NaN())); !math.IsNaN(float64(got)) {
		t.Fatalf("expf(NaN) = %g", got)
	}
}

// geluRef and geluGradRef are the tanh form in float64 (GPT-2's gelu_new).
func geluRef(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

func geluGradRef(x float64) float64 {
	k := math.Sqrt(2 / math.Pi)
	t := math.Tanh(k * (x + 0.044715*x*x*x))
	return 0.5*(1+t) + 0.5*x*(1-t*t)*k*(1+3*0.044715*x*x)
}

// TestGeluMatchesTanhForm checks the σ-form kernels against the tanh formula
// in float64 on a dense grid, tiny values and saturating ones included.
func TestGeluMatchesTanhForm(t *testing.T) {
	be := NewWorkers(2)
	defer be.Close()
	var xs []float32
	for i := -6000; i <= 6000; i++ {
		xs = append(xs, float32(i)/500) // -12 … 12
	}
	xs = append(xs, 1e-30, -1e-30, 1e-8, -3e-6, 30, -30, 1e4, -1e4)
	n := len(xs)
	inp, out := nn.HostBuffer(xs), be.Alloc(n)
	be.GeluForward(out, inp, n)
	ones := be.Alloc(n)
	for i := range ones.Host() {
		ones.Host()[i] = 1
	}
	dinp := be.Alloc(n)
	for i := range dinp.Host() {
		dinp.Host()[i] = 0.25 // backward accumulates
	}
	be.GeluBackward(dinp, inp, ones, n)
	for i, x := range xs {
		want := geluRef(float64(x))
		got := float64(out.Host()[i])
		if d := math.Abs(got - want); d > 1e-6*max(1, math.Abs(want)) || (x != 0 && math.Signbit(got) != math.Signbit(want) && want != 0) {
			t.Fatalf("gelu(%g) = %.9g, want %.9g", x, got, want)
		}
		wantG := geluGradRef(float64(x)) + 0.25
		gotG := float64(dinp.Host()[i])
		if d := math.Abs(gotG - wantG); d > 2e-6 {
			t.Fatalf("gelu'(%g) + 0.25 = %.9g, want %.9g", x, gotG, wantG)
		}
	}
}

// The old kernels (float64 tanh and exp per element), kept as the baseline of
// the benchmarks below.
func geluOld(o, x []float32) {
	for i, v := range x {
		u := geluK * (v + 0.044715*v*v*v)
		o[i] = 0.5 * v * (1 + tanh32(u))
	}
}

func BenchmarkGeluForward(b *testing.B) {
	n := 1 << 16
	x, o := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = float32(i%2000-1000) / 300
	}
	j := geluJob{out: o, inp: x}
	b.Run("old-float64-tanh", func(b *testing.B) {
		for range b.N {
			geluOld(o, x)
		}
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds()/1e6, "Melem/s")
	})
	b.Run("sigmoid-expf", func(b *testing.B) {
		for range b.N {
			j.Do(0, n, 0)
		}
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds()/1e6, "Melem/s")
	})
}

func TestBLASCoreReported(t *testing.T) {
	core := BLASCore()
	if core == "" {
		t.Fatal("empty BLAS core name")
	}
	t.Logf("OpenBLAS core %s", core)
}
