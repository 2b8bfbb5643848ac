// Elementwise kernels: GELU (tanh form, as GPT-2), residual add and
// accumulate, bias broadcast and column reductions (bias gradients), and the
// fp32 → bf16 conversion of matmul operands.
#include "common.cuh"

#define GELU_K 0.7978845608028654f

extern "C" __global__ void gelu_forward(float* out, const float* inp, long n) {
    GRID_STRIDE(i, n) {
        float x = inp[i];
        float u = GELU_K * (x + 0.044715f * x * x * x);
        out[i] = 0.5f * x * (1.0f + tanhf(u));
    }
}

// dinp += gelu'(inp)·dout
extern "C" __global__ void gelu_backward(float* dinp, const float* inp, const float* dout, long n) {
    GRID_STRIDE(i, n) {
        float x = inp[i];
        float u = GELU_K * (x + 0.044715f * x * x * x);
        float t = tanhf(u);
        float sech2 = 1.0f - t * t;
        float local = 0.5f * (1.0f + t) + 0.5f * x * sech2 * GELU_K * (1.0f + 3.0f * 0.044715f * x * x);
        dinp[i] += local * dout[i];
    }
}

extern "C" __global__ void add_forward(float* out, const float* a, const float* b, long n) {
    GRID_STRIDE(i, n) out[i] = a[i] + b[i];
}

extern "C" __global__ void accumulate(float* dst, const float* src, long n) {
    GRID_STRIDE(i, n) dst[i] += src[i];
}

// out (N,OC) = bias broadcast over rows (before a product with beta = 1),
// or zeros when bias is null.
extern "C" __global__ void bias_fill(float* out, const float* bias, int N, int OC) {
    long n = (long)N * OC;
    GRID_STRIDE(i, n) out[i] = bias ? bias[i % OC] : 0.0f;
}

// partials[p*cols + c] = Σ x[r,c] over rows [p·rows, (p+1)·rows). Grid
// (ceil(cols/blockDim.x), P).
extern "C" __global__ void column_sum_partial(float* partials, const float* x, int N, int cols, int rows) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int p = blockIdx.y;
    if (c >= cols) return;
    int r0 = p * rows, r1 = min(N, r0 + rows);
    float s = 0.0f;
    for (int r = r0; r < r1; r++) s += x[(long)r * cols + c];
    partials[(long)p * cols + c] = s;
}

// dst[c] += Σ_p partials[p*ld + c], p in order.
extern "C" __global__ void column_reduce_add(float* dst, const float* partials, int P, int n, int ld) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n) return;
    float s = 0.0f;
    for (int p = 0; p < P; p++) s += partials[(long)p * ld + c];
    dst[c] += s;
}

extern "C" __global__ void f32_to_bf16(unsigned short* dst, const float* src, long n) {
    GRID_STRIDE(i, n) dst[i] = f32_to_bf16_bits(src[i]);
}
