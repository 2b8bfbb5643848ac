// selftest.cpp: tests of the emulator itself, built with its sources and
// run by `make test` before the Go GPU tests use it. Each check calls the
// driver or cuBLAS entry points the way a program would and asserts the
// result a real driver gives (or, where the emulator is stricter, the
// report it writes). Run: bin/cuda-emu/selftest [kernels-dir]
#include <dirent.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cuda_shim.h"
#include "driver.h"
#include "emu.h"

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
extern "C" {
CUresult cuInit(unsigned);
CUresult cuDevicePrimaryCtxRetain(void**, int);
CUresult cuDevicePrimaryCtxRelease_v2(int);
CUresult cuCtxSetCurrent(void*);
CUresult cuCtxSynchronize(void);
CUresult cuMemAlloc_v2(CUdeviceptr*, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemAllocHost_v2(void**, size_t);
CUresult cuMemFreeHost(void*);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr, const void*, size_t, void*);
CUresult cuMemcpyDtoHAsync_v2(void*, CUdeviceptr, size_t, void*);
CUresult cuMemsetD32Async(CUdeviceptr, unsigned, size_t, void*);
CUresult cuStreamCreate(void**, unsigned);
CUresult cuStreamSynchronize(void*);
CUresult cuStreamWaitEvent(void*, void*, unsigned);
CUresult cuEventCreate(void**, unsigned);
CUresult cuEventDestroy_v2(void*);
CUresult cuEventRecord(void*, void*);
CUresult cuEventSynchronize(void*);
CUresult cuEventElapsedTime(float*, void*, void*);
CUresult cuModuleLoadDataEx(void**, const void*, unsigned, int*, void**);
CUresult cuModuleGetFunction(void**, void*, const char*);
CUresult cuLaunchKernel(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                        void**);
CUresult cuStreamBeginCapture_v2(void*, int);
CUresult cuStreamEndCapture(void*, void**);
CUresult cuGraphInstantiateWithFlags(void**, void*, unsigned long long);
CUresult cuGraphLaunch(void*, void*);
CUresult cuGraphExecDestroy(void*);
CUresult cuGraphDestroy(void*);
int cublasCreate_v2(void**);
int cublasSetStream_v2(void*, void*);
int cublasSetMathMode(void*, int);
int cublasGemmEx(void*, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                 const void*, void*, int, int, int, int);
}

using namespace amtemu;

static int failures = 0;
static std::string logpath;

#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (!(cond)) {                                           \
            failures++;                                          \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fprintf(stderr, "\n");                               \
        }                                                        \
    } while (0)

// logged returns the report lines written since the last call.
static std::string logged() {
    std::ifstream f(logpath);
    std::stringstream ss;
    ss << f.rdbuf();
    std::ofstream(logpath, std::ios::trunc).close();
    return ss.str();
}

static bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// ---- test kernels (CUDA C through the shim, like the real ones) ----

// out[blockIdx.x] = Σ over the block of in[threadIdx.x] through shared
// memory and barriers (tree reduction), and a warp-shuffle sum per warp.
__global__ void t_reduce(float* out, float* warps, const float* in) {
    __shared__ float sh[256];
    int t = threadIdx.x;
    sh[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = sh[0];
    float v = in[blockIdx.x * blockDim.x + t];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((t & 31) == 0) warps[(blockIdx.x * blockDim.x + t) / 32] = v;
}

// Lanes 16..31 return before a full-warp shuffle: undefined on a GPU.
__global__ void t_exited(float* out) {
    if ((threadIdx.x & 31) >= 16) return;
    out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, 1.0f, 1);
}

// Half the warp waits at __syncthreads, half at a shuffle: nobody can go on.
__global__ void t_deadlock(float* out) {
    if (threadIdx.x < 16)
        __syncthreads();
    else
        out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, 1.0f, 1);
}

// mma.sync m16n8k16 bf16 on one warp: lane l's registers a[4], b[2] and
// the accumulator's bits c[4] come from regs[10l ..], d goes to out[4l ..].
__global__ void t_mma(float* out, const unsigned* regs) {
    int l = threadIdx.x & 31, w = threadIdx.x >> 5;
    const unsigned* r = regs + (w * 32 + l) * 10;
    unsigned a[4] = {r[0], r[1], r[2], r[3]}, b[2] = {r[4], r[5]};
    float d[4] = {__int_as_float(int(r[6])), __int_as_float(int(r[7])), __int_as_float(int(r[8])),
                  __int_as_float(int(r[9]))};
    mma_bf16_16816(d, a, b);
    for (int i = 0; i < 4; i++) out[(w * 32 + l) * 4 + i] = d[i];
}

// ldmatrix .x4 (trans when mode is 1) from four 8×8 matrices of 16-bit
// values held in shared memory with a row stride of 16 elements; mode 2
// gives lane 9 a row address 2 bytes off (not 16-byte aligned); mode 3
// sends lanes 0..15 to ldmatrix and 16..31 to mma (different operations).
__global__ void t_ldm(unsigned* out, const unsigned short* mats, int mode) {
    __shared__ __align__(16) unsigned short sh[4 * 8 * 16];
    for (int i = threadIdx.x; i < 4 * 8 * 16; i += blockDim.x) sh[i] = mats[i];
    __syncthreads();
    int l = threadIdx.x;
    const unsigned short* row = &sh[((l >> 3) * 8 + (l & 7)) * 16];
    if (mode == 2 && l == 9) row += 1;
    unsigned r[4] = {0, 0, 0, 0};
    if (mode == 1) {
        ldmatrix_x4_trans(r, row);
    } else if (mode == 3 && l >= 16) {
        float d[4] = {0, 0, 0, 0};
        mma_bf16_16816(d, r, r);
    } else {
        ldmatrix_x4(r, row);
    }
    for (int j = 0; j < 4; j++) out[l * 4 + j] = r[j];
}

// x[threadIdx.x] = x[threadIdx.x] * 2 + 1 (order matters: graphs must keep it).
__global__ void t_inc(float* x) { x[threadIdx.x] = x[threadIdx.x] * 2 + 1; }

template <typename T>
static T a(const uint64_t* args, int i) {
    T v;
    memcpy(&v, &args[i], sizeof v);
    return v;
}
static const Kernel k_reduce{"t_reduce", {P_PTR, P_PTR, P_PTR},
                             [](const uint64_t* x) { t_reduce(a<float*>(x, 0), a<float*>(x, 1), a<float*>(x, 2)); }};
static const Kernel k_exited{"t_exited", {P_PTR}, [](const uint64_t* x) { t_exited(a<float*>(x, 0)); }};
static const Kernel k_deadlock{"t_deadlock", {P_PTR}, [](const uint64_t* x) { t_deadlock(a<float*>(x, 0)); }};
static const Kernel k_scale{"t_scale", {P_PTR, P_INT, P_FLOAT}, [](const uint64_t*) {}};
static const Kernel k_inc{"t_inc", {P_PTR}, [](const uint64_t* x) { t_inc(a<float*>(x, 0)); }};
static const Kernel k_mma{"t_mma", {P_PTR, P_PTR},
                          [](const uint64_t* x) { t_mma(a<float*>(x, 0), a<const unsigned*>(x, 1)); }};
static const Kernel k_mma_direct{"t_mma_direct", {P_PTR, P_PTR},
                                 [](const uint64_t* x) { t_mma(a<float*>(x, 0), a<const unsigned*>(x, 1)); }};
static const Kernel k_ldm{"t_ldm", {P_PTR, P_PTR, P_INT}, [](const uint64_t* x) {
                              t_ldm(a<unsigned*>(x, 0), a<const unsigned short*>(x, 1), a<int>(x, 2));
                          }};

// The PTX the emulator reads: only the directives it parses matter.
static const char* kPTX = R"(
.version 7.8
.target sm_80
.address_size 64
.visible .entry t_reduce(
	.param .u64 t_reduce_param_0,
	.param .u64 t_reduce_param_1,
	.param .u64 t_reduce_param_2
)
{
	.shared .align 4 .b8 sh[1024];
	bar.sync 	0;
	shfl.sync.bfly.b32 	%r1|%p1, %r2, %r3, %r4, %r5;
}
.visible .entry t_exited(
	.param .u64 t_exited_param_0
)
{
	shfl.sync.bfly.b32 	%r1|%p1, %r2, %r3, %r4, %r5;
}
.visible .entry t_deadlock(
	.param .u64 t_deadlock_param_0
)
{
	bar.sync 	0;
	shfl.sync.bfly.b32 	%r1|%p1, %r2, %r3, %r4, %r5;
}
.visible .entry t_inc(
	.param .u64 t_inc_param_0
)
{
	ret;
}
.visible .entry t_mma(
	.param .u64 t_mma_param_0,
	.param .u64 t_mma_param_1
)
{
	mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};
}
.visible .entry t_mma_direct(
	.param .u64 t_mma_direct_param_0,
	.param .u64 t_mma_direct_param_1
)
{
	ret;
}
.visible .entry t_ldm(
	.param .u64 t_ldm_param_0,
	.param .u64 t_ldm_param_1,
	.param .u32 t_ldm_param_2
)
{
	.shared .align 16 .b8 sh[1024];
	bar.sync 	0;
	@%p1 ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];
	ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];
	mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};
}
.visible .entry t_scale(
	.param .u64 t_scale_param_0,
	.param .u32 t_scale_param_1,
	.param .f32 t_scale_param_2
)
{
	ret;
}
.visible .entry t_bigshared(
	.param .u64 t_bigshared_param_0
)
{
	.shared .align 4 .b8 big[50000];
	ret;
}
.visible .entry add_forward(
	.param .u64 add_forward_param_0,
	.param .u32 add_forward_param_1
)
{
	ret;
}
)";

static void* load(const char* ptx, CUresult* r, std::string* jitlog = nullptr) {
    void* m = nullptr;
    char log[512] = {0};
    int opts[2] = {5, 6};
    void* vals[2] = {log, reinterpret_cast<void*>(sizeof log)};
    *r = cuModuleLoadDataEx(&m, ptx, 2, opts, vals);
    if (jitlog) *jitlog = log;
    return m;
}

static CUresult launch(void* f, unsigned gx, unsigned gy, unsigned bx, void* s, std::vector<void*> params) {
    params.push_back(nullptr);  // as engine/nn/cuda passes them
    return cuLaunchKernel(f, gx, gy, 1, bx, 1, 1, 0, s, params.data(), nullptr);
}

static std::string read_file(const std::string& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

int main(int argc, char** argv) {
    std::string kdir = argc > 1 ? argv[1] : "engine/nn/cuda/kernels";
    char tmpl[] = "/tmp/amt-emu-selftest-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) return 2;
    close(fd);
    logpath = tmpl;
    setenv("AMT_EMU_LOG", tmpl, 1);
    setenv("AMT_EMU_DEVICES", "2", 1);
    unsetenv("AMT_EMU_LAZY");
    unsetenv("AMT_EMU_FAIL");
    add_kernel(&k_reduce);
    add_kernel(&k_exited);
    add_kernel(&k_deadlock);
    add_kernel(&k_scale);
    add_kernel(&k_mma);
    add_kernel(&k_inc);
    add_kernel(&k_mma_direct);
    add_kernel(&k_ldm);

    CUdeviceptr d = 0;
    CHECK(cuMemAlloc_v2(&d, 16) == E_NOT_INITIALIZED, "a call before cuInit");
    CHECK(cuInit(0) == OK, "cuInit");
    logged();

    // No current context.
    CHECK(cuMemAlloc_v2(&d, 16) == E_INVALID_CONTEXT, "cuMemAlloc with no context");
    CHECK(has(logged(), "no current context on the calling thread"), "reported");
    void *ctx0, *ctx1;
    CHECK(cuDevicePrimaryCtxRetain(&ctx0, 0) == OK && cuDevicePrimaryCtxRetain(&ctx1, 1) == OK, "retain");
    CHECK(ctx0 != ctx1, "one primary context per device");
    CHECK(cuCtxSetCurrent(ctx0) == OK, "set current");
    CHECK(cuMemAlloc_v2(&d, 64) == OK, "alloc");
    {
        // The current context is per thread.
        CUresult r = OK;
        CUdeviceptr d2;
        std::thread t([&] { r = cuMemAlloc_v2(&d2, 16); });
        t.join();
        CHECK(r == E_INVALID_CONTEXT, "another thread has no current context (got %d)", r);
        logged();
    }

    // Fresh memory is NaN, not zero.
    float h[64];
    CHECK(cuMemcpyDtoHAsync_v2(h, d, 64, nullptr) == OK && std::isnan(h[0]), "fresh device memory reads NaN");

    // Copies outside the allocation.
    float src[32] = {0};
    CHECK(cuMemcpyHtoDAsync_v2(d, src, 65, nullptr) == E_INVALID_VALUE, "copy 1 byte past the end");
    CHECK(has(logged(), "1 bytes past the end"), "reported");
    CHECK(cuMemcpyHtoDAsync_v2(d + 4, src, 64, nullptr) == E_INVALID_VALUE, "copy from inside past the end");
    CHECK(cuMemsetD32Async(d + 2, 0, 1, nullptr) == E_INVALID_VALUE, "unaligned memset");
    CHECK(cuMemcpyHtoDAsync_v2(reinterpret_cast<CUdeviceptr>(src), src, 4, nullptr) == E_INVALID_VALUE,
          "host memory as a device destination");
    logged();

    // Memory of another context.
    CHECK(cuCtxSetCurrent(ctx1) == OK, "switch to device 1");
    CHECK(cuMemcpyHtoDAsync_v2(d, src, 4, nullptr) == E_INVALID_VALUE, "device 0 memory with device 1 current");
    CHECK(has(logged(), "another context"), "says whose memory it is");
    void* s1 = nullptr;
    CHECK(cuStreamCreate(&s1, 1) == OK, "stream on device 1");
    CHECK(cuCtxSetCurrent(ctx0) == OK, "back to device 0");
    CHECK(cuStreamSynchronize(s1) == E_INVALID_CONTEXT, "a stream of another context");
    logged();

    // Double free, and freeing memory a lazy stream still needs.
    CUdeviceptr d3;
    CHECK(cuMemAlloc_v2(&d3, 16) == OK && cuMemFree_v2(d3) == OK, "alloc+free");
    CHECK(cuMemFree_v2(d3) == E_INVALID_VALUE && has(logged(), "freed twice"), "double free");
    setenv("AMT_EMU_LAZY", "0,1", 1);
    void *lazy0, *lazy1;
    CHECK(cuStreamCreate(&lazy0, 1) == OK && cuStreamCreate(&lazy1, 1) == OK, "streams");
    setenv("AMT_EMU_LAZY", "all", 1);
    void* lazyall;
    CHECK(cuStreamCreate(&lazyall, 1) == OK, "stream");
    unsetenv("AMT_EMU_LAZY");
    void* eager;
    CHECK(cuStreamCreate(&eager, 1) == OK, "eager stream");
    CHECK(cuMemAlloc_v2(&d3, 16) == OK && cuMemsetD32Async(d3, 0, 4, lazy0) == OK, "queued memset");
    CHECK(cuMemFree_v2(d3) == OK && has(logged(), "queued work still uses it (memset of 16 bytes on stream 0)"),
          "free of memory a queued memset uses is reported");

    // Lazy and eager streams: only events order them.
    {
        float one[4] = {1, 1, 1, 1}, out[4];
        CUdeviceptr x;
        CHECK(cuMemAlloc_v2(&x, 16) == OK, "alloc");
        CHECK(cuMemsetD32Async(x, 0, 4, lazy0) == OK, "zero on the lazy stream");
        CHECK(cuMemcpyHtoDAsync_v2(x, one, 16, eager) == OK, "ones on the eager stream");
        CHECK(cuStreamSynchronize(lazy0) == OK, "sync");
        CHECK(cuMemcpyDtoHAsync_v2(out, x, 16, eager) == OK && out[0] == 0,
              "without an event the lazy stream's zeros land last (%g)", out[0]);
        void* ev;
        CHECK(cuEventCreate(&ev, 2) == OK, "event");
        CHECK(cuMemsetD32Async(x, 0, 4, lazy0) == OK && cuEventRecord(ev, lazy0) == OK, "zero, then record");
        CHECK(cuStreamWaitEvent(eager, ev, 0) == OK && cuMemcpyHtoDAsync_v2(x, one, 16, eager) == OK,
              "wait, then ones");
        CHECK(cuMemcpyDtoHAsync_v2(out, x, 16, eager) == OK && out[0] == 1, "the wait orders them (%g)", out[0]);
        CHECK(cuEventDestroy_v2(ev) == OK, "destroy");
        CHECK(cuEventDestroy_v2(ev) == E_INVALID_HANDLE && has(logged(), "not a live event"), "double destroy");

        // Timing: never recorded, not yet run, and done.
        void *t0, *t1;
        float ms = -1;
        CHECK(cuEventCreate(&t0, 0) == OK && cuEventCreate(&t1, 0) == OK, "timing events");
        CHECK(cuEventElapsedTime(&ms, t0, t1) == E_INVALID_HANDLE && has(logged(), "never recorded"),
              "elapsed time of unrecorded events");
        CHECK(cuEventRecord(t0, lazy1) == OK && cuEventRecord(t1, lazy1) == OK, "record on a lazy stream");
        CHECK(cuEventElapsedTime(&ms, t0, t1) == E_NOT_READY, "not run yet");
        CHECK(cuEventSynchronize(t1) == OK && cuEventElapsedTime(&ms, t0, t1) == OK && ms >= 0, "done (%g ms)", ms);
        CHECK(cuMemFree_v2(x) == OK, "free");
        logged();
    }

    // Pinned memory is read when the copy runs; pageable memory at the call.
    {
        float* pin;
        CUdeviceptr x;
        float out[2];
        CHECK(cuMemAllocHost_v2(reinterpret_cast<void**>(&pin), 8) == OK && cuMemAlloc_v2(&x, 8) == OK, "allocs");
        pin[0] = 1;
        CHECK(cuMemcpyHtoDAsync_v2(x, pin, 4, lazy1) == OK, "queued copy from pinned memory");
        pin[0] = 2;
        CHECK(cuStreamSynchronize(lazy1) == OK && cuMemcpyDtoHAsync_v2(out, x, 4, eager) == OK && out[0] == 2,
              "pinned: the value at run time (%g)", out[0]);
        float pageable = 3;
        CHECK(cuMemcpyHtoDAsync_v2(x, &pageable, 4, lazy1) == OK, "queued copy from pageable memory");
        pageable = 4;
        CHECK(cuStreamSynchronize(lazy1) == OK && cuMemcpyDtoHAsync_v2(out, x, 4, eager) == OK && out[0] == 3,
              "pageable: the value at the call (%g)", out[0]);
        CHECK(cuMemcpyHtoDAsync_v2(x, pin, 4, lazy1) == OK, "queued copy");
        CHECK(cuMemFreeHost(pin) == OK && has(logged(), "queued work still uses it"), "freeing busy pinned memory");
        CHECK(cuMemFree_v2(x) == OK, "free");
    }

    // PTX: a newer target, entries and parameter lists.
    {
        CUresult r;
        std::string jit;
        std::string sm90 = kPTX;
        sm90.replace(sm90.find("sm_80"), 5, "sm_90");
        load(sm90.c_str(), &r, &jit);
        CHECK(r == E_INVALID_PTX && has(jit, "sm_90"), "sm_90 PTX on an sm_80 device (%d, log %s)", r, jit.c_str());
        logged();
        void* m = load(kPTX, &r);
        CHECK(r == OK, "load the test PTX (%d)", r);
        void *f, *fexit, *fdead, *fscale, *fbig;
        CHECK(cuModuleGetFunction(&f, m, "nope") == E_NOT_FOUND, "unknown entry");
        CHECK(cuModuleGetFunction(&f, m, "t_bigshared") == E_NOT_FOUND && has(logged(), "has no CPU build"),
              "an entry without a CPU build");
        CHECK(cuModuleGetFunction(&f, m, "add_forward") == E_INVALID_IMAGE && has(logged(), "the PTX is stale"),
              "a parameter list that differs from the source's");
        CHECK(cuModuleGetFunction(&f, m, "t_reduce") == OK && cuModuleGetFunction(&fexit, m, "t_exited") == OK &&
                  cuModuleGetFunction(&fdead, m, "t_deadlock") == OK && cuModuleGetFunction(&fscale, m, "t_scale") == OK,
              "functions");

        // Arguments and limits.
        CUdeviceptr x;
        CHECK(cuMemAlloc_v2(&x, 4096) == OK, "alloc");
        uint64_t px = x, n32 = 7, f32 = 0x3f800000, wide = uint64_t(1) << 33;
        CHECK(launch(fscale, 1, 1, 32, eager, {&px, &n32, &f32}) == OK, "a good launch");
        std::vector<void*> few = {&px, &n32, nullptr};
        CHECK(cuLaunchKernel(fscale, 1, 1, 1, 32, 1, 1, 0, eager, few.data(), nullptr) == E_INVALID_VALUE &&
                  has(logged(), "2 arguments given, the PTX declares 3"),
              "too few arguments");
        CHECK(launch(fscale, 1, 1, 32, eager, {&px, &n32, &f32, &px}) == E_INVALID_VALUE &&
                  has(logged(), "more arguments given"),
              "too many arguments");
        CHECK(launch(fscale, 1, 1, 32, eager, {&px, &wide, &f32}) == E_INVALID_VALUE && has(logged(), "64-bit value"),
              "a 64-bit value for a .u32 parameter");
        CHECK(launch(fscale, 1, 65536, 32, eager, {&px, &n32, &f32}) == E_INVALID_VALUE && has(logged(), "65535"),
              "grid y of 65,536");
        CHECK(launch(fscale, 1, 65535, 32, eager, {&px, &n32, &f32}) == OK, "grid y of 65,535");
        CHECK(launch(fscale, 1, 1, 1025, eager, {&px, &n32, &f32}) == E_INVALID_VALUE, "1,025 threads");
        std::string big = std::string(kPTX);
        big.replace(big.find("sh[1024]"), 8, "sh[49153]");
        void* mbig = load(big.c_str(), &r);
        CHECK(r == OK && cuModuleGetFunction(&fbig, mbig, "t_reduce") == OK, "big shared");
        CHECK(launch(fbig, 1, 1, 32, eager, {&px, &px, &px}) == E_INVALID_VALUE && has(logged(), "48 KiB"),
              "static shared memory over 48 KiB");

        // Barriers and shuffles.
        float in[512], out[2], warps[16];
        double want0 = 0, want1 = 0;
        for (int i = 0; i < 512; i++) in[i] = float(i % 7) - 2.5f, (i < 256 ? want0 : want1) += in[i];
        CUdeviceptr din, dout, dw;
        CHECK(cuMemAlloc_v2(&din, sizeof in) == OK && cuMemAlloc_v2(&dout, 8) == OK && cuMemAlloc_v2(&dw, 64) == OK,
              "allocs");
        CHECK(cuMemcpyHtoDAsync_v2(din, in, sizeof in, eager) == OK, "upload");
        uint64_t pin_ = din, pout = dout, pw = dw;
        CHECK(launch(f, 2, 1, 256, eager, {&pout, &pw, &pin_}) == OK, "reduce");
        CHECK(cuMemcpyDtoHAsync_v2(out, dout, 8, eager) == OK && cuMemcpyDtoHAsync_v2(warps, dw, 64, eager) == OK,
              "download");
        CHECK(out[0] == float(want0) && out[1] == float(want1), "block sums %g %g, want %g %g", out[0], out[1], want0,
              want1);
        float w3 = 0;
        for (int i = 96; i < 128; i++) w3 += in[i];
        CHECK(warps[3] == w3, "warp sum %g, want %g", warps[3], w3);
        uint64_t host = reinterpret_cast<uintptr_t>(in);
        CHECK(launch(f, 1, 1, 256, eager, {&pout, &pw, &host}) == E_ILLEGAL_ADDRESS &&
                  has(logged(), "is not device memory of this context"),
              "a host pointer as a kernel argument");
        CHECK(cuCtxSynchronize() == E_ILLEGAL_ADDRESS, "the context is lost after it");
        logged();
    }

    // A lost context stays lost until released; device 1 is a fresh one.
    CHECK(cuCtxSetCurrent(ctx1) == OK, "device 1");
    {
        CUresult r;
        void* m = load(kPTX, &r);
        void *fexit, *fdead;
        CUdeviceptr x;
        CHECK(r == OK && cuModuleGetFunction(&fexit, m, "t_exited") == OK &&
                  cuModuleGetFunction(&fdead, m, "t_deadlock") == OK && cuMemAlloc_v2(&x, 256) == OK,
              "setup on device 1");
        uint64_t px = x;
        CHECK(launch(fexit, 1, 1, 32, nullptr, {&px}) == E_LAUNCH_FAILED, "shuffle with exited lanes");
        CHECK(has(logged(), "lanes have exited"), "reported");
        CHECK(cuCtxSynchronize() == E_LAUNCH_FAILED, "sticky");
        CHECK(cuDevicePrimaryCtxRelease_v2(1) == OK && cuDevicePrimaryCtxRetain(&ctx1, 1) == OK &&
                  cuCtxSetCurrent(ctx1) == OK,
              "reset");
        m = load(kPTX, &r);
        CHECK(r == OK && cuModuleGetFunction(&fdead, m, "t_deadlock") == OK && cuMemAlloc_v2(&x, 256) == OK, "again");
        px = x;
        CHECK(launch(fdead, 1, 1, 32, nullptr, {&px}) == E_LAUNCH_FAILED && has(logged(), "deadlock"), "deadlock");
        CHECK(cuDevicePrimaryCtxRelease_v2(1) == OK, "release");
        CHECK(cuMemAlloc_v2(&x, 4) == E_INVALID_CONTEXT && has(logged(), "destroyed"),
              "a released primary context is gone");
    }

    // Tensor-core operations: mma.sync m16n8k16 bf16 and ldmatrix .x4 on
    // hand-computed cases, whose expected values come from the PTX ISA's
    // fragment tables by hand, not from the emulator's layout code.
    CHECK(cuDevicePrimaryCtxRelease_v2(0) == OK && cuDevicePrimaryCtxRetain(&ctx0, 0) == OK &&
              cuCtxSetCurrent(ctx0) == OK,
          "fresh device 0");
    {
        CUresult r;
        void* m = load(kPTX, &r);
        void *fmma, *fdirect, *fldm;
        CHECK(r == OK && cuModuleGetFunction(&fmma, m, "t_mma") == OK && cuModuleGetFunction(&fdirect, m, "t_mma_direct") == OK &&
                  cuModuleGetFunction(&fldm, m, "t_ldm") == OK,
              "tensor-core test kernels");
        CUdeviceptr dregs, dout;
        CHECK(cuMemAlloc_v2(&dregs, 2 * 32 * 10 * 4) == OK && cuMemAlloc_v2(&dout, 2 * 32 * 4 * 4) == OK, "allocs");
        uint64_t pregs = dregs, pout = dout;
        unsigned one = amtemu_bf16_rn(1.0f);
        auto run_mma = [&](const std::vector<unsigned>& regs, std::vector<float>& d, unsigned threads = 32) {
            cuMemcpyHtoDAsync_v2(dregs, regs.data(), regs.size() * 4, nullptr);
            CUresult lr = launch(fmma, 1, 1, threads, nullptr, {&pout, &pregs});
            d.resize(threads * 4);
            cuMemcpyDtoHAsync_v2(d.data(), dout, threads * 16, nullptr);
            return lr;
        };
        // 1. One element of A: lane 5 (g 1, t 1), register a[2], high half is
        //    a5 = A(1, 2t+8+1) = A(1, 11) = 1. B's row k = 11 is b3 (high half
        //    of b[1]) of the lanes with t = 1, n = g: B(11, n) = n + 1. So
        //    D = A·B has row 1 = (1, 2, ..., 8), held by lanes 4..7 (g = 1)
        //    as d[0] = D(1, 2t), d[1] = D(1, 2t + 1); everything else is 0.
        std::vector<unsigned> regs(320, 0);
        regs[5 * 10 + 2] = one << 16;
        for (int g = 0; g < 8; g++) regs[(4 * g + 1) * 10 + 5] = unsigned(amtemu_bf16_rn(float(g + 1))) << 16;
        std::vector<float> d;
        CHECK(run_mma(regs, d) == OK, "launch mma");
        for (int l = 0; l < 32; l++)
            for (int i = 0; i < 4; i++) {
                float want = (l >= 4 && l < 8 && i < 2) ? float(2 * (l - 4) + i + 1) : 0.0f;
                CHECK(d[l * 4 + i] == want, "mma one element: lane %d d[%d] = %g, want %g", l, i, d[l * 4 + i], want);
            }
        // 2. The accumulator: lane 30 (g 7, t 2) d[3] is C(15, 5); with A = 0
        //    it comes back as it went in, and adds to a product: A(15, 0) is
        //    a2's low half (a[1]) of lane 28 (g 7, t 0); B(0, 5) is b0's low
        //    half (b[0]) of lane 20 (g 5, t 0); D(15, 5) = C(15, 5) + A·B.
        std::fill(regs.begin(), regs.end(), 0);
        float c = 0.375f;
        memcpy(&regs[30 * 10 + 9], &c, 4);
        regs[28 * 10 + 1] = amtemu_bf16_rn(3.0f);
        regs[20 * 10 + 4] = amtemu_bf16_rn(-0.5f);
        CHECK(run_mma(regs, d) == OK, "launch mma");
        CHECK(d[30 * 4 + 3] == 0.375f - 1.5f, "mma accumulates: lane 30 d[3] = %g, want %g", d[30 * 4 + 3], 0.375f - 1.5f);
        int nonzero = 0;
        for (float v : d) nonzero += v != 0;
        CHECK(nonzero == 1, "mma accumulates: %d nonzero outputs, want 1", nonzero);
        // 3. Two warps, each its own product: the second warp's lane 0 a[0]
        //    = {A(0,0), A(0,1)} = {2, 1}, lane 0 b[0] = {B(0,0), B(1,0)} =
        //    {1, 4}: D(0,0) = 2 + 4 = 6 in its lane 0's d[0].
        std::vector<unsigned> two(640, 0);
        two[32 * 10 + 0] = amtemu_bf16_rn(2.0f) | unsigned(amtemu_bf16_rn(1.0f)) << 16;
        two[32 * 10 + 4] = amtemu_bf16_rn(1.0f) | unsigned(amtemu_bf16_rn(4.0f)) << 16;
        CHECK(run_mma(two, d, 64) == OK, "launch mma on two warps");
        CHECK(d[32 * 4] == 6 && d[0] == 0, "two warps: %g %g, want 6 0", d[32 * 4], d[0]);
        logged();
        // 4. A warp with 16 lanes is a fault, and so is an mma in a kernel
        //    whose PTX has none.
        CHECK(run_mma(regs, d, 16) == E_LAUNCH_FAILED || cuCtxSynchronize() == E_LAUNCH_FAILED, "half a warp");
        CHECK(has(logged(), "lanes have exited or do not exist"), "reported");
        CHECK(cuDevicePrimaryCtxRelease_v2(0) == OK && cuDevicePrimaryCtxRetain(&ctx0, 0) == OK &&
                  cuCtxSetCurrent(ctx0) == OK,
              "fresh device 0");
        m = load(kPTX, &r);
        CHECK(r == OK && cuModuleGetFunction(&fmma, m, "t_mma") == OK && cuModuleGetFunction(&fdirect, m, "t_mma_direct") == OK &&
                  cuModuleGetFunction(&fldm, m, "t_ldm") == OK && cuMemAlloc_v2(&dregs, 2 * 32 * 10 * 4) == OK &&
                  cuMemAlloc_v2(&dout, 2 * 32 * 4 * 4) == OK,
              "again");
        pregs = dregs, pout = dout;
        CHECK(launch(fdirect, 1, 1, 32, nullptr, {&pout, &pregs}) == E_LAUNCH_FAILED && has(logged(), "PTX has none"),
              "mma in a kernel whose PTX has no mma.sync");
        CHECK(cuDevicePrimaryCtxRelease_v2(0) == OK && cuDevicePrimaryCtxRetain(&ctx0, 0) == OK &&
                  cuCtxSetCurrent(ctx0) == OK,
              "fresh device 0");
        m = load(kPTX, &r);
        CHECK(r == OK && cuModuleGetFunction(&fldm, m, "t_ldm") == OK, "again");

        // 5. ldmatrix: matrix j's element (row, col) is 64j + 8row + col.
        //    Lane 13 (13/4 = 3, 13%4 = 1), register 2 = matrix 2: without
        //    .trans (row 3, cols 2, 3) = {154, 155}; with .trans (rows 2, 3,
        //    col 3) = {147, 155}. Lane 0, register 0: {0, 1} and {0, 8}.
        std::vector<unsigned short> mats(4 * 8 * 16, 0xffff);
        for (int j = 0; j < 4; j++)
            for (int row = 0; row < 8; row++)
                for (int col = 0; col < 8; col++) mats[(j * 8 + row) * 16 + col] = (unsigned short)(64 * j + 8 * row + col);
        CUdeviceptr dm, dr;
        CHECK(cuMemAlloc_v2(&dm, mats.size() * 2) == OK && cuMemAlloc_v2(&dr, 32 * 4 * 4) == OK, "allocs");
        cuMemcpyHtoDAsync_v2(dm, mats.data(), mats.size() * 2, nullptr);
        uint64_t pm = dm, pr = dr;
        unsigned got[128];
        for (uint64_t mode : {0, 1}) {
            CHECK(launch(fldm, 1, 1, 32, nullptr, {&pr, &pm, &mode}) == OK, "ldmatrix mode %d", int(mode));
            cuMemcpyDtoHAsync_v2(got, dr, sizeof got, nullptr);
            unsigned want13 = mode ? (147u | 155u << 16) : (154u | 155u << 16);
            unsigned want0 = mode ? (0u | 8u << 16) : (0u | 1u << 16);
            CHECK(got[13 * 4 + 2] == want13, "ldmatrix%s lane 13 r[2] = %08x, want %08x", mode ? ".trans" : "",
                  got[13 * 4 + 2], want13);
            CHECK(got[0] == want0, "ldmatrix%s lane 0 r[0] = %08x, want %08x", mode ? ".trans" : "", got[0], want0);
            // every lane: 4 distinct values, all of matrix j in r[j]
            for (int l = 0; l < 32; l++)
                for (int j = 0; j < 4; j++) {
                    unsigned lo = got[l * 4 + j] & 0xffff, hi = got[l * 4 + j] >> 16;
                    CHECK(lo / 64 == unsigned(j) && hi / 64 == unsigned(j), "lane %d r[%d] from matrix %u/%u", l, j, lo / 64, hi / 64);
                    CHECK(mode ? hi == lo + 8 : hi == lo + 1, "lane %d r[%d] = %u %u", l, j, lo, hi);
                }
        }
        CHECK(logged().empty(), "no reports");
        uint64_t mode = 2;
        CHECK(launch(fldm, 1, 1, 32, nullptr, {&pr, &pm, &mode}) == E_LAUNCH_FAILED && has(logged(), "not 16-byte aligned"),
              "a misaligned ldmatrix row");
        CHECK(cuDevicePrimaryCtxRelease_v2(0) == OK && cuDevicePrimaryCtxRetain(&ctx0, 0) == OK &&
                  cuCtxSetCurrent(ctx0) == OK,
              "fresh device 0");
        m = load(kPTX, &r);
        CHECK(r == OK && cuModuleGetFunction(&fldm, m, "t_ldm") == OK && cuMemAlloc_v2(&dm, mats.size() * 2) == OK &&
                  cuMemAlloc_v2(&dr, 32 * 4 * 4) == OK,
              "again");
        pm = dm, pr = dr, mode = 3;
        CHECK(launch(fldm, 1, 1, 32, nullptr, {&pr, &pm, &mode}) == E_LAUNCH_FAILED && has(logged(), "different warp-collective"),
              "half the warp at ldmatrix, half at mma");

        // 6. PTX with a tensor instruction the emulator does not model is
        //    refused when the module loads.
        CHECK(cuDevicePrimaryCtxRelease_v2(0) == OK && cuDevicePrimaryCtxRetain(&ctx0, 0) == OK &&
                  cuCtxSetCurrent(ctx0) == OK,
              "fresh device 0");
        for (const char* other : {"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", "ldmatrix.sync.aligned.m8n8.x2.shared.b16",
                                  "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "cp.async.ca.shared.global",
                                  "shfl.sync.idx.b32"}) {
            std::string ptx = kPTX, jit;
            ptx.replace(ptx.find("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"), 51, other);
            load(ptx.c_str(), &r, &jit);
            CHECK(r == E_INVALID_PTX && has(jit, "does not emulate") && has(jit, other), "%s refused (%d, %s)", other, r, jit.c_str());
        }
        logged();
    }

    // CUDA graphs by stream capture: work is recorded, not run; a launch
    // replays it in order; what the emulator does not capture (copies,
    // synchronisation) invalidates the capture; memory freed since the
    // capture is an illegal address.
    CHECK(cuDevicePrimaryCtxRelease_v2(0) == OK && cuDevicePrimaryCtxRetain(&ctx0, 0) == OK &&
              cuCtxSetCurrent(ctx0) == OK,
          "fresh device 0");
    {
        CUresult r;
        void* m = load(kPTX, &r);
        void* finc;
        void* s;
        CUdeviceptr x;
        CHECK(r == OK && cuModuleGetFunction(&finc, m, "t_inc") == OK && cuStreamCreate(&s, 1) == OK &&
                  cuMemAlloc_v2(&x, 16) == OK,
              "setup");
        float v[4] = {0, 0, 0, 0};
        cuMemcpyHtoDAsync_v2(x, v, 16, s);
        uint64_t px = x;
        CHECK(cuStreamBeginCapture_v2(nullptr, 2) == E_STREAM_CAPTURE_UNSUPPORTED, "the NULL stream cannot be captured");
        CHECK(cuStreamBeginCapture_v2(s, 2) == OK, "begin capture");
        CHECK(launch(finc, 1, 1, 4, s, {&px}) == OK && launch(finc, 1, 1, 4, s, {&px}) == OK, "two launches captured");
        void *g, *e;
        CHECK(cuStreamEndCapture(s, &g) == OK && g, "end capture");
        CHECK(cuMemcpyDtoHAsync_v2(v, x, 16, s) == OK && v[0] == 0, "captured work did not run (%g)", v[0]);
        CHECK(cuGraphInstantiateWithFlags(&e, g, 0) == OK, "instantiate");
        CHECK(cuGraphLaunch(e, s) == OK && cuGraphLaunch(e, s) == OK, "two graph launches");
        CHECK(cuMemcpyDtoHAsync_v2(v, x, 16, s) == OK && v[3] == 15, "((0·2+1)·2+1) twice = 15, got %g", v[3]);
        CHECK(cuStreamBeginCapture_v2(s, 2) == OK, "begin capture");
        CHECK(cuMemcpyHtoDAsync_v2(x, v, 16, s) == E_STREAM_CAPTURE_UNSUPPORTED, "a copy on a capturing stream");
        CHECK(cuStreamSynchronize(s) == E_STREAM_CAPTURE_UNSUPPORTED, "synchronising a capturing stream");
        void* g2;
        CHECK(cuStreamEndCapture(s, &g2) == E_STREAM_CAPTURE_INVALIDATED && !g2 && has(logged(), "invalidated"),
              "the capture is invalidated");
        CHECK(cuStreamSynchronize(s) == OK, "the stream works again after the capture");
        CHECK(cuMemFree_v2(x) == OK, "free");
        CHECK(cuGraphLaunch(e, s) == E_ILLEGAL_ADDRESS && has(logged(), "freed since the capture"), "a graph over freed memory");
        CHECK(cuDevicePrimaryCtxRelease_v2(0) == OK && cuDevicePrimaryCtxRetain(&ctx0, 0) == OK &&
                  cuCtxSetCurrent(ctx0) == OK,
              "fresh device 0");
        CHECK(cuGraphExecDestroy(e) == E_INVALID_VALUE && cuGraphDestroy(g) == E_INVALID_VALUE && has(logged(), "not a live"),
              "graphs of a released context are gone");
        logged();
    }

    // cuBLAS: the product, its rounding, and its checks.
    CHECK(cuDevicePrimaryCtxRelease_v2(0) == OK && cuDevicePrimaryCtxRetain(&ctx0, 0) == OK &&
              cuCtxSetCurrent(ctx0) == OK,
          "fresh device 0");
    {
        void* h;
        CHECK(cublasCreate_v2(&h) == 0, "cublasCreate");
        // Column-major A (2×3), B (3×2): C = A·B.
        float A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {1, 0, -1, 2, 1, 1 + 1.0f / 4096}, C[4] = {NAN, NAN, NAN, NAN};
        CUdeviceptr dA, dB, dC;
        CHECK(cuMemAlloc_v2(&dA, 24) == OK && cuMemAlloc_v2(&dB, 24) == OK && cuMemAlloc_v2(&dC, 16) == OK, "allocs");
        cuMemcpyHtoDAsync_v2(dA, A, 24, nullptr);
        cuMemcpyHtoDAsync_v2(dB, B, 24, nullptr);
        cuMemcpyHtoDAsync_v2(dC, C, 16, nullptr);
        float one = 1, zero = 0;
        CHECK(cublasGemmEx(h, 0, 0, 2, 2, 3, &one, (void*)dA, 0, 2, (void*)dB, 0, 3, &zero, (void*)dC, 0, 2, 68, -1) == 0,
              "fp32 gemm");
        cuMemcpyDtoHAsync_v2(C, dC, 16, nullptr);
        float want[4] = {1 - 5, 2 - 6, 2 + 3 + 5 * (1 + 1.0f / 4096), 4 + 4 + 6 * (1 + 1.0f / 4096)};
        CHECK(C[0] == want[0] && C[1] == want[1] && C[2] == want[2] && C[3] == want[3],
              "fp32 C = %g %g %g %g (beta 0 ignores the NaN in C)", C[0], C[1], C[2], C[3]);
        CHECK(cublasGemmEx(h, 0, 0, 2, 2, 3, &one, (void*)dA, 0, 2, (void*)dB, 0, 3, &zero, (void*)dC, 0, 2, 77, -1) == 0,
              "tf32 gemm");
        cuMemcpyDtoHAsync_v2(C, dC, 16, nullptr);
        CHECK(C[2] == 10 && C[3] == 14, "TF32 drops 1/4096 (10 mantissa bits): %g %g", C[2], C[3]);
        // Transposes: Aᵀ is 3×2 (lda 2), so C2 (3×3) = Aᵀ·A.
        CUdeviceptr dC2;
        float C2[9];
        CHECK(cuMemAlloc_v2(&dC2, 36) == OK, "alloc");
        CHECK(cublasGemmEx(h, 1, 0, 3, 3, 2, &one, (void*)dA, 0, 2, (void*)dA, 0, 2, &zero, (void*)dC2, 0, 3, 68, -1) == 0,
              "transposed gemm");
        cuMemcpyDtoHAsync_v2(C2, dC2, 36, nullptr);
        CHECK(C2[0] == 5 && C2[1] == 11 && C2[4] == 25 && C2[8] == 61, "Aᵀ·A = %g %g %g %g", C2[0], C2[1], C2[4], C2[8]);
        CHECK(cublasGemmEx(h, 0, 0, 2, 2, 3, &one, (void*)dA, 0, 1, (void*)dB, 0, 3, &zero, (void*)dC, 0, 2, 68, -1) == 7,
              "lda below the rows");
        CHECK(cublasGemmEx(h, 0, 0, 2, 3, 3, &one, (void*)dA, 0, 2, (void*)dB, 0, 3, &zero, (void*)dC, 0, 2, 68, -1) == 13 &&
                  has(logged(), "bytes past the end"),
              "B and C too small for n = 3");
        void* c1;
        CHECK(cuDevicePrimaryCtxRetain(&c1, 1) == OK && cuCtxSetCurrent(c1) == OK, "device 1");
        CHECK(cublasGemmEx(h, 0, 0, 2, 2, 3, &one, (void*)dA, 0, 2, (void*)dB, 0, 3, &zero, (void*)dC, 0, 2, 68, -1) == 1 &&
                  has(logged(), "another context"),
              "a handle of device 0 with device 1 current");
        CHECK(cuDevicePrimaryCtxRelease_v2(1) == OK && cuCtxSetCurrent(ctx0) == OK, "back");
    }

    // Every kernel of the repository: the CPU build agrees with the
    // committed PTX on the parameters (what the Go backend's Open also does).
    {
        DIR* dir = opendir(kdir.c_str());
        CHECK(dir, "open %s", kdir.c_str());
        int modules = 0;
        std::vector<void*> mods;
        while (dir) {
            dirent* e = readdir(dir);
            if (!e) break;
            std::string n = e->d_name;
            if (n.size() < 4 || n.substr(n.size() - 4) != ".ptx") continue;
            CUresult r;
            std::string text = read_file(kdir + "/" + n);
            void* m = load(text.c_str(), &r);
            CHECK(r == OK, "load %s", n.c_str());
            mods.push_back(m);
            modules++;
        }
        if (dir) closedir(dir);
        for (const Kernel* k : all_kernels()) {
            int found = 0;
            for (void* m : mods) {
                void* f;
                CUresult r = cuModuleGetFunction(&f, m, k->name);
                CHECK(r == OK || r == E_NOT_FOUND, "%s: %d", k->name, r);
                found += r == OK;
            }
            CHECK(found == 1, "kernel %s is in %d PTX modules of %d", k->name, found, modules);
        }
        std::string rest = logged();
        CHECK(rest.empty(), "unexpected reports:\n%s", rest.c_str());
    }

    unlink(tmpl);
    if (failures) {
        fprintf(stderr, "emulator self-test: %d failures\n", failures);
        return 1;
    }
    printf("emulator self-test: ok\n");
    return 0;
}
