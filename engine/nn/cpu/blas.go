package cpu

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>

// openblas_get_corename is OpenBLAS's own; weak so that another BLAS links.
extern char *openblas_get_corename(void) __attribute__((weak));

static const char *amt_blas_core(void) {
	return openblas_get_corename ? openblas_get_corename() : "unknown";
}
*/
import "C"

import "unsafe"

// BLAS threading: the engine's own worker pool owns all the parallelism and
// splits each product into row or column blocks, one per worker; OpenBLAS is
// used as a single-threaded kernel on each block (openblas_set_num_threads(1)
// at start-up). This avoids oversubscribing the cores when several workers
// call sgemm at once (attention runs one small product per batch and head in
// every worker) and keeps results bit-identical from run to run, because the
// split is fixed by the worker count. SetBLASThreads changes it for the
// benchmark that measures OpenBLAS's own threaded rate.

func init() { C.openblas_set_num_threads(1) }

// BLASCore names the kernel set OpenBLAS chose ("Cooperlake", "SkylakeX",
// "Haswell", …): a DYNAMIC_ARCH build picks it from the CPU at load time, or
// from the OPENBLAS_CORETYPE environment variable, which this package
// respects. On the AVX-512 dev VM the AVX2 "Haswell" kernels run sgemm at
// about half the rate of the AVX-512 ones, so benchmarks report it.
func BLASCore() string { return C.GoString(C.amt_blas_core()) }

// SetBLASThreads sets OpenBLAS's own thread count (process-wide). Only the
// engine benchmark uses it, to measure OpenBLAS with its own threading as the
// baseline; restore 1 afterwards.
func SetBLASThreads(n int) { C.openblas_set_num_threads(C.int(n)) }

// sgemm computes C = alpha·op(A)·op(B) + beta·C on row-major matrices:
// op(A) is M×K, op(B) is K×N, C is M×N.
func sgemm(transA, transB bool, M, N, K int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if M == 0 || N == 0 {
		return
	}
	ta, tb := C.enum_CBLAS_TRANSPOSE(C.CblasNoTrans), C.enum_CBLAS_TRANSPOSE(C.CblasNoTrans)
	if transA {
		ta = C.CblasTrans
	}
	if transB {
		tb = C.CblasTrans
	}
	C.cblas_sgemm(C.CblasRowMajor, ta, tb, C.blasint(M), C.blasint(N), C.blasint(K),
		C.float(alpha), (*C.float)(unsafe.Pointer(&a[0])), C.blasint(lda),
		(*C.float)(unsafe.Pointer(&b[0])), C.blasint(ldb),
		C.float(beta), (*C.float)(unsafe.Pointer(&c[0])), C.blasint(ldc))
}

// sgemv computes y = alpha·op(A)·x + beta·y with A row-major rows×cols.
func sgemv(trans bool, rows, cols int, alpha float32, a []float32, lda int, x []float32, beta float32, y []float32) {
	if rows == 0 || cols == 0 {
		return
	}
	t := C.enum_CBLAS_TRANSPOSE(C.CblasNoTrans)
	if trans {
		t = C.CblasTrans
	}
	C.cblas_sgemv(C.CblasRowMajor, t, C.blasint(rows), C.blasint(cols), C.float(alpha),
		(*C.float)(unsafe.Pointer(&a[0])), C.blasint(lda),
		(*C.float)(unsafe.Pointer(&x[0])), 1, C.float(beta), (*C.float)(unsafe.Pointer(&y[0])), 1)
}
