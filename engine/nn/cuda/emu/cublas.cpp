// cublas.cpp: the cuBLAS entry points engine/nn/cuda uses (cublasCreate_v2,
// cublasDestroy_v2, cublasSetStream_v2, cublasSetMathMode,
// cublasGetVersion_v2, cublasGemmEx), in the same library as the driver so
// they share its contexts, streams and memory. GemmEx is a plain
// column-major product: inputs rounded as the tensor cores would take them
// (bf16 operands exactly; fp32 operands to TF32, 10 mantissa bits, round to
// nearest even, under CUBLAS_COMPUTE_32F_FAST_TF32 or the TF32 math mode),
// fp32 accumulation in k order, C = alpha·op(A)·op(B) + beta·C with C not
// read when beta = 0. It checks the handle's context, the stream, the
// types, the leading dimensions and that every operand lies in device
// memory of the context.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "driver.h"

#define API extern "C" __attribute__((visibility("default")))

using namespace amtemu;

namespace {

enum : int {
    S_OK = 0,
    S_NOT_INITIALIZED = 1,
    S_INVALID_VALUE = 7,
    S_EXECUTION_FAILED = 13,
    S_NOT_SUPPORTED = 15,
};

struct Handle {
    Ctx* ctx;
    void* stream = nullptr;
    int math = 0;
};
std::set<Handle*> handles;

int bmisuse(const std::string& op, int code, const std::string& msg) {
    misuse(op, 0, msg);
    return code;
}

// check returns the handle when it is live and its context is current.
Handle* check(const char* op, void* h, int* st) {
    auto* hd = static_cast<Handle*>(h);
    if (!handles.count(hd)) {
        *st = bmisuse(op, S_NOT_INITIALIZED, "not a live cuBLAS handle");
        return nullptr;
    }
    int code = 0;
    Ctx* c = current(op, &code);
    if (!c) {
        *st = code == E_INVALID_CONTEXT || code == E_NOT_INITIALIZED ? S_NOT_INITIALIZED : S_EXECUTION_FAILED;
        return nullptr;
    }
    if (c != hd->ctx) {
        *st = bmisuse(op, S_NOT_INITIALIZED, "the handle was created in another context than the current one");
        return nullptr;
    }
    return hd;
}

float bf16_to_f32(uint16_t b) {
    uint32_t u = uint32_t(b) << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float to_tf32(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7f800000u) != 0x7f800000u) {  // finite: round to 10 mantissa bits
        u += 0xfffu + ((u >> 13) & 1u);
        u &= ~0x1fffu;
    }
    memcpy(&f, &u, 4);
    return f;
}

}  // namespace

#define LOCK std::lock_guard<std::recursive_mutex> guard(lock())

API int cublasCreate_v2(void** out) {
    LOCK;
    int code = 0;
    Ctx* c = current("cublasCreate_v2", &code);
    if (!c) return S_NOT_INITIALIZED;
    if (injected("cublasCreate_v2", S_NOT_INITIALIZED)) return S_NOT_INITIALIZED;
    auto* h = new Handle{c};
    handles.insert(h);
    *out = h;
    return S_OK;
}

API int cublasDestroy_v2(void* h) {
    LOCK;
    int st = 0;
    Handle* hd = check("cublasDestroy_v2", h, &st);
    if (!hd) return st;
    handles.erase(hd);
    return S_OK;
}

API int cublasSetStream_v2(void* h, void* s) {
    LOCK;
    int st = 0;
    Handle* hd = check("cublasSetStream_v2", h, &st);
    if (!hd) return st;
    if (!is_stream(hd->ctx, s)) return bmisuse("cublasSetStream_v2", S_INVALID_VALUE, "not a live stream of the handle's context");
    hd->stream = s;
    return S_OK;
}

API int cublasSetMathMode(void* h, int mode) {
    LOCK;
    int st = 0;
    Handle* hd = check("cublasSetMathMode", h, &st);
    if (!hd) return st;
    int base = mode & ~16;  // 16: CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION
    if (base < 0 || base > 3) return bmisuse("cublasSetMathMode", S_INVALID_VALUE, "mode " + std::to_string(mode));
    hd->math = mode;
    return S_OK;
}

API int cublasGetVersion_v2(void* h, int* v) {
    LOCK;
    int st = 0;
    if (!check("cublasGetVersion_v2", h, &st)) return st;
    *v = 120000;
    return S_OK;
}

API size_t cublasLtGetVersion(void) { return 0; }

API int cublasGemmEx(void* h, int ta, int tb, int m, int n, int k, const void* alpha, const void* A, int atype,
                     int lda, const void* B, int btype, int ldb, const void* beta, void* C, int ctype, int ldc,
                     int compute, int algo) {
    LOCK;
    const char* op = "cublasGemmEx";
    int st = 0;
    Handle* hd = check(op, h, &st);
    if (!hd) return st;
    if (int r = injected(op, S_EXECUTION_FAILED)) return r;
    Ctx* c = hd->ctx;
    if (!is_stream(c, hd->stream)) return bmisuse(op, S_INVALID_VALUE, "the handle's stream was destroyed");
    const int F32 = 0, BF16 = 14, C32F = 68, C32F_TF32 = 77;
    if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1))
        return bmisuse(op, S_INVALID_VALUE, "transa/transb must be N or T");
    if (m < 0 || n < 0 || k < 0) return bmisuse(op, S_INVALID_VALUE, "negative m, n or k");
    if (atype != btype || (atype != F32 && atype != BF16) || ctype != F32)
        return bmisuse(op, S_NOT_SUPPORTED,
                       "types A " + std::to_string(atype) + " B " + std::to_string(btype) + " C " + std::to_string(ctype) +
                           ": the emulator does fp32 or bf16 inputs with fp32 output");
    if (compute != C32F && compute != C32F_TF32) return bmisuse(op, S_NOT_SUPPORTED, "compute type " + std::to_string(compute));
    if (algo != -1 && algo != 99) return bmisuse(op, S_INVALID_VALUE, "algo " + std::to_string(algo));
    int arows = ta ? k : m, acols = ta ? m : k;
    int brows = tb ? n : k, bcols = tb ? k : n;
    if (lda < std::max(1, arows) || ldb < std::max(1, brows) || ldc < std::max(1, m))
        return bmisuse(op, S_INVALID_VALUE,
                       "leading dimensions lda " + std::to_string(lda) + " ldb " + std::to_string(ldb) + " ldc " +
                           std::to_string(ldc) + " below the rows " + std::to_string(arows) + ", " + std::to_string(brows) +
                           ", " + std::to_string(m));
    if (m == 0 || n == 0) return S_OK;
    size_t es = atype == BF16 ? 2 : 4;
    auto span = [](int rows, int cols, int ld, size_t es) { return (size_t(ld) * (cols - 1) + rows) * es; };
    std::string why;
    if (k > 0 && !device_range(c, uintptr_t(A), span(arows, acols, lda, es), &why)) return bmisuse(op, S_EXECUTION_FAILED, "A: " + why);
    if (k > 0 && !device_range(c, uintptr_t(B), span(brows, bcols, ldb, es), &why)) return bmisuse(op, S_EXECUTION_FAILED, "B: " + why);
    if (!device_range(c, uintptr_t(C), span(m, n, ldc, 4), &why)) return bmisuse(op, S_EXECUTION_FAILED, "C: " + why);
    float al, be;
    memcpy(&al, alpha, 4);  // host pointer mode (the default)
    memcpy(&be, beta, 4);
    bool tf32 = atype == F32 && (compute == C32F_TF32 || (hd->math & 15) == 3);
    if (tracing())
        report("trace", op, "m " + std::to_string(m) + " n " + std::to_string(n) + " k " + std::to_string(k) +
                                (atype == BF16 ? " bf16" : tf32 ? " tf32" : " fp32"));
    Op o;
    o.what = "cublasGemmEx";
    o.touches = {{uintptr_t(A), 1}, {uintptr_t(B), 1}, {uintptr_t(C), 1}};
    o.fn = [=]() {
        auto load = [&](const void* p, int ld, bool trans, int rows, int cols, std::vector<float>& out) {
            // out: the operand op(X) as a column-major rows×cols matrix
            out.resize(size_t(rows) * cols);
            for (int j = 0; j < cols; j++)
                for (int i = 0; i < rows; i++) {
                    size_t at = trans ? size_t(i) * ld + j : size_t(j) * ld + i;
                    float v = atype == BF16 ? bf16_to_f32(static_cast<const uint16_t*>(p)[at]) : static_cast<const float*>(p)[at];
                    out[size_t(j) * rows + i] = tf32 ? to_tf32(v) : v;
                }
        };
        std::vector<float> a, b, acc(static_cast<size_t>(m));
        load(A, lda, ta, m, k, a);
        load(B, ldb, tb, k, n, b);
        float* cp = static_cast<float*>(C);
        for (int j = 0; j < n; j++) {
            std::fill(acc.begin(), acc.end(), 0.0f);
            for (int l = 0; l < k; l++) {
                float bv = b[size_t(j) * k + l];
                const float* ac = &a[size_t(l) * m];
                for (int i = 0; i < m; i++) acc[i] += ac[i] * bv;
            }
            float* col = cp + size_t(j) * ldc;
            for (int i = 0; i < m; i++) col[i] = be == 0.0f ? al * acc[i] : al * acc[i] + be * col[i];
        }
    };
    enqueue(stream_of(c, hd->stream), std::move(o));
    return c->sticky ? S_EXECUTION_FAILED : S_OK;
}
