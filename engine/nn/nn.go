// Package nn owns the tensor memory and the kernels of the engine behind the
// Backend interface: a CPU backend (engine/nn/cpu: Go plus OpenBLAS through
// cgo) and, later, a CUDA backend loaded at run time (issue 9). Everything
// above this package (engine/gpt, engine/train) is pure Go and talks to
// memory only through Buffer values, so the same model code runs on either.
//
// nn must never import app/, ui/ or storage/, nor any cgo: all cgo lives in
// engine/nn/cpu (and the future engine/nn/cuda).
package nn

import (
	"errors"
	"fmt"
)

// Buffer is a view of float32 memory owned by a Backend: host memory for the
// CPU backend, device memory for a GPU backend. It is a small value (no
// allocation to pass, slice or copy), so kernels can be handed row views in a
// sampling step without allocating. The zero Buffer means "none" (e.g. no bias).
type Buffer struct {
	host []float32 // CPU backend: the memory itself (len == n)
	dev  uintptr   // device backends: address of element 0
	n    int
}

// HostBuffer wraps host memory. Only host backends create these.
func HostBuffer(s []float32) Buffer { return Buffer{host: s, n: len(s)} }

// DeviceBuffer wraps n float32 of device memory at ptr. Only device backends
// create these.
func DeviceBuffer(ptr uintptr, n int) Buffer { return Buffer{dev: ptr, n: n} }

// Len is the number of float32 elements.
func (b Buffer) Len() int { return b.n }

// IsNil reports whether b is the zero Buffer.
func (b Buffer) IsNil() bool { return b.n == 0 && b.host == nil && b.dev == 0 }

// Host returns the host memory of a host buffer (nil for device buffers).
// Only backends and tests should use it; model code goes through Upload and
// Download so it works on devices.
func (b Buffer) Host() []float32 { return b.host }

// Dev returns the device address of element 0 (0 for host buffers).
func (b Buffer) Dev() uintptr { return b.dev }

// Slice returns the view of n elements from off. It panics on a range
// outside the buffer (a programming error, like slicing a Go slice).
func (b Buffer) Slice(off, n int) Buffer {
	if off < 0 || n < 0 || off+n > b.n {
		panic(fmt.Sprintf("nn: slice [%d:%d] of buffer of %d", off, off+n, b.n))
	}
	if b.host != nil {
		return Buffer{host: b.host[off : off+n : off+n], n: n}
	}
	return Buffer{dev: b.dev + uintptr(off)*4, n: n}
}

// AdamW holds the hyper-parameters of one AdamW update.
type AdamW struct {
	LR, Beta1, Beta2, Eps, WeightDecay float32
	Step                               int     // 1-based step count for bias correction
	GradScale                          float32 // gradients are multiplied by this first (clipping); 0 means 1
}

// Backend is the memory and the kernels one model runs on. A Backend is used
// by one goroutine at a time (a training loop or a sampler); make one per
// concurrent user. Kernels may run asynchronously on a device: Download and
// the functions returning host values synchronise.
//
// Conventions: shapes are row-major and named as in llm.c: B batch, T time,
// C channels, OC output channels, NH heads, V vocabulary, N = B*T rows.
// Backward kernels ACCUMULATE (+=) into every gradient they write, so
// gradient buffers are zeroed once per accumulation cycle and gradients of
// activations once per backward pass. Token ids are host []int32: a device
// backend copies them itself (it owns pinned staging memory for that).
// Matmul weights are in the Hugging Face Conv1D layout (C,OC), or (OC,C) when
// wT is true (the tied output embedding).
type Backend interface {
	Name() string
	// Alloc returns n zeroed float32.
	Alloc(n int) Buffer
	// Free releases memory from Alloc (a no-op on the CPU, where the GC owns it).
	Free(b Buffer)
	Upload(dst Buffer, src []float32)
	Download(dst []float32, src Buffer)
	Zero(b Buffer)
	// Close stops the backend's workers; it is not usable afterwards.
	Close()

	// EncoderForward: out (B,T,C) = wte[tokens[b,t]] + wpe[t]; wpe holds at least T rows.
	EncoderForward(out, wte, wpe Buffer, tokens []int32, B, T, C int)
	// EncoderBackward: dwte[tokens[b,t]] += dout[b,t]; dwpe[t] += Σ_b dout[b,t].
	EncoderBackward(dwte, dwpe, dout Buffer, tokens []int32, B, T, C int)
	// LayerNormForward: out (N,C) = (inp-mean)*rstd*w + b; mean, rstd (N) saved for backward.
	LayerNormForward(out, mean, rstd, inp, w, b Buffer, N, C int, eps float32)
	LayerNormBackward(dinp, dw, db, dout, inp, w, mean, rstd Buffer, N, C int)
	// MatmulForward: out (N,OC) = inp (N,C) · W + bias (bias may be the zero Buffer).
	MatmulForward(out, inp, w, bias Buffer, N, C, OC int, wT bool)
	// MatmulBackward: dinp (N,C) += dout·Wᵀ; dw += inpᵀ·dout; dbias += Σ_n dout.
	// dbias may be the zero Buffer.
	MatmulBackward(dinp, dw, dbias, dout, inp, w Buffer, N, C, OC int, wT bool)
	// AttentionForward: causal multi-head attention. qkv (B,T,3C) holds q,k,v;
	// att (B,NH,T,T) receives the softmax weights (zero above the diagonal),
	// or, on a backend implementing AttentionScratcher, that many floats of
	// its own (what its AttentionBackward reads); out (B,T,C). Scale
	// 1/sqrt(C/NH).
	AttentionForward(out, att, qkv Buffer, B, T, C, NH int)
	// AttentionBackward: dqkv (B,T,3C) += gradient through attention.
	AttentionBackward(dqkv, dout, qkv, att Buffer, B, T, C, NH int)
	// AttentionStep is one decoding step with a cache: qkv (T,3C) holds rows
	// 0..pos (the cache of keys and values, B = 1); out (C) receives the
	// attention of the query in row pos over rows 0..pos. att (NH,T,T) is
	// scratch; row pos of each head is overwritten.
	AttentionStep(out, att, qkv Buffer, pos, T, C, NH int)
	// GeluForward: out = 0.5·x·(1+tanh(√(2/π)(x+0.044715x³))) over n elements.
	GeluForward(out, inp Buffer, n int)
	GeluBackward(dinp, inp, dout Buffer, n int)
	// Add: out = a + b (the residual stream).
	Add(out, a, b Buffer, n int)
	// Accumulate: dst += src.
	Accumulate(dst, src Buffer, n int)
	// CrossEntropyForward: probs (N,V) = softmax(logits); losses[n] =
	// -log probs[n, targets[n]] (0 where targets[n] < 0, which is ignored).
	CrossEntropyForward(losses, probs, logits Buffer, targets []int32, N, V int)
	// CrossEntropyBackward: dlogits += (probs - onehot(targets))·scale for rows
	// whose target is ≥ 0.
	CrossEntropyBackward(dlogits, probs Buffer, targets []int32, N, V int, scale float32)
	// SumSquares returns Σ b[i]² (for the gradient norm), computed in float64.
	SumSquares(b Buffer) float64
	// AdamWUpdate updates params in place from grads and the moments m, v.
	AdamWUpdate(params, grads, m, v Buffer, hp AdamW)
}

// ErrNoBackend is returned when a requested backend is not available on
// this machine or in this build.
var ErrNoBackend = errors.New("nn: backend not available")

// AttentionScratcher is implemented by a backend whose AttentionForward and
// AttentionBackward keep something else than the (B,NH,T,T) weights in att
// (the CUDA backend keeps one log-sum-exp per row, and for its tensor-core
// kernels a bf16 copy of the output and the backward's row dots).
// AttentionStep still takes the full (NH,T,T) scratch.
type AttentionScratcher interface {
	AttentionScratch(B, T, C, NH int) int
}

// FusedForward is implemented by a backend that does parts of a block's
// forward pass in fewer kernels (the CUDA backend: its products' epilogues).
// engine/gpt uses it when the backend has it; the results are those of the
// Backend calls each replaces.
type FusedForward interface {
	// MatmulGeluForward: pre (N,OC) = inp·W + bias (kept for GeluBackward),
	// out = gelu(pre): MatmulForward then GeluForward.
	MatmulGeluForward(pre, out, inp, w, bias Buffer, N, C, OC int)
	// MatmulResidualForward: out (N,OC) = res + inp·W + bias: MatmulForward
	// into a scratch then Add, without the scratch.
	MatmulResidualForward(out, res, inp, w, bias Buffer, N, C, OC int)
}

// AttentionScratch is the length of the att buffer AttentionForward and
// AttentionBackward need on be: B·NH·T·T unless the backend says otherwise.
func AttentionScratch(be Backend, B, T, C, NH int) int {
	if s, ok := be.(AttentionScratcher); ok {
		return s.AttentionScratch(B, T, C, NH)
	}
	return B * NH * T * T
}
