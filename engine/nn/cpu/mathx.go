package cpu

import "math"

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

func pow32(x float32, n int) float32 { return float32(math.Pow(float64(x), float64(n))) }

// exp32 is e^x through float64 math.Exp (correctly rounded to float32). The
// kernels use expf; exp32 stays as the reference the tests hold expf to.
func exp32(x float32) float32 { return float32(math.Exp(float64(x))) }

// tanh32 is tanh through one float64 exponential: 1 - 2/(e^{2x}+1). It is the
// reference formula of the GELU kernels' tests.
func tanh32(x float32) float32 {
	e := math.Exp(2 * float64(x))
	return float32(1 - 2/(e+1))
}

// Constants of expf. ln2Hi has 16 significant bits, so k·ln2Hi is exact for
// the |k| ≤ 128 that occur (Cody–Waite range reduction).
const (
	log2e      = 1.44269504088896340736
	ln2Hi      = 0.693145751953125
	ln2Lo      = 1.42860682030941723212e-6
	roundMagic = 12582912 // 1.5·2²³: x + roundMagic - roundMagic rounds |x| < 2²² to an integer
	expfMax    = 88.0     // e^88 ≈ 1.65e38 < MaxFloat32
	expfMin    = -87.0    // e^-87 ≈ 1.6e-38, still a normal float32
)

// expf is e^x in float32 arithmetic with no call and no float64: x = k·ln2 + r,
// |r| ≤ ln2/2, e^r by its Taylor polynomial of degree 7 (truncation error
// < 6e-9 relative), 2^k put into the exponent bits. The relative error is a
// few float32 ulps (TestExpf). Inputs are clamped to [-87, 88]: e^x below
// e^-87 returns about 1.6e-38 instead of 0 (what a softmax or sigmoid needs),
// and no input overflows to +Inf. NaN stays NaN. It is too large to inline;
// hot loops call expfs on a slice instead.
func expf(x float32) float32 {
	v := [1]float32{x}
	expfs(v[:])
	return v[0]
}

// expfs sets x[i] = expf(x[i]) for every i.
func expfs(x []float32) {
	for i, v := range x {
		// comparisons rather than the min/max builtins, whose NaN and ±0
		// rules cost branches; a NaN fails both tests and stays NaN
		if v < expfMin {
			v = expfMin
		}
		if v > expfMax {
			v = expfMax
		}
		t := v*log2e + roundMagic
		k := t - roundMagic
		r := v - k*ln2Hi
		r -= k * ln2Lo
		// Estrin's scheme: shorter dependency chains than Horner's
		r2 := r * r
		p01 := 1 + r
		p23 := 0.5 + r*(1.0/6)
		p45 := 1.0/24 + r*(1.0/120)
		p67 := 1.0/720 + r*(1.0/5040)
		p := (p01 + r2*p23) + (r2*r2)*(p45+r2*p67)
		x[i] = p * math.Float32frombits(uint32(int32(k)+127)<<23)
	}
}
