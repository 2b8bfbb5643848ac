package gpt

import (
	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/cpu"
)

// Compact is a snapshot of a model's weights for compact decoding: the five
// matrices of each block and the tied output embedding as int8 with one
// scale per output row (engine/nn/cpu's Q8), everything else (embeddings,
// layer norms, biases) in float32. A sampler made with NewCompactSampler
// steps on the host with it and keeps its cache of keys and values in half
// precision, so one step reads about 4.6 MB instead of 14.8 MB of weights
// and half the cache bytes of the float32 step; prefills at the start and at
// refills stay the float32 batched forward of the model's backend.
//
// Why: a decoding step of the small preset is bound by memory traffic
// (docs/BENCHMARKS.md, "Where a 16-bar piece's time goes"). What it costs in
// fidelity is measured by TestCompactStepMatchesFloat32 (logits and the
// next-token distribution against the float32 step) and, on the music, by
// the eval-model suite (docs/MODEL.md, "Compact decoding").
//
// A Compact is read-only once made and may be shared by samplers on several
// goroutines. It is a snapshot: weights trained after it are not seen.
type Compact struct {
	c        Config
	wte, wpe []float32 // (V,C), (NPositions,C)
	lnfw     []float32
	lnfb     []float32
	out      cpu.Q8 // the tied embedding as the output matrix (V rows of C)
	h        []compactLayer
}

type compactLayer struct {
	ln1w, ln1b, qkvb, projb, ln2w, ln2b, fcb, fcprojb []float32
	qkv, proj, fc, fcproj                             cpu.Q8
}

// Compact makes the compact snapshot of the model's current weights.
func (m *Model) Compact() *Compact {
	c := m.Config
	host := make([]float32, m.params.Len())
	m.be.Download(host, m.params)
	p := carve(c, nn.HostBuffer(host))
	C, V := c.NEmbd, c.VocabSize
	cp := func(b nn.Buffer) []float32 { return append([]float32(nil), b.Host()...) }
	k := &Compact{c: c, wte: cp(p.wte), wpe: cp(p.wpe), lnfw: cp(p.lnfw), lnfb: cp(p.lnfb),
		out: cpu.QuantizeQ8(p.wte.Host(), C, V, true), h: make([]compactLayer, c.NLayer)}
	for l := range k.h {
		w := &p.h[l]
		k.h[l] = compactLayer{ln1w: cp(w.ln1w), ln1b: cp(w.ln1b), qkvb: cp(w.qkvb), projb: cp(w.attprojb),
			ln2w: cp(w.ln2w), ln2b: cp(w.ln2b), fcb: cp(w.fcb), fcprojb: cp(w.fcprojb),
			qkv: cpu.QuantizeQ8(w.qkvw.Host(), C, 3*C, false), proj: cpu.QuantizeQ8(w.attprojw.Host(), C, C, false),
			fc: cpu.QuantizeQ8(w.fcw.Host(), C, 4*C, false), fcproj: cpu.QuantizeQ8(w.fcprojw.Host(), 4*C, C, false)}
	}
	return k
}

// compactState is a compact sampler's own memory: the half-precision cache
// ((W,hs) per layer and head) and the vectors of one step.
type compactState struct {
	k        *Compact
	kc, vc   [][]uint16 // per layer: NH heads of W rows of hs
	x, ln    []float32  // C
	qkv      []float32  // 3C
	y, t     []float32  // C
	h4       []float32  // 4C
	scores   []float32  // W
	hostRows []float32  // prefill: the qkv rows of one layer
}

// NewCompactSampler is NewSampler stepping with k (made by m.Compact()).
func (m *Model) NewCompactSampler(window int, k *Compact) *Sampler {
	s := m.NewSampler(window)
	c := m.Config
	C, NH := c.NEmbd, c.NHead
	hs := C / NH
	st := &compactState{k: k, kc: make([][]uint16, c.NLayer), vc: make([][]uint16, c.NLayer),
		x: make([]float32, C), ln: make([]float32, C), qkv: make([]float32, 3*C), y: make([]float32, C),
		t: make([]float32, C), h4: make([]float32, 4*C), scores: make([]float32, s.W)}
	for i := range st.kc {
		st.kc[i] = make([]uint16, NH*s.W*hs)
		st.vc[i] = make([]uint16, NH*s.W*hs)
	}
	s.compact = st
	return s
}

// compactPrefill copies the keys and values of rows 0..n-1, just computed
// by the float32 forward, into the half-precision cache.
func (s *Sampler) compactPrefill(n int) {
	st, c := s.compact, s.m.Config
	C, NH := c.NEmbd, c.NHead
	hs := C / NH
	if cap(st.hostRows) < n*3*C {
		st.hostRows = make([]float32, n*3*C)
	}
	rows := st.hostRows[:n*3*C]
	for l := 0; l < c.NLayer; l++ {
		s.m.be.Download(rows, s.a.h[l].qkv.Slice(0, n*3*C))
		for h := 0; h < NH; h++ {
			kc, vc := st.kc[l][h*s.W*hs:], st.vc[l][h*s.W*hs:]
			for r := 0; r < n; r++ {
				q := rows[r*3*C:]
				cpu.F32ToF16(kc[r*hs:(r+1)*hs], q[C+h*hs:C+(h+1)*hs])
				cpu.F32ToF16(vc[r*hs:(r+1)*hs], q[2*C+h*hs:2*C+(h+1)*hs])
			}
		}
	}
}

// compactStep is Step on the host with the compact weights and cache.
func (s *Sampler) compactStep(tok uint16) {
	st, c := s.compact, s.m.Config
	k := st.k
	C, NH := c.NEmbd, c.NHead
	eps := float32(c.LayerNormEps)
	r := s.pos
	x := st.x
	e, p := k.wte[int(tok)*C:int(tok)*C+C], k.wpe[r*C:r*C+C]
	for i := range x {
		x[i] = e[i] + p[i]
	}
	for l := range k.h {
		w := &k.h[l]
		cpu.LayerNormRow(st.ln, x, w.ln1w, w.ln1b, eps)
		w.qkv.MatVec(st.qkv, st.ln, w.qkvb)
		cpu.AttendStepF16(st.y, st.qkv, st.kc[l], st.vc[l], r, s.W, NH, st.scores)
		w.proj.MatVec(st.t, st.y, w.projb)
		for i := range x {
			x[i] += st.t[i]
		}
		cpu.LayerNormRow(st.ln, x, w.ln2w, w.ln2b, eps)
		w.fc.MatVec(st.h4, st.ln, w.fcb)
		cpu.GeluFast(st.h4, st.h4)
		w.fcproj.MatVec(st.t, st.h4, w.fcprojb)
		for i := range x {
			x[i] += st.t[i]
		}
	}
	cpu.LayerNormRow(st.ln, x, k.lnfw, k.lnfb, eps)
	k.out.MatVec(s.logits, st.ln, nil)
}
