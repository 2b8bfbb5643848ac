package cpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bothPaths runs f with the portable kernels and with each vector level the
// CPU has (AVX2; AVX-512).
func bothPaths(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	defer SetCompactSIMD(2)
	names := []string{"portable", "avx2", "avx512"}
	for l := 0; l <= 2; l++ {
		if SetCompactSIMD(l) != l {
			t.Logf("no %s here: not tested", names[l])
			break
		}
		t.Run(names[l], f)
	}
}

// TestF16Rounding: hand-worked half-precision encodings (1 sign, 5 exponent
// bits of bias 15, 10 mantissa bits), including the ties (to even), the
// largest finite value, overflow and the subnormals.
func TestF16Rounding(t *testing.T) {
	cases := []struct {
		f    float32
		want uint16
	}{
		{0, 0x0000},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3C00},
		{-2, 0xC000},
		{0.5, 0x3800},
		{0.1, 0x2E66},                      // 0.0999755859375 (0.1 is 0x2E66.66… in half units)
		{1 + 1.0/2048, 0x3C00},             // tie between 1 and 1+2^-10: to the even mantissa
		{1 + 3.0/2048, 0x3C02},             // tie between 1+2^-10 and 1+2^-9: to the even one
		{1 + 1.0/2048 + 1.0/65536, 0x3C01}, // just above the tie
		{65504, 0x7BFF},                    // largest finite half
		{65519.99, 0x7BFF},                 // below the halfway point to 65536
		{65520, 0x7C00},                    // the tie rounds up to the odd-free Inf
		{1e10, 0x7C00},                     // overflow
		{float32(math.Inf(-1)), 0xFC00},    // −Inf
		{0x1p-14, 0x0400},                  // smallest normal
		{0x1p-24, 0x0001},                  // smallest subnormal
		{0x1p-25, 0x0000},                  // tie between 0 and 2^-24: to even (0)
		{0x1.8p-25, 0x0001},                // above it
		{0x1p-26, 0x0000},                  // underflow
		{3 * 0x1p-24, 0x0003},              // a subnormal, exactly
		{0x1.ffcp-15, 0x0400},              // 2^-14 − 2^-25 rounds up to the smallest normal
	}
	bothPaths(t, func(t *testing.T) {
		for _, c := range cases {
			// eight copies so the vector loop, not only its tail, sees each value
			src := make([]float32, 9)
			for i := range src {
				src[i] = c.f
			}
			dst := make([]uint16, 9)
			F32ToF16(dst, src)
			for i, h := range dst {
				if h != c.want {
					t.Fatalf("F32ToF16(%g) [%d] = %#04x, want %#04x", c.f, i, h, c.want)
				}
			}
		}
		nan := make([]uint16, 8)
		F32ToF16(nan, []float32{float32(math.NaN()), 0, 0, 0, 0, 0, 0, 0})
		if nan[0]&0x7C00 != 0x7C00 || nan[0]&0x3FF == 0 {
			t.Fatalf("NaN became %#04x", nan[0])
		}
	})
}

// TestF16RoundTrip: every finite half widens to a float32 that narrows back
// to itself, and widening agrees with the formula (−1)^s·2^(e−15)·(1+m/1024)
// (subnormals 2^-14·m/1024).
func TestF16RoundTrip(t *testing.T) {
	bothPaths(t, func(t *testing.T) {
		src := make([]uint16, 0, 1<<16)
		for h := 0; h < 1<<16; h++ {
			if h&0x7C00 == 0x7C00 {
				continue // Inf, NaN
			}
			src = append(src, uint16(h))
		}
		f := make([]float32, len(src))
		F16ToF32(f, src)
		back := make([]uint16, len(src))
		F32ToF16(back, f)
		for i, h := range src {
			e, m := int(h>>10&31), float64(h&1023)
			want := math.Ldexp(m/1024, -14)
			if e > 0 {
				want = math.Ldexp(1+m/1024, e-15)
			}
			if h>>15 != 0 {
				want = -want
			}
			if float64(f[i]) != want {
				t.Fatalf("F16ToF32(%#04x) = %g, want %g", h, f[i], want)
			}
			if back[i] != h {
				t.Fatalf("%#04x → %g → %#04x", h, f[i], back[i])
			}
		}
	})
}

// TestQuantizeQ8ByHand: one row [1, −0.5, 0.25] has scale 1/127 and codes
// 127, −63.5 → −64 (ties to even), 31.75 → 32; an all-zero row has scale 0.
// In the (C,OC) layout the rows are the columns of w.
func TestQuantizeQ8ByHand(t *testing.T) {
	w := []float32{ // (C=3, OC=2): output 0 is [1, −0.5, 0.25], output 1 is zeros
		1, 0,
		-0.5, 0,
		0.25, 0,
	}
	q := QuantizeQ8(w, 3, 2, false)
	if q.Rows != 2 || q.Cols != 3 {
		t.Fatalf("shape %d×%d", q.Rows, q.Cols)
	}
	if want := float32(1.0 / 127); q.Scale[0] != want || q.Scale[1] != 0 {
		t.Fatalf("scales %v, want [%g 0]", q.Scale, want)
	}
	if got := q.W; got[0] != 127 || got[1] != -64 || got[2] != 32 || got[3] != 0 || got[4] != 0 || got[5] != 0 {
		t.Fatalf("codes %v", got)
	}
	qt := QuantizeQ8([]float32{1, -0.5, 0.25, 0, 0, 0}, 3, 2, true) // (OC,C): the same matrix transposed
	for i := range q.W {
		if qt.W[i] != q.W[i] {
			t.Fatalf("transposed layout codes %v, want %v", qt.W, q.W)
		}
	}
	bothPaths(t, func(t *testing.T) {
		y := make([]float32, 2)
		q.MatVec(y, []float32{2, 4, 8}, []float32{0.5, -1})
		// (127·2 − 64·4 + 32·8)/127 + 0.5 = 254/127 + 0.5 = 2.5
		if math.Abs(float64(y[0])-2.5) > 1e-6 || y[1] != -1 {
			t.Fatalf("MatVec = %v, want [2.5 -1]", y)
		}
	})
}

// TestQ8MatVec: against float64 products of the dequantized weights (x
// rounded to int16 inside, within its bound), for
// shapes with and without a vector tail and a row count not a multiple of
// four; and the quantization error of every entry within half a step.
func TestQ8MatVec(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sh := range [][2]int{{256, 768}, {1024, 256}, {37, 13}, {16, 5}} {
		C, OC := sh[0], sh[1]
		w := make([]float32, C*OC)
		for i := range w {
			w[i] = float32(rng.NormFloat64() * 0.05)
		}
		q := QuantizeQ8(w, C, OC, false)
		for r := 0; r < OC; r++ {
			for c := 0; c < C; c++ {
				if d := math.Abs(float64(w[c*OC+r]) - float64(q.Scale[r])*float64(q.W[r*C+c])); d > float64(q.Scale[r])/2*(1+1e-6) {
					t.Fatalf("%d×%d: entry (%d,%d) off by %g, step %g", C, OC, r, c, d, q.Scale[r])
				}
			}
		}
		x, bias := make([]float32, C), make([]float32, OC)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		for i := range bias {
			bias[i] = float32(rng.NormFloat64())
		}
		bothPaths(t, func(t *testing.T) {
			y := make([]float32, OC)
			q.MatVec(y, x, bias)
			xmax := 0.0
			for _, v := range x {
				xmax = max(xmax, math.Abs(float64(v)))
			}
			for r := range y {
				// x is rounded to steps of xmax/16383 inside: each product
				// may move by |w|·(half a step)
				want, mag, wsum := float64(bias[r]), math.Abs(float64(bias[r])), 0.0
				for c := 0; c < C; c++ {
					wv := float64(q.Scale[r]) * float64(q.W[r*C+c])
					want += wv * float64(x[c])
					mag += math.Abs(wv * float64(x[c]))
					wsum += math.Abs(wv)
				}
				if d := math.Abs(float64(y[r]) - want); d > wsum*xmax/16383/2+1e-6*mag+1e-6 {
					t.Fatalf("%d×%d: y[%d] = %g, want %g", C, OC, r, y[r], want)
				}
			}
		})
	}
}

// TestAttendStepF16: one layer's step against a float64 softmax attention
// over the same half-precision keys and values, for cache lengths 1 (the
// output is the one value row), a few, and a full window; head sizes 64, 12
// (not a multiple of 8: the portable loop) and 128; and the new row written
// to the cache as the rounding of qkv's key and value.
func TestAttendStepF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const NH, W = 3, 1024
	for _, hs := range []int{64, 12, 128} {
		for _, n := range []int{1, 5, 37, W} {
			C := NH * hs
			kc, vc := make([]uint16, NH*W*hs), make([]uint16, NH*W*hs)
			rnd := make([]float32, NH*W*hs)
			for i := range rnd {
				rnd[i] = float32(rng.NormFloat64())
			}
			F32ToF16(kc, rnd)
			for i := range rnd {
				rnd[i] = float32(rng.NormFloat64())
			}
			F32ToF16(vc, rnd)
			qkv := make([]float32, 3*C)
			for i := range qkv {
				qkv[i] = float32(rng.NormFloat64())
			}
			pos := n - 1
			// the reference sees the row the step writes: qkv's key and value, rounded
			kf, vf := make([]float32, NH*W*hs), make([]float32, NH*W*hs)
			F16ToF32(kf, kc)
			F16ToF32(vf, vc)
			row := make([]uint16, hs)
			back := make([]float32, hs)
			for h := 0; h < NH; h++ {
				F32ToF16(row, qkv[C+h*hs:C+(h+1)*hs])
				F16ToF32(back, row)
				copy(kf[(h*W+pos)*hs:], back)
				F32ToF16(row, qkv[2*C+h*hs:2*C+(h+1)*hs])
				F16ToF32(back, row)
				copy(vf[(h*W+pos)*hs:], back)
			}
			want := make([]float64, C)
			for h := 0; h < NH; h++ {
				s := make([]float64, n)
				mx := math.Inf(-1)
				for i := range s {
					for c := 0; c < hs; c++ {
						s[i] += float64(kf[(h*W+i)*hs+c]) * float64(qkv[h*hs+c])
					}
					s[i] /= math.Sqrt(float64(hs))
					mx = max(mx, s[i])
				}
				sum := 0.0
				for i := range s {
					s[i] = math.Exp(s[i] - mx)
					sum += s[i]
				}
				for i := range s {
					for c := 0; c < hs; c++ {
						want[h*hs+c] += s[i] / sum * float64(vf[(h*W+i)*hs+c])
					}
				}
			}
			bothPaths(t, func(t *testing.T) {
				k2, v2 := append([]uint16(nil), kc...), append([]uint16(nil), vc...)
				out := make([]float32, C)
				AttendStepF16(out, qkv, k2, v2, pos, W, NH, make([]float32, n))
				for c := range out {
					if d := math.Abs(float64(out[c]) - want[c]); d > 2e-5 {
						t.Fatalf("hs %d, n %d: out[%d] = %g, want %g", hs, n, c, out[c], want[c])
					}
				}
				for h := 0; h < NH; h++ {
					F32ToF16(row, qkv[C+h*hs:C+(h+1)*hs])
					for c := 0; c < hs; c++ {
						if k2[(h*W+pos)*hs+c] != row[c] {
							t.Fatalf("hs %d, n %d: key row of head %d not written", hs, n, h)
						}
					}
				}
				if n == 1 {
					for c := range out {
						if v := vf[(c/hs*W)*hs+c%hs]; math.Abs(float64(out[c]-v)) > 1e-6*math.Abs(float64(v)) {
							t.Fatalf("one cached row: out[%d] = %g, want the value %g", c, out[c], v)
						}
					}
				}
			})
		}
	}
}

// TestQ8PathsAgree: the portable and vector products compute the same
// integers at every level, so they give the same floats, bit for bit.
func TestQ8PathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	C, OC := 1024, 259
	w := make([]float32, C*OC)
	for i := range w {
		w[i] = float32(rng.NormFloat64())
	}
	q := QuantizeQ8(w, C, OC, false)
	x := make([]float32, C)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 3)
	}
	defer SetCompactSIMD(2)
	SetCompactSIMD(0)
	a := make([]float32, OC)
	q.MatVec(a, x, nil)
	levels := 0
	for l := 1; l <= 2; l++ {
		if SetCompactSIMD(l) != l {
			break
		}
		levels++
		b := make([]float32, OC)
		q.MatVec(b, x, nil)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("level %d, row %d: portable %g, vector %g", l, i, a[i], b[i])
			}
		}
	}
	if levels == 0 {
		t.Skip("no vector kernels here")
	}
}

// TestGeluFast: the C GELU against the Go kernel (GeluRow, itself held to
// the tanh formula by TestGelu) within a few float32 ulps of relative error
// plus what a last-bit difference in the exponent's argument u (|u| up to
// 30 here) makes of e^u, on a sweep that crosses 0 and reaches both
// saturated ends.
func TestGeluFast(t *testing.T) {
	x := make([]float32, 2003)
	for i := range x {
		x[i] = float32(i-1001) / 100
	}
	want := make([]float32, len(x))
	GeluRow(want, x)
	bothPaths(t, func(t *testing.T) {
		got := make([]float32, len(x))
		GeluFast(got, x)
		for i := range x {
			v := float64(x[i])
			u := 2 * 0.7978845608028654 * math.Abs(v+0.044715*v*v*v)
			if d := math.Abs(float64(got[i] - want[i])); d > 1.2e-7*(4+u)*math.Abs(float64(want[i]))+1e-12 {
				t.Fatalf("gelu(%g) = %g, Go kernel %g", x[i], got[i], want[i])
			}
		}
	})
}
