// Kernels of the compact decoding step (compact.go): int8 weights with one
// scale per output row, keys and values in IEEE half precision. Each has a
// portable C version and an AVX2 + FMA + F16C one chosen at run time; the
// portable one is the reference the tests hold the other to.

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <immintrin.h>

#include "compact.h"

// level: 0 portable C, 1 AVX2 + FMA + F16C, 2 those and AVX-512 F + BW
// (the int8 products 32 columns a step). -1: not yet read from the CPU.
static int level = -1, supported = -1;

static int simd_level(void) {
	if (supported < 0) {
		__builtin_cpu_init();
		int l = 0;
		if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c")) {
			l = 1;
			if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) {
				l = 2;
			}
		}
		supported = l;
	}
	if (level < 0) {
		level = supported;
	}
	return level;
}

static int have_avx2(void) {
	return simd_level() >= 1;
}

int amt_compact_simd(int want) {
	int sup = (simd_level(), supported);
	if (want >= 0) {
		level = want < sup ? want : sup;
	}
	return simd_level();
}

// ---- half precision, portable ----

static float half_to_float(uint16_t h) {
	uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023, b;
	if (e == 31) {
		b = s | 0x7f800000u | (m << 13); // Inf, NaN
	} else if (e != 0) {
		b = s | ((e + 112) << 23) | (m << 13);
	} else if (m == 0) {
		b = s;
	} else { // subnormal: m·2^-24
		int k = 0;
		while (!(m & 1024)) {
			m <<= 1;
			k++;
		}
		b = s | ((uint32_t)(113 - k) << 23) | ((m & 1023) << 13);
	}
	float f;
	memcpy(&f, &b, 4);
	return f;
}

// float_to_half rounds to nearest, ties to even; overflow gives ±Inf, NaN stays NaN.
static uint16_t float_to_half(float f) {
	uint32_t b;
	memcpy(&b, &f, 4);
	uint32_t s = (b >> 16) & 0x8000u, a = b & 0x7fffffffu;
	if (a >= 0x7f800000u) { // Inf or NaN
		return (uint16_t)(s | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0));
	}
	if (a >= 0x477ff000u) { // rounds to ≥ 65520: Inf
		return (uint16_t)(s | 0x7c00u);
	}
	if (a < 0x38800000u) { // below 2^-14: subnormal half or zero
		if (a < 0x33000000u) { // below 2^-25: rounds to zero
			return (uint16_t)s;
		}
		uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
		int shift = 126 - (int)e; // 14..24: m·2^(e-150) in units of 2^-24
		uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rem > half || (rem == half && (q & 1))) {
			q++;
		}
		return (uint16_t)(s | q);
	}
	uint32_t q = ((a >> 13) - (112u << 10)), rem = a & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (q & 1))) {
		q++; // may carry into the exponent, as it should
	}
	return (uint16_t)(s | q);
}

void amt_f32_to_f16(uint16_t *dst, const float *src, int n) {
	for (int i = 0; i < n; i++) {
		dst[i] = float_to_half(src[i]);
	}
}

void amt_f16_to_f32(float *dst, const uint16_t *src, int n) {
	for (int i = 0; i < n; i++) {
		dst[i] = half_to_float(src[i]);
	}
}

// ---- portable kernels ----

// The products are integer: x is rounded to int16 with one scale per call
// (xs = max|x|/16383, so a pair of int8·int16 products and 16 columns of
// them per 32-bit lane stay far from overflow up to Q8_FLUSH columns), the
// row's sum is exact, and y = sum·(scale·xs) + bias. Every version computes
// the same integers, so they give the same floats. A 32-bit lane gathers at
// most Q8_FLUSH/8 pair sums of |127·16383·2| < 4.2M before it is added into
// the row's 64-bit sum, and the lanes of a register (16 at most) are summed
// in 32 bits: 16·(512/16)·4.2M < 2^31.
#define Q8_XMAX 16383.0f
#define Q8_FLUSH 512

// round_even rounds |v| ≤ 2^22 to the nearest integer, ties to even, in
// float arithmetic (what cvtps2dq does in the default rounding mode).
static inline float round_even(float v) {
	volatile float magic = 12582912.0f; // 1.5·2^23; volatile: no reassociation
	return (v + magic) - magic;
}

static float quantize_x_c(const float *x, int16_t *xq, int cols) {
	float m = 0;
	for (int c = 0; c < cols; c++) {
		float a = x[c] < 0 ? -x[c] : x[c];
		m = a > m ? a : m;
	}
	if (!(m > 0) || m > 3e38f) { // zero, NaN or Inf: let the float path say so
		return 0;
	}
	float xs = m / Q8_XMAX, inv = Q8_XMAX / m;
	for (int c = 0; c < cols; c++) {
		float v = round_even(x[c] * inv);
		v = v > Q8_XMAX ? Q8_XMAX : (v < -Q8_XMAX ? -Q8_XMAX : v);
		xq[c] = (int16_t)v;
	}
	return xs;
}

// The same numbers 8 at a time (max|x| over NaN-free input is the same in
// any order; cvtps2dq rounds as round_even does).
__attribute__((target("avx2"))) static float quantize_x_avx2(const float *x, int16_t *xq, int cols) {
	if (cols & 7) {
		return quantize_x_c(x, xq, cols);
	}
	const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
	__m256 mv = _mm256_setzero_ps();
	for (int c = 0; c < cols; c += 8) {
		__m256 v = _mm256_and_ps(_mm256_loadu_ps(x + c), absmask);
		if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q))) {
			return 0; // NaN: the float path
		}
		mv = _mm256_max_ps(mv, v);
	}
	float t[8], m = 0;
	_mm256_storeu_ps(t, mv);
	for (int j = 0; j < 8; j++) {
		m = t[j] > m ? t[j] : m;
	}
	if (!(m > 0) || m > 3e38f) {
		return 0;
	}
	float xs = m / Q8_XMAX, inv = Q8_XMAX / m;
	const __m256 vi = _mm256_set1_ps(inv), hi = _mm256_set1_ps(Q8_XMAX), lo = _mm256_set1_ps(-Q8_XMAX);
	for (int c = 0; c < cols; c += 8) {
		__m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(_mm256_loadu_ps(x + c), vi), lo), hi);
		__m256i q = _mm256_cvtps_epi32(v);
		__m128i p = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
		_mm_storeu_si128((__m128i *)(xq + c), p);
	}
	return xs;
}

static void q8_gemv_float(const int8_t *w, const float *scale, const float *x, const float *bias, float *y, int rows, int cols) {
	for (int r = 0; r < rows; r++) {
		const int8_t *wr = w + (size_t)r * cols;
		float s = 0;
		for (int c = 0; c < cols; c++) {
			s += (float)wr[c] * x[c];
		}
		y[r] = s * scale[r] + (bias ? bias[r] : 0.0f);
	}
}

static void q8_gemv_int_c(const int8_t *w, const float *scale, const int16_t *xq, float xs, const float *bias, float *y, int rows, int cols) {
	for (int r = 0; r < rows; r++) {
		const int8_t *wr = w + (size_t)r * cols;
		int64_t s = 0;
		for (int c = 0; c < cols; c++) {
			s += (int32_t)wr[c] * xq[c];
		}
		y[r] = (float)s * (scale[r] * xs) + (bias ? bias[r] : 0.0f);
	}
}

static void f16_scores_c(const uint16_t *k, const float *q, float *s, int n, int hs, float alpha) {
	for (int i = 0; i < n; i++) {
		const uint16_t *ki = k + (size_t)i * hs;
		float d = 0;
		for (int c = 0; c < hs; c++) {
			d += half_to_float(ki[c]) * q[c];
		}
		s[i] = d * alpha;
	}
}

static void f16_wsum_c(const uint16_t *v, const float *p, float *out, int n, int hs) {
	for (int c = 0; c < hs; c++) {
		out[c] = 0;
	}
	for (int i = 0; i < n; i++) {
		const uint16_t *vi = v + (size_t)i * hs;
		for (int c = 0; c < hs; c++) {
			out[c] += p[i] * half_to_float(vi[c]);
		}
	}
}

// ---- AVX2 + FMA + F16C ----

__attribute__((target("avx2,fma"))) static inline float hsum256(__m256 v) {
	__m128 a = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
	a = _mm_add_ps(a, _mm_movehl_ps(a, a));
	a = _mm_add_ss(a, _mm_movehdup_ps(a));
	return _mm_cvtss_f32(a);
}

// Four rows at a time share each load of x; 16 columns a step: the int8
// weights widened to int16 and multiplied pairwise into int32 (vpmaddwd),
// 16 products in one instruction where the float path does 8.
__attribute__((target("avx2"))) static void q8_gemv_int_avx2(const int8_t *w, const float *scale, const int16_t *xq, float xs,
	const float *bias, float *y, int rows, int cols) {
	int c16 = cols & ~15;
	int r = 0;
	for (; r + 4 <= rows; r += 4) {
		const int8_t *w0 = w + (size_t)r * cols, *w1 = w0 + cols, *w2 = w1 + cols, *w3 = w2 + cols;
		int64_t s[4] = {0, 0, 0, 0};
		for (int f = 0; f < c16; f += Q8_FLUSH) {
			int fe = f + Q8_FLUSH < c16 ? f + Q8_FLUSH : c16;
			__m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
			for (int c = f; c < fe; c += 16) {
				__m256i xv = _mm256_loadu_si256((const __m256i *)(xq + c));
				a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w0 + c))), xv));
				a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w1 + c))), xv));
				a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w2 + c))), xv));
				a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w3 + c))), xv));
			}
			// four rows' lanes summed together: [a0 a1 a2 a3] in 32 bits
			__m256i h = _mm256_hadd_epi32(_mm256_hadd_epi32(a0, a1), _mm256_hadd_epi32(a2, a3));
			__m128i q = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
			s[0] += _mm_extract_epi32(q, 0);
			s[1] += _mm_extract_epi32(q, 1);
			s[2] += _mm_extract_epi32(q, 2);
			s[3] += _mm_extract_epi32(q, 3);
		}
		const int8_t *wr[4] = {w0, w1, w2, w3};
		for (int j = 0; j < 4; j++) {
			for (int c = c16; c < cols; c++) {
				s[j] += (int32_t)wr[j][c] * xq[c];
			}
			y[r + j] = (float)s[j] * (scale[r + j] * xs) + (bias ? bias[r + j] : 0.0f);
		}
	}
	if (r < rows) {
		q8_gemv_int_c(w + (size_t)r * cols, scale + r, xq, xs, bias ? bias + r : 0, y + r, rows - r, cols);
	}
}

// dot_f16 is one row's product with q over hs (a multiple of 8), in 8 lanes.
// The AVX-512 twin: 32 columns a step.

__attribute__((target("avx512f,avx512bw"))) static void q8_gemv_int_avx512(const int8_t *w, const float *scale, const int16_t *xq, float xs,
	const float *bias, float *y, int rows, int cols) {
	int c32 = cols & ~31;
	int r = 0;
	for (; r + 4 <= rows; r += 4) {
		const int8_t *w0 = w + (size_t)r * cols, *w1 = w0 + cols, *w2 = w1 + cols, *w3 = w2 + cols;
		int64_t s[4] = {0, 0, 0, 0};
		for (int f = 0; f < c32; f += Q8_FLUSH) {
			int fe = f + Q8_FLUSH < c32 ? f + Q8_FLUSH : c32;
			__m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
			for (int c = f; c < fe; c += 32) {
				__m512i xv = _mm512_loadu_si512((const void *)(xq + c));
				a0 = _mm512_add_epi32(a0, _mm512_madd_epi16(_mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(w0 + c))), xv));
				a1 = _mm512_add_epi32(a1, _mm512_madd_epi16(_mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(w1 + c))), xv));
				a2 = _mm512_add_epi32(a2, _mm512_madd_epi16(_mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(w2 + c))), xv));
				a3 = _mm512_add_epi32(a3, _mm512_madd_epi16(_mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(w3 + c))), xv));
			}
			s[0] += _mm512_reduce_add_epi32(a0);
			s[1] += _mm512_reduce_add_epi32(a1);
			s[2] += _mm512_reduce_add_epi32(a2);
			s[3] += _mm512_reduce_add_epi32(a3);
		}
		const int8_t *wr[4] = {w0, w1, w2, w3};
		for (int j = 0; j < 4; j++) {
			for (int c = c32; c < cols; c++) {
				s[j] += (int32_t)wr[j][c] * xq[c];
			}
			y[r + j] = (float)s[j] * (scale[r + j] * xs) + (bias ? bias[r + j] : 0.0f);
		}
	}
	if (r < rows) {
		q8_gemv_int_c(w + (size_t)r * cols, scale + r, xq, xs, bias ? bias + r : 0, y + r, rows - r, cols);
	}
}

__attribute__((target("avx2,fma,f16c"))) static inline __m256 dot_f16(const uint16_t *k, const float *q, int hs) {
	__m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
	int c = 0;
	for (; c + 16 <= hs; c += 16) {
		a0 = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(k + c))), _mm256_loadu_ps(q + c), a0);
		a1 = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(k + c + 8))), _mm256_loadu_ps(q + c + 8), a1);
	}
	if (c < hs) {
		a0 = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(k + c))), _mm256_loadu_ps(q + c), a0);
	}
	return _mm256_add_ps(a0, a1);
}

// Eight rows at a time: their eight 8-lane sums reduced together by
// horizontal adds into one vector of eight scores.
__attribute__((target("avx2,fma,f16c"))) static void f16_scores_avx2(const uint16_t *k, const float *q, float *s, int n, int hs,
	float alpha) {
	if (hs & 7) {
		f16_scores_c(k, q, s, n, hs, alpha);
		return;
	}
	const __m256 va = _mm256_set1_ps(alpha);
	int i = 0;
	for (; i + 8 <= n; i += 8) {
		const uint16_t *ki = k + (size_t)i * hs;
		__m256 d0 = dot_f16(ki, q, hs), d1 = dot_f16(ki + hs, q, hs), d2 = dot_f16(ki + 2 * hs, q, hs), d3 = dot_f16(ki + 3 * hs, q, hs);
		__m256 d4 = dot_f16(ki + 4 * hs, q, hs), d5 = dot_f16(ki + 5 * hs, q, hs), d6 = dot_f16(ki + 6 * hs, q, hs), d7 = dot_f16(ki + 7 * hs, q, hs);
		// hadd pairs: lane groups stay in their 128-bit halves
		__m256 h01 = _mm256_hadd_ps(d0, d1), h23 = _mm256_hadd_ps(d2, d3), h45 = _mm256_hadd_ps(d4, d5), h67 = _mm256_hadd_ps(d6, d7);
		__m256 h0123 = _mm256_hadd_ps(h01, h23), h4567 = _mm256_hadd_ps(h45, h67);
		// low halves hold rows 0–3 / 4–7 from lanes 0–3, high halves from lanes 4–7
		__m256 lo = _mm256_permute2f128_ps(h0123, h4567, 0x20), hi = _mm256_permute2f128_ps(h0123, h4567, 0x31);
		_mm256_storeu_ps(s + i, _mm256_mul_ps(_mm256_add_ps(lo, hi), va));
	}
	for (; i < n; i++) {
		s[i] = hsum256(dot_f16(k + (size_t)i * hs, q, hs)) * alpha;
	}
}

// out (hs) = Σ_i p_i v_i, 64 columns (8 registers) at a time.
__attribute__((target("avx2,fma,f16c"))) static void f16_wsum_avx2(const uint16_t *v, const float *p, float *out, int n, int hs) {
	if (hs & 7) {
		f16_wsum_c(v, p, out, n, hs);
		return;
	}
	for (int c0 = 0; c0 < hs; c0 += 64) {
		int m = hs - c0 < 64 ? (hs - c0) / 8 : 8;
		__m256 acc[8];
		for (int j = 0; j < 8; j++) {
			acc[j] = _mm256_setzero_ps();
		}
		for (int i = 0; i < n; i++) {
			const uint16_t *vi = v + (size_t)i * hs + c0;
			__m256 pi = _mm256_set1_ps(p[i]);
			for (int j = 0; j < m; j++) {
				acc[j] = _mm256_fmadd_ps(pi, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(vi + 8 * j))), acc[j]);
			}
		}
		for (int j = 0; j < m; j++) {
			_mm256_storeu_ps(out + c0 + 8 * j, acc[j]);
		}
	}
}

__attribute__((target("avx2,fma,f16c"))) static void f32_to_f16_avx2(uint16_t *dst, const float *src, int n) {
	int i = 0;
	for (; i + 8 <= n; i += 8) {
		_mm_storeu_si128((__m128i *)(dst + i), _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
	}
	for (; i < n; i++) {
		dst[i] = float_to_half(src[i]);
	}
}

// ---- softmax ----

// exp_c is mathx.go's expf: Cody–Waite reduction, degree-7 polynomial
// (Estrin), 2^k into the exponent bits; inputs clamped to [-87, 88].
static inline float exp_c(float v) {
	v = v < -87.0f ? -87.0f : (v > 88.0f ? 88.0f : v);
	float k = round_even(v * 1.44269504088896340736f);
	float r = v - k * 0.693145751953125f;
	r -= k * 1.42860682030941723212e-6f;
	float r2 = r * r;
	float p = ((1 + r) + r2 * (0.5f + r * (1.0f / 6))) + (r2 * r2) * ((1.0f / 24 + r * (1.0f / 120)) + r2 * (1.0f / 720 + r * (1.0f / 5040)));
	uint32_t b = (uint32_t)((int32_t)k + 127) << 23;
	float e;
	memcpy(&e, &b, 4);
	return p * e;
}

// softmax_c sets s[i] = e^(s[i] - max s) and returns their sum.
static float softmax_c(float *s, int n) {
	float mx = s[0];
	for (int i = 1; i < n; i++) {
		mx = s[i] > mx ? s[i] : mx;
	}
	float sum = 0;
	for (int i = 0; i < n; i++) {
		s[i] = exp_c(s[i] - mx);
		sum += s[i];
	}
	return sum;
}

__attribute__((target("avx2,fma"))) static inline __m256 exp256(__m256 v) {
	v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
	__m256 k = _mm256_round_ps(_mm256_mul_ps(v, _mm256_set1_ps(1.44269504088896340736f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	__m256 r = _mm256_sub_ps(v, _mm256_mul_ps(k, _mm256_set1_ps(0.693145751953125f)));
	r = _mm256_sub_ps(r, _mm256_mul_ps(k, _mm256_set1_ps(1.42860682030941723212e-6f)));
	__m256 r2 = _mm256_mul_ps(r, r);
	__m256 p01 = _mm256_add_ps(_mm256_set1_ps(1), r);
	__m256 p23 = _mm256_add_ps(_mm256_set1_ps(0.5f), _mm256_mul_ps(r, _mm256_set1_ps(1.0f / 6)));
	__m256 p45 = _mm256_add_ps(_mm256_set1_ps(1.0f / 24), _mm256_mul_ps(r, _mm256_set1_ps(1.0f / 120)));
	__m256 p67 = _mm256_add_ps(_mm256_set1_ps(1.0f / 720), _mm256_mul_ps(r, _mm256_set1_ps(1.0f / 5040)));
	__m256 p = _mm256_add_ps(_mm256_add_ps(p01, _mm256_mul_ps(r2, p23)),
		_mm256_mul_ps(_mm256_mul_ps(r2, r2), _mm256_add_ps(p45, _mm256_mul_ps(r2, p67))));
	__m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23);
	return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

__attribute__((target("avx2,fma"))) static float softmax_avx2(float *s, int n) {
	float mx = s[0];
	int i = 0;
	if (n >= 8) {
		__m256 m = _mm256_loadu_ps(s);
		for (i = 8; i + 8 <= n; i += 8) {
			m = _mm256_max_ps(m, _mm256_loadu_ps(s + i));
		}
		float t[8];
		_mm256_storeu_ps(t, m);
		for (int j = 0; j < 8; j++) {
			mx = t[j] > mx ? t[j] : mx;
		}
	}
	for (; i < n; i++) {
		mx = s[i] > mx ? s[i] : mx;
	}
	__m256 vm = _mm256_set1_ps(mx), acc = _mm256_setzero_ps();
	for (i = 0; i + 8 <= n; i += 8) {
		__m256 e = exp256(_mm256_sub_ps(_mm256_loadu_ps(s + i), vm));
		_mm256_storeu_ps(s + i, e);
		acc = _mm256_add_ps(acc, e);
	}
	float sum = hsum256(acc);
	for (; i < n; i++) {
		s[i] = exp_c(s[i] - mx);
		sum += s[i];
	}
	return sum;
}

// ---- GELU (tanh form, as kernels.go: x·σ(2u), u = √(2/π)(x + 0.044715x³)) ----

#define GELU_K 0.7978845608028654f

void amt_gelu_c(float *out, const float *x, int n) {
	for (int i = 0; i < n; i++) {
		float v = x[i];
		out[i] = v / (1 + exp_c((-2 * GELU_K) * (v + 0.044715f * v * v * v)));
	}
}

__attribute__((target("avx2,fma"))) static void gelu_avx2(float *out, const float *x, int n) {
	int i = 0;
	const __m256 a = _mm256_set1_ps(-2 * GELU_K), b = _mm256_set1_ps(0.044715f), one = _mm256_set1_ps(1);
	for (; i + 8 <= n; i += 8) {
		__m256 v = _mm256_loadu_ps(x + i);
		__m256 u = _mm256_mul_ps(a, _mm256_add_ps(v, _mm256_mul_ps(b, _mm256_mul_ps(_mm256_mul_ps(v, v), v))));
		_mm256_storeu_ps(out + i, _mm256_div_ps(v, _mm256_add_ps(one, exp256(u))));
	}
	amt_gelu_c(out + i, x + i, n - i);
}

void amt_gelu(float *out, const float *x, int n) {
	if (have_avx2()) {
		gelu_avx2(out, x, n);
	} else {
		amt_gelu_c(out, x, n);
	}
}

// ---- one decoding step of one layer's attention ----

void amt_attend_step(const float *qkv, uint16_t *kc, uint16_t *vc, int pos, int W, int NH, int hs, float alpha, float *scores, float *out) {
	int C = NH * hs, n = pos + 1, simd = have_avx2();
	for (int h = 0; h < NH; h++) {
		uint16_t *kh = kc + (size_t)h * W * hs, *vh = vc + (size_t)h * W * hs;
		float *o = out + h * hs;
		amt_f32_to_f16_fast(kh + (size_t)pos * hs, qkv + C + h * hs, hs);
		amt_f32_to_f16_fast(vh + (size_t)pos * hs, qkv + 2 * C + h * hs, hs);
		float sum;
		if (simd) {
			f16_scores_avx2(kh, qkv + h * hs, scores, n, hs, alpha);
			sum = softmax_avx2(scores, n);
			f16_wsum_avx2(vh, scores, o, n, hs);
		} else {
			f16_scores_c(kh, qkv + h * hs, scores, n, hs, alpha);
			sum = softmax_c(scores, n);
			f16_wsum_c(vh, scores, o, n, hs);
		}
		float inv = 1 / sum;
		for (int c = 0; c < hs; c++) {
			o[c] *= inv;
		}
	}
}

// ---- entry points ----

void amt_q8_gemv(const int8_t *w, const float *scale, const float *x, const float *bias, float *y, int rows, int cols) {
	int16_t stack[4096];
	int16_t *xq = cols <= 4096 ? stack : (int16_t *)malloc((size_t)cols * sizeof(int16_t));
	float xs = !xq ? 0 : (have_avx2() ? quantize_x_avx2(x, xq, cols) : quantize_x_c(x, xq, cols));
	if (xs == 0) { // x all zero, not finite, or no memory: the float products
		q8_gemv_float(w, scale, x, bias, y, rows, cols);
	} else if (simd_level() >= 2) {
		q8_gemv_int_avx512(w, scale, xq, xs, bias, y, rows, cols);
	} else if (have_avx2()) {
		q8_gemv_int_avx2(w, scale, xq, xs, bias, y, rows, cols);
	} else {
		q8_gemv_int_c(w, scale, xq, xs, bias, y, rows, cols);
	}
	if (xq && xq != stack) {
		free(xq);
	}
}

void amt_f32_to_f16_fast(uint16_t *dst, const float *src, int n) {
	if (have_avx2()) {
		f32_to_f16_avx2(dst, src, n);
	} else {
		amt_f32_to_f16(dst, src, n);
	}
}
