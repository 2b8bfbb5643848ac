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
// rows 0..pos; att (NH,T) is scratch. One block (256 threads) per head; as
// attn_step (attention.cu), with the position read from the device.
extern "C" __global__ void dec_attend(float* out, float* att, const float* qkv, const int* step, int T, int C,
                                      int NH, float scale) {
    __shared__ float sh[32];
    __shared__ float qs[128];
    __shared__ float part[8][128];
    int pos = step[1];
    int h = blockIdx.x, hs = C / NH, C3 = 3 * C;
    const float* q = qkv + (long)pos * C3 + h * hs;
    const float* K = qkv + C + h * hs;
    const float* Vv = qkv + 2 * C + h * hs;
    float* sc = att + (long)h * T;
    for (int d = threadIdx.x; d < hs; d += blockDim.x) qs[d] = q[d] * scale;
    __syncthreads();
    float mx = AMT_NEG_INF;
    for (int j = threadIdx.x; j <= pos; j += blockDim.x) {
        const float* k = K + (long)j * C3;
        float s = 0.0f;
        for (int d = 0; d < hs; d++) s += qs[d] * k[d];
        sc[j] = s;
        mx = fmaxf(mx, s);
    }
    mx = block_max(mx, sh);
    float sum = 0.0f;
    for (int j = threadIdx.x; j <= pos; j += blockDim.x) {
        float e = expf(sc[j] - mx);
        sc[j] = e;
        sum += e;
    }
    sum = block_sum(sum, sh);  // its barriers also publish sc[] to the block
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int j = wid; j <= pos; j += nw) {
        float p = sc[j];
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
        if (d < hs) part[wid][d] = acc[r];
    }
    __syncthreads();
    float inv = 1.0f / sum;
    for (int d = threadIdx.x; d < hs; d += blockDim.x) {
        float s = 0.0f;
        for (int w = 0; w < nw; w++) s += part[w][d];
        out[h * hs + d] = s * inv;
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
