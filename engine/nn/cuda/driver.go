//go:build cgo && linux

package cuda

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

// The few CUDA driver API and cuBLAS types we use, declared from the CUDA
// documentation (no CUDA header is needed to build).
typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef void* CUmodule;
typedef void* CUfunction;
typedef void* CUstream;
typedef void* CUevent;
typedef void* CUgraph;
typedef void* CUgraphExec;
typedef unsigned long long CUdeviceptr;
typedef void* cublasHandle_t;
typedef int cublasStatus_t;

typedef struct {
	void* lib;
	void* blas;
	void* blasLt;
	CUresult (*cuInit)(unsigned int);
	CUresult (*cuDriverGetVersion)(int*);
	CUresult (*cuDeviceGetCount)(int*);
	CUresult (*cuDeviceGet)(CUdevice*, int);
	CUresult (*cuDeviceGetName)(char*, int, CUdevice);
	CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
	CUresult (*cuDeviceTotalMem)(size_t*, CUdevice);
	CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
	CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
	CUresult (*cuCtxSetCurrent)(CUcontext);
	CUresult (*cuCtxSynchronize)(void);
	CUresult (*cuMemGetInfo)(size_t*, size_t*);
	CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
	CUresult (*cuMemFree)(CUdeviceptr);
	CUresult (*cuMemAllocHost)(void**, size_t);
	CUresult (*cuMemFreeHost)(void*);
	CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void*, size_t, CUstream);
	CUresult (*cuMemcpyDtoHAsync)(void*, CUdeviceptr, size_t, CUstream);
	CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned int, size_t, CUstream);
	CUresult (*cuStreamCreate)(CUstream*, unsigned int);
	CUresult (*cuStreamDestroy)(CUstream);
	CUresult (*cuStreamSynchronize)(CUstream);
	CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned int);
	CUresult (*cuEventCreate)(CUevent*, unsigned int);
	CUresult (*cuEventDestroy)(CUevent);
	CUresult (*cuEventRecord)(CUevent, CUstream);
	CUresult (*cuEventSynchronize)(CUevent);
	CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);
	CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned int, int*, void**);
	CUresult (*cuModuleUnload)(CUmodule);
	CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
	CUresult (*cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
		unsigned int, unsigned int, CUstream, void**, void**);
	CUresult (*cuGetErrorName)(CUresult, const char**);
	// CUDA graphs (optional: without them decoding launches its kernels one by one)
	CUresult (*cuStreamBeginCapture)(CUstream, int);
	CUresult (*cuStreamEndCapture)(CUstream, CUgraph*);
	CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec*, CUgraph, unsigned long long);
	CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
	CUresult (*cuGraphExecDestroy)(CUgraphExec);
	CUresult (*cuGraphDestroy)(CUgraph);
	CUresult (*cuGetErrorString)(CUresult, const char**);

	cublasStatus_t (*cublasCreate)(cublasHandle_t*);
	cublasStatus_t (*cublasDestroy)(cublasHandle_t);
	cublasStatus_t (*cublasSetStream)(cublasHandle_t, CUstream);
	cublasStatus_t (*cublasSetMathMode)(cublasHandle_t, int);
	cublasStatus_t (*cublasGetVersion)(cublasHandle_t, int*);
	cublasStatus_t (*cublasGemmEx)(cublasHandle_t, int, int, int, int, int, const void*, const void*, int, int,
		const void*, int, int, const void*, void*, int, int, int, int);
	size_t (*cublasLtGetVersion)(void);
} amt_api;

static amt_api api;
static __thread CUcontext amt_tls_ctx;

// Go goroutines move between OS threads, and the CUDA context current on a
// thread is per thread. Every entry point that touches the GPU makes the
// calling backend's context current first (one thread-local compare in the
// common case); each backend passes its own, so backends on two devices
// never see each other's.
static CUresult amt_ctx(CUcontext c) {
	if (amt_tls_ctx == c) return 0;
	CUresult r = api.cuCtxSetCurrent(c);
	if (r == 0) amt_tls_ctx = c;
	return r;
}

#define SYM(lib, field, name) do { \
	*(void**)(&a.field) = dlsym(lib, name); \
	if (!a.field) { snprintf(err, errlen, "%s", name); return 2; } \
} while (0)

#define SYM2(lib, field, name1, name2) do { \
	*(void**)(&a.field) = dlsym(lib, name1); \
	if (!a.field) *(void**)(&a.field) = dlsym(lib, name2); \
	if (!a.field) { snprintf(err, errlen, "%s", name2); return 2; } \
} while (0)

// amt_load_driver: 0 ok, 1 dlopen failed (err: dlerror), 2 missing symbol
// (err: name), 3 a driver, but another one is loaded already. The entry
// points are resolved into a copy and installed only when all are there, so
// a failed attempt leaves a loaded driver as it was.
static int amt_load_driver(const char* path, char* err, int errlen) {
	void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char* e = dlerror();
		snprintf(err, errlen, "%s", e ? e : "dlopen failed");
		return 1;
	}
	if (lib == api.lib) return 0; // the same library again
	amt_api a = api;
	a.lib = lib;
	SYM(lib, cuInit, "cuInit");
	SYM(lib, cuDriverGetVersion, "cuDriverGetVersion");
	SYM(lib, cuDeviceGetCount, "cuDeviceGetCount");
	SYM(lib, cuDeviceGet, "cuDeviceGet");
	SYM(lib, cuDeviceGetName, "cuDeviceGetName");
	SYM(lib, cuDeviceGetAttribute, "cuDeviceGetAttribute");
	SYM(lib, cuDeviceTotalMem, "cuDeviceTotalMem_v2");
	SYM(lib, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	SYM2(lib, cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
	SYM(lib, cuCtxSetCurrent, "cuCtxSetCurrent");
	SYM(lib, cuCtxSynchronize, "cuCtxSynchronize");
	SYM(lib, cuMemGetInfo, "cuMemGetInfo_v2");
	SYM(lib, cuMemAlloc, "cuMemAlloc_v2");
	SYM(lib, cuMemFree, "cuMemFree_v2");
	SYM(lib, cuMemAllocHost, "cuMemAllocHost_v2");
	SYM(lib, cuMemFreeHost, "cuMemFreeHost");
	SYM(lib, cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
	SYM(lib, cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
	SYM(lib, cuMemsetD32Async, "cuMemsetD32Async");
	SYM(lib, cuStreamCreate, "cuStreamCreate");
	SYM2(lib, cuStreamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy");
	SYM(lib, cuStreamSynchronize, "cuStreamSynchronize");
	SYM(lib, cuStreamWaitEvent, "cuStreamWaitEvent");
	SYM(lib, cuEventCreate, "cuEventCreate");
	SYM2(lib, cuEventDestroy, "cuEventDestroy_v2", "cuEventDestroy");
	SYM(lib, cuEventRecord, "cuEventRecord");
	SYM(lib, cuEventSynchronize, "cuEventSynchronize");
	SYM2(lib, cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
	SYM(lib, cuModuleLoadDataEx, "cuModuleLoadDataEx");
	SYM(lib, cuModuleUnload, "cuModuleUnload");
	SYM(lib, cuModuleGetFunction, "cuModuleGetFunction");
	SYM(lib, cuLaunchKernel, "cuLaunchKernel");
	SYM(lib, cuGetErrorName, "cuGetErrorName");
	SYM(lib, cuGetErrorString, "cuGetErrorString");
	*(void**)(&a.cuStreamBeginCapture) = dlsym(lib, "cuStreamBeginCapture_v2");
	if (!a.cuStreamBeginCapture) *(void**)(&a.cuStreamBeginCapture) = dlsym(lib, "cuStreamBeginCapture");
	*(void**)(&a.cuStreamEndCapture) = dlsym(lib, "cuStreamEndCapture");
	*(void**)(&a.cuGraphInstantiateWithFlags) = dlsym(lib, "cuGraphInstantiateWithFlags");
	*(void**)(&a.cuGraphLaunch) = dlsym(lib, "cuGraphLaunch");
	*(void**)(&a.cuGraphExecDestroy) = dlsym(lib, "cuGraphExecDestroy");
	*(void**)(&a.cuGraphDestroy) = dlsym(lib, "cuGraphDestroy");
	if (api.lib) return 3; // a driver, but another one is loaded already
	api = a;
	return 0;
}

// amt_load_blas: cuBLASLt is opened first (cuBLAS needs it) when ltPath is
// set. Like the driver, the entry points are installed only when all load.
static int amt_load_blas(const char* path, const char* ltPath, char* err, int errlen) {
	void* lt = 0;
	if (ltPath && ltPath[0]) lt = dlopen(ltPath, RTLD_NOW | RTLD_GLOBAL);
	void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char* e = dlerror();
		snprintf(err, errlen, "%s", e ? e : "dlopen failed");
		return 1;
	}
	amt_api a = api;
	a.blas = lib;
	a.blasLt = lt;
	a.cublasLtGetVersion = 0;
	if (lt) *(void**)(&a.cublasLtGetVersion) = dlsym(lt, "cublasLtGetVersion");
	SYM(lib, cublasCreate, "cublasCreate_v2");
	SYM(lib, cublasDestroy, "cublasDestroy_v2");
	SYM(lib, cublasSetStream, "cublasSetStream_v2");
	SYM(lib, cublasSetMathMode, "cublasSetMathMode");
	SYM(lib, cublasGetVersion, "cublasGetVersion_v2");
	SYM(lib, cublasGemmEx, "cublasGemmEx");
	api = a;
	return 0;
}

static size_t amt_lt_version(void) { return api.cublasLtGetVersion ? api.cublasLtGetVersion() : 0; }

static const char* amt_error_name(CUresult r) {
	const char* s = 0;
	if (api.cuGetErrorName && api.cuGetErrorName(r, &s) == 0 && s) return s;
	return "";
}

static const char* amt_error_string(CUresult r) {
	const char* s = 0;
	if (api.cuGetErrorString && api.cuGetErrorString(r, &s) == 0 && s) return s;
	return "";
}

static CUresult amt_init(void) { return api.cuInit(0); }
static CUresult amt_driver_version(int* v) { return api.cuDriverGetVersion(v); }
static CUresult amt_device_count(int* n) { return api.cuDeviceGetCount(n); }

// CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16, _COMPUTE_CAPABILITY_MAJOR = 75, _MINOR = 76.
static CUresult amt_device_info(int ordinal, CUdevice* dev, char* name, int namelen, int* major, int* minor, int* sms, size_t* mem) {
	CUresult r = api.cuDeviceGet(dev, ordinal);
	if (r) return r;
	if ((r = api.cuDeviceGetName(name, namelen, *dev))) return r;
	if ((r = api.cuDeviceGetAttribute(major, 75, *dev))) return r;
	if ((r = api.cuDeviceGetAttribute(minor, 76, *dev))) return r;
	if ((r = api.cuDeviceGetAttribute(sms, 16, *dev))) return r;
	return api.cuDeviceTotalMem(mem, *dev);
}

static CUresult amt_ctx_retain(CUdevice dev, CUcontext* c) {
	CUresult r = api.cuDevicePrimaryCtxRetain(c, dev);
	if (r) return r;
	return amt_ctx(*c);
}
static CUresult amt_ctx_release(CUdevice dev) {
	// A thread's cache of the current context must not outlive it.
	amt_tls_ctx = 0;
	return api.cuDevicePrimaryCtxRelease(dev);
}
static CUresult amt_sync(CUcontext c) { CUresult r = amt_ctx(c); return r ? r : api.cuCtxSynchronize(); }
static CUresult amt_mem_info(CUcontext c, size_t* fr, size_t* total) { CUresult r = amt_ctx(c); return r ? r : api.cuMemGetInfo(fr, total); }

static CUresult amt_malloc(CUcontext c, CUdeviceptr* p, size_t n) { CUresult r = amt_ctx(c); return r ? r : api.cuMemAlloc(p, n); }
static CUresult amt_free(CUcontext c, CUdeviceptr p) { CUresult r = amt_ctx(c); return r ? r : api.cuMemFree(p); }
static CUresult amt_host_alloc(CUcontext c, void** p, size_t n) { CUresult r = amt_ctx(c); return r ? r : api.cuMemAllocHost(p, n); }
static CUresult amt_host_free(CUcontext c, void* p) { CUresult r = amt_ctx(c); return r ? r : api.cuMemFreeHost(p); }

static CUresult amt_htod(CUcontext c, CUdeviceptr dst, const void* src, size_t n, CUstream s) {
	CUresult r = amt_ctx(c);
	return r ? r : api.cuMemcpyHtoDAsync(dst, src, n, s);
}
// Copies to host and waits, in one call, so a Go destination is never
// referenced by the driver after the call returns.
static CUresult amt_dtoh_sync(CUcontext c, void* dst, CUdeviceptr src, size_t n, CUstream s) {
	CUresult r = amt_ctx(c);
	if (r) return r;
	if ((r = api.cuMemcpyDtoHAsync(dst, src, n, s))) return r;
	return api.cuStreamSynchronize(s);
}
static CUresult amt_memset32(CUcontext c, CUdeviceptr dst, unsigned int v, size_t n, CUstream s) {
	CUresult r = amt_ctx(c);
	return r ? r : api.cuMemsetD32Async(dst, v, n, s);
}

// CU_STREAM_NON_BLOCKING = 1: no implicit sync with the legacy default stream.
static CUresult amt_stream_create(CUcontext c, CUstream* s) { CUresult r = amt_ctx(c); return r ? r : api.cuStreamCreate(s, 1); }
static CUresult amt_stream_destroy(CUcontext c, CUstream s) { CUresult r = amt_ctx(c); return r ? r : api.cuStreamDestroy(s); }
static CUresult amt_stream_sync(CUcontext c, CUstream s) { CUresult r = amt_ctx(c); return r ? r : api.cuStreamSynchronize(s); }
static CUresult amt_stream_wait(CUcontext c, CUstream s, CUevent e) { CUresult r = amt_ctx(c); return r ? r : api.cuStreamWaitEvent(s, e, 0); }

// flags 0: timing event; 2 (CU_EVENT_DISABLE_TIMING): ordering only.
static CUresult amt_event_create(CUcontext c, CUevent* e, unsigned int flags) { CUresult r = amt_ctx(c); return r ? r : api.cuEventCreate(e, flags); }
static CUresult amt_event_destroy(CUcontext c, CUevent e) { CUresult r = amt_ctx(c); return r ? r : api.cuEventDestroy(e); }
static CUresult amt_event_record(CUcontext c, CUevent e, CUstream s) { CUresult r = amt_ctx(c); return r ? r : api.cuEventRecord(e, s); }
static CUresult amt_event_sync(CUcontext c, CUevent e) { CUresult r = amt_ctx(c); return r ? r : api.cuEventSynchronize(e); }
static CUresult amt_event_elapsed(CUcontext c, float* ms, CUevent a, CUevent b) { CUresult r = amt_ctx(c); return r ? r : api.cuEventElapsedTime(ms, a, b); }

// CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6.
static CUresult amt_module_load(CUcontext c, CUmodule* m, const void* image, char* log, size_t loglen) {
	CUresult r = amt_ctx(c);
	if (r) return r;
	int opts[2] = {5, 6};
	void* vals[2] = {(void*)log, (void*)loglen};
	return api.cuModuleLoadDataEx(m, image, 2, opts, vals);
}
static CUresult amt_module_unload(CUcontext c, CUmodule m) { CUresult r = amt_ctx(c); return r ? r : api.cuModuleUnload(m); }
static CUresult amt_module_function(CUcontext c, CUfunction* f, CUmodule m, const char* name) {
	CUresult r = amt_ctx(c);
	return r ? r : api.cuModuleGetFunction(f, m, name);
}

// Kernel arguments live in C memory (8 bytes a slot, 32-bit values
// zero-extended) so no Go pointer is handed to the driver; the driver copies
// them at launch. kernelParams ends with NULL: the driver reads only as many
// as the kernel has, and the CUDA emulator checks the count with it.
typedef struct { unsigned long long v[24]; } amt_args;

static CUresult amt_launch(CUcontext c, CUfunction f, unsigned int gx, unsigned int gy, unsigned int bx, unsigned int smem,
		CUstream s, amt_args* a, int n) {
	CUresult r = amt_ctx(c);
	if (r) return r;
	void* params[25];
	for (int i = 0; i < n; i++) params[i] = &a->v[i];
	params[n] = 0;
	return api.cuLaunchKernel(f, gx, gy, 1, bx, 1, 1, smem, s, params, 0);
}

static int amt_has_graphs(void) {
	return api.cuStreamBeginCapture && api.cuStreamEndCapture && api.cuGraphInstantiateWithFlags && api.cuGraphLaunch &&
		api.cuGraphExecDestroy && api.cuGraphDestroy;
}
// CU_STREAM_CAPTURE_MODE_RELAXED = 2: other threads' calls are not restricted.
static CUresult amt_capture_begin(CUcontext c, CUstream s) { CUresult r = amt_ctx(c); return r ? r : api.cuStreamBeginCapture(s, 2); }
static CUresult amt_capture_end(CUcontext c, CUstream s, CUgraph* g) { CUresult r = amt_ctx(c); return r ? r : api.cuStreamEndCapture(s, g); }
static CUresult amt_graph_instantiate(CUcontext c, CUgraphExec* e, CUgraph g) {
	CUresult r = amt_ctx(c);
	return r ? r : api.cuGraphInstantiateWithFlags(e, g, 0);
}
static CUresult amt_graph_launch(CUcontext c, CUgraphExec e, CUstream s) { CUresult r = amt_ctx(c); return r ? r : api.cuGraphLaunch(e, s); }
static CUresult amt_graph_exec_destroy(CUcontext c, CUgraphExec e) { CUresult r = amt_ctx(c); return r ? r : api.cuGraphExecDestroy(e); }
static CUresult amt_graph_destroy(CUcontext c, CUgraph g) { CUresult r = amt_ctx(c); return r ? r : api.cuGraphDestroy(g); }

static cublasStatus_t amt_blas_create(CUcontext c, cublasHandle_t* h, CUstream s, int mathMode, int* version) {
	CUresult r = amt_ctx(c);
	if (r) return 1;
	cublasStatus_t st = api.cublasCreate(h);
	if (st) return st;
	if ((st = api.cublasSetStream(*h, s))) return st;
	if ((st = api.cublasSetMathMode(*h, mathMode))) return st;
	return api.cublasGetVersion(*h, version);
}
static cublasStatus_t amt_blas_destroy(CUcontext c, cublasHandle_t h) { if (amt_ctx(c)) return 1; return api.cublasDestroy(h); }

// Column-major C = alpha·op(A)·op(B) + beta·C; alpha and beta are float
// (compute types 32F*).
static cublasStatus_t amt_gemm(CUcontext c, cublasHandle_t h, int ta, int tb, int m, int n, int k, float alpha,
		CUdeviceptr A, int atype, int lda, CUdeviceptr B, int btype, int ldb, float beta,
		CUdeviceptr C, int ctype, int ldc, int compute) {
	if (amt_ctx(c)) return 1;
	return api.cublasGemmEx(h, ta, tb, m, n, k, &alpha, (const void*)A, atype, lda, (const void*)B, btype, ldb,
		&beta, (void*)C, ctype, ldc, compute, -1);
}
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"
)

// The C glue above is the whole of the package's cgo; the rest of the
// package calls these Go wrappers.

type (
	cuCtx       = C.CUcontext
	cuStream    = C.CUstream
	cuEvent     = C.CUevent
	cuModule    = C.CUmodule
	cuFunction  = C.CUfunction
	cuGraph     = C.CUgraph
	cuGraphExec = C.CUgraphExec
	blasHandle  = C.cublasHandle_t
)

func cuErr(op string, r C.CUresult) error {
	if r == 0 {
		return nil
	}
	code := int(r)
	name := C.GoString(C.amt_error_name(r))
	if name == "" {
		name = resultName(code)
	}
	return &DriverError{Op: op, Code: code, Name: name, Msg: C.GoString(C.amt_error_string(r))}
}

func blasErr(op string, st C.cublasStatus_t) error {
	if st == 0 {
		return nil
	}
	return &DriverError{Op: op, Code: int(st), Name: cublasStatusName(int(st))}
}

// loadDriver dlopens the driver library and resolves every entry point.
func loadDriver(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var buf [512]C.char
	switch C.amt_load_driver(cpath, &buf[0], C.int(len(buf))) {
	case 0:
		return nil
	case 3:
		return fmt.Errorf("%w: %s: another CUDA driver (%s) is loaded in this process already", ErrNoDriver, path, driverOK)
	case 1:
		why := C.GoString(&buf[0])
		if strings.Contains(why, "No such file") || strings.Contains(why, "cannot open shared object") {
			return fmt.Errorf("%w: %s not found (%s)", ErrNoDriver, path, why)
		}
		return fmt.Errorf("%w: %s is not a loadable library (%s)", ErrNoDriver, path, why)
	default:
		return fmt.Errorf("%w: %s is not a CUDA driver: missing symbol %s", ErrNoDriver, path, C.GoString(&buf[0]))
	}
}

// loadCublas tries each candidate soname in turn.
func loadCublas(paths []string) (string, error) {
	var tried []string
	for _, p := range paths {
		lt := strings.Replace(p, "libcublas.", "libcublasLt.", 1)
		cp, clt := C.CString(p), C.CString(lt)
		var buf [512]C.char
		r := C.amt_load_blas(cp, clt, &buf[0], C.int(len(buf)))
		C.free(unsafe.Pointer(cp))
		C.free(unsafe.Pointer(clt))
		switch r {
		case 0:
			return p, nil
		case 1:
			tried = append(tried, p)
		default:
			return "", fmt.Errorf("%w: %s lacks %s", ErrNoCUBLAS, p, C.GoString(&buf[0]))
		}
	}
	return "", fmt.Errorf("%w: none of %s found", ErrNoCUBLAS, strings.Join(tried, ", "))
}

func cublasLtVersion() int { return int(C.amt_lt_version()) }

func cuInit() error { return cuErr("cuInit", C.amt_init()) }

func driverVersion() (int, error) {
	var v C.int
	err := cuErr("cuDriverGetVersion", C.amt_driver_version(&v))
	return int(v), err
}

func deviceCount() (int, error) {
	var n C.int
	err := cuErr("cuDeviceGetCount", C.amt_device_count(&n))
	return int(n), err
}

// DeviceInfo describes the GPU a backend runs on.
type DeviceInfo struct {
	Ordinal       int
	Name          string
	Major, Minor  int // compute capability
	SMs           int
	TotalMemory   uint64
	DriverVersion int // e.g. 12040 for 12.4
	CublasVersion int
	CublasLt      int // cublasLtGetVersion, 0 when not loaded
	CublasPath    string
}

func deviceInfo(ordinal int) (DeviceInfo, C.CUdevice, error) {
	var dev C.CUdevice
	var name [256]C.char
	var major, minor, sms C.int
	var mem C.size_t
	err := cuErr("cuDeviceGet", C.amt_device_info(C.int(ordinal), &dev, &name[0], C.int(len(name)), &major, &minor, &sms, &mem))
	return DeviceInfo{Ordinal: ordinal, Name: C.GoString(&name[0]), Major: int(major), Minor: int(minor), SMs: int(sms), TotalMemory: uint64(mem)}, dev, err
}

func ctxRetain(dev C.CUdevice) (cuCtx, error) {
	var c C.CUcontext
	err := cuErr("cuDevicePrimaryCtxRetain", C.amt_ctx_retain(dev, &c))
	return c, err
}
func ctxRelease(dev C.CUdevice) error {
	return cuErr("cuDevicePrimaryCtxRelease", C.amt_ctx_release(dev))
}
func ctxSync(c cuCtx) error { return cuErr("cuCtxSynchronize", C.amt_sync(c)) }

func memInfo(c cuCtx) (free, total uint64, err error) {
	var f, t C.size_t
	err = cuErr("cuMemGetInfo", C.amt_mem_info(c, &f, &t))
	return uint64(f), uint64(t), err
}

func memAlloc(c cuCtx, bytes int) (uintptr, error) {
	var p C.CUdeviceptr
	if err := cuErr("cuMemAlloc", C.amt_malloc(c, &p, C.size_t(bytes))); err != nil {
		return 0, err
	}
	return uintptr(p), nil
}

func memFree(c cuCtx, p uintptr) error { return cuErr("cuMemFree", C.amt_free(c, C.CUdeviceptr(p))) }

func hostAlloc(c cuCtx, bytes int) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	if err := cuErr("cuMemAllocHost", C.amt_host_alloc(c, &p, C.size_t(bytes))); err != nil {
		return nil, err
	}
	return p, nil
}

func hostFree(c cuCtx, p unsafe.Pointer) error { return cuErr("cuMemFreeHost", C.amt_host_free(c, p)) }

// htod copies bytes from host memory to the device, ordered on stream s.
// From pageable (Go) memory the driver stages the data before returning;
// from pinned memory it returns at once and the caller keeps the memory
// untouched until an event after the copy completes.
func htod(c cuCtx, dst uintptr, src unsafe.Pointer, bytes int, s cuStream) error {
	return cuErr("cuMemcpyHtoDAsync", C.amt_htod(c, C.CUdeviceptr(dst), src, C.size_t(bytes), s))
}

func dtohSync(c cuCtx, dst unsafe.Pointer, src uintptr, bytes int, s cuStream) error {
	return cuErr("cuMemcpyDtoHAsync", C.amt_dtoh_sync(c, dst, C.CUdeviceptr(src), C.size_t(bytes), s))
}

func memset32(c cuCtx, dst uintptr, v uint32, n int, s cuStream) error {
	return cuErr("cuMemsetD32Async", C.amt_memset32(c, C.CUdeviceptr(dst), C.uint(v), C.size_t(n), s))
}

func streamCreate(c cuCtx) (cuStream, error) {
	var s C.CUstream
	err := cuErr("cuStreamCreate", C.amt_stream_create(c, &s))
	return s, err
}

func streamDestroy(c cuCtx, s cuStream) error {
	return cuErr("cuStreamDestroy", C.amt_stream_destroy(c, s))
}
func streamSync(c cuCtx, s cuStream) error {
	return cuErr("cuStreamSynchronize", C.amt_stream_sync(c, s))
}
func streamWait(c cuCtx, s cuStream, e cuEvent) error {
	return cuErr("cuStreamWaitEvent", C.amt_stream_wait(c, s, e))
}

func eventCreate(c cuCtx, timing bool) (cuEvent, error) {
	var e C.CUevent
	flags := C.uint(2)
	if timing {
		flags = 0
	}
	err := cuErr("cuEventCreate", C.amt_event_create(c, &e, flags))
	return e, err
}

func eventDestroy(c cuCtx, e cuEvent) error {
	return cuErr("cuEventDestroy", C.amt_event_destroy(c, e))
}
func eventRecord(c cuCtx, e cuEvent, s cuStream) error {
	return cuErr("cuEventRecord", C.amt_event_record(c, e, s))
}
func eventSync(c cuCtx, e cuEvent) error { return cuErr("cuEventSynchronize", C.amt_event_sync(c, e)) }
func eventElapsedMs(c cuCtx, a, b cuEvent) (float32, error) {
	var ms C.float
	err := cuErr("cuEventElapsedTime", C.amt_event_elapsed(c, &ms, a, b))
	return float32(ms), err
}

// moduleLoad JIT-compiles a PTX image (NUL-terminated); the JIT's error log
// is added to the error.
func moduleLoad(c cuCtx, name string, ptx []byte) (cuModule, error) {
	img := C.CBytes(append(append([]byte(nil), ptx...), 0))
	defer C.free(img)
	log := (*C.char)(C.calloc(8192, 1))
	defer C.free(unsafe.Pointer(log))
	var m C.CUmodule
	if err := cuErr("cuModuleLoadDataEx", C.amt_module_load(c, &m, img, log, 8191)); err != nil {
		if s := strings.TrimSpace(C.GoString(log)); s != "" {
			return nil, fmt.Errorf("cuda: load %s: %w\n%s", name, err, s)
		}
		return nil, fmt.Errorf("cuda: load %s: %w", name, err)
	}
	return m, nil
}

func moduleUnload(c cuCtx, m cuModule) error {
	return cuErr("cuModuleUnload", C.amt_module_unload(c, m))
}

func moduleFunction(c cuCtx, m cuModule, name string) (cuFunction, error) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var f C.CUfunction
	err := cuErr("cuModuleGetFunction", C.amt_module_function(c, &f, m, cn))
	return f, err
}

// argBuf is kernel-argument memory in C; vals aliases it.
type argBuf struct {
	c    *C.amt_args
	vals []uint64
	n    int
}

func newArgBuf() *argBuf {
	c := (*C.amt_args)(C.calloc(1, C.size_t(unsafe.Sizeof(C.amt_args{}))))
	return &argBuf{c: c, vals: unsafe.Slice((*uint64)(unsafe.Pointer(c)), 24)}
}

func (a *argBuf) free() { C.free(unsafe.Pointer(a.c)) }

func launch(c cuCtx, f cuFunction, gx, gy, bx, smem int, s cuStream, a *argBuf) error {
	return cuErr("cuLaunchKernel", C.amt_launch(c, f, C.uint(gx), C.uint(gy), C.uint(bx), C.uint(smem), s, a.c, C.int(a.n)))
}

// cuBLAS math modes and types (values from the cuBLAS documentation).
const (
	blasDefaultMath = 0
	blasTF32Math    = 3
	dtypeF32        = 0  // CUDA_R_32F
	dtypeBF16       = 14 // CUDA_R_16BF
	compute32F      = 68 // CUBLAS_COMPUTE_32F
	compute32FTF32  = 77 // CUBLAS_COMPUTE_32F_FAST_TF32
	opN, opT        = 0, 1
)

func blasCreate(c cuCtx, s cuStream, mathMode int) (blasHandle, int, error) {
	var h C.cublasHandle_t
	var v C.int
	err := blasErr("cublasCreate", C.amt_blas_create(c, &h, s, C.int(mathMode), &v))
	return h, int(v), err
}

func blasDestroy(c cuCtx, h blasHandle) error {
	return blasErr("cublasDestroy", C.amt_blas_destroy(c, h))
}

func gemm(ctx cuCtx, h blasHandle, ta, tb, m, n, k int, alpha float32, a uintptr, atype, lda int, b uintptr, btype, ldb int,
	beta float32, c uintptr, ctype, ldc, compute int) error {
	return blasErr("cublasGemmEx", C.amt_gemm(ctx, h, C.int(ta), C.int(tb), C.int(m), C.int(n), C.int(k), C.float(alpha),
		C.CUdeviceptr(a), C.int(atype), C.int(lda), C.CUdeviceptr(b), C.int(btype), C.int(ldb), C.float(beta),
		C.CUdeviceptr(c), C.int(ctype), C.int(ldc), C.int(compute)))
}

// devHandle is a CUdevice.
type devHandle = C.CUdevice

// hasGraphs reports whether the driver has the CUDA graph entry points.
func hasGraphs() bool { return C.amt_has_graphs() != 0 }

func captureBegin(c cuCtx, s cuStream) error {
	return cuErr("cuStreamBeginCapture", C.amt_capture_begin(c, s))
}

func captureEnd(c cuCtx, s cuStream) (cuGraph, error) {
	var g C.CUgraph
	err := cuErr("cuStreamEndCapture", C.amt_capture_end(c, s, &g))
	return g, err
}

func graphInstantiate(c cuCtx, g cuGraph) (cuGraphExec, error) {
	var e C.CUgraphExec
	err := cuErr("cuGraphInstantiateWithFlags", C.amt_graph_instantiate(c, &e, g))
	return e, err
}

func graphLaunch(c cuCtx, e cuGraphExec, s cuStream) error {
	return cuErr("cuGraphLaunch", C.amt_graph_launch(c, e, s))
}

func graphExecDestroy(c cuCtx, e cuGraphExec) error {
	return cuErr("cuGraphExecDestroy", C.amt_graph_exec_destroy(c, e))
}

func graphDestroy(c cuCtx, g cuGraph) error {
	return cuErr("cuGraphDestroy", C.amt_graph_destroy(c, g))
}
