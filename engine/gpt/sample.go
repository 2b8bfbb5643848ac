package gpt

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/amtstudio/amt/engine/nn"
)

// Constraint restricts sampling to valid continuations; the token grammar
// (engine/token's *Grammar) satisfies it.
type Constraint interface {
	// Allow sets mask[i] true for every token allowed next (mask arrives all false).
	Allow(mask []bool)
	Push(tok uint16) error
	Done() bool
}

// SampleOptions controls Generate.
type SampleOptions struct {
	MaxTokens   int     // new tokens at most (required, > 0)
	Temperature float64 // 0: greedy (argmax)
	TopK        int     // 0: no limit
	TopP        float64 // 0 or 1: no nucleus cut
	Seed        uint64  // same seed, same model, same prompt → same tokens
	EOS         int     // stop after sampling this token; < 0: none
	// Constraint, if set, receives the prompt and every sampled token and
	// masks disallowed tokens; generation stops when it is Done.
	Constraint Constraint
	// Adjust, if set, may edit the raw logits before the constraint masks
	// them (e.g. move the probability of a token the constraint is about to
	// forbid onto another).
	Adjust func(logits []float32)
	// Mask, if set, may edit the logits (set -Inf to forbid) before sampling.
	Mask func(logits []float32)
	// Plain, if set, is asked before each sampled token whether to draw it
	// from the model's own distribution: temperature 1, no top-k or top-p
	// cut (a greedy request stays greedy). A low temperature and the
	// nucleus favour the likeliest values; for a choice spread over many
	// small probabilities, such as a note's length, that cuts the tail
	// (the long notes) away.
	Plain func() bool
	// Force, if set, is asked before each token whether the next one is
	// given (a section restated, music to continue): then it is pushed as if
	// sampled, without drawing from the model. The constraint still checks it.
	Force func() (tok uint16, ok bool)
	// OnToken, if set, is called with each new token; an error stops.
	OnToken func(tok uint16) error
	// Refill, if set, chooses what is re-encoded when the window fills,
	// given the whole sequence so far (prompt included): it must return
	// fewer than the window's tokens and end with the sequence's last
	// token (e.g. the attribute prefix pinned before a recent stretch of
	// music). Nil: the last half of the window.
	Refill func(hist []uint16) []uint16
}

// ErrNoToken is returned when the mask leaves no token to sample.
var ErrNoToken = errors.New("gpt: no token allowed by the constraint")

// Sampler generates with a KV cache: the keys and values of every position
// live in the qkv activations of a (1, window) activation set, so a step
// computes one row per layer. When the window fills, the last half of the
// tokens is re-encoded in one batched forward and decoding continues.
type Sampler struct {
	m      *Model
	W      int
	a      *activations
	pos    int // rows 0..pos-1 of the cache are valid
	tok1   []int32
	toks   []int32
	logits []float32
	mask   []bool
	idx    []int32
	keys   []uint64
	prob   []float64

	compact *compactState // NewCompactSampler: steps on the host with int8 weights
	dec     nn.DecodePlan // the backend's own decoding step (nn.Decoder), if it has one
}

// orderedBits maps a float32 to a uint32 of the same order (-0 counts as +0,
// as float comparison has it; NaN is never passed).
func orderedBits(f float32) uint32 {
	if f == 0 {
		f = 0
	}
	b := math.Float32bits(f)
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// NewSampler returns a sampler whose window is window tokens (≤ 0: the
// model's training context if known, else n_positions).
func (m *Model) NewSampler(window int) *Sampler {
	c := m.Config
	if window <= 0 {
		window = c.TrainContext
	}
	if window <= 0 || window > c.NPositions {
		window = c.NPositions
	}
	window = max(window, 2)
	V := c.VocabSize
	s := &Sampler{m: m, W: window, a: newActivations(m.be, c, 1, window), tok1: make([]int32, 1),
		toks: make([]int32, window), logits: make([]float32, V), mask: make([]bool, V), idx: make([]int32, V), keys: make([]uint64, V), prob: make([]float64, V)}
	if d, ok := m.be.(nn.Decoder); ok {
		dm := nn.DecodeModel{C: c.NEmbd, NH: c.NHead, V: V, T: window, Eps: float32(c.LayerNormEps),
			WTE: m.p.wte, WPE: m.p.wpe, LNFW: m.p.lnfw, LNFB: m.p.lnfb}
		for l := range m.p.h {
			w := &m.p.h[l]
			dm.Layers = append(dm.Layers, nn.DecodeLayer{LN1W: w.ln1w, LN1B: w.ln1b, QKVW: w.qkvw, QKVB: w.qkvb,
				ProjW: w.attprojw, ProjB: w.attprojb, LN2W: w.ln2w, LN2B: w.ln2b, FCW: w.fcw, FCB: w.fcb,
				FCProjW: w.fcprojw, FCProjB: w.fcprojb, QKV: s.a.h[l].qkv})
		}
		if p, ok := d.DecodePlan(dm); ok {
			s.dec = p
		}
	}
	return s
}

// Compact reports whether the sampler steps with compact weights
// (NewCompactSampler).
func (s *Sampler) Compact() bool { return s.compact != nil }

// Pos is the number of cached positions (the next Step writes this one).
func (s *Sampler) Pos() int { return s.pos }

// Prefill resets the cache and encodes tokens (at most the window; longer
// prompts keep their last tokens). It returns the logits of the next token
// (valid until the next call).
func (s *Sampler) Prefill(tokens []uint16) ([]float32, error) {
	if len(tokens) == 0 {
		return nil, fmt.Errorf("gpt: empty prompt")
	}
	if len(tokens) > s.W {
		tokens = tokens[len(tokens)-s.W:]
	}
	n := len(tokens)
	for i, t := range tokens {
		if int(t) >= s.m.Config.VocabSize {
			return nil, fmt.Errorf("gpt: token %d outside vocabulary of %d", t, s.m.Config.VocabSize)
		}
		s.toks[i] = int32(t)
	}
	forward(s.m.be, s.m.Config, &s.m.p, s.a, s.toks[:n], nil, 1, n, true)
	s.pos = n
	if s.compact != nil {
		s.compactPrefill(n)
	}
	V := s.m.Config.VocabSize
	s.m.be.Download(s.logits, s.a.logits.Slice((n-1)*V, V))
	return s.logits, nil
}

// Step appends one token at the next position and returns the logits of the
// token after it. The cache must have room (Generate slides the window).
func (s *Sampler) Step(tok uint16) ([]float32, error) {
	c := s.m.Config
	if s.pos >= s.W {
		return nil, fmt.Errorf("gpt: cache full at %d positions", s.W)
	}
	if int(tok) >= c.VocabSize {
		return nil, fmt.Errorf("gpt: token %d outside vocabulary of %d", tok, c.VocabSize)
	}
	if s.compact != nil {
		s.compactStep(tok)
		s.toks[s.pos] = int32(tok)
		s.pos++
		return s.logits, nil
	}
	if s.dec != nil {
		s.dec.Step(int(tok), s.pos, s.logits)
		s.toks[s.pos] = int32(tok)
		s.pos++
		return s.logits, nil
	}
	be, p, a := s.m.be, &s.m.p, s.a
	C, NH, V, T := c.NEmbd, c.NHead, c.VocabSize, s.W
	eps := float32(c.LayerNormEps)
	r := s.pos
	row := func(b nn.Buffer, width int) nn.Buffer { return b.Slice(r*width, width) }
	s.tok1[0] = int32(tok)
	be.EncoderForward(row(a.encoded, C), p.wte, p.wpe.Slice(r*C, C), s.tok1, 1, 1, C)
	residual := row(a.encoded, C)
	for l := 0; l < c.NLayer; l++ {
		w, h := &p.h[l], &a.h[l]
		be.LayerNormForward(row(h.ln1, C), row(h.ln1Mean, 1), row(h.ln1Rstd, 1), residual, w.ln1w, w.ln1b, 1, C, eps)
		be.MatmulForward(row(h.qkv, 3*C), row(h.ln1, C), w.qkvw, w.qkvb, 1, C, 3*C, false)
		be.AttentionStep(row(h.atty, C), h.att, h.qkv, r, T, C, NH)
		be.MatmulForward(row(h.attproj, C), row(h.atty, C), w.attprojw, w.attprojb, 1, C, C, false)
		be.Add(row(h.res2, C), residual, row(h.attproj, C), C)
		be.LayerNormForward(row(h.ln2, C), row(h.ln2Mean, 1), row(h.ln2Rstd, 1), row(h.res2, C), w.ln2w, w.ln2b, 1, C, eps)
		be.MatmulForward(row(h.fch, 4*C), row(h.ln2, C), w.fcw, w.fcb, 1, C, 4*C, false)
		be.GeluForward(row(h.fchGelu, 4*C), row(h.fch, 4*C), 4*C)
		be.MatmulForward(row(h.fcproj, C), row(h.fchGelu, 4*C), w.fcprojw, w.fcprojb, 1, 4*C, C, false)
		be.Add(row(h.res3, C), row(h.res2, C), row(h.fcproj, C), C)
		residual = row(h.res3, C)
	}
	be.LayerNormForward(row(a.lnf, C), row(a.lnfMean, 1), row(a.lnfRstd, 1), residual, p.lnfw, p.lnfb, 1, C, eps)
	be.MatmulForward(row(a.logits, V), row(a.lnf, C), p.wte, nn.Buffer{}, 1, C, V, true)
	s.toks[r] = int32(tok)
	s.pos++
	be.Download(s.logits, row(a.logits, V))
	return s.logits, nil
}

// Generate samples up to opts.MaxTokens new tokens after prompt and returns
// them (the EOS that ended generation included). The prompt is pushed into
// opts.Constraint first.
func (s *Sampler) Generate(ctx context.Context, prompt []uint16, opts SampleOptions) ([]uint16, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Constraint != nil {
		for _, t := range prompt {
			if err := opts.Constraint.Push(t); err != nil {
				return nil, fmt.Errorf("gpt: prompt rejected by the constraint: %w", err)
			}
		}
	}
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0xda942042e4dd58b5))
	hist := append([]uint16(nil), prompt...)
	logits, err := s.Prefill(hist)
	if err != nil {
		return nil, err
	}
	out := make([]uint16, 0, opts.MaxTokens)
	for len(out) < opts.MaxTokens {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if opts.Constraint != nil && opts.Constraint.Done() {
			break
		}
		var tok uint16
		forced := false
		if opts.Force != nil {
			tok, forced = opts.Force()
		}
		if !forced {
			if tok, err = s.pick(logits, rng, opts); err != nil {
				return out, err
			}
		}
		if opts.Constraint != nil {
			if err := opts.Constraint.Push(tok); err != nil {
				if forced {
					return out, fmt.Errorf("gpt: forced token %d rejected by the constraint: %w", tok, err)
				}
				return out, fmt.Errorf("gpt: constraint rejected its own allowed token %d: %w", tok, err)
			}
		}
		out = append(out, tok)
		hist = append(hist, tok)
		if opts.OnToken != nil {
			if err := opts.OnToken(tok); err != nil {
				return out, err
			}
		}
		if int(tok) == opts.EOS || len(out) == opts.MaxTokens {
			break
		}
		if s.pos >= s.W {
			re := hist[len(hist)-s.W/2:]
			if opts.Refill != nil {
				re = opts.Refill(hist)
				if len(re) == 0 || len(re) >= s.W || re[len(re)-1] != tok {
					return out, fmt.Errorf("gpt: refill returned %d tokens (window %d) not ending with the last token", len(re), s.W)
				}
			}
			logits, err = s.Prefill(re)
		} else {
			logits, err = s.Step(tok)
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// pick applies the mask, temperature, top-k and top-p, then samples.
func (s *Sampler) pick(logits []float32, rng *rand.Rand, o SampleOptions) (uint16, error) {
	V := len(logits)
	if o.Plain != nil && o.Temperature > 0 && o.Plain() {
		o.Temperature, o.TopK, o.TopP = 1, 0, 0
	}
	if o.Adjust != nil {
		o.Adjust(logits)
	}
	if o.Constraint != nil {
		clear(s.mask)
		o.Constraint.Allow(s.mask)
		for i, ok := range s.mask {
			if !ok {
				logits[i] = float32(math.Inf(-1))
			}
		}
	}
	if o.Mask != nil {
		o.Mask(logits)
	}
	best := -1
	for i, l := range logits {
		if l != l || math.IsInf(float64(l), 1) {
			return 0, fmt.Errorf("%w: the logit of token %d is %v (a diverged or corrupt model)", ErrNonFinite, i, l)
		}
		if !math.IsInf(float64(l), -1) && (best < 0 || l > logits[best]) {
			best = i
		}
	}
	if best < 0 {
		return 0, ErrNoToken
	}
	if o.Temperature <= 0 {
		return uint16(best), nil
	}
	// candidates sorted by logit, descending (ties by id, for determinism)
	n := 0
	for i, l := range logits {
		if !math.IsInf(float64(l), -1) && !math.IsNaN(float64(l)) {
			s.idx[n] = int32(i)
			n++
		}
	}
	cand := s.idx[:n]
	if (o.TopK <= 0 || o.TopK >= n) && (o.TopP <= 0 || o.TopP >= 1) {
		// plain sampling needs no order
		return s.sampleFrom(cand, logits, logits[best], rng, o.Temperature), nil
	}
	// Nucleus without top-k: normalise over every candidate first, then sort
	// only those that can be in the nucleus. A token whose probability is
	// below (1-TopP)/n never is: were it inside, every token after it in the
	// sorted order would be as small, so the mass before it would already
	// reach TopP. Half that bound leaves room for rounding. A trained model's
	// peaked distribution leaves a few dozen tokens to sort instead of the
	// whole vocabulary.
	norm := 0.0 // Σ exp over the candidates the nucleus is taken from
	if (o.TopK <= 0 || o.TopK >= n) && o.TopP > 0 && o.TopP < 1 {
		mx := float64(logits[best])
		for _, id := range cand {
			norm += math.Exp((float64(logits[id]) - mx) / o.Temperature)
		}
		// e ≥ cut·norm  ⟺  logit ≥ mx + T·ln(cut·norm)
		lmin := mx + o.Temperature*math.Log(0.5*(1-o.TopP)/float64(n)*norm)
		k := 0
		for _, id := range cand {
			if float64(logits[id]) >= lmin {
				cand[k] = id
				k++
			}
		}
		cand = cand[:k]
	}
	// Sort by packed keys (descending logit, then ascending id) with
	// slices.Sort on uint64: the same order as comparing logits and ids, at a
	// fraction of a comparator closure's cost (it was most of pick's time).
	keys := s.keys[:len(cand)]
	for i, id := range cand {
		keys[i] = uint64(^orderedBits(logits[id]))<<32 | uint64(uint32(id))
	}
	slices.Sort(keys)
	for i, k := range keys {
		cand[i] = int32(uint32(k))
	}
	if o.TopK > 0 && o.TopK < len(cand) {
		cand = cand[:o.TopK]
	}
	mx := float64(logits[cand[0]])
	sum := 0.0
	for i, id := range cand {
		e := math.Exp((float64(logits[id]) - mx) / o.Temperature)
		s.prob[i] = e
		sum += e
	}
	if norm == 0 {
		norm = sum // top-k: the nucleus is taken within the k
	}
	if o.TopP > 0 && o.TopP < 1 {
		acc := 0.0
		for i := range cand {
			acc += s.prob[i] / norm
			if acc >= o.TopP {
				cand = cand[:i+1]
				break
			}
		}
		sum = 0
		for i := range cand {
			sum += s.prob[i]
		}
	}
	u := rng.Float64() * sum
	for i, id := range cand {
		u -= s.prob[i]
		if u < 0 {
			return uint16(id), nil
		}
	}
	_ = V
	return uint16(cand[len(cand)-1]), nil
}

func (s *Sampler) sampleFrom(cand []int32, logits []float32, mx float32, rng *rand.Rand, temp float64) uint16 {
	sum := 0.0
	for i, id := range cand {
		e := math.Exp((float64(logits[id]) - float64(mx)) / temp)
		s.prob[i] = e
		sum += e
	}
	u := rng.Float64() * sum
	for i, id := range cand {
		u -= s.prob[i]
		if u < 0 {
			return uint16(id)
		}
	}
	return uint16(cand[len(cand)-1])
}
