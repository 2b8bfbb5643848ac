package cpu

import "math"

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

func pow32(x float32, n int) float32 { return float32(math.Pow(float64(x), float64(n))) }

func exp32(x float32) float32 { return float32(math.Exp(float64(x))) }

// tanh32 is tanh through one exponential: 1 - 2/(e^{2x}+1). It saturates
// correctly to ±1 (e^{2x} overflows to +Inf or underflows to 0).
func tanh32(x float32) float32 {
	e := math.Exp(2 * float64(x))
	return float32(1 - 2/(e+1))
}
