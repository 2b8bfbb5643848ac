//go:build cgo && linux

package cuda

import (
	"errors"
	"math"
	"os"
	"unsafe"

	"github.com/amtstudio/amt/engine/nn"
)

// Decoding on the device (nn.Decoder): a sampling step of one sequence is
// dec_embed, five kernels a layer and dec_logits (kernels/decode.cu), all
// reading the token and position from device memory, so the same launch
// sequence serves every step. The first step records it as a CUDA graph
// (stream capture); later steps copy the token and position in, launch the
// graph, and copy the V logits out: three driver calls a token instead of
// a dozen launches a layer. Without graph support in the driver, or with
// AMT_CUDA_GRAPHS=0, or when capture fails, the kernels are launched one by
// one (the same results).

const (
	decThreads = 256  // DEC_THREADS in decode.cu
	decMaxK    = 4096 // DEC_MAXK in decode.cu
	decKeys    = 128  // DEC_KEYS in decode.cu: cache rows per attention block
)

type decodePlan struct {
	b *Backend
	m nn.DecodeModel

	dev        nn.Buffer // x (C) | atty (C) | h (4C) | logits (V) | att (NH·S·(hs+2)) | part
	x, atty, h nn.Buffer
	logits     nn.Buffer
	att, part  nn.Buffer
	counters   uintptr // max(ceil(4C/32), NH) zeros, reset by the kernels themselves
	stepDev    uintptr // [token, position]
	stepHost   unsafe.Pointer
	outHost    unsafe.Pointer // V floats, pinned

	graph    cuGraph
	exec     cuGraphExec
	tried    bool // a capture was attempted
	released bool
}

// DecodePlan implements nn.Decoder for head sizes up to 128 and widths up
// to 1,024 (the kernels' shared-memory bounds).
func (b *Backend) DecodePlan(m nn.DecodeModel) (nn.DecodePlan, bool) {
	C, NH := m.C, m.NH
	if !b.ok() || NH <= 0 || C%NH != 0 || C/NH > 128 || 4*C > decMaxK || m.V <= 0 || m.T <= 0 || len(m.Layers) == 0 {
		return nil, false
	}
	p := &decodePlan{b: b, m: m}
	maxPart := 0
	for _, k := range [][2]int{{C, 3 * C}, {C, C}, {C, 4 * C}, {4 * C, C}} {
		maxPart = max(maxPart, decSlices(k[0], k[1])*k[1])
	}
	att := NH * ((m.T + decKeys - 1) / decKeys) * (C/NH + 2)
	n := 6*C + m.V + att + maxPart
	p.dev = b.Alloc(n)
	off := 0
	next := func(k int) nn.Buffer { v := p.dev.Slice(off, k); off += k; return v }
	p.x, p.atty, p.h, p.logits, p.att, p.part = next(C), next(C), next(4*C), next(m.V), next(att), next(maxPart)
	p.counters = b.rawAlloc(4 * max((4*C+31)/32, NH))
	p.stepDev = b.rawAlloc(8)
	var err error
	if p.stepHost, err = hostAlloc(b.ctx, 8); err == nil {
		p.outHost, err = hostAlloc(b.ctx, 4*m.V)
	}
	b.fail(err)
	if !b.ok() {
		p.Release()
		return nil, false
	}
	// Kept until Release or Close (a sampler may be pooled and used again
	// much later; a plan is under 1 MB beside the sampler's activations).
	b.plans = append(b.plans, p)
	return p, true
}

// decSlices is the number of row slices dec_matvec splits a K×OC product
// into: enough blocks (~128) to keep the GPU busy, at least 32 rows each.
func decSlices(K, OC int) int {
	groups := (OC + 31) / 32
	return max(1, min((K+31)/32, (128+groups-1)/groups))
}

// matvec queues dec_matvec: y = act(f(in)·W + bias) + res (decode.cu).
func (p *decodePlan) matvec(y nn.Buffer, ystride int, in, lnw, lnb, W, bias, res nn.Buffer, K, OC int, gelu bool) {
	b := p.b
	if !b.begin() {
		return
	}
	b.argPtr(y.Dev())
	b.argLong(ystride)
	for _, ptr := range []uintptr{in.Dev(), lnw.Dev(), lnb.Dev(), W.Dev(), bias.Dev(), res.Dev(), p.part.Dev(), p.counters, p.stepDev} {
		b.argPtr(ptr)
	}
	b.argInt(K)
	b.argInt(OC)
	b.argF32(p.m.Eps)
	g := 0
	if gelu {
		g = 1
	}
	b.argInt(g)
	b.launch("dec_matvec", (OC+31)/32, decSlices(K, OC), decThreads)
}

// queue issues the whole step's kernels on the compute stream.
func (p *decodePlan) queue() {
	b, m := p.b, &p.m
	C, NH, V, T := m.C, m.NH, m.V, m.T
	if b.begin() {
		b.argPtr(p.x.Dev())
		b.argPtr(m.WTE.Dev())
		b.argPtr(m.WPE.Dev())
		b.argPtr(p.stepDev)
		b.argInt(C)
		b.launch("dec_embed", 1, 1, decThreads)
	}
	none := nn.Buffer{}
	for l := range m.Layers {
		L := &m.Layers[l]
		p.matvec(L.QKV, 3*C, p.x, L.LN1W, L.LN1B, L.QKVW, L.QKVB, none, C, 3*C, false)
		if b.begin() {
			b.argPtr(p.atty.Dev())
			b.argPtr(p.att.Dev())
			b.argPtr(p.counters)
			b.argPtr(L.QKV.Dev())
			b.argPtr(p.stepDev)
			b.argInt(T)
			b.argInt(C)
			b.argInt(NH)
			b.argF32(float32(1 / math.Sqrt(float64(C/NH))))
			b.launch("dec_attend", NH, (T+decKeys-1)/decKeys, decThreads)
		}
		p.matvec(p.x, 0, p.atty, none, none, L.ProjW, L.ProjB, p.x, C, C, false)
		p.matvec(p.h, 0, p.x, L.LN2W, L.LN2B, L.FCW, L.FCB, none, C, 4*C, true)
		p.matvec(p.x, 0, p.h, none, none, L.FCProjW, L.FCProjB, p.x, 4*C, C, false)
	}
	if b.begin() {
		b.argPtr(p.logits.Dev())
		b.argPtr(p.x.Dev())
		b.argPtr(m.LNFW.Dev())
		b.argPtr(m.LNFB.Dev())
		b.argPtr(m.WTE.Dev())
		b.argInt(V)
		b.argInt(C)
		b.argF32(m.Eps)
		b.launch("dec_logits", (V+7)/8, 1, decThreads)
	}
}

// graphsOn reports whether decoding may use CUDA graphs (AMT_CUDA_GRAPHS=0
// turns them off).
func graphsOn() bool { return hasGraphs() && os.Getenv("AMT_CUDA_GRAPHS") != "0" }

// capture records the step's kernels as a graph. A failure leaves the plan
// launching kernels one by one; the backend goes on (capture is an
// optimisation, its errors are not sticky).
func (p *decodePlan) capture() {
	b := p.b
	p.tried = true
	if err := captureBegin(b.ctx, b.stream); err != nil {
		b.graphErr = err
		return
	}
	p.queue()
	g, err := captureEnd(b.ctx, b.stream)
	if err != nil || !b.ok() {
		b.graphErr = err
		return
	}
	e, err := graphInstantiate(b.ctx, g)
	if err != nil {
		b.graphErr = err
		_ = graphDestroy(b.ctx, g)
		return
	}
	p.graph, p.exec = g, e
}

// DecodeSteps counts the decoding steps (nn.Decoder) run so far: replayed
// as a CUDA graph, and launched kernel by kernel. GraphErr is why the last
// capture failed (nil if none did).
func (b *Backend) DecodeSteps() (graphed, direct int) { return b.stepsGraphed, b.stepsDirect }

// GraphErr returns the last failure to capture a decoding step as a graph.
func (b *Backend) GraphErr() error { return b.graphErr }

func (p *decodePlan) Step(tok, pos int, logits []float32) {
	b, m := p.b, &p.m
	n := min(len(logits), m.V)
	if p.released || pos < 0 || pos >= m.T || tok < 0 || tok >= m.V {
		b.fail(errDecodeArgs)
	}
	if b.ok() {
		st := unsafe.Slice((*int32)(p.stepHost), 2)
		st[0], st[1] = int32(tok), int32(pos)
		b.wrote(p.dev)
		for _, L := range m.Layers {
			b.wrote(L.QKV.Slice(pos*3*m.C, 3*m.C))
		}
		b.fail(htod(b.ctx, p.stepDev, p.stepHost, 8, b.stream))
		if !p.tried && graphsOn() {
			p.capture()
		}
		if p.exec != nil {
			b.fail(graphLaunch(b.ctx, p.exec, b.stream))
			b.stepsGraphed++
		} else {
			p.queue()
			b.stepsDirect++
		}
		if b.ok() {
			b.fail(dtohSync(b.ctx, p.outHost, p.logits.Dev(), 4*m.V, b.stream))
		}
	}
	if !b.ok() {
		nan := float32(math.NaN())
		for i := range logits[:n] {
			logits[i] = nan
		}
		return
	}
	copy(logits[:n], unsafe.Slice((*float32)(p.outHost), m.V))
}

// Graphed reports whether the plan's steps replay a CUDA graph.
func (p *decodePlan) Graphed() bool { return p.exec != nil }

func (p *decodePlan) Release() {
	if p.released {
		return
	}
	b := p.b
	for i, q := range b.plans {
		if q == p {
			b.plans = append(b.plans[:i], b.plans[i+1:]...)
			break
		}
	}
	p.free()
	if !b.closed {
		b.Free(p.dev)
		b.rawFree(p.counters)
		b.rawFree(p.stepDev)
	}
}

// free destroys the graph and the pinned memory (the device memory is the
// backend's, freed by Release or Close).
func (p *decodePlan) free() {
	p.released = true
	b := p.b
	_ = streamSync(b.ctx, b.stream)
	if p.exec != nil {
		_ = graphExecDestroy(b.ctx, p.exec)
		p.exec = nil
	}
	if p.graph != nil {
		_ = graphDestroy(b.ctx, p.graph)
		p.graph = nil
	}
	for _, h := range []unsafe.Pointer{p.stepHost, p.outHost} {
		if h != nil {
			_ = hostFree(b.ctx, h)
		}
	}
	p.stepHost, p.outHost = nil, nil
}

var errDecodeArgs = errors.New("cuda: decoding step with a token or position out of range, or on a released plan")
