// Layer norm over rows of C, forward and backward. One warp per row.
#include "common.cuh"

// out (N,C) = (inp - mean)·rstd·w + b; mean, rstd (N) saved for backward;
// outbf (if not null) = out in bf16.
// Launch: blockDim.x = 256 (8 rows per block), grid = ceil(N/8).
extern "C" __global__ void layernorm_forward(float* out, unsigned short* outbf, float* mean, float* rstd,
                                             const float* inp, const float* w, const float* b, int N, int C,
                                             float eps) {
    int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= N) return;
    const float* x = inp + (long)row * C;
    float s = 0.0f;
    for (int i = lane; i < C; i += 32) s += x[i];
    float m = warp_sum(s) / C;
    float v = 0.0f;
    for (int i = lane; i < C; i += 32) {
        float d = x[i] - m;
        v += d * d;
    }
    v = warp_sum(v) / C;
    float r = rsqrtf(v + eps);
    float* o = out + (long)row * C;
    for (int i = lane; i < C; i += 32) {
        float y = (x[i] - m) * r * w[i] + b[i];
        o[i] = y;
        if (outbf) outbf[(long)row * C + i] = f32_to_bf16_bits(y);
    }
    if (lane == 0) {
        mean[row] = m;
        rstd[row] = r;
    }
}

// dinp (N,C) += rstd·(dnorm - mean(dnorm) - norm·mean(dnorm·norm)), dnorm = dout·w;
// dinpbf (if not null) = the result in bf16. Launch like layernorm_forward.
extern "C" __global__ void layernorm_backward_dinp(float* dinp, unsigned short* dinpbf, const float* dout,
                                                   const float* inp, const float* w, const float* mean,
                                                   const float* rstd, int N, int C) {
    int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= N) return;
    const float* x = inp + (long)row * C;
    const float* g = dout + (long)row * C;
    float* di = dinp + (long)row * C;
    float m = mean[row], s = rstd[row];
    float sumD = 0.0f, sumDN = 0.0f;
    for (int i = lane; i < C; i += 32) {
        float n = (x[i] - m) * s;
        float d = g[i] * w[i];
        sumD += d;
        sumDN += d * n;
    }
    sumD = warp_sum(sumD) / C;
    sumDN = warp_sum(sumDN) / C;
    for (int i = lane; i < C; i += 32) {
        float n = (x[i] - m) * s;
        float d = g[i] * w[i];
        float v = di[i] + s * (d - sumD - n * sumDN);
        di[i] = v;
        if (dinpbf) dinpbf[(long)row * C + i] = f32_to_bf16_bits(v);
    }
}

// Partial sums for dw and db over a slice of rows: partials[p*2C + c] =
// Σ dout·norm, partials[p*2C + C + c] = Σ dout over rows [p·rows, (p+1)·rows).
// Grid (ceil(C/blockDim.x), P); column_reduce_add then sums the P parts in
// order, so the result does not depend on scheduling.
extern "C" __global__ void layernorm_backward_partial(float* partials, const float* dout, const float* inp,
                                                      const float* mean, const float* rstd,
                                                      int N, int C, int rows) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int p = blockIdx.y;
    if (c >= C) return;
    int r0 = p * rows, r1 = min(N, r0 + rows);
    float dw = 0.0f, db = 0.0f;
    for (int r = r0; r < r1; r++) {
        float g = dout[(long)r * C + c];
        float n = (inp[(long)r * C + c] - mean[r]) * rstd[r];
        dw += g * n;
        db += g;
    }
    partials[(long)p * 2 * C + c] = dw;
    partials[(long)p * 2 * C + C + c] = db;
}
