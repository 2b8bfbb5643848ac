package app

import (
	"context"
	"math"
	"testing"

	"github.com/amtstudio/amt/engine/nn/cpu"
)

// TestCompactStepMatchesFloat32: the compact sampler (int8 weights, half-
// precision cache; gpt.Compact) against the float32 one on the embedded
// model, teacher-forced through the same 16-bar piece from the prompt path
// (refills included): the next-token distributions must stay close (mean
// KL divergence in nats, and the most likely token the same at nearly every
// step). Measured on the shipped model: mean KL 2e-5 nats, top-1 the same in
// 99.5% of 1,670 steps; the limits leave 50× and 1.5 points. A step that
// skips writing the keys to the cache fails them by far (tried).
func TestCompactStepMatchesFloat32(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	m, err := loadEmbedded() // its own copy: the piece is sampled in float32
	if err != nil {
		t.Skip(err)
	}
	defer m.Close()
	m.Exact = true
	r, err := GenerateFromPrompt(context.Background(), m, PromptRequest{Prompt: "an upbeat pop song with piano, bass and drums", Bars: 16,
		Seed: 7, Candidates: 1, KeyBias: DefaultKeyBias})
	if err != nil {
		t.Fatal(err)
	}
	toks := r.Tokens
	exact := m.Net.NewSampler(0)
	comp := m.Net.NewCompactSampler(0, m.Net.Compact())
	W := exact.W
	if len(toks) <= W {
		t.Fatalf("piece of %d tokens does not reach a refill (window %d)", len(toks), W)
	}
	const start = 8
	le, err := exact.Prefill(toks[:start])
	if err != nil {
		t.Fatal(err)
	}
	lc, err := comp.Prefill(toks[:start])
	if err != nil {
		t.Fatal(err)
	}
	var klSum, klMax float64
	same, steps, refills := 0, 0, 0
	pe, pc := make([]float64, len(le)), make([]float64, len(le))
	for i := start; i < len(toks); i++ {
		if i > start+8 { // a prefill's logits are float32 in both; compare steps
			kl := 0.0
			softmax64(pe, le)
			softmax64(pc, lc)
			ae, ac := 0, 0
			for j := range pe {
				if pe[j] > 0 {
					kl += pe[j] * (math.Log(pe[j]) - math.Log(math.Max(pc[j], 1e-300)))
				}
				if pe[j] > pe[ae] {
					ae = j
				}
				if pc[j] > pc[ac] {
					ac = j
				}
			}
			klSum += kl
			klMax = max(klMax, kl)
			if ae == ac {
				same++
			}
			steps++
		}
		if exact.Pos() >= W {
			re := toks[i+1-W/2 : i+1]
			le, err = exact.Prefill(re)
			if err == nil {
				lc, err = comp.Prefill(re)
			}
			refills++
		} else {
			le, err = exact.Step(toks[i])
			if err == nil {
				lc, err = comp.Step(toks[i])
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	mean := klSum / float64(steps)
	agree := float64(same) / float64(steps)
	t.Logf("%d tokens, %d steps compared, %d refills: KL mean %.5f nats, max %.4f; most likely token the same in %.2f%%", len(toks), steps, refills, mean, klMax, 100*agree)
	if refills == 0 {
		t.Fatal("no refill exercised")
	}
	if mean > 0.001 || agree < 0.98 {
		t.Fatalf("compact decoding drifts from float32: KL mean %.5f (limit 0.001), top-1 agreement %.3f (floor 0.98)", mean, agree)
	}
}

func softmax64(p []float64, l []float32) {
	mx := math.Inf(-1)
	for _, x := range l {
		mx = max(mx, float64(x))
	}
	s := 0.0
	for i, x := range l {
		p[i] = math.Exp(float64(x) - mx)
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
}

// TestExactTurnsCompactOff: the prompt path's samplers are compact on the
// CPU unless Model.Exact, and lanes follow the model's setting as it is
// when they are handed out.
func TestExactTurnsCompactOff(t *testing.T) {
	m, err := loadEmbedded()
	if err != nil {
		t.Skip(err)
	}
	defer m.Close()
	if cpu.CompactSIMD() < 1 {
		t.Skip("no AVX2 here: the app samples in float32")
	}
	s, release := m.newSampler()
	if !s.Compact() {
		t.Fatal("a CPU model's sampler is not compact by default")
	}
	release() // kept: the next request must not get it once Exact is set
	m.Exact = true
	if s, _ := m.newSampler(); s.Compact() {
		t.Fatal("Exact: the sampler is still compact")
	}
	defer func(l int) { laneLimit = l }(laneLimit)
	laneLimit = 2
	for _, exact := range []bool{false, true, false} {
		m.Exact = exact
		for _, l := range m.lanes(2) {
			if s, _ := l.newSampler(); s.Compact() == exact {
				t.Fatalf("Exact %v: a lane samples with compact %v", exact, !exact)
			}
		}
	}
}
