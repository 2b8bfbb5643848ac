// cuda_shim.h: just enough of CUDA C's device dialect for the kernels in
// ../kernels/*.cu to compile with the host C++ compiler, one CUDA thread per
// fiber (fiber.cpp). What the kernels use, and nothing else: the built-in
// indices, static __shared__ memory, __syncthreads, full-warp
// __shfl_xor_sync on float and double, float and unsigned atomicAdd,
// __threadfence, bit casts, the
// single-precision maths, 16-byte vector loads (alignment checked), and the
// tensor-core wrappers of ../kernels/mma.cuh (mma.sync m16n8k16 bf16 and
// ldmatrix .x4, as warp-collective operations in fiber.cpp, and the bf16x2
// packing). A kernel that uses more fails to compile here, which is the
// point: the emulator must grow with the kernels.
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
// Warp-collective matrix operations (fiber.cpp, which holds the PTX ISA's
// fragment layouts): every lane of the warp must reach the same one.
void warp_mma_bf16(float* d, const unsigned* a, const unsigned* b);
void warp_ldmatrix_x4(unsigned* r, const void* row, bool trans);
// check_align makes the launch fault (as a misaligned access does on a GPU)
// when p is not a multiple of bytes.
void check_align(const void* p, unsigned bytes, const char* what);
}  // namespace amtemu

// kernels/*.cuh test it to choose the emulator's definitions over inline PTX.
#define AMT_CUDA_EMULATOR 1

#define threadIdx amtemu::cur_tid
#define blockIdx amtemu::cur_bid
#define blockDim amtemu::cur_bdim
#define gridDim amtemu::cur_gdim

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
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

inline unsigned atomicAdd(unsigned* p, unsigned v) {
    unsigned old = *p;
    *p = old + v;
    return old;
}
// Blocks run one after another: every write is visible to later blocks.
inline void __threadfence() {}

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

// Vector types and the loads and stores the kernels make with them (through
// these helpers only, so that alignment is checked).
struct float4 {
    float x, y, z, w;
};
inline float4 ld_f4(const float* p) {
    amtemu::check_align(p, 16, "a 16-byte load");
    float4 v;
    std::memcpy(&v, p, 16);
    return v;
}
inline void st_u2(unsigned short* p, unsigned lo, unsigned hi) {
    amtemu::check_align(p, 8, "an 8-byte store");
    std::memcpy(p, &lo, 4);
    std::memcpy(p + 2, &hi, 4);
}
inline void st_u1(unsigned short* p, unsigned v) {
    amtemu::check_align(p, 4, "a 4-byte store");
    std::memcpy(p, &v, 4);
}
inline void st_f2(float* p, float a, float b) {
    amtemu::check_align(p, 8, "an 8-byte store");
    p[0] = a;
    p[1] = b;
}

// The tensor-core wrappers of kernels/mma.cuh.
inline void mma_bf16_16816(float* d, const unsigned* a, const unsigned* b) { amtemu::warp_mma_bf16(d, a, b); }
inline void ldmatrix_x4(unsigned* r, const void* p) { amtemu::warp_ldmatrix_x4(r, p, false); }
inline void ldmatrix_x4_trans(unsigned* r, const void* p) { amtemu::warp_ldmatrix_x4(r, p, true); }
// cvt.rn.bf16x2.f32: round to nearest even, lo in the low half; NaN becomes
// the canonical 0x7fff.
inline unsigned short amtemu_bf16_rn(float f) {
    unsigned int u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fff;
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}
inline unsigned pack_bf16x2(float lo, float hi) { return unsigned(amtemu_bf16_rn(lo)) | unsigned(amtemu_bf16_rn(hi)) << 16; }
inline float bf16_lo(unsigned v) { return __int_as_float(int(v << 16)); }
inline float bf16_hi(unsigned v) { return __int_as_float(int(v & 0xffff0000u)); }
