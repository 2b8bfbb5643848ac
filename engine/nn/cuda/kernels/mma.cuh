// Tensor-core and vector-memory helpers: small inline-PTX wrappers, the
// only places the kernels use mma.sync, ldmatrix, cvt.bf16x2 and vector
// loads. The CUDA emulator (emu/cuda_shim.h) defines the same functions
// (the matrix operations as warp-collective operations with the PTX ISA's
// fragment layouts, emu/fiber.cpp), so every kernel built on them is checked
// against the CPU backend without a GPU.
//
// Fragments (PTX ISA "Matrix Fragments for mma.m16n8k16 with floating point
// type"; lane l: g = l >> 2, t = l % 4; a 32-bit register holds two bf16,
// the lower index in the low half):
//   A (16×16 row-major, 4 regs): a[0] = (g, 2t..2t+1), a[1] = (g+8, 2t..),
//     a[2] = (g, 2t+8..), a[3] = (g+8, 2t+8..)
//   B (16×8, k×n, 2 regs):       b[0] = (k 2t..2t+1, n g), b[1] = (k 2t+8.., n g)
//   C/D (16×8 fp32, 4 floats):   d[0..1] = (g, 2t..2t+1), d[2..3] = (g+8, 2t..)
// ldmatrix .x4: lanes 8j..8j+7 give the row addresses of 8×8 matrix j;
// lane l gets r[j] = matrix j's (row l/4, cols 2(l%4)..+1), or with .trans
// (rows 2(l%4)..+1, col l/4).
#pragma once

#ifndef AMT_CUDA_EMULATOR
// d (16×8 fp32) += a (16×16 bf16) · b (16×8 bf16)
__device__ __forceinline__ void mma_bf16_16816(float* d, const unsigned* a, const unsigned* b) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void ldmatrix_x4(unsigned* r, const void* p) {
    unsigned s = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s)
                 : "memory");
}

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned* r, const void* p) {
    unsigned s = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s)
                 : "memory");
}

// Two floats rounded to nearest-even bf16, lo in the low half.
__device__ __forceinline__ unsigned pack_bf16x2(float lo, float hi) {
    unsigned r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
__device__ __forceinline__ float bf16_lo(unsigned v) { return __uint_as_float(v << 16); }
__device__ __forceinline__ float bf16_hi(unsigned v) { return __uint_as_float(v & 0xffff0000u); }

__device__ __forceinline__ float4 ld_f4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ void st_u2(unsigned short* p, unsigned lo, unsigned hi) {
    *reinterpret_cast<uint2*>(p) = make_uint2(lo, hi);
}
__device__ __forceinline__ void st_u1(unsigned short* p, unsigned v) { *reinterpret_cast<unsigned*>(p) = v; }
__device__ __forceinline__ void st_f2(float* p, float a, float b) {
    *reinterpret_cast<float2*>(p) = make_float2(a, b);
}
#endif
