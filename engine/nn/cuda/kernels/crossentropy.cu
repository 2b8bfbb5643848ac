// Softmax + cross-entropy over rows of V logits. One block per row.
#include "common.cuh"

// probs (N,V) = softmax(logits); losses[n] = -log probs[n, targets[n]],
// 0 where targets is null or targets[n] < 0 (ignored positions).
extern "C" __global__ void crossentropy_forward(float* losses, float* probs, const float* logits,
                                                const int* targets, int N, int V) {
    __shared__ float sh[32];
    int row = blockIdx.x;
    if (row >= N) return;
    const float* l = logits + (long)row * V;
    float* p = probs + (long)row * V;
    float mx = AMT_NEG_INF;
    for (int i = threadIdx.x; i < V; i += blockDim.x) mx = fmaxf(mx, l[i]);
    mx = block_max(mx, sh);
    float s = 0.0f;
    for (int i = threadIdx.x; i < V; i += blockDim.x) {
        float e = expf(l[i] - mx);
        p[i] = e;
        s += e;
    }
    s = block_sum(s, sh);
    float inv = 1.0f / s;
    for (int i = threadIdx.x; i < V; i += blockDim.x) p[i] *= inv;
    if (threadIdx.x == 0) {
        int t = targets ? targets[row] : -1;
        // -log softmax from the logits, not from the rounded probability.
        losses[row] = t < 0 ? 0.0f : logf(s) - (l[t] - mx);
    }
}

// dlogits += (probs - onehot(targets))·scale for rows whose target is ≥ 0;
// dlbf (if not null) = dlogits in bf16 (every element).
extern "C" __global__ void crossentropy_backward(float* dlogits, unsigned short* dlbf, const float* probs,
                                                 const int* targets, int N, int V, float scale) {
    long n = (long)N * V;
    GRID_STRIDE(i, n) {
        int row = (int)(i / V), c = (int)(i % V);
        int t = targets[row];
        float d = dlogits[i];
        if (t >= 0) {
            d += (probs[i] - (c == t ? 1.0f : 0.0f)) * scale;
            dlogits[i] = d;
        }
        if (dlbf) dlbf[i] = f32_to_bf16_bits(d);
    }
}
