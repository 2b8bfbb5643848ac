// AdamW and the squared-norm reduction (gradient clipping).
#include "common.cuh"

// One AdamW step in place; gradients are multiplied by gscale first
// (clipping); bc1, bc2 are the bias corrections 1-β₁^t, 1-β₂^t. pbf (if
// not null) receives the new parameters in bf16 (the weights' copy the
// products take as operands).
extern "C" __global__ void adamw_update(float* p, unsigned short* pbf, const float* g, float* m, float* v, long n,
                                        float lr, float b1, float b2, float eps, float wd,
                                        float bc1, float bc2, float gscale) {
    GRID_STRIDE(i, n) {
        float gi = g[i] * gscale;
        float mi = b1 * m[i] + (1.0f - b1) * gi;
        float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        float mh = mi / bc1, vh = vi / bc2;
        float np = p[i] - lr * (mh / (sqrtf(vh) + eps) + wd * p[i]);
        p[i] = np;
        if (pbf) pbf[i] = f32_to_bf16_bits(np);
    }
}

// partials[block] = Σ x[i]² over the block's grid-stride share, in double.
// The host sums the partials in block order (deterministic).
extern "C" __global__ void sumsq_partial(double* partials, const float* x, long n) {
    __shared__ double sh[32];
    double s = 0.0;
    GRID_STRIDE(i, n) {
        double v = (double)x[i];
        s += v * v;
    }
    s = block_sum_d(s, sh);
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
}
