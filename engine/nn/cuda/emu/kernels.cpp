// kernels.cpp: the repository's CUDA C kernels compiled for the CPU with
// cuda_shim.h, and the table cuModuleGetFunction looks names up in. The
// sources are included as they are (the same files nvcc turned into the
// embedded PTX); nothing here changes what a kernel computes.
#include <cstring>
#include <utility>

#include "cuda_shim.h"
#include "emu.h"

#include "../kernels/attention.cu"
#include "../kernels/crossentropy.cu"
#include "../kernels/decode.cu"
#include "../kernels/elementwise.cu"
#include "../kernels/encoder.cu"
#include "../kernels/flash.cu"
#include "../kernels/layernorm.cu"
#include "../kernels/optimizer.cu"

namespace amtemu {
namespace {

template <typename T>
struct Kind;
template <typename T>
struct Kind<T*> {
    static constexpr ParamKind k = P_PTR;
};
template <>
struct Kind<int> {
    static constexpr ParamKind k = P_INT;
};
template <>
struct Kind<long> {
    static constexpr ParamKind k = P_LONG;
};
template <>
struct Kind<float> {
    static constexpr ParamKind k = P_FLOAT;
};

template <typename T>
T arg(const uint64_t* a, size_t i) {
    T v;
    std::memcpy(&v, &a[i], sizeof(T));  // little-endian: the low bytes of the slot
    return v;
}

template <typename... A, size_t... I>
void call(void (*f)(A...), const uint64_t* a, std::index_sequence<I...>) {
    f(arg<A>(a, I)...);
}

template <auto F>
struct Entry;
template <typename... A, void (*F)(A...)>
struct Entry<F> {
    static void run(const uint64_t* a) { call(F, a, std::index_sequence_for<A...>{}); }
    static std::vector<ParamKind> kinds() { return {Kind<A>::k...}; }
};

#define K(name) Kernel{#name, Entry<name>::kinds(), &Entry<name>::run}

const std::vector<Kernel>& table() {
    static const std::vector<Kernel> t = {
        K(encoder_forward),
        K(encoder_backward_wte),
        K(encoder_backward_wpe),
        K(layernorm_forward),
        K(layernorm_backward_dinp),
        K(layernorm_backward_partial),
        K(gelu_forward),
        K(gelu_backward),
        K(add_forward),
        K(accumulate),
        K(bias_fill),
        K(column_sum_partial),
        K(column_reduce_add),
        K(column_reduce_add2),
        K(bias_gelu_forward),
        K(residual_bias),
        K(f32_to_bf16),
        K(crossentropy_forward),
        K(crossentropy_backward),
        K(adamw_update),
        K(sumsq_partial),
        K(attn_forward_hs32),
        K(attn_forward_hs64),
        K(attn_forward_hs128),
        K(attn_backward_pre_hs32),
        K(attn_backward_pre_hs64),
        K(attn_backward_pre_hs128),
        K(attn_backward_dq_hs32),
        K(attn_backward_dq_hs64),
        K(attn_backward_dq_hs128),
        K(attn_backward_dk_hs32),
        K(attn_backward_dk_hs64),
        K(attn_backward_dk_hs128),
        K(attn_backward_dv_hs32),
        K(attn_backward_dv_hs64),
        K(attn_backward_dv_hs128),
        K(attn_step),
        K(fa_forward_hs64),
        K(fa_backward_pre_hs64),
        K(fa_backward_hs64),
        K(dec_embed),
        K(dec_matvec),
        K(dec_attend),
        K(dec_logits),
    };
    return t;
}

std::vector<const Kernel*>& extra() {
    static std::vector<const Kernel*> e;
    return e;
}

}  // namespace

void add_kernel(const Kernel* k) { extra().push_back(k); }

const Kernel* find_kernel(const char* name) {
    for (const Kernel& k : table())
        if (std::strcmp(k.name, name) == 0) return &k;
    for (const Kernel* k : extra())
        if (std::strcmp(k->name, name) == 0) return k;
    return nullptr;
}

std::vector<const Kernel*> all_kernels() {
    std::vector<const Kernel*> out;
    for (const Kernel& k : table()) out.push_back(&k);
    return out;
}

}  // namespace amtemu
