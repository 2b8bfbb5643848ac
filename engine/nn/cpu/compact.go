package cpu

// #include "compact.h"
import "C"

import (
	"fmt"
	"math"
	"unsafe"
)

// The compact decoding step (engine/gpt's compact sampler) reads a quarter
// of the bytes of the float32 one: weights as int8 with one float32 scale per
// output row (symmetric, scale = max|w|/127), keys and values of the cache as
// IEEE half precision. One decoding step of a small model is bound by memory
// traffic, not arithmetic (docs/BENCHMARKS.md), so fewer bytes is what makes
// it faster. The kernels are in compact.c: portable C, and AVX2 + FMA + F16C
// versions chosen at run time when the CPU has them. Products accumulate in
// float32.

// Q8 is a weight matrix in int8, one row per output feature, each row
// contiguous over the inputs: y[r] = Scale[r]·Σ_c W[r·Cols+c]·x[c].
type Q8 struct {
	Rows, Cols int
	W          []int8
	Scale      []float32
}

// QuantizeQ8 quantizes w of the Backend's matmul layout: (C,OC) row-major,
// or (OC,C) when wT (the tied output embedding). Each output row is scaled
// by its largest magnitude, so the rounding error of an entry is at most
// Scale/2 = max|row|/254.
func QuantizeQ8(w []float32, C, OC int, wT bool) Q8 {
	q := Q8{Rows: OC, Cols: C, W: make([]int8, OC*C), Scale: make([]float32, OC)}
	at := func(r, c int) float32 {
		if wT {
			return w[r*C+c]
		}
		return w[c*OC+r]
	}
	for r := 0; r < OC; r++ {
		m := float32(0)
		for c := 0; c < C; c++ {
			m = max(m, float32(math.Abs(float64(at(r, c)))))
		}
		if m == 0 {
			continue
		}
		s := m / 127
		q.Scale[r] = s
		row := q.W[r*C : r*C+C]
		for c := range row {
			v := math.RoundToEven(float64(at(r, c) / s))
			row[c] = int8(max(-127, min(127, v)))
		}
	}
	return q
}

// MatVec sets y (Rows) = W·x + bias (bias may be nil).
func (q *Q8) MatVec(y, x, bias []float32) {
	if len(x) < q.Cols || len(y) < q.Rows || (bias != nil && len(bias) < q.Rows) || len(q.W) < q.Rows*q.Cols {
		panic(fmt.Sprintf("cpu: Q8.MatVec sizes: x %d, y %d, bias %d for %d×%d", len(x), len(y), len(bias), q.Rows, q.Cols))
	}
	if q.Rows == 0 || q.Cols == 0 {
		return
	}
	var bp *C.float
	if bias != nil {
		bp = (*C.float)(unsafe.Pointer(&bias[0]))
	}
	C.amt_q8_gemv((*C.int8_t)(unsafe.Pointer(&q.W[0])), (*C.float)(unsafe.Pointer(&q.Scale[0])), (*C.float)(unsafe.Pointer(&x[0])), bp,
		(*C.float)(unsafe.Pointer(&y[0])), C.int(q.Rows), C.int(q.Cols))
}

// F32ToF16 rounds src to half precision (nearest, ties to even; beyond
// 65504 gives ±Inf).
func F32ToF16(dst []uint16, src []float32) {
	if len(src) == 0 {
		return
	}
	_ = dst[len(src)-1]
	C.amt_f32_to_f16_fast((*C.uint16_t)(unsafe.Pointer(&dst[0])), (*C.float)(unsafe.Pointer(&src[0])), C.int(len(src)))
}

// F16ToF32 widens half-precision values (exactly).
func F16ToF32(dst []float32, src []uint16) {
	if len(src) == 0 {
		return
	}
	_ = dst[len(src)-1]
	C.amt_f16_to_f32((*C.float)(unsafe.Pointer(&dst[0])), (*C.uint16_t)(unsafe.Pointer(&src[0])), C.int(len(src)))
}

// AttendStepF16 is the attention of one decoding step in one layer: for
// each of the NH heads it writes the key and value of qkv (3C: queries,
// keys, values, C = NH·hs) into row pos of the head's cache, then sets
// out[h·hs:(h+1)·hs] = Σ_i p_i·v_i with p = softmax(K·q/√hs) over rows
// 0..pos. kc and vc hold W rows of hs halves per head, head after head.
// scores (≥ pos+1) is scratch.
func AttendStepF16(out, qkv []float32, kc, vc []uint16, pos, W, NH int, scores []float32) {
	ch := len(out)
	if NH <= 0 || ch%NH != 0 || ch == 0 {
		panic(fmt.Sprintf("cpu: AttendStepF16 with %d channels in %d heads", ch, NH))
	}
	hs := ch / NH
	if pos < 0 || pos >= W || len(qkv) < 3*ch || len(kc) < NH*W*hs || len(vc) < NH*W*hs || len(scores) < pos+1 {
		panic(fmt.Sprintf("cpu: AttendStepF16 sizes: qkv %d, caches %d/%d, scores %d for pos %d of %d, C %d", len(qkv), len(kc), len(vc), len(scores), pos, W, ch))
	}
	alpha := float32(1 / math.Sqrt(float64(hs)))
	C.amt_attend_step((*C.float)(unsafe.Pointer(&qkv[0])), (*C.uint16_t)(unsafe.Pointer(&kc[0])), (*C.uint16_t)(unsafe.Pointer(&vc[0])),
		C.int(pos), C.int(W), C.int(NH), C.int(hs), C.float(alpha), (*C.float)(unsafe.Pointer(&scores[0])), (*C.float)(unsafe.Pointer(&out[0])))
}

// LayerNormRow is the LayerNormForward of one row of len(x) channels.
func LayerNormRow(out, x, w, b []float32, eps float32) {
	var mean, rstd [1]float32
	j := lnJob{out: out, mean: mean[:], rstd: rstd[:], inp: x, w: w, bias: b, C: len(x), eps: eps}
	j.Do(0, 1, 0)
}

// GeluRow is GeluForward over len(x) elements.
func GeluRow(out, x []float32) {
	j := geluJob{out: out[:len(x)], inp: x}
	j.Do(0, len(x), 0)
}

// GeluFast is GeluRow in compact.c: the same formula and exponential,
// eight lanes at a time where the CPU has AVX2 (the compact step's MLP).
func GeluFast(out, x []float32) {
	if len(x) == 0 {
		return
	}
	_ = out[len(x)-1]
	C.amt_gelu((*C.float)(unsafe.Pointer(&out[0])), (*C.float)(unsafe.Pointer(&x[0])), C.int(len(x)))
}

// CompactSIMD is the kernel level in use: 0 portable C, 1 AVX2 + FMA +
// F16C, 2 those and AVX-512 F + BW for the int8 products.
func CompactSIMD() int { return int(C.amt_compact_simd(-1)) }

// SetCompactSIMD caps the kernel level (0, 1 or 2; never above what the CPU
// has), for the tests that hold each level to the others, and returns the
// level in use now. Not for concurrent use.
func SetCompactSIMD(level int) int { return int(C.amt_compact_simd(C.int(max(level, 0)))) }
