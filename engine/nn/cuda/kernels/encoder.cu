// Token + position embedding, forward and backward. Shapes as in
// engine/nn.Backend: out (B,T,C), wte (V,C), wpe (≥T,C), tokens (B,T).
#include "common.cuh"

// out[b,t,:] = wte[tokens[b,t],:] + wpe[t,:]
extern "C" __global__ void encoder_forward(float* out, const float* wte, const float* wpe,
                                           const int* tokens, int B, int T, int C) {
    long n = (long)B * T * C;
    GRID_STRIDE(i, n) {
        long bt = i / C;
        int c = (int)(i % C), t = (int)(bt % T);
        out[i] = wte[(long)tokens[bt] * C + c] + wpe[(long)t * C + c];
    }
}

// dwte[tokens[b,t],:] += dout[b,t,:]. Repeated tokens meet in atomics (the
// order of the float additions is not fixed: bitwise results may differ from
// run to run by rounding).
extern "C" __global__ void encoder_backward_wte(float* dwte, const float* dout, const int* tokens,
                                                int B, int T, int C) {
    long n = (long)B * T * C;
    GRID_STRIDE(i, n) {
        long bt = i / C;
        int c = (int)(i % C);
        atomicAdd(&dwte[(long)tokens[bt] * C + c], dout[i]);
    }
}

// dwpe[t,:] += Σ_b dout[b,t,:] (deterministic: one thread per (t,c)).
extern "C" __global__ void encoder_backward_wpe(float* dwpe, const float* dout, int B, int T, int C) {
    long n = (long)T * C;
    GRID_STRIDE(i, n) {
        float s = 0.0f;
        for (int b = 0; b < B; b++) s += dout[(long)b * T * C + i];
        dwpe[i] += s;
    }
}
