// Package cuda is the NVIDIA GPU backend of engine/nn. The CUDA driver API
// (libcuda.so.1) and cuBLAS (libcublas.so.13/12/11, with cuBLASLt beside it)
// are loaded at run time with dlopen/dlsym inside a sync.OnceValue, so the
// same binary builds without CUDA headers or libraries and runs on machines
// without a GPU: Open then returns an error wrapping ErrNoDriver (or
// ErrNoDevice, ErrNoCUBLAS, ErrNoPTX) and nn.OpenBackend("auto") falls back to
// the CPU backend with that message as the reason.
//
// Files: doc.go (options, errors, the kernel list), driver.go (the only cgo:
// the C declarations of the few driver/cuBLAS types and entry points we use,
// written from the CUDA documentation, and thin Go wrappers), backend.go (the
// nn.Backend over device memory, streams, pinned staging, events),
// stub_nocgo.go (builds without cgo: Open reports it), ptx.go (the kernels,
// CUDA C under kernels/, compiled to PTX by `go generate` with
// scripts/gen_ptx.sh on a machine with nvcc and embedded).
//
// Precision: matrix products in bf16 with fp32 accumulation (cublasGemmEx,
// CUBLAS_COMPUTE_32F) by default, TF32 (CUBLAS_COMPUTE_32F_FAST_TF32) or
// strict fp32 on request; attention of head size 64 on bf16 tensor cores
// (flash.cu) under bf16, fp32 otherwise; every other kernel in fp32.
//
// Testing without a GPU: emu/ is a CUDA driver and cuBLAS stand-in built
// from kernels/*.cu for the CPU, which `make test` builds and runs the
// cuda-tagged tests against (docs/GPU.md). It checks what a real driver
// would refuse, and emulates the tensor-core instructions (mma.sync,
// ldmatrix) and CUDA graphs the kernels use. The backend ran on an H100 on
// 2026-11-27 (every GPU test passed); the kernels of issue 26 (flash.cu,
// decode.cu, the fused epilogues) are verified by the emulator only until
// their first GPU run (scripts/gpu/h100-check.sh).
//
// Precision: fp32 master weights, gradients, moments and activations; the
// products' bf16 operands are copies kept beside them (backend.go: weight
// mirrors written by AdamW, activation shadows written by the kernel that
// produced the activation).
//
// Extensions beyond nn.Backend, used by engine/gpt when present:
// nn.FusedForward (products with their epilogues), nn.Decoder (a sampling
// step as one CUDA graph), nn.AttentionScratcher.
//
// Each Backend keeps its device's primary context and makes it current on
// the calling OS thread before every driver call, so backends on several
// devices can be used from any goroutine.
//
// The package must never import app/, ui/ or storage/; it imports only
// engine/nn.
package cuda

import (
	"errors"
	"fmt"
	"strings"
)

// Precision of the matrix products.
type Precision int

const (
	// BF16: operands rounded to bfloat16, fp32 accumulation and output (default).
	BF16 Precision = iota
	// TF32: fp32 operands, tensor cores with TF32 inputs.
	TF32
	// FP32: strict single precision (for tests and parity).
	FP32
)

func (p Precision) String() string {
	switch p {
	case BF16:
		return "bf16"
	case TF32:
		return "tf32"
	case FP32:
		return "fp32"
	}
	return fmt.Sprintf("Precision(%d)", int(p))
}

// ParsePrecision reads "bf16", "tf32" or "fp32".
func ParsePrecision(s string) (Precision, error) {
	switch strings.ToLower(s) {
	case "", "bf16":
		return BF16, nil
	case "tf32":
		return TF32, nil
	case "fp32", "f32":
		return FP32, nil
	}
	return 0, fmt.Errorf("cuda: unknown precision %q (bf16, tf32 or fp32)", s)
}

// Options of Open. The zero value is the default: device 0, bf16 products,
// libraries from the loader's search path.
type Options struct {
	Device    int       // CUDA device ordinal
	Precision Precision // of the matrix products
	// DriverPath overrides "libcuda.so.1" (also env AMT_CUDA_DRIVER).
	DriverPath string
	// CublasPath overrides the cuBLAS sonames tried (also env AMT_CUBLAS).
	CublasPath string
	// Attention chooses the training attention kernels (also env
	// AMT_CUDA_ATTENTION=flash|legacy when left at AttentionAuto).
	Attention Attention
}

// Attention selects the kernels of AttentionForward and AttentionBackward.
type Attention int

const (
	// AttentionAuto: the tensor-core kernels (kernels/flash.cu) where they
	// apply (bf16 precision, head size 64), else the fp32 ones
	// (kernels/attention.cu); AMT_CUDA_ATTENTION may say otherwise.
	AttentionAuto Attention = iota
	// AttentionFlash: as AttentionAuto, whatever the environment says.
	AttentionFlash
	// AttentionLegacy: always the fp32 kernels of attention.cu (the path
	// measured on an H100 on 2026-11-27), e.g. to fall back if the tensor-
	// core kernels fail on some GPU.
	AttentionLegacy
)

func (a Attention) String() string {
	switch a {
	case AttentionAuto:
		return "auto"
	case AttentionFlash:
		return "flash"
	case AttentionLegacy:
		return "legacy"
	}
	return fmt.Sprintf("Attention(%d)", int(a))
}

// ParseAttention reads "", "auto", "flash" or "legacy".
func ParseAttention(s string) (Attention, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return AttentionAuto, nil
	case "flash":
		return AttentionFlash, nil
	case "legacy":
		return AttentionLegacy, nil
	}
	return 0, fmt.Errorf("cuda: AMT_CUDA_ATTENTION=%q: want flash or legacy", s)
}

// Errors callers test with errors.Is.
var (
	// ErrNoDriver: libcuda.so.1 is absent or not a CUDA driver (or the build has no cgo).
	ErrNoDriver = errors.New("no NVIDIA driver")
	// ErrNoDevice: the driver loaded but reports no usable GPU.
	ErrNoDevice = errors.New("no CUDA device")
	// ErrNoCUBLAS: no libcublas of a supported version could be loaded.
	ErrNoCUBLAS = errors.New("no cuBLAS library")
	// ErrNoPTX: the kernels have not been compiled to PTX in this build.
	ErrNoPTX = errors.New("PTX not generated yet: run go generate ./engine/nn/cuda on a machine with nvcc")
	// ErrUnsupported: a shape the kernels do not handle (head size > 128).
	ErrUnsupported = errors.New("cuda: unsupported shape")
)

// DriverError is a failed CUDA driver or cuBLAS call.
type DriverError struct {
	Op   string // the entry point, e.g. "cuMemAlloc_v2"
	Code int    // CUresult or cublasStatus_t
	Name string // e.g. "CUDA_ERROR_OUT_OF_MEMORY"
	Msg  string // the driver's description, when it gives one
}

func (e *DriverError) Error() string {
	s := fmt.Sprintf("cuda: %s: %s (%d)", e.Op, e.Name, e.Code)
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Is lets errors.Is(err, ErrNoDevice) match the driver's "no device" codes.
func (e *DriverError) Is(target error) bool {
	return target == ErrNoDevice && (e.Code == cudaErrorNoDevice || e.Code == cudaErrorInvalidDevice)
}

// CUresult codes the Go side names itself (values from the driver API docs).
const (
	cudaSuccess              = 0
	cudaErrorOutOfMemory     = 2
	cudaErrorNotInitialized  = 3
	cudaErrorNoDevice        = 100
	cudaErrorInvalidDevice   = 101
	cudaErrorInvalidPTX      = 218
	cudaErrorNotFound        = 500
	cudaErrorLaunchFailed    = 719
	cudaErrorUnsupportedPTX  = 222
	cudaErrorNoBinaryForGPU  = 209
	cudaErrorIllegalAddress  = 700
	cudaErrorLaunchOutOfRes  = 701
	cudaErrorInvalidValue    = 1
	cudaErrorInvalidHandle   = 400
	cudaErrorSharedObjInit   = 303
	cudaErrorSystemDriverMis = 803
)

// resultName names a CUresult when the driver cannot (it is not loaded).
func resultName(code int) string {
	switch code {
	case cudaSuccess:
		return "CUDA_SUCCESS"
	case cudaErrorInvalidValue:
		return "CUDA_ERROR_INVALID_VALUE"
	case cudaErrorOutOfMemory:
		return "CUDA_ERROR_OUT_OF_MEMORY"
	case cudaErrorNotInitialized:
		return "CUDA_ERROR_NOT_INITIALIZED"
	case cudaErrorNoDevice:
		return "CUDA_ERROR_NO_DEVICE"
	case cudaErrorInvalidDevice:
		return "CUDA_ERROR_INVALID_DEVICE"
	case cudaErrorNoBinaryForGPU:
		return "CUDA_ERROR_NO_BINARY_FOR_GPU"
	case cudaErrorInvalidPTX:
		return "CUDA_ERROR_INVALID_PTX"
	case cudaErrorUnsupportedPTX:
		return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"
	case cudaErrorSharedObjInit:
		return "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"
	case cudaErrorInvalidHandle:
		return "CUDA_ERROR_INVALID_HANDLE"
	case cudaErrorNotFound:
		return "CUDA_ERROR_NOT_FOUND"
	case cudaErrorIllegalAddress:
		return "CUDA_ERROR_ILLEGAL_ADDRESS"
	case cudaErrorLaunchOutOfRes:
		return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"
	case cudaErrorLaunchFailed:
		return "CUDA_ERROR_LAUNCH_FAILED"
	case cudaErrorSystemDriverMis:
		return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"
	}
	return fmt.Sprintf("CUresult(%d)", code)
}

// cublasStatusName names a cublasStatus_t.
func cublasStatusName(code int) string {
	switch code {
	case 0:
		return "CUBLAS_STATUS_SUCCESS"
	case 1:
		return "CUBLAS_STATUS_NOT_INITIALIZED"
	case 3:
		return "CUBLAS_STATUS_ALLOC_FAILED"
	case 7:
		return "CUBLAS_STATUS_INVALID_VALUE"
	case 8:
		return "CUBLAS_STATUS_ARCH_MISMATCH"
	case 11:
		return "CUBLAS_STATUS_MAPPING_ERROR"
	case 13:
		return "CUBLAS_STATUS_EXECUTION_FAILED"
	case 14:
		return "CUBLAS_STATUS_INTERNAL_ERROR"
	case 15:
		return "CUBLAS_STATUS_NOT_SUPPORTED"
	case 16:
		return "CUBLAS_STATUS_LICENSE_ERROR"
	}
	return fmt.Sprintf("cublasStatus(%d)", code)
}

// Kernel names: every kernel the Go side launches. Each must appear in
// kernels/*.cu as `extern "C" __global__ void NAME(` (TestKernelSources) and
// as `.entry NAME` in the generated PTX.
var kernelNames = []string{
	"encoder_forward", "encoder_backward_wte", "encoder_backward_wpe",
	"layernorm_forward", "layernorm_backward_dinp", "layernorm_backward_partial",
	"gelu_forward", "gelu_backward", "add_forward", "accumulate",
	"bias_fill", "column_sum_partial", "column_reduce_add", "column_reduce_add2", "f32_to_bf16",
	"bias_gelu_forward", "residual_bias",
	"crossentropy_forward", "crossentropy_backward",
	"adamw_update", "sumsq_partial",
	"attn_forward_hs32", "attn_forward_hs64", "attn_forward_hs128",
	"attn_backward_pre_hs32", "attn_backward_pre_hs64", "attn_backward_pre_hs128",
	"attn_backward_dq_hs32", "attn_backward_dq_hs64", "attn_backward_dq_hs128",
	"attn_backward_dk_hs32", "attn_backward_dk_hs64", "attn_backward_dk_hs128",
	"attn_backward_dv_hs32", "attn_backward_dv_hs64", "attn_backward_dv_hs128",
	"attn_step",
	"fa_forward_hs64", "fa_backward_pre_hs64", "fa_backward_hs64",
	"dec_embed", "dec_matvec", "dec_attend", "dec_logits",
}

// KernelNames returns the kernels the backend needs (for tests and tools).
func KernelNames() []string { return append([]string(nil), kernelNames...) }
