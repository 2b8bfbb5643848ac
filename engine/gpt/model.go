package gpt

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/amtstudio/amt/engine/nn"
)

// Tensor is one named parameter tensor inside the parameter buffer.
type Tensor struct {
	Name  string // Hugging Face name, e.g. transformer.h.0.attn.c_attn.weight
	Shape []int
	Off   int  // offset in floats within the parameter buffer
	Decay bool // AdamW weight decay applies (matrices and embeddings)
}

// Size is the number of elements.
func (t Tensor) Size() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Tensors lists the parameters in buffer order: every decayed tensor first,
// then the biases and layer-norm parameters, so the optimizer can update each
// group with one call.
func (c Config) Tensors() []Tensor {
	C, V, P := c.NEmbd, c.VocabSize, c.NPositions
	var decay, rest []Tensor
	decay = append(decay, Tensor{Name: "transformer.wte.weight", Shape: []int{V, C}}, Tensor{Name: "transformer.wpe.weight", Shape: []int{P, C}})
	for l := 0; l < c.NLayer; l++ {
		p := fmt.Sprintf("transformer.h.%d.", l)
		decay = append(decay,
			Tensor{Name: p + "attn.c_attn.weight", Shape: []int{C, 3 * C}},
			Tensor{Name: p + "attn.c_proj.weight", Shape: []int{C, C}},
			Tensor{Name: p + "mlp.c_fc.weight", Shape: []int{C, 4 * C}},
			Tensor{Name: p + "mlp.c_proj.weight", Shape: []int{4 * C, C}})
		rest = append(rest,
			Tensor{Name: p + "ln_1.weight", Shape: []int{C}},
			Tensor{Name: p + "ln_1.bias", Shape: []int{C}},
			Tensor{Name: p + "attn.c_attn.bias", Shape: []int{3 * C}},
			Tensor{Name: p + "attn.c_proj.bias", Shape: []int{C}},
			Tensor{Name: p + "ln_2.weight", Shape: []int{C}},
			Tensor{Name: p + "ln_2.bias", Shape: []int{C}},
			Tensor{Name: p + "mlp.c_fc.bias", Shape: []int{4 * C}},
			Tensor{Name: p + "mlp.c_proj.bias", Shape: []int{C}})
	}
	rest = append(rest, Tensor{Name: "transformer.ln_f.weight", Shape: []int{C}}, Tensor{Name: "transformer.ln_f.bias", Shape: []int{C}})
	off := 0
	out := make([]Tensor, 0, len(decay)+len(rest))
	for i := range decay {
		decay[i].Decay = true
		decay[i].Off = off
		off += decay[i].Size()
		out = append(out, decay[i])
	}
	for i := range rest {
		rest[i].Off = off
		off += rest[i].Size()
		out = append(out, rest[i])
	}
	return out
}

// layerParams are the views of one block's tensors.
type layerParams struct {
	ln1w, ln1b, qkvw, qkvb, attprojw, attprojb nn.Buffer
	ln2w, ln2b, fcw, fcb, fcprojw, fcprojb     nn.Buffer
}

type paramViews struct {
	wte, wpe, lnfw, lnfb nn.Buffer
	h                    []layerParams
}

func carve(c Config, base nn.Buffer) paramViews {
	var p paramViews
	p.h = make([]layerParams, c.NLayer)
	for _, t := range c.Tensors() {
		v := base.Slice(t.Off, t.Size())
		switch t.Name {
		case "transformer.wte.weight":
			p.wte = v
		case "transformer.wpe.weight":
			p.wpe = v
		case "transformer.ln_f.weight":
			p.lnfw = v
		case "transformer.ln_f.bias":
			p.lnfb = v
		default:
			var l int
			var rest string
			fmt.Sscanf(t.Name, "transformer.h.%d.", &l)
			rest = t.Name[len(fmt.Sprintf("transformer.h.%d.", l)):]
			lp := &p.h[l]
			switch rest {
			case "ln_1.weight":
				lp.ln1w = v
			case "ln_1.bias":
				lp.ln1b = v
			case "attn.c_attn.weight":
				lp.qkvw = v
			case "attn.c_attn.bias":
				lp.qkvb = v
			case "attn.c_proj.weight":
				lp.attprojw = v
			case "attn.c_proj.bias":
				lp.attprojb = v
			case "ln_2.weight":
				lp.ln2w = v
			case "ln_2.bias":
				lp.ln2b = v
			case "mlp.c_fc.weight":
				lp.fcw = v
			case "mlp.c_fc.bias":
				lp.fcb = v
			case "mlp.c_proj.weight":
				lp.fcprojw = v
			case "mlp.c_proj.bias":
				lp.fcprojb = v
			}
		}
	}
	return p
}

// layerActs are one block's activations for (B,T).
type layerActs struct {
	ln1, ln1Mean, ln1Rstd nn.Buffer // (B,T,C), (B,T), (B,T)
	qkv                   nn.Buffer // (B,T,3C)
	att                   nn.Buffer // (B,NH,T,T), or the backend's nn.AttentionScratch
	atty                  nn.Buffer // (B,T,C)
	attproj, res2         nn.Buffer // (B,T,C)
	ln2, ln2Mean, ln2Rstd nn.Buffer // (B,T,C), (B,T), (B,T)
	fch, fchGelu          nn.Buffer // (B,T,4C)
	fcproj, res3          nn.Buffer // (B,T,C)
}

// activations are allocated once per (B,T) in one buffer.
type activations struct {
	B, T                  int
	all                   nn.Buffer
	encoded               nn.Buffer // (B,T,C)
	h                     []layerActs
	lnf, lnfMean, lnfRstd nn.Buffer // (B,T,C), (B,T), (B,T)
	logits, probs, losses nn.Buffer // (B,T,V), (B,T,V), (B,T)
}

// newActivations allocates them for the sampler: att holds the (B,NH,T,T)
// floats AttentionStep needs on every backend, or what the backend's
// AttentionForward needs (its prefills) if that is more.
func newActivations(be nn.Backend, c Config, B, T int) *activations {
	return newActivationsAtt(be, c, B, T, max(B*c.NHead*T*T, nn.AttentionScratch(be, B, T, c.NEmbd, c.NHead)))
}

// newActivationsAtt allocates them with att of attSize floats per layer
// (for training, nn.AttentionScratch: the backend says what its attention
// pair keeps).
func newActivationsAtt(be nn.Backend, c Config, B, T, attSize int) *activations {
	C, V := c.NEmbd, c.VocabSize
	N := B * T
	sizes := []int{N * C}
	for l := 0; l < c.NLayer; l++ {
		sizes = append(sizes, N*C, N, N, 3*N*C, attSize, N*C, N*C, N*C, N*C, N, N, 4*N*C, 4*N*C, N*C, N*C)
	}
	sizes = append(sizes, N*C, N, N, N*V, N*V, N)
	total := 0
	for _, s := range sizes {
		total += s
	}
	a := &activations{B: B, T: T, all: be.Alloc(total)}
	off := 0
	next := func() nn.Buffer {
		s := sizes[0]
		sizes = sizes[1:]
		v := a.all.Slice(off, s)
		off += s
		return v
	}
	a.encoded = next()
	a.h = make([]layerActs, c.NLayer)
	for l := range a.h {
		h := &a.h[l]
		h.ln1, h.ln1Mean, h.ln1Rstd, h.qkv, h.att, h.atty, h.attproj, h.res2 = next(), next(), next(), next(), next(), next(), next(), next()
		h.ln2, h.ln2Mean, h.ln2Rstd, h.fch, h.fchGelu, h.fcproj, h.res3 = next(), next(), next(), next(), next(), next(), next()
	}
	a.lnf, a.lnfMean, a.lnfRstd, a.logits, a.probs, a.losses = next(), next(), next(), next(), next(), next()
	return a
}

// gradActs are the gradients of the activations during Backward. Only the
// residual stream's gradient lives from one layer to the next (every block
// adds its two branches into it in place, so no residual copies); the other
// buffers hold one layer's gradients and are reused by every layer, zeroed
// just before the kernel that accumulates into them. At 8×256 with the small
// preset this is 38 MB instead of a second full activation set (210 MB).
type gradActs struct {
	all          nn.Buffer
	logits       nn.Buffer // (B,T,V)
	res          nn.Buffer // (B,T,C) the residual stream
	ln           nn.Buffer // (B,T,C) output of ln_f, ln_2 or ln_1
	atty         nn.Buffer // (B,T,C)
	qkv          nn.Buffer // (B,T,3C)
	fch, fchGelu nn.Buffer // (B,T,4C)
}

func newGradActs(be nn.Backend, c Config, B, T int) *gradActs {
	C, V, N := c.NEmbd, c.VocabSize, B*T
	sizes := []int{N * V, N * C, N * C, N * C, 3 * N * C, 4 * N * C, 4 * N * C}
	total := 0
	for _, s := range sizes {
		total += s
	}
	d := &gradActs{all: be.Alloc(total)}
	off := 0
	for i, p := range []*nn.Buffer{&d.logits, &d.res, &d.ln, &d.atty, &d.qkv, &d.fch, &d.fchGelu} {
		*p = d.all.Slice(off, sizes[i])
		off += sizes[i]
	}
	return d
}

// Model is a GPT-2 on a backend: parameters (and, once training starts,
// gradients) in one buffer each, activations for the last (B,T).
type Model struct {
	Config Config
	be     nn.Backend

	params, grads nn.Buffer
	p, g          paramViews
	acts          *activations
	dacts         *gradActs

	// inputs of the last Forward, kept for Backward
	tokens, targets []int32
	B, T            int
	nTargets        int
	lossHost        []float32
}

// New returns a model with zero parameters (call Init or load weights).
func New(be nn.Backend, c Config) (*Model, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	m := &Model{Config: c, be: be, params: be.Alloc(c.NumParams())}
	m.p = carve(c, m.params)
	return m, nil
}

// Backend is the backend the model runs on.
func (m *Model) Backend() nn.Backend { return m.be }

// NumParams is the parameter count.
func (m *Model) NumParams() int { return m.params.Len() }

// Params is the parameter buffer (layout: Config.Tensors).
func (m *Model) Params() nn.Buffer { return m.params }

// Grads is the gradient buffer (same layout), allocated by the first Backward
// or ZeroGrad.
func (m *Model) Grads() nn.Buffer { m.ensureGrads(); return m.grads }

func (m *Model) ensureGrads() {
	if m.grads.IsNil() {
		m.grads = m.be.Alloc(m.params.Len())
		m.g = carve(m.Config, m.grads)
	}
}

// Init fills the parameters as GPT-2 does: weights N(0, 0.02), the two
// residual projections of each block N(0, 0.02/sqrt(2·n_layer)), biases 0,
// layer-norm gains 1. The same seed gives the same weights.
func (m *Model) Init(seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	host := make([]float32, m.params.Len())
	projStd := 0.02 / math.Sqrt(2*float64(m.Config.NLayer))
	for _, t := range m.Config.Tensors() {
		v := host[t.Off : t.Off+t.Size()]
		switch {
		case len(t.Shape) == 2:
			std := 0.02
			if hasSuffix(t.Name, "attn.c_proj.weight") || hasSuffix(t.Name, "mlp.c_proj.weight") {
				std = projStd
			}
			for i := range v {
				v[i] = float32(rng.NormFloat64() * std)
			}
		case hasSuffix(t.Name, ".weight"): // layer-norm gains
			for i := range v {
				v[i] = 1
			}
		}
	}
	m.be.Upload(m.params, host)
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }

// ensureActs (re)allocates activations when (B,T) grows beyond them.
func (m *Model) ensureActs(B, T int) {
	if m.acts != nil && m.acts.B == B && m.acts.T == T {
		return
	}
	if m.acts != nil {
		m.be.Free(m.acts.all)
	}
	if m.dacts != nil {
		m.be.Free(m.dacts.all)
		m.dacts = nil
	}
	m.acts = newActivationsAtt(m.be, m.Config, B, T, nn.AttentionScratch(m.be, B, T, m.Config.NEmbd, m.Config.NHead))
	m.lossHost = make([]float32, B*T)
}

// Forward runs the model on tokens (B,T). With targets (B,T; entries < 0 are
// ignored) it returns the mean cross-entropy loss; without, it returns 0 and
// only the logits are computed.
func (m *Model) Forward(tokens, targets []int32, B, T int) (float32, error) {
	c := m.Config
	if B < 1 || T < 1 || T > c.NPositions {
		return 0, fmt.Errorf("gpt: forward (B,T) = (%d,%d) with %d positions", B, T, c.NPositions)
	}
	if len(tokens) < B*T || (targets != nil && len(targets) < B*T) {
		return 0, fmt.Errorf("gpt: forward needs %d tokens and targets, got %d and %d", B*T, len(tokens), len(targets))
	}
	for _, tok := range tokens[:B*T] {
		if tok < 0 || int(tok) >= c.VocabSize {
			return 0, fmt.Errorf("gpt: token %d outside vocabulary of %d", tok, c.VocabSize)
		}
	}
	m.ensureActs(B, T)
	m.tokens, m.targets, m.B, m.T = tokens[:B*T], nil, B, T
	if targets != nil {
		m.targets = targets[:B*T]
	}
	forward(m.be, c, &m.p, m.acts, m.tokens, m.targets, B, T, false)
	if targets == nil {
		return 0, nil
	}
	m.be.Download(m.lossHost, m.acts.losses.Slice(0, B*T))
	sum, n := 0.0, 0
	for i, l := range m.lossHost {
		if m.targets[i] >= 0 {
			sum += float64(l)
			n++
		}
	}
	m.nTargets = n
	if n == 0 {
		return 0, nil
	}
	return float32(sum / float64(n)), nil
}

// Logits copies the logits (B,T,V) of the last Forward into dst.
func (m *Model) Logits(dst []float32) {
	m.be.Download(dst, m.acts.logits.Slice(0, m.B*m.T*m.Config.VocabSize))
}

// forward is the whole model over (B,T). lastOnly computes the logits of the
// last position of each sequence only (sampling prefill; B must be 1).
func forward(be nn.Backend, c Config, p *paramViews, a *activations, tokens, targets []int32, B, T int, lastOnly bool) {
	C, NH, V := c.NEmbd, c.NHead, c.VocabSize
	N := B * T
	eps := float32(c.LayerNormEps)
	be.EncoderForward(a.encoded, p.wte, p.wpe, tokens, B, T, C) // (B,T,C)
	residual := a.encoded
	// A backend with fused epilogues writes res2, fch, fchGelu and res3 in
	// fewer kernels (attproj and fcproj are then not written).
	ff, fused := be.(nn.FusedForward)
	for l := 0; l < c.NLayer; l++ {
		w, h := &p.h[l], &a.h[l]
		be.LayerNormForward(h.ln1, h.ln1Mean, h.ln1Rstd, residual, w.ln1w, w.ln1b, N, C, eps) // (B,T,C)
		be.MatmulForward(h.qkv, h.ln1, w.qkvw, w.qkvb, N, C, 3*C, false)                      // (B,T,3C)
		be.AttentionForward(h.atty, h.att, h.qkv, B, T, C, NH)                                // (B,T,C)
		if fused {
			ff.MatmulResidualForward(h.res2, residual, h.atty, w.attprojw, w.attprojb, N, C, C)
		} else {
			be.MatmulForward(h.attproj, h.atty, w.attprojw, w.attprojb, N, C, C, false) // (B,T,C)
			be.Add(h.res2, residual, h.attproj, N*C)
		}
		be.LayerNormForward(h.ln2, h.ln2Mean, h.ln2Rstd, h.res2, w.ln2w, w.ln2b, N, C, eps)
		if fused {
			ff.MatmulGeluForward(h.fch, h.fchGelu, h.ln2, w.fcw, w.fcb, N, C, 4*C)
			ff.MatmulResidualForward(h.res3, h.res2, h.fchGelu, w.fcprojw, w.fcprojb, N, 4*C, C)
		} else {
			be.MatmulForward(h.fch, h.ln2, w.fcw, w.fcb, N, C, 4*C, false) // (B,T,4C)
			be.GeluForward(h.fchGelu, h.fch, N*4*C)
			be.MatmulForward(h.fcproj, h.fchGelu, w.fcprojw, w.fcprojb, N, 4*C, C, false) // (B,T,C)
			be.Add(h.res3, h.res2, h.fcproj, N*C)
		}
		residual = h.res3
	}
	if lastOnly {
		r := N - 1
		be.LayerNormForward(a.lnf.Slice(r*C, C), a.lnfMean.Slice(r, 1), a.lnfRstd.Slice(r, 1), residual.Slice(r*C, C), p.lnfw, p.lnfb, 1, C, eps)
		be.MatmulForward(a.logits.Slice(r*V, V), a.lnf.Slice(r*C, C), p.wte, nn.Buffer{}, 1, C, V, true)
		return
	}
	be.LayerNormForward(a.lnf, a.lnfMean, a.lnfRstd, residual, p.lnfw, p.lnfb, N, C, eps)
	be.MatmulForward(a.logits, a.lnf, p.wte, nn.Buffer{}, N, C, V, true) // (B,T,V), tied wte
	if targets != nil {
		be.CrossEntropyForward(a.losses, a.probs, a.logits, targets, N, V)
	}
}

// ZeroGrad clears the parameter gradients (once per accumulation cycle).
func (m *Model) ZeroGrad() {
	m.ensureGrads()
	m.be.Zero(m.grads)
}

// Backward adds to the parameter gradients the gradient of scale × the mean
// loss of the last Forward (scale = 1/accumulation steps).
func (m *Model) Backward(scale float32) error {
	if m.targets == nil {
		return fmt.Errorf("gpt: backward without a forward with targets")
	}
	m.ensureGrads()
	c := m.Config
	B, T := m.B, m.T
	if m.dacts == nil {
		m.dacts = newGradActs(m.be, c, B, T)
	}
	if m.nTargets == 0 {
		return nil
	}
	C, NH, V := c.NEmbd, c.NHead, c.VocabSize
	N := B * T
	be, p, g, a, d := m.be, &m.p, &m.g, m.acts, m.dacts
	// Backward kernels accumulate: each gradient buffer is zeroed right
	// before the kernel that first writes it.
	be.Zero(d.logits)
	be.CrossEntropyBackward(d.logits, a.probs, m.targets, N, V, scale/float32(m.nTargets))
	be.Zero(d.ln)
	be.MatmulBackward(d.ln, g.wte, nn.Buffer{}, d.logits, a.lnf, p.wte, N, C, V, true)
	last := a.encoded
	if c.NLayer > 0 {
		last = a.h[c.NLayer-1].res3
	}
	be.Zero(d.res)
	be.LayerNormBackward(d.res, g.lnfw, g.lnfb, d.ln, last, p.lnfw, a.lnfMean, a.lnfRstd, N, C)
	for l := c.NLayer - 1; l >= 0; l-- {
		w, gw, h := &p.h[l], &g.h[l], &a.h[l]
		residual := a.encoded
		if l > 0 {
			residual = a.h[l-1].res3
		}
		// d.res holds d res3. res3 = res2 + fcproj: fcproj's gradient is d.res
		// itself, and ln_2's branch is added into it to make d res2.
		be.Zero(d.fchGelu)
		be.MatmulBackward(d.fchGelu, gw.fcprojw, gw.fcprojb, d.res, h.fchGelu, w.fcprojw, N, 4*C, C, false)
		be.Zero(d.fch)
		be.GeluBackward(d.fch, h.fch, d.fchGelu, N*4*C)
		be.Zero(d.ln)
		be.MatmulBackward(d.ln, gw.fcw, gw.fcb, d.fch, h.ln2, w.fcw, N, C, 4*C, false)
		be.LayerNormBackward(d.res, gw.ln2w, gw.ln2b, d.ln, h.res2, w.ln2w, h.ln2Mean, h.ln2Rstd, N, C)
		// res2 = residual + attproj: the same again with the attention branch.
		be.Zero(d.atty)
		be.MatmulBackward(d.atty, gw.attprojw, gw.attprojb, d.res, h.atty, w.attprojw, N, C, C, false)
		be.Zero(d.qkv)
		be.AttentionBackward(d.qkv, d.atty, h.qkv, h.att, B, T, C, NH)
		be.Zero(d.ln)
		be.MatmulBackward(d.ln, gw.qkvw, gw.qkvb, d.qkv, h.ln1, w.qkvw, N, C, 3*C, false)
		be.LayerNormBackward(d.res, gw.ln1w, gw.ln1b, d.ln, residual, w.ln1w, h.ln1Mean, h.ln1Rstd, N, C)
	}
	be.EncoderBackward(g.wte, g.wpe, d.res, m.tokens, B, T, C)
	return nil
}
