// cuda_shim.h: just enough of CUDA C's device dialect for the kernels in
// ../kernels/*.cu to compile with the host C++ compiler, one CUDA thread per
// fiber (fiber.cpp). What the kernels use, and nothing else: the built-in
// indices, static __shared__ memory, __syncthreads, full-warp
// __shfl_xor_sync on float and double, float atomicAdd, bit casts and the
// single-precision maths. A kernel that uses more fails to compile here,
// which is the point: the emulator must grow with the kernels.
#pragma once

#include <cmath>
#include <cstring>

namespace amtemu {
struct uint3v {
    unsigned int x, y, z;
};
// The indices of the CUDA thread that runs now (set by the scheduler at
// every switch; kernels read them through the macros below).
extern uint3v cur_tid, cur_bid, cur_bdim, cur_gdim;
// Barriers and shuffles switch fibers; they live in fiber.cpp (another
// translation unit: the compiler must assume they change cur_tid).
void syncthreads();
float shfl_xor(unsigned mask, float v, int lane_mask);
double shfl_xor_d(unsigned mask, double v, int lane_mask);
}  // namespace amtemu

#define threadIdx amtemu::cur_tid
#define blockIdx amtemu::cur_bid
#define blockDim amtemu::cur_bdim
#define gridDim amtemu::cur_gdim

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
// One block runs at a time (fiber.cpp), so a function-static array is the
// block's shared memory.
#define __shared__ static

inline void __syncthreads() { amtemu::syncthreads(); }
inline float __shfl_xor_sync(unsigned mask, float v, int m) { return amtemu::shfl_xor(mask, v, m); }
inline double __shfl_xor_sync(unsigned mask, double v, int m) { return amtemu::shfl_xor_d(mask, v, m); }

// Blocks run one after another and the threads of a block take turns only
// at barriers and shuffles, so a read-modify-write is atomic.
inline float atomicAdd(float* p, float v) {
    float old = *p;
    *p = old + v;
    return old;
}

inline float __int_as_float(int i) {
    float f;
    std::memcpy(&f, &i, 4);
    return f;
}
inline unsigned int __float_as_uint(float f) {
    unsigned int u;
    std::memcpy(&u, &f, 4);
    return u;
}
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
// expf, logf, tanhf, fmaxf, sqrtf: the C library's, from <cmath>.
