// One decoding step of a GPT-2 block stack for one sequence (nn.Decoder):
// a handful of kernels per layer instead of a dozen, all reading the token
// and position from device memory (step[0] = token, step[1] = position), so
// the whole step is the same launch sequence every time and the backend
// replays it as one CUDA graph. Every product is fp32 (weights and
// accumulation), as the float32 sampler on the CPU.
//
// Per layer: dec_matvec (layer norm + QKV product + bias, into the cache
// row), dec_attend (one block per head over the cache), dec_matvec
// (projection + bias + residual, into x), dec_matvec (layer norm + MLP
// product + bias + GELU), dec_matvec (projection + bias + residual). Then
// dec_logits (final layer norm + tied output embedding). x (C) is the
// residual stream.
//
// dec_matvec splits the product y = f(in)·W over a grid of column groups
// (32 columns, one per lane) × row slices; each block writes its partial
// sums, and the last block of a column group to finish (a ticket counter,
// after a memory fence) adds them in slice order, so the result does not
// depend on scheduling. It resets the counter for the next launch.
#include "common.cuh"

#define DEC_THREADS 256
#define DEC_MAXK 4096  // longest input vector (4·n_embd)
#define GELU_KD 0.7978845608028654f

// x (C) = wte[tok] + wpe[pos]. One block.
extern "C" __global__ void dec_embed(float* x, const float* wte, const float* wpe, const int* step, int C) {
    int tok = step[0], pos = step[1];
    for (int i = threadIdx.x; i < C; i += blockDim.x) x[i] = wte[(long)tok * C + i] + wpe[(long)pos * C + i];
}

// block_layernorm normalises xs (K floats in shared memory) in place with
// gains w and biases b; sh holds 32 floats.
__device__ __forceinline__ void block_layernorm(float* xs, const float* w, const float* b, int K, float eps,
                                                float* sh) {
    float s = 0.0f;
    for (int i = threadIdx.x; i < K; i += blockDim.x) s += xs[i];
    float m = block_sum(s, sh) / K;
    float v = 0.0f;
    for (int i = threadIdx.x; i < K; i += blockDim.x) {
        float d = xs[i] - m;
        v += d * d;
    }
    v = block_sum(v, sh) / K;
    float r = rsqrtf(v + eps);
    __syncthreads();  // every thread has read xs for the sums
    for (int i = threadIdx.x; i < K; i += blockDim.x) xs[i] = (xs[i] - m) * r * w[i] + b[i];
    __syncthreads();
}

// y[j] = act(Σ_i f(in)[i]·W[i·OC + j] + bias[j]) + res[j] for j < OC, where
// f is the layer norm (lnw, lnb) when lnw is not null, act is GELU when gelu
// is 1, res and bias may be null, and y is ypos + step[1]·ystride (the
// cache row of the position) or y itself when ystride is 0. y may be res.
// Grid (ceil(OC/32), S) with S row slices of ceil(K/S) rows; part holds
// S·OC floats, counters ceil(OC/32) zeros.
extern "C" __global__ void dec_matvec(float* y, long ystride, const float* in, const float* lnw, const float* lnb,
                                      const float* W, const float* bias, const float* res, float* part,
                                      unsigned* counters, const int* step, int K, int OC, float eps, int gelu) {
    __shared__ float xs[DEC_MAXK];
    __shared__ float red[DEC_THREADS / 32][33];
    __shared__ float sh[32];
    __shared__ int last;
    for (int i = threadIdx.x; i < K; i += blockDim.x) xs[i] = in[i];
    __syncthreads();
    if (lnw) block_layernorm(xs, lnw, lnb, K, eps, sh);
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    int j = blockIdx.x * 32 + lane, S = gridDim.y, s = blockIdx.y;
    int rows = (K + S - 1) / S, r0 = s * rows, r1 = min(K, r0 + rows);
    float acc = 0.0f;
    if (j < OC)
        for (int i = r0 + w; i < r1; i += nw) acc += xs[i] * W[(long)i * OC + j];
    red[w][lane] = acc;
    __syncthreads();
    if (w == 0) {
        float t = 0.0f;
        for (int k = 0; k < nw; k++) t += red[k][lane];
        if (j < OC) part[(long)s * OC + j] = t;
        __threadfence();
    }
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&counters[blockIdx.x], 1u) == (unsigned)(S - 1);
    __syncthreads();
    if (!last || w != 0) return;
    if (lane == 0) counters[blockIdx.x] = 0;  // ready for the next launch
    if (j >= OC) return;
    const volatile float* p = part;
    float t = 0.0f;
    for (int k = 0; k < S; k++) t += p[(long)k * OC + j];
    if (bias) t += bias[j];
    if (gelu) {
        float u = GELU_KD * (t + 0.044715f * t * t * t);
        t = 0.5f * t * (1.0f + tanhf(u));
    }
    float* yp = ystride ? y + (long)step[1] * ystride : y;
    if (res) t += res[j];
    yp[j] = t;
}

// out (C) = attention of the query in row pos = step[1] of qkv (T,3C) over
// rows 0..pos. Grid (NH, ceil(T/DEC_KEYS)), block 256: block (h, s) takes
// keys s·DEC_KEYS .. of head h (none past pos), writes its maximum score,
// sum of exponentials and unnormalised output to part (NH, S, hs+2); the
// last block of a head (ticket counter) combines the S slices in order.
// Warps take keys, lanes the head's dimensions, so every read of a cache
// row is coalesced. hs ≤ 128.
#define DEC_KEYS 128
extern "C" __global__ void dec_attend(float* out, float* part, unsigned* counters, const float* qkv, const int* step,
                                      int T, int C, int NH, float scale) {
    __shared__ float qs[128];
    __shared__ float ps[DEC_KEYS];
    __shared__ float acc8[DEC_THREADS / 32][128];
    __shared__ float sh[32];
    __shared__ int last;
    int pos = step[1];
    int h = blockIdx.x, s = blockIdx.y, S = gridDim.y, hs = C / NH, C3 = 3 * C;
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    int j0 = s * DEC_KEYS, j1 = min(pos + 1, j0 + DEC_KEYS);
    const float* K = qkv + C + h * hs;
    const float* Vv = qkv + 2 * C + h * hs;
    for (int d = threadIdx.x; d < hs; d += blockDim.x) qs[d] = qkv[(long)pos * C3 + h * hs + d] * scale;
    __syncthreads();
    float m = AMT_NEG_INF;
    for (int j = j0 + w; j < j1; j += nw) {
        const float* k = K + (long)j * C3;
        float d = 0.0f;
        for (int e = lane; e < hs; e += 32) d += qs[e] * k[e];
        d = warp_sum(d);
        if (lane == 0) ps[j - j0] = d;
        m = fmaxf(m, d);
    }
    m = block_max(m, sh);  // its barriers publish ps
    float l = 0.0f;
    for (int j = j0 + threadIdx.x; j < j1; j += blockDim.x) {
        float e = expf(ps[j - j0] - m);
        ps[j - j0] = e;
        l += e;
    }
    l = block_sum(l, sh);
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int j = j0 + w; j < j1; j += nw) {
        float p = ps[j - j0];
        const float* v = Vv + (long)j * C3;
#pragma unroll
        for (int r = 0; r < 4; r++) {
            int d = lane + 32 * r;
            if (d < hs) acc[r] += p * v[d];
        }
    }
#pragma unroll
    for (int r = 0; r < 4; r++) {
        int d = lane + 32 * r;
        if (d < hs) acc8[w][d] = acc[r];
    }
    __syncthreads();
    float* my = part + ((long)h * S + s) * (hs + 2);
    for (int d = threadIdx.x; d < hs; d += blockDim.x) {
        float o = 0.0f;
        for (int k = 0; k < nw; k++) o += acc8[k][d];
        my[d] = o;
    }
    if (threadIdx.x == 0) my[hs] = m, my[hs + 1] = l;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&counters[h], 1u) == (unsigned)(S - 1);
    __syncthreads();
    if (!last) return;
    if (threadIdx.x == 0) counters[h] = 0;  // ready for the next launch
    const volatile float* sc = part + (long)h * S * (hs + 2);
    float M = AMT_NEG_INF;
    for (int k = 0; k < S; k++) M = fmaxf(M, sc[(long)k * (hs + 2) + hs]);
    float L = 0.0f;
    for (int k = 0; k < S; k++) {
        float mk = sc[(long)k * (hs + 2) + hs];
        if (mk != AMT_NEG_INF) L += sc[(long)k * (hs + 2) + hs + 1] * expf(mk - M);
    }
    for (int d = threadIdx.x; d < hs; d += blockDim.x) {
        float o = 0.0f;
        for (int k = 0; k < S; k++) {
            float mk = sc[(long)k * (hs + 2) + hs];
            if (mk != AMT_NEG_INF) o += sc[(long)k * (hs + 2) + d] * expf(mk - M);
        }
        out[h * hs + d] = o / L;
    }
}

// logits (V) = layernorm(x)·wteᵀ: one warp per vocabulary row; grid
// ceil(V/8), block 256.
extern "C" __global__ void dec_logits(float* logits, const float* x, const float* lnw, const float* lnb,
                                      const float* wte, int V, int C, float eps) {
    __shared__ float xs[DEC_MAXK];
    __shared__ float sh[32];
    for (int i = threadIdx.x; i < C; i += blockDim.x) xs[i] = x[i];
    __syncthreads();
    block_layernorm(xs, lnw, lnb, C, eps, sh);
    int lane = threadIdx.x & 31;
    int v = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (v >= V) return;
    const float* e = wte + (long)v * C;
    float s = 0.0f;
    for (int i = lane; i < C; i += 32) s += xs[i] * e[i];
    s = warp_sum(s);
    if (lane == 0) logits[v] = s;
}
