// Package cpu is the CPU backend of engine/nn: matrix products through
// OpenBLAS cblas_sgemm (cgo, Debian libopenblas-dev; single-threaded, one call
// per part), every other kernel in Go (float32 exp by range reduction and a
// polynomial, no float64 math in the hot loops), parallel with a worker pool
// sized to GOMAXPROCS whose threads claim fixed parts of each kernel as they
// get CPU time (pool.go: deterministic results, no stall when the OS
// deschedules a worker). Causal attention skips the masked blocks. It is the
// only package of the engine that uses cgo: OpenBLAS, and compact.c, the
// C kernels of compact decoding (int8 weights, half-precision cache, AVX2
// chosen at run time; compact.go).
//
// It must never import app/, ui/ or storage/.
package cpu

import (
	"runtime"

	"github.com/amtstudio/amt/engine/nn"
)

// Backend is the CPU implementation of nn.Backend. It is used by one
// goroutine at a time; its kernels keep their argument structs as fields so
// that a steady-state training or sampling step allocates nothing.
type Backend struct {
	pool *pool
	// scratch per worker, grown on demand and then reused.
	scratch [][]float32
	partial []float64

	jEnc   encJob
	jEncB  encBackJob
	jLN    lnJob
	jLNB   lnBackJob
	jMM    mmJob
	jAtt   attJob
	jAttB  attBackJob
	jAttS  attStepJob
	jGelu  geluJob
	jGeluB geluBackJob
	jAdd   addJob
	jCE    ceJob
	jCEB   ceBackJob
	jSS    ssJob
	jAdam  adamJob
	jZero  zeroJob
}

var _ nn.Backend = (*Backend)(nil)

// New returns a CPU backend with one worker per GOMAXPROCS.
func New() *Backend { return NewWorkers(runtime.GOMAXPROCS(0)) }

// NewWorkers returns a CPU backend with n workers (the caller counts as one).
func NewWorkers(n int) *Backend {
	if n < 1 {
		n = 1
	}
	pl := newPool(n)
	return &Backend{pool: pl, scratch: make([][]float32, pl.maxParts), partial: make([]float64, pl.maxParts)}
}

// Workers is the size of the worker pool.
func (b *Backend) Workers() int { return b.pool.n }

func (b *Backend) Name() string { return "cpu" }

func (b *Backend) Close() { b.pool.close() }

// Alloc returns n zeroed floats from the Go heap (the GC owns them); large
// buffers get the transparent-huge-page hint.
func (b *Backend) Alloc(n int) nn.Buffer {
	s := make([]float32, n)
	adviseHuge(s)
	return nn.HostBuffer(s)
}

func (b *Backend) Free(nn.Buffer) {}

func (b *Backend) Upload(dst nn.Buffer, src []float32) { copy(dst.Host(), src) }

func (b *Backend) Download(dst []float32, src nn.Buffer) { copy(dst, src.Host()) }

// Zero clears x, split over the workers when it is large (gradient buffers
// of a training step are tens of MB).
func (b *Backend) Zero(x nn.Buffer) {
	b.jZero = zeroJob{x: x.Host()}
	b.pool.run(len(b.jZero.x), 1<<18, &b.jZero)
}

type zeroJob struct{ x []float32 }

func (j *zeroJob) Do(lo, hi, _ int) { clear(j.x[lo:hi]) }

// scratchFor returns part w's scratch of at least n floats.
func (b *Backend) scratchFor(w, n int) []float32 {
	if cap(b.scratch[w]) < n {
		b.scratch[w] = make([]float32, n)
	}
	return b.scratch[w][:n]
}

// ensureScratch grows every part's scratch to n floats before a parallel
// kernel (parts run concurrently, each on its own scratch).
func (b *Backend) ensureScratch(n int) {
	for w := range b.scratch {
		b.scratchFor(w, n)
	}
}

// grainRows picks a grain so that tiny kernels run inline: at least about
// 16K floats of work per part.
func grainRows(rowLen int) int {
	g := 16384 / max(rowLen, 1)
	return max(g, 1)
}

const grainElems = 32768

// ---- residual ----

type addJob struct {
	out, a, c []float32
	acc       bool
}

func (j *addJob) Do(lo, hi, _ int) {
	if j.acc {
		d, s := j.out[lo:hi], j.a[lo:hi]
		for i := range d {
			d[i] += s[i]
		}
		return
	}
	o, a, c := j.out[lo:hi], j.a[lo:hi], j.c[lo:hi]
	for i := range o {
		o[i] = a[i] + c[i]
	}
}

func (b *Backend) Add(out, a, c nn.Buffer, n int) {
	b.jAdd = addJob{out: out.Host()[:n], a: a.Host()[:n], c: c.Host()[:n]}
	b.pool.run(n, grainElems, &b.jAdd)
}

func (b *Backend) Accumulate(dst, src nn.Buffer, n int) {
	b.jAdd = addJob{out: dst.Host()[:n], a: src.Host()[:n], acc: true}
	b.pool.run(n, grainElems, &b.jAdd)
}

// ---- reductions ----

type ssJob struct {
	x       []float32
	partial []float64
}

func (j *ssJob) Do(lo, hi, w int) {
	s := 0.0
	for _, v := range j.x[lo:hi] {
		s += float64(v) * float64(v)
	}
	j.partial[w] = s
}

func (b *Backend) SumSquares(x nn.Buffer) float64 {
	clear(b.partial)
	b.jSS = ssJob{x: x.Host(), partial: b.partial}
	b.pool.run(x.Len(), grainElems, &b.jSS)
	s := 0.0
	for _, p := range b.partial {
		s += p
	}
	return s
}

// partsFor is the number of parts pool.run will use for n items of grain g.
func (b *Backend) partsFor(n, g int) int { return b.pool.partsFor(n, g) }

// ---- AdamW ----

type adamJob struct {
	p, g, m, v []float32
	hp         nn.AdamW
	bc1, bc2   float32
}

func (j *adamJob) Do(lo, hi, _ int) {
	hp := j.hp
	scale := hp.GradScale
	if scale == 0 {
		scale = 1
	}
	b1, b2 := hp.Beta1, hp.Beta2
	c1, c2 := 1-b1, 1-b2
	ib1, ib2 := 1/j.bc1, 1/j.bc2
	lr, wd, eps := hp.LR, hp.WeightDecay, hp.Eps
	p, g, m, v := j.p[lo:hi], j.g[lo:hi], j.m[lo:hi], j.v[lo:hi]
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	for i := range p {
		gi := g[i] * scale
		mi := b1*m[i] + c1*gi
		vi := b2*v[i] + c2*gi*gi
		m[i], v[i] = mi, vi
		p[i] -= lr * (mi*ib1/(sqrt32(vi*ib2)+eps) + wd*p[i])
	}
}

func (b *Backend) AdamWUpdate(params, grads, m, v nn.Buffer, hp nn.AdamW) {
	n := params.Len()
	b.jAdam = adamJob{p: params.Host(), g: grads.Host()[:n], m: m.Host()[:n], v: v.Host()[:n], hp: hp,
		bc1: 1 - pow32(hp.Beta1, hp.Step), bc2: 1 - pow32(hp.Beta2, hp.Step)}
	b.pool.run(n, grainElems, &b.jAdam)
}
