// Causal attention on tensor cores for head size 64, FlashAttention-2 style
// (Dao 2023): bf16 operands in shared memory, fp32 accumulation in
// registers, mma.sync m16n8k16 through kernels/mma.cuh. Shapes as in
// attention.cu: qkv (B,T,3C) holds q | k | v, head h at columns h·64 ..
// h·64+63 of each third; out (B,T,C); scale = 1/8.
//
// Forward (fa_forward_hs64): one block of 4 warps per 64 query rows of one
// (batch, head); each warp owns 16 rows. The block walks the key/value
// tiles 0..its own diagonal once: S = Q·Kᵀ (16×64 per warp), the online
// softmax in the log2 domain (running max m and sum l per row, the sum kept
// per thread and reduced once at the end), P rounded to bf16 and O += P·V.
// It writes out (fp32), a bf16 copy of out (obf, for the backward's D and
// as the next product's operand) and the row's log-sum-exp in log2 units
// (lse2 = m + log2 l).
//
// Backward: fa_backward_pre_hs64 computes D_i = dO_i·O_i (one warp per row);
// fa_backward_hs64 is one block per 64 keys (each warp 16 keys, with its K
// and V fragments in registers) walking the query tiles from its diagonal
// on, once: Sᵀ = K·Qᵀ, Pᵀ = exp2(Sᵀ·scale·log2e − lse2), dPᵀ = V·dOᵀ,
// dSᵀ = Pᵀ∘(dPᵀ − D), dV += Pᵀ·dO, dK += dSᵀ·Q in registers; dSᵀ goes to
// shared memory and dQ += dS·K is added to dqkv with fp32 atomics (the
// order of those additions is not fixed: dQ may differ from run to run in
// the last bits on a GPU; the emulator is deterministic).
//
// Tiles are padded to 72 bf16 a row (144 bytes) so the 8 rows an ldmatrix
// reads fall in different banks. Global loads are 16-byte vectors when the
// rows are 16-byte aligned, else scalar (the test shapes of odd T).
#include "common.cuh"
#include "mma.cuh"

#define FA_D 64       // head size
#define FA_B 64       // query rows per block, keys per tile
#define FA_LD 72      // shared row stride (bf16 elements)
#define FA_THREADS 128
#define FA_LOG2E 1.4426950408889634f

__device__ __forceinline__ bool fa_vec_ok(const void* p, int ld) {
    return ((((unsigned long long)p) & 15ull) == 0) && ((ld & 3) == 0);
}

#define FA_PER_THREAD (FA_B * 16 / FA_THREADS)  // 16-byte pieces of a tile each thread moves

// Loads this thread's pieces of rows r0.. of a (.., ld) fp32 matrix (zeros
// past T) into v: every load is issued before any is used.
__device__ __forceinline__ void fa_fetch(float4* v, const float* src, int r0, int T, int ld, bool vec) {
#pragma unroll
    for (int k = 0; k < FA_PER_THREAD; k++) {
        int e = threadIdx.x + k * FA_THREADS, r = e >> 4, c = (e & 15) * 4, row = r0 + r;
        v[k].x = v[k].y = v[k].z = v[k].w = 0.0f;
        if (row < T) {
            const float* p = src + (long)row * ld + c;
            if (vec) {
                v[k] = ld_f4(p);
            } else {
                v[k].x = p[0], v[k].y = p[1], v[k].z = p[2], v[k].w = p[3];
            }
        }
    }
}

// Stores them in bf16 into the tile sh[r][0..63].
__device__ __forceinline__ void fa_store(unsigned short* sh, const float4* v) {
#pragma unroll
    for (int k = 0; k < FA_PER_THREAD; k++) {
        int e = threadIdx.x + k * FA_THREADS, r = e >> 4, c = (e & 15) * 4;
        st_u2(&sh[r * FA_LD + c], pack_bf16x2(v[k].x, v[k].y), pack_bf16x2(v[k].z, v[k].w));
    }
}

// sh1 and sh2 = bf16 of rows r0..r0+63 of two fp32 matrices (zeros past T),
// all 2·FA_PER_THREAD loads in flight at once.
__device__ __forceinline__ void fa_load_tiles(unsigned short* sh1, const float* src1, int ld1, bool vec1,
                                              unsigned short* sh2, const float* src2, int ld2, bool vec2, int r0,
                                              int T) {
    float4 a[FA_PER_THREAD], b[FA_PER_THREAD];
    fa_fetch(a, src1, r0, T, ld1, vec1);
    fa_fetch(b, src2, r0, T, ld2, vec2);
    fa_store(sh1, a);
    fa_store(sh2, b);
}

// sh = bf16 of rows r0..r0+63 (zeros past T).
__device__ __forceinline__ void fa_load_tile(unsigned short* sh, const float* src, int r0, int T, int ld, bool vec) {
    float4 a[FA_PER_THREAD];
    fa_fetch(a, src, r0, T, ld, vec);
    fa_store(sh, a);
}

// A fragments (16 rows × 64 columns, 4 chunks of 16) of rows r0.. of a tile.
__device__ __forceinline__ void fa_a_frags(unsigned (*a)[4], const unsigned short* sh, int r0, int lane) {
#pragma unroll
    for (int kc = 0; kc < 4; kc++) ldmatrix_x4(a[kc], &sh[(r0 + (lane & 15)) * FA_LD + 16 * kc + (lane >> 4) * 8]);
}

// B fragments of Xᵀ for chunk kc (columns 16kc..) and rows n0..n0+15 of a
// tile X stored [n][k]: r[0..1] for rows n0..n0+7, r[2..3] for n0+8..
__device__ __forceinline__ void fa_bt_frags(unsigned* r, const unsigned short* sh, int n0, int kc, int lane) {
    ldmatrix_x4(r, &sh[(n0 + (lane & 7) + ((lane >> 4) << 3)) * FA_LD + 16 * kc + ((lane >> 3) & 1) * 8]);
}

// B fragments of X itself for rows k0..k0+15 (the k of the product) and
// columns n0..n0+15 of a tile X stored [k][n]: r[0..1] for columns n0..,
// r[2..3] for n0+8..
__device__ __forceinline__ void fa_b_frags(unsigned* r, const unsigned short* sh, int k0, int n0, int lane) {
    ldmatrix_x4_trans(r, &sh[(k0 + (lane & 7) + ((lane >> 3) & 1) * 8) * FA_LD + n0 + (lane >> 4) * 8]);
}

// The accumulator of a 16×64 product as A fragments of the next one (the
// C layout of two 16×8 blocks is the A layout of one 16×16 chunk).
__device__ __forceinline__ void fa_c_to_a(unsigned* a, const float (*c)[4], int kc) {
    a[0] = pack_bf16x2(c[2 * kc][0], c[2 * kc][1]);
    a[1] = pack_bf16x2(c[2 * kc][2], c[2 * kc][3]);
    a[2] = pack_bf16x2(c[2 * kc + 1][0], c[2 * kc + 1][1]);
    a[3] = pack_bf16x2(c[2 * kc + 1][2], c[2 * kc + 1][3]);
}

// grid (ceil(T/64), B·NH), block 128. lse2 (B,NH,T); obf (B,T,C) bf16.
extern "C" __global__ void fa_forward_hs64(float* out, float* lse2, unsigned short* obf, const float* qkv, int B, int T,
                                           int C, int NH, float scale) {
    __shared__ __align__(16) unsigned short Qs[FA_B * FA_LD];
    __shared__ __align__(16) unsigned short Ks[FA_B * FA_LD];
    __shared__ __align__(16) unsigned short Vs[FA_B * FA_LD];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    int qt = gridDim.x - 1 - blockIdx.x;  // the longest rows first
    int bh = blockIdx.y, b = bh / NH, h = bh % NH, C3 = 3 * C;
    const float* base = qkv + (long)b * T * C3 + h * FA_D;
    bool vec = fa_vec_ok(base, C3);
    int q0 = qt * FA_B;
    fa_load_tile(Qs, base, q0, T, C3, vec);
    __syncthreads();
    unsigned qa[4][4];
    fa_a_frags(qa, Qs, 16 * w, lane);
    float o[8][4];
#pragma unroll
    for (int nb = 0; nb < 8; nb++)
#pragma unroll
        for (int e = 0; e < 4; e++) o[nb][e] = 0.0f;
    float m[2] = {AMT_NEG_INF, AMT_NEG_INF}, l[2] = {0.0f, 0.0f};
    const float sl2 = scale * FA_LOG2E;
    int rows[2] = {q0 + 16 * w + g, q0 + 16 * w + g + 8};
    for (int kt = 0; kt <= qt; kt++) {
        int k0 = kt * FA_B;
        __syncthreads();
        fa_load_tiles(Ks, base + C, C3, vec, Vs, base + 2 * C, C3, vec, k0, T);
        __syncthreads();
        float s[8][4];
#pragma unroll
        for (int nb = 0; nb < 8; nb++)
#pragma unroll
            for (int e = 0; e < 4; e++) s[nb][e] = 0.0f;
#pragma unroll
        for (int kc = 0; kc < 4; kc++)
#pragma unroll
            for (int np = 0; np < 4; np++) {
                unsigned kb[4];
                fa_bt_frags(kb, Ks, 16 * np, kc, lane);
                mma_bf16_16816(s[2 * np], qa[kc], kb);
                mma_bf16_16816(s[2 * np + 1], qa[kc], kb + 2);
            }
        bool edge = kt == qt || k0 + FA_B > T;
        float mx[2] = {m[0], m[1]};
#pragma unroll
        for (int nb = 0; nb < 8; nb++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                float v = s[nb][e] * sl2;
                int key = k0 + 8 * nb + 2 * t + (e & 1);
                if (edge && (key > rows[e >> 1] || key >= T)) v = AMT_NEG_INF;
                s[nb][e] = v;
                mx[e >> 1] = fmaxf(mx[e >> 1], v);
            }
        float mb[2], rs[2] = {0.0f, 0.0f};
#pragma unroll
        for (int r = 0; r < 2; r++) {
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
            mb[r] = mx[r] == AMT_NEG_INF ? 0.0f : mx[r];  // a row with nothing seen yet
            float corr = exp2f(m[r] - mb[r]);
            m[r] = mx[r];
            l[r] *= corr;
#pragma unroll
            for (int nb = 0; nb < 8; nb++) o[nb][2 * r] *= corr, o[nb][2 * r + 1] *= corr;
        }
#pragma unroll
        for (int nb = 0; nb < 8; nb++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                float p = exp2f(s[nb][e] - mb[e >> 1]);
                s[nb][e] = p;
                rs[e >> 1] += p;
            }
        l[0] += rs[0];
        l[1] += rs[1];
#pragma unroll
        for (int kc = 0; kc < 4; kc++) {
            unsigned pa[4];
            fa_c_to_a(pa, s, kc);
#pragma unroll
            for (int np = 0; np < 4; np++) {
                unsigned vb[4];
                fa_b_frags(vb, Vs, 16 * kc, 16 * np, lane);
                mma_bf16_16816(o[2 * np], pa, vb);
                mma_bf16_16816(o[2 * np + 1], pa, vb + 2);
            }
        }
    }
    bool ovec = ((((unsigned long long)out) & 7ull) == 0) && ((C & 1) == 0);
#pragma unroll
    for (int r = 0; r < 2; r++) {
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
        int row = rows[r];
        if (row >= T) continue;
        float inv = 1.0f / l[r];
        long at = ((long)b * T + row) * C + h * FA_D + 2 * t;
#pragma unroll
        for (int nb = 0; nb < 8; nb++) {
            float x = o[nb][2 * r] * inv, y = o[nb][2 * r + 1] * inv;
            if (ovec) {
                st_f2(&out[at + 8 * nb], x, y);
            } else {
                out[at + 8 * nb] = x;
                out[at + 8 * nb + 1] = y;
            }
            if (obf) st_u1(&obf[at + 8 * nb], pack_bf16x2(x, y));
        }
        if (t == 0) lse2[(long)bh * T + row] = m[r] + log2f(l[r]);
    }
}

// D (B,NH,T): D[b,h,i] = Σ_d dout[b,i,h·64+d]·obf[b,i,h·64+d]. One warp per
// (b, i, h); grid ceil(B·T·NH / 8), block 256.
extern "C" __global__ void fa_backward_pre_hs64(float* D, const float* dout, const unsigned short* obf, int B, int T,
                                                int C, int NH) {
    long row = (long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= (long)B * T * NH) return;  // whole warps
    int h = (int)(row % NH);
    long bi = row / NH;
    const float* gp = dout + bi * C + h * FA_D;
    const unsigned short* op = obf + bi * C + h * FA_D;
    float s = gp[lane] * bf16_lo(op[lane]) + gp[lane + 32] * bf16_lo(op[lane + 32]);
    s = warp_sum(s);
    if (lane == 0) D[((bi / T) * NH + h) * T + bi % T] = s;
}

// dqkv += the gradient of attention. grid (ceil(T/64), B·NH), block 128;
// lse2 and D (B,NH,T) from fa_forward_hs64 and fa_backward_pre_hs64.
extern "C" __global__ void fa_backward_hs64(float* dqkv, const float* dout, const float* qkv, const float* lse2,
                                            const float* D, int B, int T, int C, int NH, float scale) {
    __shared__ __align__(16) unsigned short Qs[FA_B * FA_LD];
    __shared__ __align__(16) unsigned short Gs[FA_B * FA_LD];  // dO
    __shared__ __align__(16) unsigned short Ks[FA_B * FA_LD];
    __shared__ __align__(16) unsigned short Ss[FA_B * FA_LD];  // V at first, then dSᵀ [key][query]
    __shared__ float Ls[FA_B], Ds[FA_B];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    int kt = blockIdx.x, nt = gridDim.x;
    int bh = blockIdx.y, b = bh / NH, h = bh % NH, C3 = 3 * C;
    const float* base = qkv + (long)b * T * C3 + h * FA_D;
    const float* gbase = dout + (long)b * T * C + h * FA_D;
    float* dbase = dqkv + (long)b * T * C3 + h * FA_D;
    const float* lrow = lse2 + (long)bh * T;
    const float* drow = D + (long)bh * T;
    bool vq = fa_vec_ok(base, C3), vg = fa_vec_ok(gbase, C);
    int k0 = kt * FA_B;
    fa_load_tiles(Ks, base + C, C3, vq, Ss, base + 2 * C, C3, vq, k0, T);
    __syncthreads();
    unsigned ka[4][4], va[4][4];
    fa_a_frags(ka, Ks, 16 * w, lane);
    fa_a_frags(va, Ss, 16 * w, lane);
    float dk[8][4], dv[8][4];
#pragma unroll
    for (int nb = 0; nb < 8; nb++)
#pragma unroll
        for (int e = 0; e < 4; e++) dk[nb][e] = 0.0f, dv[nb][e] = 0.0f;
    const float sl2 = scale * FA_LOG2E;
    int keys[2] = {k0 + 16 * w + g, k0 + 16 * w + g + 8};
    for (int qt = kt; qt < nt; qt++) {
        int q0 = qt * FA_B;
        __syncthreads();
        fa_load_tiles(Qs, base, C3, vq, Gs, gbase, C, vg, q0, T);
        for (int i = threadIdx.x; i < FA_B; i += FA_THREADS) {
            int q = q0 + i;
            Ls[i] = q < T ? lrow[q] : 0.0f;
            Ds[i] = q < T ? drow[q] : 0.0f;
        }
        __syncthreads();
        float s[8][4], dp[8][4];
#pragma unroll
        for (int nb = 0; nb < 8; nb++)
#pragma unroll
            for (int e = 0; e < 4; e++) s[nb][e] = 0.0f, dp[nb][e] = 0.0f;
#pragma unroll
        for (int kc = 0; kc < 4; kc++)
#pragma unroll
            for (int np = 0; np < 4; np++) {
                unsigned qb[4], gb[4];
                fa_bt_frags(qb, Qs, 16 * np, kc, lane);
                mma_bf16_16816(s[2 * np], ka[kc], qb);
                mma_bf16_16816(s[2 * np + 1], ka[kc], qb + 2);
                fa_bt_frags(gb, Gs, 16 * np, kc, lane);
                mma_bf16_16816(dp[2 * np], va[kc], gb);
                mma_bf16_16816(dp[2 * np + 1], va[kc], gb + 2);
            }
        // Pᵀ and dSᵀ (rows: this warp's keys; columns: the tile's queries)
#pragma unroll
        for (int nb = 0; nb < 8; nb++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int qi = 8 * nb + 2 * t + (e & 1), q = q0 + qi;
                float p = (q >= keys[e >> 1] && q < T) ? exp2f(s[nb][e] * sl2 - Ls[qi]) : 0.0f;
                s[nb][e] = p;
                dp[nb][e] = p * (dp[nb][e] - Ds[qi]);
            }
#pragma unroll
        for (int kc = 0; kc < 4; kc++) {
            unsigned pa[4], da[4];
            fa_c_to_a(pa, s, kc);
            fa_c_to_a(da, dp, kc);
#pragma unroll
            for (int np = 0; np < 4; np++) {
                unsigned gb[4], qb[4];
                fa_b_frags(gb, Gs, 16 * kc, 16 * np, lane);
                mma_bf16_16816(dv[2 * np], pa, gb);
                mma_bf16_16816(dv[2 * np + 1], pa, gb + 2);
                fa_b_frags(qb, Qs, 16 * kc, 16 * np, lane);
                mma_bf16_16816(dk[2 * np], da, qb);
                mma_bf16_16816(dk[2 * np + 1], da, qb + 2);
            }
            // dSᵀ for the dQ product: rows 16w+g (+8), queries 16kc + 2t (+8)
            int r0 = (16 * w + g) * FA_LD + 16 * kc + 2 * t;
            st_u1(&Ss[r0], da[0]);
            st_u1(&Ss[r0 + 8 * FA_LD], da[1]);
            st_u1(&Ss[r0 + 8], da[2]);
            st_u1(&Ss[r0 + 8 * FA_LD + 8], da[3]);
        }
        __syncthreads();
        // dQ for queries 16w..16w+15 of the tile: dS (16 × 64 keys) · K (64 keys × 64)
        unsigned dsa[4][4];
#pragma unroll
        for (int kc = 0; kc < 4; kc++)
            ldmatrix_x4_trans(dsa[kc], &Ss[(16 * kc + (lane & 7) + ((lane >> 4) << 3)) * FA_LD + 16 * w + ((lane >> 3) & 1) * 8]);
#pragma unroll
        for (int np = 0; np < 4; np++) {
            float acc[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};
#pragma unroll
            for (int kc = 0; kc < 4; kc++) {
                unsigned kb[4];
                fa_b_frags(kb, Ks, 16 * kc, 16 * np, lane);
                mma_bf16_16816(acc[0], dsa[kc], kb);
                mma_bf16_16816(acc[1], dsa[kc], kb + 2);
            }
#pragma unroll
            for (int j = 0; j < 2; j++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    int q = q0 + 16 * w + g + (e >> 1) * 8;
                    if (q < T) atomicAdd(&dbase[(long)q * C3 + 16 * np + 8 * j + 2 * t + (e & 1)], acc[j][e] * scale);
                }
        }
    }
#pragma unroll
    for (int r = 0; r < 2; r++) {
        int key = keys[r];
        if (key >= T) continue;
        float* dkp = dbase + (long)key * C3 + C + 2 * t;
        float* dvp = dkp + C;
#pragma unroll
        for (int nb = 0; nb < 8; nb++) {
            dkp[8 * nb] += dk[nb][2 * r] * scale;
            dkp[8 * nb + 1] += dk[nb][2 * r + 1] * scale;
            dvp[8 * nb] += dv[nb][2 * r];
            dvp[8 * nb + 1] += dv[nb][2 * r + 1];
        }
    }
}
