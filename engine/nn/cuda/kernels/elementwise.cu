// Elementwise kernels: GELU (tanh form, as GPT-2) and its fused epilogue
// with the bias, residual add and accumulate, bias broadcast and column
// reductions (bias gradients), and the fp32 → bf16 conversion of matmul
// operands. Outputs named ...bf are optional (null: none) bf16 copies the
// next product takes as its operand (backend.go, "bf16 shadows").
#include "common.cuh"

#define GELU_K 0.7978845608028654f

extern "C" __global__ void gelu_forward(float* out, const float* inp, long n) {
    GRID_STRIDE(i, n) {
        float x = inp[i];
        float u = GELU_K * (x + 0.044715f * x * x * x);
        out[i] = 0.5f * x * (1.0f + tanhf(u));
    }
}

// pre (N,OC) += bias (broadcast over rows; none if null); out = gelu(pre); outbf (if not
// null) = out in bf16: the epilogue of the MLP's first product (the product
// itself written by cuBLAS with beta = 0).
extern "C" __global__ void bias_gelu_forward(float* pre, float* out, unsigned short* outbf, const float* bias, int N,
                                             int OC) {
    long n = (long)N * OC;
    GRID_STRIDE(i, n) {
        float x = pre[i] + (bias ? bias[i % OC] : 0.0f);
        pre[i] = x;
        float u = GELU_K * (x + 0.044715f * x * x * x);
        float y = 0.5f * x * (1.0f + tanhf(u));
        out[i] = y;
        if (outbf) outbf[i] = f32_to_bf16_bits(y);
    }
}

// dinp += gelu'(inp)·dout; dinpbf (if not null) = the result in bf16.
extern "C" __global__ void gelu_backward(float* dinp, unsigned short* dinpbf, const float* inp, const float* dout,
                                         long n) {
    GRID_STRIDE(i, n) {
        float x = inp[i];
        float u = GELU_K * (x + 0.044715f * x * x * x);
        float t = tanhf(u);
        float sech2 = 1.0f - t * t;
        float local = 0.5f * (1.0f + t) + 0.5f * x * sech2 * GELU_K * (1.0f + 3.0f * 0.044715f * x * x);
        float d = dinp[i] + local * dout[i];
        dinp[i] = d;
        if (dinpbf) dinpbf[i] = f32_to_bf16_bits(d);
    }
}

// out (N,OC) = res + bias (broadcast over rows; none if null): the residual branch's
// sum before cuBLAS adds the product into it (beta = 1).
extern "C" __global__ void residual_bias(float* out, const float* res, const float* bias, int N, int OC) {
    long n = (long)N * OC;
    GRID_STRIDE(i, n) out[i] = res[i] + (bias ? bias[i % OC] : 0.0f);
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

// The layer norm's two: dw[c] += Σ_p partials[p*2n + c], db[c] += Σ_p
// partials[p*2n + n + c], p in order. Grid ceil(2n/blockDim.x).
extern "C" __global__ void column_reduce_add2(float* dw, float* db, const float* partials, int P, int n) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= 2 * n) return;
    float s = 0.0f;
    for (int p = 0; p < P; p++) s += partials[(long)p * 2 * n + c];
    if (c < n)
        dw[c] += s;
    else
        db[c - n] += s;
}

extern "C" __global__ void f32_to_bf16(unsigned short* dst, const float* src, long n) {
    GRID_STRIDE(i, n) dst[i] = f32_to_bf16_bits(src[i]);
}
