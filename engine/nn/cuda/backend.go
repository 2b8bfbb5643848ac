//go:build cgo && linux

package cuda

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/amtstudio/amt/engine/nn"
)

// Backend is the CUDA implementation of nn.Backend. All work is queued on
// one compute stream; Download, SumSquares and StageSeconds synchronise.
// Token ids and targets go through pinned host slots (three per kind, so a
// prefetched batch never overwrites one in use) and may be copied early on
// a second stream (Prefetch). A failed driver or cuBLAS call makes the error
// sticky: later kernels are skipped, Download fills NaN, SumSquares returns
// NaN, and Err reports the first failure.
type Backend struct {
	info   DeviceInfo
	dev    devHandle
	ctx    cuCtx // the device's primary context, made current before every call
	closed bool
	prec   Precision
	stream cuStream
	copyS  cuStream
	blas   blasHandle
	mods   []cuModule
	fn     map[string]cuFunction
	args   *argBuf
	maxGx  int

	err    error
	allocs map[uintptr]int // base address → bytes, for Free

	legacyAttn bool // Options.Attention / AMT_CUDA_ATTENTION=legacy

	plans                     []*decodePlan // nn.Decoder plans (decode.go)
	stepsGraphed, stepsDirect int
	graphErr                  error

	// scratch on the device, grown on demand
	partials nn.Buffer // column partial sums (layer norm, bias gradients)
	attD     nn.Buffer // attention backward D (B,NH,T)
	sumsq    uintptr   // double partials of SumSquares
	sumsqN   int
	sumsqH   []float64

	// bf16 operands (bf16 precision; "bf16 copies" below): mirrors of the
	// allocations holding weights, shadows of activations written by the
	// kernels that produce them, and two scratch buffers for the rest
	mirrors  map[uintptr]*mirror // by allocation base
	inAlloc  map[uintptr]uintptr // weight address → its allocation's base (lookup cache)
	shadows  map[uintptr]*shadow // by the fp32 activation's address
	bfA, bfB bfScratch

	tokens, targets intRing

	timing    bool
	stages    stageTimer
	timingErr error // the last failure to read a stage time (not sticky)
}

// mirror is a bf16 copy of a whole allocation that holds weights: made by
// one conversion the first time a product takes a weight from it, kept
// current by AdamWUpdate (which writes both), stale after any other write
// into the allocation (Upload, Zero, a kernel output).
type mirror struct {
	dev   uintptr
	valid bool
}

// shadow is a bf16 copy of the first n floats of an activation, written
// by the kernel that produced the activation (layer norm, the GELU
// epilogue, flash attention's output, the backward's layer norm, GELU and
// cross-entropy) so that the next product takes it without a conversion
// pass. It is stale after any other write into the activation (or, for one
// that lives in attention scratch, into its storage).
type shadow struct {
	dev    uintptr
	cap, n int // elements held, elements valid
	valid  bool
	owned  bool // storage allocated for it (else a view: flash attention's bf16 output)
}

// Shadows are made only for activations of at least minShadow floats (the
// one-row products of decoding convert on the fly) and at most maxShadows
// of them (a model has a few per layer).
const minShadow, maxShadows = 4096, 256

type bfScratch struct {
	dev uintptr
	n   int // capacity in bf16 elements
}

var (
	_ nn.Backend      = (*Backend)(nil)
	_ nn.FusedForward = (*Backend)(nil)
	_ nn.Decoder      = (*Backend)(nil)
)

var (
	loadMu     sync.Mutex
	driverOK   string // the driver path that loaded, once one has
	cublasPath string
)

// defaultDriverLoad is the ollama-style once: the default driver is probed
// at most once per process.
var defaultDriverLoad = sync.OnceValue(func() error { return loadDriverInit("libcuda.so.1") })

// loadDriverInit loads the driver at path and initialises it, once: a
// second call for the same library returns at once; one for another library
// fails (the process has one driver), and so does a path that does not load,
// whatever was loaded before.
func loadDriverInit(path string) error {
	if err := loadDriver(path); err != nil {
		return err
	}
	if driverOK != "" {
		return nil
	}
	if err := cuInit(); err != nil {
		var de *DriverError
		if errors.As(err, &de) {
			return fmt.Errorf("%w: %s loaded but cuInit failed: %w", ErrNoDevice, path, err)
		}
		return err
	}
	driverOK = path
	return nil
}

func cublasCandidates(o Options) []string {
	if o.CublasPath != "" {
		return []string{o.CublasPath}
	}
	if p := os.Getenv("AMT_CUBLAS"); p != "" {
		return []string{p}
	}
	return []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"}
}

// Open starts a CUDA backend on opts.Device. Without a usable driver, GPU,
// cuBLAS or PTX it returns an error wrapping ErrNoDriver, ErrNoDevice,
// ErrNoCUBLAS or ErrNoPTX.
func Open(opts Options) (*Backend, error) {
	loadMu.Lock()
	defer loadMu.Unlock()
	path := opts.DriverPath
	if path == "" {
		path = os.Getenv("AMT_CUDA_DRIVER")
	}
	var err error
	if path == "" {
		err = defaultDriverLoad()
	} else {
		err = loadDriverInit(path)
	}
	if err != nil {
		return nil, err
	}
	n, err := deviceCount()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoDevice, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: the driver reports no GPU", ErrNoDevice)
	}
	if opts.Device < 0 || opts.Device >= n {
		return nil, fmt.Errorf("%w: device %d requested, %d present", ErrNoDevice, opts.Device, n)
	}
	info, dev, err := deviceInfo(opts.Device)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoDevice, err)
	}
	if info.Major < 8 {
		return nil, fmt.Errorf("%w: %s has compute capability %d.%d; the kernels need 8.0 or newer (bf16)", ErrNoDevice, info.Name, info.Major, info.Minor)
	}
	info.DriverVersion, _ = driverVersion()
	if cublasPath == "" {
		p, err := loadCublas(cublasCandidates(opts))
		if err != nil {
			return nil, err
		}
		cublasPath = p
	}
	info.CublasPath = cublasPath
	info.CublasLt = cublasLtVersion()
	ptx, err := ptxImages()
	if err != nil {
		return nil, err
	}
	attn := opts.Attention
	if attn == AttentionAuto {
		if attn, err = ParseAttention(os.Getenv("AMT_CUDA_ATTENTION")); err != nil {
			return nil, err
		}
	}
	ctx, err := ctxRetain(dev)
	if err != nil {
		return nil, err
	}
	b := &Backend{info: info, dev: dev, ctx: ctx, prec: opts.Precision, fn: map[string]cuFunction{}, allocs: map[uintptr]int{},
		mirrors: map[uintptr]*mirror{}, inAlloc: map[uintptr]uintptr{}, shadows: map[uintptr]*shadow{}, maxGx: max(1, info.SMs) * 32, legacyAttn: attn == AttentionLegacy}
	if err := b.init(ptx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

func (b *Backend) init(ptx []ptxImage) error {
	var err error
	if b.stream, err = streamCreate(b.ctx); err != nil {
		return err
	}
	if b.copyS, err = streamCreate(b.ctx); err != nil {
		return err
	}
	mode := blasDefaultMath
	if b.prec == TF32 {
		mode = blasTF32Math
	}
	if b.blas, b.info.CublasVersion, err = blasCreate(b.ctx, b.stream, mode); err != nil {
		return err
	}
	for _, im := range ptx {
		m, err := moduleLoad(b.ctx, im.name, im.data)
		if err != nil {
			return err
		}
		b.mods = append(b.mods, m)
	}
	for _, name := range kernelNames {
		for _, m := range b.mods {
			if f, err := moduleFunction(b.ctx, m, name); err == nil {
				b.fn[name] = f
				break
			}
		}
		if b.fn[name] == nil {
			return fmt.Errorf("%w: kernel %s is in no embedded PTX module (regenerate with go generate)", ErrNoPTX, name)
		}
	}
	b.args = newArgBuf()
	if err := b.tokens.init(b); err != nil {
		return err
	}
	return b.targets.init(b)
}

func (b *Backend) Name() string { return "cuda" }

// Info describes the GPU and libraries.
func (b *Backend) Info() DeviceInfo { return b.info }

// Precision is the precision of the matrix products.
func (b *Backend) Precision() Precision { return b.prec }

// Describe is the one-line reason shown when this backend is chosen.
func (b *Backend) Describe() string {
	return fmt.Sprintf("cuda: %s (sm_%d%d, %d SMs, %.0f GiB, driver %d.%d, cuBLAS %d, %s matmuls)", b.info.Name,
		b.info.Major, b.info.Minor, b.info.SMs, float64(b.info.TotalMemory)/(1<<30),
		b.info.DriverVersion/1000, b.info.DriverVersion%1000/10, b.info.CublasVersion, b.prec)
}

// Err returns the first driver or cuBLAS failure (nil if none).
func (b *Backend) Err() error { return b.err }

func (b *Backend) fail(err error) {
	if err != nil && b.err == nil {
		b.err = err
	}
}

// ok reports whether work may still be queued.
func (b *Backend) ok() bool { return b.err == nil }

// Synchronize waits for all queued work (both streams) and returns the
// sticky error.
func (b *Backend) Synchronize() error {
	if b.ok() {
		b.fail(streamSync(b.ctx, b.stream))
		b.fail(streamSync(b.ctx, b.copyS))
	}
	return b.err
}

// MemInfo returns the free and total device memory.
func (b *Backend) MemInfo() (free, total uint64, err error) { return memInfo(b.ctx) }

// Close waits for the work queued on both streams (a prefetch may still be
// copying from pinned memory), frees everything and releases the context.
// A second Close does nothing.
func (b *Backend) Close() {
	if b.closed {
		return
	}
	b.closed = true
	for _, s := range []cuStream{b.stream, b.copyS} {
		if s != nil {
			_ = streamSync(b.ctx, s)
		}
	}
	for _, p := range b.plans {
		p.free()
	}
	b.plans = nil
	for p := range b.allocs {
		_ = memFree(b.ctx, p)
	}
	b.allocs = nil
	clear(b.mirrors)
	clear(b.inAlloc)
	clear(b.shadows)
	b.tokens.free(b)
	b.targets.free(b)
	b.stages.free(b)
	if b.blas != nil {
		_ = blasDestroy(b.ctx, b.blas)
		b.blas = nil
	}
	for _, m := range b.mods {
		_ = moduleUnload(b.ctx, m)
	}
	b.mods = nil
	for _, s := range []*cuStream{&b.copyS, &b.stream} {
		if *s != nil {
			_ = streamDestroy(b.ctx, *s)
			*s = nil
		}
	}
	if b.args != nil {
		b.args.free()
		b.args = nil
	}
	_ = ctxRelease(b.dev)
	if b.err == nil {
		b.err = errClosed
	}
}

var errClosed = errors.New("cuda: the backend is closed")

// ---- memory ----

// rawAlloc returns zeroed device memory of bytes (rounded up to 4).
func (b *Backend) rawAlloc(bytes int) uintptr {
	if !b.ok() {
		return 0
	}
	bytes = (bytes + 3) &^ 3
	p, err := memAlloc(b.ctx, bytes)
	if err != nil {
		b.fail(fmt.Errorf("cuda: alloc %d MiB: %w", (bytes+1<<20-1)>>20, err))
		return 0
	}
	b.allocs[p] = bytes
	b.fail(memset32(b.ctx, p, 0, bytes/4, b.stream))
	return p
}

func (b *Backend) Alloc(n int) nn.Buffer {
	if n <= 0 {
		return nn.Buffer{}
	}
	return nn.DeviceBuffer(b.rawAlloc(4*n), n)
}

// Free releases a buffer returned by Alloc (views of it are ignored).
func (b *Backend) Free(x nn.Buffer) { b.rawFree(x.Dev()) }

func (b *Backend) rawFree(p uintptr) {
	size, ok := b.allocs[p]
	if !ok || p == 0 {
		return
	}
	// bf16 copies of what the memory held go with it (a later allocation
	// at the same address must not find them).
	end := p + uintptr(size)
	var stale []uintptr
	for key, sh := range b.shadows {
		if key >= p && key < end || !sh.owned && sh.dev >= p && sh.dev < end {
			delete(b.shadows, key)
			if sh.owned && sh.dev != 0 {
				stale = append(stale, sh.dev)
			}
		}
	}
	if mr := b.mirrors[p]; mr != nil {
		delete(b.mirrors, p)
		stale = append(stale, mr.dev)
	}
	for w, base := range b.inAlloc {
		if base == p {
			delete(b.inAlloc, w)
		}
	}
	b.freeMem(p)
	for _, d := range stale {
		b.freeMem(d)
	}
}

// freeMem releases an allocation once nothing queued on either stream may
// still use it.
func (b *Backend) freeMem(p uintptr) {
	if _, ok := b.allocs[p]; !ok || p == 0 {
		return
	}
	b.fail(streamSync(b.ctx, b.stream))
	b.fail(streamSync(b.ctx, b.copyS))
	b.fail(memFree(b.ctx, p))
	delete(b.allocs, p)
}

// wrote marks device memory as written: bf16 copies that overlap it are
// stale.
func (b *Backend) wrote(bufs ...nn.Buffer) {
	for _, x := range bufs {
		lo, hi := x.Dev(), x.Dev()+4*uintptr(x.Len())
		if lo == hi {
			continue
		}
		for base, mr := range b.mirrors {
			if mr.valid && base < hi && base+uintptr(b.allocs[base]) > lo {
				mr.valid = false
			}
		}
		for key, sh := range b.shadows {
			if sh.valid && (key < hi && key+4*uintptr(sh.n) > lo || !sh.owned && sh.dev < hi && sh.dev+2*uintptr(sh.n) > lo) {
				sh.valid = false
			}
		}
	}
}

// shadowOut returns where a kernel about to write n floats of x (from its
// start) should also write them in bf16, or 0 for nowhere (not bf16
// precision, too small, too many shadows). The shadow counts as valid from
// then on: the kernel is queued before any product that reads it.
func (b *Backend) shadowOut(x nn.Buffer, n int) uintptr {
	if b.prec != BF16 || n < minShadow || !b.ok() {
		return 0
	}
	sh := b.shadows[x.Dev()]
	if sh == nil {
		if len(b.shadows) >= maxShadows {
			return 0
		}
		sh = &shadow{owned: true}
		b.shadows[x.Dev()] = sh
	}
	if !sh.owned {
		sh.owned, sh.dev, sh.cap = true, 0, 0
	}
	if sh.cap < n {
		b.freeMem(sh.dev)
		sh.dev, sh.cap = b.rawAlloc(2*n), n
	}
	sh.n, sh.valid = n, sh.dev != 0
	return sh.dev
}

// setShadow records that dev holds x's first n floats in bf16 (memory
// the caller owns).
func (b *Backend) setShadow(x nn.Buffer, n int, dev uintptr) {
	if b.prec != BF16 {
		return
	}
	if sh := b.shadows[x.Dev()]; sh != nil && sh.owned {
		b.freeMem(sh.dev)
	} else if sh == nil && len(b.shadows) >= maxShadows {
		return
	}
	b.shadows[x.Dev()] = &shadow{dev: dev, cap: n, n: n, valid: true}
}

// allocOf returns the base and size of the allocation holding p (0 if none).
func (b *Backend) allocOf(p uintptr) (uintptr, int) {
	if base, ok := b.inAlloc[p]; ok {
		if size, ok := b.allocs[base]; ok {
			return base, size
		}
	}
	for base, size := range b.allocs {
		if p >= base && p < base+uintptr(size) {
			b.inAlloc[p] = base
			return base, size
		}
	}
	return 0, 0
}

func (b *Backend) Upload(dst nn.Buffer, src []float32) {
	n := min(len(src), dst.Len())
	if n == 0 || !b.ok() {
		return
	}
	b.wrote(dst.Slice(0, n))
	b.stages.begin(b, "h2d", b.stream)
	b.fail(htod(b.ctx, dst.Dev(), unsafe.Pointer(&src[0]), 4*n, b.stream))
	b.stages.end(b, "h2d", b.stream)
}

func (b *Backend) Download(dst []float32, src nn.Buffer) {
	n := min(len(dst), src.Len())
	if n == 0 {
		return
	}
	if b.ok() {
		b.stages.begin(b, "d2h", b.stream)
		b.fail(dtohSync(b.ctx, unsafe.Pointer(&dst[0]), src.Dev(), 4*n, b.stream))
		b.stages.end(b, "d2h", b.stream)
	}
	if !b.ok() {
		nan := float32(math.NaN())
		for i := range dst[:n] {
			dst[i] = nan
		}
	}
}

func (b *Backend) Zero(x nn.Buffer) {
	if x.Len() == 0 || !b.ok() {
		return
	}
	b.wrote(x)
	b.fail(memset32(b.ctx, x.Dev(), 0, x.Len(), b.stream))
}

// ---- launching ----

func (b *Backend) argPtr(p uintptr) { b.args.vals[b.args.n] = uint64(p); b.args.n++ }

// argInt passes a 32-bit int; a value out of its range fails the backend
// (and so skips the launch) instead of wrapping around.
func (b *Backend) argInt(v int) {
	if v != int(int32(v)) {
		b.fail(fmt.Errorf("%w: %d does not fit a 32-bit kernel argument", ErrUnsupported, v))
	}
	b.args.vals[b.args.n] = uint64(uint32(int32(v)))
	b.args.n++
}
func (b *Backend) argLong(v int) { b.args.vals[b.args.n] = uint64(int64(v)); b.args.n++ }
func (b *Backend) argF32(v float32) {
	b.args.vals[b.args.n] = uint64(math.Float32bits(v))
	b.args.n++
}

// begin resets the argument list; it reports false when the backend has failed.
func (b *Backend) begin() bool {
	b.args.n = 0
	return b.ok()
}

// Grid limits of every CUDA device: x < 2³¹, y and z ≤ 65,535. Callers
// split larger work (attention over B, column partials over more rows).
const maxGridX, maxGridY = 1<<31 - 1, 65535

func (b *Backend) launch(name string, gx, gy, bx int) {
	if gx < 1 || gy < 1 || !b.ok() {
		return
	}
	if gx > maxGridX || gy > maxGridY {
		b.fail(fmt.Errorf("%w: kernel %s: grid (%d, %d) beyond the device's (%d, %d)", ErrUnsupported, name, gx, gy, maxGridX, maxGridY))
		return
	}
	b.fail(launch(b.ctx, b.fn[name], gx, gy, bx, 0, b.stream, b.args))
}

// grid for a grid-stride loop over n elements, 256 threads a block.
func (b *Backend) grid(n int) int { return max(1, min((n+255)/256, b.maxGx)) }

// elementwise launches a kernel (dst, src..., n long) over n elements.
func (b *Backend) elementwise(name string, n int, ptrs ...uintptr) {
	if n <= 0 || !b.begin() {
		return
	}
	for _, p := range ptrs {
		b.argPtr(p)
	}
	b.argLong(n)
	b.launch(name, b.grid(n), 1, 256)
}

// elementwiseOut is elementwise for a kernel whose first pointer is an
// output of n floats.
func (b *Backend) elementwiseOut(name string, n int, out nn.Buffer, ptrs ...uintptr) {
	b.wrote(out.Slice(0, min(n, out.Len())))
	b.elementwise(name, n, append([]uintptr{out.Dev()}, ptrs...)...)
}

// ---- kernels ----

func (b *Backend) EncoderForward(out, wte, wpe nn.Buffer, tokens []int32, B, T, C int) {
	tok := b.tokens.device(b, tokens[:B*T], false)
	if !b.begin() {
		return
	}
	b.wrote(out)
	b.argPtr(out.Dev())
	b.argPtr(wte.Dev())
	b.argPtr(wpe.Dev())
	b.argPtr(tok)
	b.argInt(B)
	b.argInt(T)
	b.argInt(C)
	b.launch("encoder_forward", b.grid(B*T*C), 1, 256)
}

func (b *Backend) EncoderBackward(dwte, dwpe, dout nn.Buffer, tokens []int32, B, T, C int) {
	tok := b.tokens.device(b, tokens[:B*T], false)
	if !b.begin() {
		return
	}
	b.wrote(dwte, dwpe)
	b.argPtr(dwte.Dev())
	b.argPtr(dout.Dev())
	b.argPtr(tok)
	b.argInt(B)
	b.argInt(T)
	b.argInt(C)
	b.launch("encoder_backward_wte", b.grid(B*T*C), 1, 256)
	if !b.begin() {
		return
	}
	b.argPtr(dwpe.Dev())
	b.argPtr(dout.Dev())
	b.argInt(B)
	b.argInt(T)
	b.argInt(C)
	b.launch("encoder_backward_wpe", b.grid(T*C), 1, 256)
}

func (b *Backend) LayerNormForward(out, mean, rstd, inp, w, bias nn.Buffer, N, C int, eps float32) {
	if !b.begin() {
		return
	}
	b.wrote(out, mean, rstd)
	sh := b.shadowOut(out, N*C)
	for _, p := range []uintptr{out.Dev(), sh, mean.Dev(), rstd.Dev(), inp.Dev(), w.Dev(), bias.Dev()} {
		b.argPtr(p)
	}
	b.argInt(N)
	b.argInt(C)
	b.argF32(eps)
	b.launch("layernorm_forward", (N+7)/8, 1, 256)
}

// partialRows is the number of rows each column-partial sum covers: 64, or
// more when N rows would need more than the 65,535 partials grid y allows.
func partialRows(N int) int { return max(64, (N+maxGridY-1)/maxGridY) }

func (b *Backend) scratch(buf *nn.Buffer, n int) nn.Buffer {
	if buf.Len() < n {
		if !buf.IsNil() {
			b.rawFree(buf.Dev())
		}
		*buf = nn.DeviceBuffer(b.rawAlloc(4*n), n)
	}
	return buf.Slice(0, n)
}

func (b *Backend) LayerNormBackward(dinp, dw, db, dout, inp, w, mean, rstd nn.Buffer, N, C int) {
	if !b.begin() {
		return
	}
	b.wrote(dinp, dw, db)
	sh := b.shadowOut(dinp, N*C)
	for _, p := range []uintptr{dinp.Dev(), sh, dout.Dev(), inp.Dev(), w.Dev(), mean.Dev(), rstd.Dev()} {
		b.argPtr(p)
	}
	b.argInt(N)
	b.argInt(C)
	b.launch("layernorm_backward_dinp", (N+7)/8, 1, 256)
	rows := partialRows(N)
	P := (N + rows - 1) / rows
	part := b.scratch(&b.partials, P*2*C)
	if !b.begin() {
		return
	}
	for _, p := range []uintptr{part.Dev(), dout.Dev(), inp.Dev(), mean.Dev(), rstd.Dev()} {
		b.argPtr(p)
	}
	b.argInt(N)
	b.argInt(C)
	b.argInt(rows)
	b.launch("layernorm_backward_partial", (C+255)/256, P, 256)
	if !b.begin() {
		return
	}
	b.argPtr(dw.Dev())
	b.argPtr(db.Dev())
	b.argPtr(part.Dev())
	b.argInt(P)
	b.argInt(C)
	b.launch("column_reduce_add2", (2*C+255)/256, 1, 256)
}

func (b *Backend) columnReduce(dst, partials uintptr, P, n, ld int) {
	if !b.begin() {
		return
	}
	b.argPtr(dst)
	b.argPtr(partials)
	b.argInt(P)
	b.argInt(n)
	b.argInt(ld)
	b.launch("column_reduce_add", (n+255)/256, 1, 256)
}

func (b *Backend) GeluForward(out, inp nn.Buffer, n int) {
	b.elementwiseOut("gelu_forward", n, out, inp.Dev())
}

func (b *Backend) GeluBackward(dinp, inp, dout nn.Buffer, n int) {
	if n <= 0 || !b.ok() {
		return
	}
	b.wrote(dinp.Slice(0, min(n, dinp.Len())))
	b.elementwise("gelu_backward", n, dinp.Dev(), b.shadowOut(dinp, n), inp.Dev(), dout.Dev())
}

func (b *Backend) Add(out, a, c nn.Buffer, n int) {
	b.elementwiseOut("add_forward", n, out, a.Dev(), c.Dev())
}

func (b *Backend) Accumulate(dst, src nn.Buffer, n int) {
	b.elementwiseOut("accumulate", n, dst, src.Dev())
}

func (b *Backend) CrossEntropyForward(losses, probs, logits nn.Buffer, targets []int32, N, V int) {
	var tg uintptr
	if targets != nil {
		tg = b.targets.device(b, targets[:N], false)
	}
	if !b.begin() {
		return
	}
	b.wrote(losses, probs)
	b.argPtr(losses.Dev())
	b.argPtr(probs.Dev())
	b.argPtr(logits.Dev())
	b.argPtr(tg)
	b.argInt(N)
	b.argInt(V)
	b.launch("crossentropy_forward", N, 1, 256)
}

func (b *Backend) CrossEntropyBackward(dlogits, probs nn.Buffer, targets []int32, N, V int, scale float32) {
	tg := b.targets.device(b, targets[:N], false)
	if !b.begin() {
		return
	}
	b.wrote(dlogits)
	b.argPtr(dlogits.Dev())
	b.argPtr(b.shadowOut(dlogits, N*V))
	b.argPtr(probs.Dev())
	b.argPtr(tg)
	b.argInt(N)
	b.argInt(V)
	b.argF32(scale)
	b.launch("crossentropy_backward", b.grid(N*V), 1, 256)
}

func (b *Backend) SumSquares(x nn.Buffer) float64 {
	n := x.Len()
	if n == 0 {
		return 0
	}
	g := min((n+255)/256, 1024)
	if b.sumsqN < g && b.ok() {
		b.sumsq = b.rawAlloc(8 * 1024)
		b.sumsqN = 1024
		b.sumsqH = make([]float64, 1024)
	}
	if !b.begin() {
		return math.NaN()
	}
	b.argPtr(b.sumsq)
	b.argPtr(x.Dev())
	b.argLong(n)
	b.launch("sumsq_partial", g, 1, 256)
	if !b.ok() {
		return math.NaN()
	}
	b.fail(dtohSync(b.ctx, unsafe.Pointer(&b.sumsqH[0]), b.sumsq, 8*g, b.stream))
	if !b.ok() {
		return math.NaN()
	}
	s := 0.0
	for _, v := range b.sumsqH[:g] {
		s += v
	}
	return s
}

func (b *Backend) AdamWUpdate(params, grads, m, v nn.Buffer, hp nn.AdamW) {
	n := params.Len()
	if n == 0 || !b.begin() {
		return
	}
	// The parameters' bf16 mirror (if products made one) is written too and
	// stays valid.
	var pbf uintptr
	var mr *mirror
	if base, _ := b.allocOf(params.Dev()); base != 0 {
		if mr = b.mirrors[base]; mr != nil && mr.valid {
			pbf = mr.dev + (params.Dev()-base)/2
		}
	}
	b.wrote(params, m, v)
	if pbf != 0 {
		mr.valid = true
	}
	scale := hp.GradScale
	if scale == 0 {
		scale = 1
	}
	bc1 := float32(1 - math.Pow(float64(hp.Beta1), float64(hp.Step)))
	bc2 := float32(1 - math.Pow(float64(hp.Beta2), float64(hp.Step)))
	for _, p := range []uintptr{params.Dev(), pbf, grads.Dev(), m.Dev(), v.Dev()} {
		b.argPtr(p)
	}
	b.argLong(n)
	for _, f := range []float32{hp.LR, hp.Beta1, hp.Beta2, hp.Eps, hp.WeightDecay, bc1, bc2, scale} {
		b.argF32(f)
	}
	b.launch("adamw_update", b.grid(n), 1, 256)
}

// ---- attention ----

const attBR = 64 // query rows per block (ATT_BR in attention.cu)

// hsVariant picks the register width of the attention kernels.
func (b *Backend) hsVariant(C, NH int) (string, bool) {
	hs := C / NH
	switch {
	case hs <= 32:
		return "32", true
	case hs <= 64:
		return "64", true
	case hs <= 128:
		return "128", true
	}
	b.fail(fmt.Errorf("%w: head size %d (n_embd %d / n_head %d) is above 128", ErrUnsupported, hs, C, NH))
	return "", false
}

func (b *Backend) attArgs(ptrs []uintptr, B, T, C, NH int) {
	for _, p := range ptrs {
		b.argPtr(p)
	}
	b.argInt(B)
	b.argInt(T)
	b.argInt(C)
	b.argInt(NH)
	b.argF32(float32(1 / math.Sqrt(float64(C/NH))))
}

// flash reports whether attention with C channels over NH heads runs on
// the tensor-core kernels of flash.cu: bf16 precision, head size 64, not
// switched off (Options.Attention, AMT_CUDA_ATTENTION=legacy). Otherwise
// the fp32 kernels of attention.cu run (FP32 and TF32 keep fp32 attention).
func (b *Backend) flash(C, NH int) bool {
	return !b.legacyAttn && b.prec == BF16 && NH > 0 && C == 64*NH
}

// FlashAttention reports whether AttentionForward and AttentionBackward
// with C channels over NH heads use the tensor-core kernels.
func (b *Backend) FlashAttention(C, NH int) bool { return b.flash(C, NH) }

// AttentionScratch is how many floats `att` needs for AttentionForward and
// AttentionBackward on this backend, not the (B,NH,T,T) weights the CPU
// keeps: the log-sum-exp of each row (B,NH,T) for the fp32 kernels; for
// the tensor-core ones that (in log2 units), the backward's row dots D
// (B,NH,T) and a bf16 copy of the output (B,T,C). engine/gpt sizes its
// buffer with it (nn.AttentionScratch).
func (b *Backend) AttentionScratch(B, T, C, NH int) int {
	if b.flash(C, NH) {
		return 2*B*NH*T + (B*T*C+1)/2
	}
	return B * NH * T
}

const flashRows = 64 // FA_B in flash.cu: query rows per block and keys per tile

// flashForward: out, and in att the log2-sum-exp (B,NH,T), then D's room
// (B,NH,T), then out in bf16 (B,T,C).
func (b *Backend) flashForward(out, att, qkv nn.Buffer, B, T, C, NH int) {
	lse, obf := att.Dev(), att.Dev()+uintptr(8*B*NH*T)
	attChunks(B, NH, func(b0, n int) {
		if !b.begin() {
			return
		}
		b.attArgs([]uintptr{out.Dev() + uintptr(4*b0*T*C), lse + uintptr(4*b0*NH*T), obf + uintptr(2*b0*T*C), qkv.Dev() + uintptr(4*b0*T*3*C)}, n, T, C, NH)
		b.launch("fa_forward_hs64", (T+flashRows-1)/flashRows, n*NH, 128)
	})
}

func (b *Backend) flashBackward(dqkv, dout, qkv, att nn.Buffer, B, T, C, NH int) {
	lse, D, obf := att.Dev(), att.Dev()+uintptr(4*B*NH*T), att.Dev()+uintptr(8*B*NH*T)
	attChunks(B, NH, func(b0, n int) {
		o3, o1, oh := uintptr(4*b0*T*3*C), uintptr(4*b0*T*C), uintptr(4*b0*NH*T)
		if !b.begin() {
			return
		}
		b.argPtr(D + oh)
		b.argPtr(dout.Dev() + o1)
		b.argPtr(obf + uintptr(2*b0*T*C))
		b.argInt(n)
		b.argInt(T)
		b.argInt(C)
		b.argInt(NH)
		b.launch("fa_backward_pre_hs64", (n*T*NH+7)/8, 1, 256)
		if !b.begin() {
			return
		}
		b.attArgs([]uintptr{dqkv.Dev() + o3, dout.Dev() + o1, qkv.Dev() + o3, lse + oh, D + oh}, n, T, C, NH)
		b.launch("fa_backward_hs64", (T+flashRows-1)/flashRows, n*NH, 128)
	})
}

// attChunks calls f over batches [b0, b0+n) such that n·NH blocks fit grid
// y (the kernels take blockIdx.y as b·NH+h; each batch is independent).
func attChunks(B, NH int, f func(b0, n int)) {
	per := max(1, maxGridY/NH)
	for b0 := 0; b0 < B; b0 += per {
		f(b0, min(per, B-b0))
	}
}

// AttentionForward is flash-style: the weights are not stored; att receives
// the per-row log-sum-exp (B,NH,T) in its first B·NH·T floats instead, which
// is what AttentionBackward of this backend reads. (The CPU backend stores
// the weights; the contents of att are private to each backend's pair.)
func (b *Backend) AttentionForward(out, att, qkv nn.Buffer, B, T, C, NH int) {
	v, ok := b.hsVariant(C, NH)
	if !ok || !b.ok() {
		return
	}
	if need := b.AttentionScratch(B, T, C, NH); att.Len() < need {
		b.fail(fmt.Errorf("%w: attention scratch of %d floats, %d needed (AttentionScratch)", ErrUnsupported, att.Len(), need))
		return
	}
	b.wrote(out, att)
	if b.flash(C, NH) {
		b.flashForward(out, att, qkv, B, T, C, NH)
		b.setShadow(out, B*T*C, att.Dev()+uintptr(8*B*NH*T))
		return
	}
	attChunks(B, NH, func(b0, n int) {
		if !b.begin() {
			return
		}
		b.attArgs([]uintptr{out.Dev() + uintptr(4*b0*T*C), att.Dev() + uintptr(4*b0*NH*T), qkv.Dev() + uintptr(4*b0*T*3*C)}, n, T, C, NH)
		b.launch("attn_forward_hs"+v, (T+attBR-1)/attBR, n*NH, attBR)
	})
}

func (b *Backend) AttentionBackward(dqkv, dout, qkv, att nn.Buffer, B, T, C, NH int) {
	v, ok := b.hsVariant(C, NH)
	if !ok || !b.ok() {
		return
	}
	if need := b.AttentionScratch(B, T, C, NH); att.Len() < need {
		b.fail(fmt.Errorf("%w: attention scratch of %d floats, %d needed (AttentionScratch)", ErrUnsupported, att.Len(), need))
		return
	}
	if b.flash(C, NH) {
		b.wrote(dqkv, att.Slice(B*NH*T, B*NH*T)) // D; the bf16 output beside it stays
		b.flashBackward(dqkv, dout, qkv, att, B, T, C, NH)
		return
	}
	D := b.scratch(&b.attD, B*NH*T)
	gx := (T + attBR - 1) / attBR
	b.wrote(dqkv)
	attChunks(B, NH, func(b0, n int) {
		o3, o1, oh := uintptr(4*b0*T*3*C), uintptr(4*b0*T*C), uintptr(4*b0*NH*T)
		if !b.begin() {
			return
		}
		b.attArgs([]uintptr{D.Dev() + oh, dout.Dev() + o1, qkv.Dev() + o3, att.Dev() + oh}, n, T, C, NH)
		b.launch("attn_backward_pre_hs"+v, gx, n*NH, attBR)
		for _, k := range []string{"dq", "dk", "dv"} {
			if !b.begin() {
				return
			}
			b.attArgs([]uintptr{dqkv.Dev() + o3, dout.Dev() + o1, qkv.Dev() + o3, att.Dev() + oh, D.Dev() + oh}, n, T, C, NH)
			b.launch("attn_backward_"+k+"_hs"+v, gx, n*NH, attBR)
		}
	})
}

func (b *Backend) AttentionStep(out, att, qkv nn.Buffer, pos, T, C, NH int) {
	if _, ok := b.hsVariant(C, NH); !ok || !b.begin() {
		return
	}
	b.wrote(out, att)
	b.argPtr(out.Dev())
	b.argPtr(att.Dev())
	b.argPtr(qkv.Dev())
	b.argInt(pos)
	b.argInt(T)
	b.argInt(C)
	b.argInt(NH)
	b.argF32(float32(1 / math.Sqrt(float64(C/NH))))
	b.launch("attn_step", NH, 1, 256)
}

// ---- matrix products (cuBLAS, column-major view of our row-major data) ----
//
// A row-major (r,c) matrix is a column-major (c,r) one: its transpose. So
//   out(N,OC) = inp(N,C)·W      is  outᵀ(OC,N)  = op(W')·inpᵀ  with m=OC, n=N, k=C
//   dinp(N,C) += dout·Wᵀ        is  dinpᵀ(C,N) += op(W')·doutᵀ with m=C,  n=N, k=OC
//   dW(C,OC) += inpᵀ·dout       is  dWᵀ(OC,C)  += doutᵀ·inp    with m=OC, n=C, k=N
//   dW(OC,C) += doutᵀ·inp (wT)  is  dWᵀ(C,OC)  += inpᵀ·dout    with m=C,  n=OC, k=N
// where W' is W's memory read column-major.

// operand returns the device pointer and type of x for a product: x itself
// (fp32, tf32) or a bf16 copy: for a weight, its allocation's mirror; for
// an activation, the shadow its producer wrote, else a conversion into
// scratch slot s (0 or 1).
func (b *Backend) operand(x nn.Buffer, n int, weight bool, s int) (uintptr, int) {
	if b.prec != BF16 {
		return x.Dev(), dtypeF32
	}
	if weight {
		if base, size := b.allocOf(x.Dev()); base != 0 {
			mr := b.mirrors[base]
			if mr == nil {
				mr = &mirror{dev: b.rawAlloc(size / 2)}
				b.mirrors[base] = mr
			}
			if !mr.valid && mr.dev != 0 {
				b.elementwise("f32_to_bf16", size/4, mr.dev, base)
				mr.valid = true
			}
			return mr.dev + (x.Dev()-base)/2, dtypeBF16
		}
	}
	if sh := b.shadows[x.Dev()]; sh != nil && sh.valid && sh.n >= n {
		return sh.dev, dtypeBF16
	}
	sc := &b.bfA
	if s == 1 {
		sc = &b.bfB
	}
	if sc.n < n {
		if sc.dev != 0 {
			b.rawFree(sc.dev)
		}
		sc.dev, sc.n = b.rawAlloc(2*n), n
	}
	b.elementwise("f32_to_bf16", n, sc.dev, x.Dev())
	return sc.dev, dtypeBF16
}

func (b *Backend) computeType() int {
	if b.prec == TF32 {
		return compute32FTF32
	}
	return compute32F
}

// gemmDims checks that the sizes fit cuBLAS's 32-bit ints.
func (b *Backend) gemmDims(dims ...int) bool {
	for _, d := range dims {
		if d != int(int32(d)) {
			b.fail(fmt.Errorf("%w: matrix size %d does not fit cuBLAS's 32-bit int", ErrUnsupported, d))
			return false
		}
	}
	return true
}

func (b *Backend) MatmulForward(out, inp, w, bias nn.Buffer, N, C, OC int, wT bool) {
	if !b.gemmDims(N, C, OC) || !b.begin() {
		return
	}
	b.wrote(out)
	beta := float32(0)
	if !bias.IsNil() {
		b.argPtr(out.Dev())
		b.argPtr(bias.Dev())
		b.argInt(N)
		b.argInt(OC)
		b.launch("bias_fill", b.grid(N*OC), 1, 256)
		beta = 1
	}
	wp, wt := b.operand(w, C*OC, true, 0)
	ip, it := b.operand(inp, N*C, false, 0)
	if !b.ok() {
		return
	}
	opA, lda := opN, OC
	if wT {
		opA, lda = opT, C
	}
	b.fail(gemm(b.ctx, b.blas, opA, opN, OC, N, C, 1, wp, wt, lda, ip, it, C, beta, out.Dev(), dtypeF32, OC, b.computeType()))
}

// MatmulGeluForward is the MLP's first product with its epilogue (nn.FusedForward):
// pre (N,OC) = inp·W + bias by cuBLAS (beta 0), then one kernel adds the
// bias, keeps pre for the backward and writes out = gelu(pre) with its
// bf16 copy for the next product.
func (b *Backend) MatmulGeluForward(pre, out, inp, w, bias nn.Buffer, N, C, OC int) {
	if !b.gemmDims(N, C, OC) || !b.ok() {
		return
	}
	b.wrote(pre, out)
	wp, wt := b.operand(w, C*OC, true, 0)
	ip, it := b.operand(inp, N*C, false, 0)
	if !b.ok() {
		return
	}
	b.fail(gemm(b.ctx, b.blas, opN, opN, OC, N, C, 1, wp, wt, OC, ip, it, C, 0, pre.Dev(), dtypeF32, OC, b.computeType()))
	if !b.begin() {
		return
	}
	b.argPtr(pre.Dev())
	b.argPtr(out.Dev())
	b.argPtr(b.shadowOut(out, N*OC))
	b.argPtr(bias.Dev())
	b.argInt(N)
	b.argInt(OC)
	b.launch("bias_gelu_forward", b.grid(N*OC), 1, 256)
}

// MatmulResidualForward is a residual branch's product (nn.FusedForward):
// out (N,OC) = res + bias by one kernel, then cuBLAS adds inp·W into it
// (beta 1). out may be res itself.
func (b *Backend) MatmulResidualForward(out, res, inp, w, bias nn.Buffer, N, C, OC int) {
	if !b.gemmDims(N, C, OC) || !b.begin() {
		return
	}
	b.wrote(out)
	b.argPtr(out.Dev())
	b.argPtr(res.Dev())
	b.argPtr(bias.Dev())
	b.argInt(N)
	b.argInt(OC)
	b.launch("residual_bias", b.grid(N*OC), 1, 256)
	wp, wt := b.operand(w, C*OC, true, 0)
	ip, it := b.operand(inp, N*C, false, 0)
	if !b.ok() {
		return
	}
	b.fail(gemm(b.ctx, b.blas, opN, opN, OC, N, C, 1, wp, wt, OC, ip, it, C, 1, out.Dev(), dtypeF32, OC, b.computeType()))
}

func (b *Backend) MatmulBackward(dinp, dw, dbias, dout, inp, w nn.Buffer, N, C, OC int, wT bool) {
	if !b.gemmDims(N, C, OC) || !b.ok() {
		return
	}
	b.wrote(dinp, dw, dbias)
	dp, dt := b.operand(dout, N*OC, false, 0)
	if !dinp.IsNil() {
		wp, wt := b.operand(w, C*OC, true, 0)
		opA, lda := opT, OC
		if wT {
			opA, lda = opN, C
		}
		if b.ok() {
			b.fail(gemm(b.ctx, b.blas, opA, opN, C, N, OC, 1, wp, wt, lda, dp, dt, OC, 1, dinp.Dev(), dtypeF32, C, b.computeType()))
		}
	}
	ip, it := b.operand(inp, N*C, false, 1)
	if !b.ok() {
		return
	}
	if wT {
		b.fail(gemm(b.ctx, b.blas, opN, opT, C, OC, N, 1, ip, it, C, dp, dt, OC, 1, dw.Dev(), dtypeF32, C, b.computeType()))
	} else {
		b.fail(gemm(b.ctx, b.blas, opN, opT, OC, C, N, 1, dp, dt, OC, ip, it, C, 1, dw.Dev(), dtypeF32, OC, b.computeType()))
	}
	if dbias.IsNil() {
		return
	}
	rows := partialRows(N)
	P := (N + rows - 1) / rows
	part := b.scratch(&b.partials, P*OC)
	if !b.begin() {
		return
	}
	b.argPtr(part.Dev())
	b.argPtr(dout.Dev())
	b.argInt(N)
	b.argInt(OC)
	b.argInt(rows)
	b.launch("column_sum_partial", (OC+255)/256, P, 256)
	b.columnReduce(dbias.Dev(), part.Dev(), P, OC, OC)
}

// ---- token ids: pinned slots, optional early copy ----

// intRing holds the device copies of recent token-id arrays of one kind.
type intRing struct {
	slots [3]intSlot
	cur   int // slot the compute stream uses now; -1 none
	seq   uint64
}

type intSlot struct {
	host    []int32 // pinned
	hostP   unsafe.Pointer
	dev     uintptr
	cap, n  int
	valid   bool
	viaCopy bool    // filled on the copy stream: compute must wait on copied
	copied  cuEvent // after the host→device copy
	// released is recorded on the compute stream when the slot stops being
	// current, and when its device memory is new (after the zero-fill
	// rawAlloc queues there): a copy into the slot on the copy stream waits
	// for it.
	released cuEvent
	used     uint64
}

func (r *intRing) init(b *Backend) error {
	r.cur = -1
	for i := range r.slots {
		s := &r.slots[i]
		var err error
		if s.copied, err = eventCreate(b.ctx, false); err != nil {
			return err
		}
		if s.released, err = eventCreate(b.ctx, false); err != nil {
			return err
		}
	}
	return nil
}

func (r *intRing) free(b *Backend) {
	for i := range r.slots {
		s := &r.slots[i]
		if s.hostP != nil {
			_ = hostFree(b.ctx, s.hostP)
			s.hostP, s.host = nil, nil
		}
		for _, e := range []*cuEvent{&s.copied, &s.released} {
			if *e != nil {
				_ = eventDestroy(b.ctx, *e)
				*e = nil
			}
		}
	}
}

func (s *intSlot) holds(src []int32) bool {
	return s.valid && s.n == len(src) && slices.Equal(s.host[:s.n], src)
}

func (r *intRing) makeCurrent(b *Backend, i int) {
	if r.cur == i {
		return
	}
	if r.cur >= 0 {
		b.fail(eventRecord(b.ctx, r.slots[r.cur].released, b.stream))
	}
	r.cur = i
	s := &r.slots[i]
	if s.viaCopy {
		b.fail(streamWait(b.ctx, b.stream, s.copied))
		s.viaCopy = false
	}
}

// device returns the device address of src's copy, copying it if no slot
// holds it already. prefetch copies on the copy stream and leaves the
// current slot alone.
func (r *intRing) device(b *Backend, src []int32, prefetch bool) uintptr {
	if !b.ok() || len(src) == 0 {
		return 0
	}
	r.seq++
	for i := range r.slots {
		if r.slots[i].holds(src) {
			r.slots[i].used = r.seq
			if !prefetch {
				r.makeCurrent(b, i)
			}
			return r.slots[i].dev
		}
	}
	v := -1
	for i := range r.slots {
		if i == r.cur {
			continue
		}
		if v < 0 || !r.slots[i].valid || (r.slots[v].valid && r.slots[i].used < r.slots[v].used) {
			v = i
		}
	}
	s := &r.slots[v]
	n := len(src)
	if s.valid {
		b.fail(eventSync(b.ctx, s.copied)) // the pinned memory is free to write
	}
	if s.cap < n {
		if s.hostP != nil {
			b.fail(streamSync(b.ctx, b.stream))
			b.fail(streamSync(b.ctx, b.copyS))
			_ = hostFree(b.ctx, s.hostP)
			s.hostP, s.host, s.cap = nil, nil, 0
			b.rawFree(s.dev)
		}
		p, err := hostAlloc(b.ctx, 4*n)
		if err != nil {
			b.fail(err)
			return 0
		}
		s.hostP, s.host, s.cap = p, unsafe.Slice((*int32)(p), n), n
		s.dev = b.rawAlloc(4 * n)
		// rawAlloc zero-fills on the compute stream; a copy on the copy
		// stream must come after it.
		b.fail(eventRecord(b.ctx, s.released, b.stream))
	}
	copy(s.host[:n], src)
	s.n, s.valid, s.used = n, true, r.seq
	st := b.stream
	if prefetch {
		st = b.copyS
		b.fail(streamWait(b.ctx, st, s.released)) // earlier kernels reading the slot are done
	}
	b.stages.begin(b, "h2d", st)
	b.fail(htod(b.ctx, s.dev, s.hostP, 4*n, st))
	b.stages.end(b, "h2d", st)
	b.fail(eventRecord(b.ctx, s.copied, st))
	s.viaCopy = prefetch
	if !prefetch {
		r.makeCurrent(b, v)
	}
	if !b.ok() {
		return 0
	}
	return s.dev
}

// Prefetch starts copying the next batch's tokens and targets on the copy
// stream, so the transfer overlaps the compute of the current step; the
// kernels that later receive the same ids wait for the copy on the device,
// not on the host.
func (b *Backend) Prefetch(tokens, targets []int32) {
	b.tokens.device(b, tokens, true)
	if targets != nil {
		b.targets.device(b, targets, true)
	}
}

// ---- stage timing with CUDA events ----

// Stage names of StageSeconds.
var StageNames = []string{"h2d", "forward", "backward", "optimizer", "d2h"}

type stagePair struct {
	name       string
	start, end cuEvent
	ended      bool // the end event was recorded
}

type stageTimer struct {
	pool []stagePair // created once, reused
	used int
	open map[string]int
}

func (t *stageTimer) free(b *Backend) {
	for _, p := range t.pool {
		_ = eventDestroy(b.ctx, p.start)
		_ = eventDestroy(b.ctx, p.end)
	}
	t.pool = nil
}

// EnableStageTiming turns event recording on or off (off by default: events
// cost a little on every copy).
func (b *Backend) EnableStageTiming(on bool) {
	b.timing = on
	if on && b.stages.pool == nil && b.ok() {
		b.stages.open = map[string]int{}
		for range 256 {
			s, err := eventCreate(b.ctx, true)
			if err != nil {
				b.fail(err)
				return
			}
			e, err := eventCreate(b.ctx, true)
			if err != nil {
				_ = eventDestroy(b.ctx, s)
				b.fail(err)
				return
			}
			b.stages.pool = append(b.stages.pool, stagePair{start: s, end: e})
		}
	}
}

func (t *stageTimer) begin(b *Backend, name string, s cuStream) {
	if !b.timing || t.used >= len(t.pool) || !b.ok() {
		return
	}
	p := &t.pool[t.used]
	p.name, p.ended = name, false
	t.open[name] = t.used // a stage begun again before its end: the first is dropped
	t.used++
	b.fail(eventRecord(b.ctx, p.start, s))
}

func (t *stageTimer) end(b *Backend, name string, s cuStream) {
	if !b.timing || !b.ok() {
		return
	}
	i, ok := t.open[name]
	if !ok {
		return
	}
	delete(t.open, name)
	b.fail(eventRecord(b.ctx, t.pool[i].end, s))
	t.pool[i].ended = true
}

// BeginStage and EndStage bracket work queued on the compute stream (the
// trainer calls them around forward, backward and the optimizer); h2d and
// d2h are bracketed by the backend itself.
func (b *Backend) BeginStage(name string) { b.stages.begin(b, name, b.stream) }
func (b *Backend) EndStage(name string)   { b.stages.end(b, name, b.stream) }

// StageSeconds waits for the recorded stages and returns the device time of
// each since the previous call (seconds, by name). Stages still open, or
// begun again before they ended, are left out. A failure to read a time is
// not the backend's error (the computation is fine): it is kept for
// StageTimingErr and the stages read so far are returned.
func (b *Backend) StageSeconds() map[string]float64 {
	out := map[string]float64{}
	t := &b.stages
	if !b.timing {
		return out
	}
	for i := 0; i < t.used && b.ok(); i++ {
		p := &t.pool[i]
		if !p.ended {
			continue
		}
		if err := eventSync(b.ctx, p.end); err != nil {
			b.fail(err) // the work before the event failed: that is the backend's error
			break
		}
		ms, err := eventElapsedMs(b.ctx, p.start, p.end)
		if err != nil {
			b.timingErr = fmt.Errorf("cuda: stage %s: %w", p.name, err)
			continue
		}
		out[p.name] += float64(ms) / 1000
	}
	t.used = 0
	clear(t.open)
	return out
}

// StageTimingErr returns the last failure to read a stage time (nil if
// none); timing failures do not stop the backend.
func (b *Backend) StageTimingErr() error { return b.timingErr }

// String names the backend for logs.
func (b *Backend) String() string {
	return strings.TrimPrefix(b.Describe(), "cuda: ")
}
