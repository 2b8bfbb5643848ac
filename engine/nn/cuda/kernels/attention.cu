// Causal multi-head attention. qkv (B,T,3C) holds q | k | v per row, head h
// at columns h·hs .. h·hs+hs of each third; out (B,T,C); scale = 1/sqrt(hs).
//
// Training uses flash-style tiled kernels: the (T,T) weights are never
// stored. The forward keeps, per query row, a running maximum and sum
// (online softmax) over tiles of keys held in shared memory and saves the
// row's log-sum-exp L (B,NH,T) for the backward, which recomputes
// p_ij = exp(q_i·k_j·scale - L_i):
//   pre: D_i = Σ_j p_ij (dO_i·v_j)           (= dO_i·O_i)
//   dq:  dq_i += scale Σ_j p_ij (dO_i·v_j - D_i) k_j
//   dk:  dk_j += scale Σ_i p_ij (dO_i·v_j - D_i) q_i
//   dv:  dv_j += Σ_i p_ij dO_i
// Each thread owns one row (query or key) with its vectors in registers;
// HS is the register width (a compile-time bound ≥ the head size hs; the
// padding lanes hold zeros). Instantiated for HS = 32, 64, 128. Sampling uses
// attn_step (one query over the cache).
#include "common.cuh"

#define ATT_BR 64  // rows (threads) per block

template <int HS> struct Tile { static const int BC = HS <= 64 ? 64 : 32; };

// load a tile of BC rows (cols of one head) of a (B,T,3C) tensor into sh[BC][HS]
template <int HS>
__device__ __forceinline__ void load_tile(float* sh, const float* base, int j0, int T, int C3, int hs) {
    const int BC = Tile<HS>::BC;
    for (int e = threadIdx.x; e < BC * HS; e += blockDim.x) {
        int jj = e / HS, d = e % HS, j = j0 + jj;
        sh[e] = (j < T && d < hs) ? base[(long)j * C3 + d] : 0.0f;
    }
}

template <int HS>
__device__ __forceinline__ void load_row(float* r, const float* p, int hs, float s) {
#pragma unroll
    for (int d = 0; d < HS; d++) r[d] = d < hs ? p[d] * s : 0.0f;
}

// grid (ceil(T/ATT_BR), B*NH), block ATT_BR. lse (B,NH,T).
template <int HS>
__device__ void attn_forward(float* out, float* lse, const float* qkv, int B, int T, int C, int NH, float scale) {
    const int BC = Tile<HS>::BC;
    __shared__ float Ks[BC * HS], Vs[BC * HS];
    int hs = C / NH, C3 = 3 * C;
    int bh = blockIdx.y, b = bh / NH, h = bh % NH;
    int i = blockIdx.x * ATT_BR + threadIdx.x;
    const float* base = qkv + (long)b * T * C3 + h * hs;
    float q[HS], o[HS];
    if (i < T) load_row<HS>(q, base + (long)i * C3, hs, scale);
#pragma unroll
    for (int d = 0; d < HS; d++) o[d] = 0.0f;
    float m = AMT_NEG_INF, l = 0.0f;
    int kmax = min(T, (int)(blockIdx.x + 1) * ATT_BR);
    for (int j0 = 0; j0 < kmax; j0 += BC) {
        __syncthreads();
        load_tile<HS>(Ks, base + C, j0, T, C3, hs);
        load_tile<HS>(Vs, base + 2 * C, j0, T, C3, hs);
        __syncthreads();
        if (i >= T) continue;
        int jend = min(BC, i - j0 + 1);
        for (int jj = 0; jj < jend; jj++) {
            float s = 0.0f;
#pragma unroll
            for (int d = 0; d < HS; d++) s += q[d] * Ks[jj * HS + d];
            float mn = fmaxf(m, s);
            float corr = expf(m - mn), p = expf(s - mn);
            l = l * corr + p;
#pragma unroll
            for (int d = 0; d < HS; d++) o[d] = o[d] * corr + p * Vs[jj * HS + d];
            m = mn;
        }
    }
    if (i >= T) return;
    float inv = 1.0f / l;
    float* dst = out + ((long)b * T + i) * C + h * hs;
    for (int d = 0; d < hs; d++) dst[d] = o[d] * inv;
    lse[(long)bh * T + i] = m + logf(l);
}

// D (B,NH,T). Launch like attn_forward.
template <int HS>
__device__ void attn_backward_pre(float* D, const float* dout, const float* qkv, const float* lse,
                                  int B, int T, int C, int NH, float scale) {
    const int BC = Tile<HS>::BC;
    __shared__ float Ks[BC * HS], Vs[BC * HS];
    int hs = C / NH, C3 = 3 * C;
    int bh = blockIdx.y, b = bh / NH, h = bh % NH;
    int i = blockIdx.x * ATT_BR + threadIdx.x;
    const float* base = qkv + (long)b * T * C3 + h * hs;
    float q[HS], g[HS];
    float L = 0.0f, acc = 0.0f;
    if (i < T) {
        load_row<HS>(q, base + (long)i * C3, hs, scale);
        load_row<HS>(g, dout + ((long)b * T + i) * C + h * hs, hs, 1.0f);
        L = lse[(long)bh * T + i];
    }
    int kmax = min(T, (int)(blockIdx.x + 1) * ATT_BR);
    for (int j0 = 0; j0 < kmax; j0 += BC) {
        __syncthreads();
        load_tile<HS>(Ks, base + C, j0, T, C3, hs);
        load_tile<HS>(Vs, base + 2 * C, j0, T, C3, hs);
        __syncthreads();
        if (i >= T) continue;
        int jend = min(BC, i - j0 + 1);
        for (int jj = 0; jj < jend; jj++) {
            float s = 0.0f, dp = 0.0f;
#pragma unroll
            for (int d = 0; d < HS; d++) {
                s += q[d] * Ks[jj * HS + d];
                dp += g[d] * Vs[jj * HS + d];
            }
            acc += expf(s - L) * dp;
        }
    }
    if (i < T) D[(long)bh * T + i] = acc;
}

// dq: thread per query row. Launch like attn_forward.
template <int HS>
__device__ void attn_backward_dq(float* dqkv, const float* dout, const float* qkv, const float* lse,
                                 const float* D, int B, int T, int C, int NH, float scale) {
    const int BC = Tile<HS>::BC;
    __shared__ float Ks[BC * HS], Vs[BC * HS];
    int hs = C / NH, C3 = 3 * C;
    int bh = blockIdx.y, b = bh / NH, h = bh % NH;
    int i = blockIdx.x * ATT_BR + threadIdx.x;
    const float* base = qkv + (long)b * T * C3 + h * hs;
    float q[HS], g[HS], dq[HS];
    float L = 0.0f, Di = 0.0f;
    if (i < T) {
        load_row<HS>(q, base + (long)i * C3, hs, scale);
        load_row<HS>(g, dout + ((long)b * T + i) * C + h * hs, hs, 1.0f);
        L = lse[(long)bh * T + i];
        Di = D[(long)bh * T + i];
    }
#pragma unroll
    for (int d = 0; d < HS; d++) dq[d] = 0.0f;
    int kmax = min(T, (int)(blockIdx.x + 1) * ATT_BR);
    for (int j0 = 0; j0 < kmax; j0 += BC) {
        __syncthreads();
        load_tile<HS>(Ks, base + C, j0, T, C3, hs);
        load_tile<HS>(Vs, base + 2 * C, j0, T, C3, hs);
        __syncthreads();
        if (i >= T) continue;
        int jend = min(BC, i - j0 + 1);
        for (int jj = 0; jj < jend; jj++) {
            float s = 0.0f, dp = 0.0f;
#pragma unroll
            for (int d = 0; d < HS; d++) {
                s += q[d] * Ks[jj * HS + d];
                dp += g[d] * Vs[jj * HS + d];
            }
            float ds = expf(s - L) * (dp - Di) * scale;
#pragma unroll
            for (int d = 0; d < HS; d++) dq[d] += ds * Ks[jj * HS + d];
        }
    }
    if (i >= T) return;
    float* dst = dqkv + ((long)b * T + i) * C3 + h * hs;
    for (int d = 0; d < hs; d++) dst[d] += dq[d];
}

// load a tile of BC query rows: q (scaled), dO, L, D into shared memory.
template <int HS>
__device__ __forceinline__ void load_qtile(float* Qs, float* Gs, float* Ls, float* Ds, const float* qbase,
                                           const float* gbase, const float* lse, const float* D,
                                           int i0, int T, int C, int C3, int hs, float scale) {
    const int BC = Tile<HS>::BC;
    for (int e = threadIdx.x; e < BC * HS; e += blockDim.x) {
        int ii = e / HS, d = e % HS, i = i0 + ii;
        bool ok = i < T && d < hs;
        Qs[e] = ok ? qbase[(long)i * C3 + d] * scale : 0.0f;
        Gs[e] = ok ? gbase[(long)i * C + d] : 0.0f;
    }
    for (int ii = threadIdx.x; ii < BC; ii += blockDim.x) {
        int i = i0 + ii;
        Ls[ii] = i < T ? lse[i] : 0.0f;
        Ds[ii] = i < T ? D[i] : 0.0f;
    }
}

// dk: thread per key row j, over query tiles i ≥ j. grid (ceil(T/ATT_BR), B*NH).
template <int HS>
__device__ void attn_backward_dk(float* dqkv, const float* dout, const float* qkv, const float* lse,
                                 const float* D, int B, int T, int C, int NH, float scale) {
    const int BC = Tile<HS>::BC;
    __shared__ float Qs[BC * HS], Gs[BC * HS], Ls[BC], Ds[BC];
    int hs = C / NH, C3 = 3 * C;
    int bh = blockIdx.y, b = bh / NH, h = bh % NH;
    int j = blockIdx.x * ATT_BR + threadIdx.x;
    const float* base = qkv + (long)b * T * C3 + h * hs;
    const float* gbase = dout + (long)b * T * C + h * hs;
    float k[HS], v[HS], dk[HS];
    if (j < T) {
        load_row<HS>(k, base + C + (long)j * C3, hs, 1.0f);
        load_row<HS>(v, base + 2 * C + (long)j * C3, hs, 1.0f);
    }
#pragma unroll
    for (int d = 0; d < HS; d++) dk[d] = 0.0f;
    int i0start = (blockIdx.x * ATT_BR / BC) * BC;
    for (int i0 = i0start; i0 < T; i0 += BC) {
        __syncthreads();
        load_qtile<HS>(Qs, Gs, Ls, Ds, base, gbase, lse + (long)bh * T, D + (long)bh * T, i0, T, C, C3, hs, scale);
        __syncthreads();
        if (j >= T) continue;
        for (int ii = max(0, j - i0); ii < BC && i0 + ii < T; ii++) {
            float s = 0.0f, dp = 0.0f;
#pragma unroll
            for (int d = 0; d < HS; d++) {
                s += Qs[ii * HS + d] * k[d];
                dp += Gs[ii * HS + d] * v[d];
            }
            // Qs holds q·scale, so ds·Qs already carries the scale once.
            float ds = expf(s - Ls[ii]) * (dp - Ds[ii]);
#pragma unroll
            for (int d = 0; d < HS; d++) dk[d] += ds * Qs[ii * HS + d];
        }
    }
    if (j >= T) return;
    float* dst = dqkv + ((long)b * T + j) * C3 + C + h * hs;
    for (int d = 0; d < hs; d++) dst[d] += dk[d];
}

// dv: thread per key row j. grid (ceil(T/ATT_BR), B*NH).
template <int HS>
__device__ void attn_backward_dv(float* dqkv, const float* dout, const float* qkv, const float* lse,
                                 const float* D, int B, int T, int C, int NH, float scale) {
    const int BC = Tile<HS>::BC;
    __shared__ float Qs[BC * HS], Gs[BC * HS], Ls[BC], Ds[BC];
    int hs = C / NH, C3 = 3 * C;
    int bh = blockIdx.y, b = bh / NH, h = bh % NH;
    int j = blockIdx.x * ATT_BR + threadIdx.x;
    const float* base = qkv + (long)b * T * C3 + h * hs;
    const float* gbase = dout + (long)b * T * C + h * hs;
    float k[HS], dv[HS];
    if (j < T) load_row<HS>(k, base + C + (long)j * C3, hs, 1.0f);
#pragma unroll
    for (int d = 0; d < HS; d++) dv[d] = 0.0f;
    int i0start = (blockIdx.x * ATT_BR / BC) * BC;
    for (int i0 = i0start; i0 < T; i0 += BC) {
        __syncthreads();
        load_qtile<HS>(Qs, Gs, Ls, Ds, base, gbase, lse + (long)bh * T, D + (long)bh * T, i0, T, C, C3, hs, scale);
        __syncthreads();
        if (j >= T) continue;
        for (int ii = max(0, j - i0); ii < BC && i0 + ii < T; ii++) {
            float s = 0.0f;
#pragma unroll
            for (int d = 0; d < HS; d++) s += Qs[ii * HS + d] * k[d];
            float p = expf(s - Ls[ii]);
#pragma unroll
            for (int d = 0; d < HS; d++) dv[d] += p * Gs[ii * HS + d];
        }
    }
    if (j >= T) return;
    float* dst = dqkv + ((long)b * T + j) * C3 + 2 * C + h * hs;
    for (int d = 0; d < hs; d++) dst[d] += dv[d];
}

#define ATT_INSTANCES(HS)                                                                                   \
    extern "C" __global__ void attn_forward_hs##HS(float* out, float* lse, const float* qkv, int B, int T, \
                                                   int C, int NH, float scale) {                            \
        attn_forward<HS>(out, lse, qkv, B, T, C, NH, scale);                                                \
    }                                                                                                       \
    extern "C" __global__ void attn_backward_pre_hs##HS(float* D, const float* dout, const float* qkv,     \
                                                        const float* lse, int B, int T, int C, int NH,      \
                                                        float scale) {                                      \
        attn_backward_pre<HS>(D, dout, qkv, lse, B, T, C, NH, scale);                                       \
    }                                                                                                       \
    extern "C" __global__ void attn_backward_dq_hs##HS(float* dqkv, const float* dout, const float* qkv,   \
                                                       const float* lse, const float* D, int B, int T, int C, \
                                                       int NH, float scale) {                               \
        attn_backward_dq<HS>(dqkv, dout, qkv, lse, D, B, T, C, NH, scale);                                  \
    }                                                                                                       \
    extern "C" __global__ void attn_backward_dk_hs##HS(float* dqkv, const float* dout, const float* qkv,   \
                                                       const float* lse, const float* D, int B, int T, int C, \
                                                       int NH, float scale) {                               \
        attn_backward_dk<HS>(dqkv, dout, qkv, lse, D, B, T, C, NH, scale);                                  \
    }                                                                                                       \
    extern "C" __global__ void attn_backward_dv_hs##HS(float* dqkv, const float* dout, const float* qkv,   \
                                                       const float* lse, const float* D, int B, int T, int C, \
                                                       int NH, float scale) {                               \
        attn_backward_dv<HS>(dqkv, dout, qkv, lse, D, B, T, C, NH, scale);                                  \
    }

// Kernel names: attn_forward_hsN, attn_backward_{pre,dq,dk,dv}_hsN for N = 32, 64, 128.
ATT_INSTANCES(32)
ATT_INSTANCES(64)
ATT_INSTANCES(128)

// One decoding step against the cache: qkv (T,3C) rows 0..pos valid (B = 1);
// out (C) = attention of row pos's query over rows 0..pos. att (NH,T,T) is
// scratch (row pos of each head). One block (256 threads) per head; keys are
// split over warps, head dimensions over lanes (hs ≤ 128).
extern "C" __global__ void attn_step(float* out, float* att, const float* qkv, int pos, int T, int C, int NH,
                                     float scale) {
    __shared__ float sh[32];
    __shared__ float qs[128];
    __shared__ float part[8][128];
    int h = blockIdx.x, hs = C / NH, C3 = 3 * C;
    const float* q = qkv + (long)pos * C3 + h * hs;
    const float* K = qkv + C + h * hs;
    const float* Vv = qkv + 2 * C + h * hs;
    float* sc = att + ((long)h * T + pos) * T;
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
    // keep the weights normalised in the scratch row, as the CPU backend does
    for (int j = threadIdx.x; j <= pos; j += blockDim.x) sc[j] *= inv;
}
