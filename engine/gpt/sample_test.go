package gpt

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestCachedLogitsEqualFullRecomputation decodes a sequence step by step
// with the KV cache and compares every step's logits with a full forward of
// the prefix, including after the window slides.
func TestCachedLogitsEqualFullRecomputation(t *testing.T) {
	m, _ := tinyModel(t, 21, 9)
	rng := rand.New(rand.NewPCG(1, 9))
	seq := randTokens(rng, 40, 21)
	useq := make([]uint16, len(seq))
	for i, v := range seq {
		useq[i] = uint16(v)
	}
	V := 21
	full := make([]float32, 40*V)
	if _, err := m.Forward(seq, nil, 1, 40); err != nil {
		t.Fatal(err)
	}
	m.Logits(full)
	s := m.NewSampler(64)
	got, err := s.Prefill(useq[:3])
	if err != nil {
		t.Fatal(err)
	}
	for pos := 2; pos < 40; pos++ {
		want := full[pos*V : (pos+1)*V]
		for i := range want {
			if d := math.Abs(float64(got[i] - want[i])); d > 1e-4 {
				t.Fatalf("pos %d logit %d: cached %g, full %g", pos, i, got[i], want[i])
			}
		}
		if pos+1 < 40 {
			if got, err = s.Step(useq[pos+1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Sliding: a window of 8 re-encodes the last 4 tokens; the logits are
	// then those of a forward over those 4 tokens alone.
	s8 := m.NewSampler(8)
	if _, err := s8.Prefill(useq[:8]); err != nil {
		t.Fatal(err)
	}
	slid, _ := s8.Prefill(useq[4:8])
	if _, err := m.Forward(seq[4:8], nil, 1, 4); err != nil {
		t.Fatal(err)
	}
	short := make([]float32, 4*V)
	m.Logits(short)
	for i := 0; i < V; i++ {
		if d := math.Abs(float64(slid[i] - short[3*V+i])); d > 1e-4 {
			t.Fatalf("slid logit %d: %g, want %g", i, slid[i], short[3*V+i])
		}
	}
}

func TestGenerateSeedAndOptions(t *testing.T) {
	m, _ := tinyModel(t, 30, 11)
	ctx := context.Background()
	gen := func(o SampleOptions) []uint16 {
		out, err := m.NewSampler(16).Generate(ctx, []uint16{1, 2}, o)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	o := SampleOptions{MaxTokens: 50, Temperature: 1, Seed: 42, EOS: -1}
	a, b := gen(o), gen(o)
	if len(a) != 50 || !slices.Equal(a, b) {
		t.Fatalf("same seed gave different outputs:\n%v\n%v", a, b)
	}
	o.Seed = 43
	if c := gen(o); slices.Equal(a, c) {
		t.Fatalf("different seeds gave the same 50 tokens")
	}
	// top-k 1 is greedy.
	g1 := gen(SampleOptions{MaxTokens: 20, Temperature: 0, EOS: -1})
	g2 := gen(SampleOptions{MaxTokens: 20, Temperature: 5, TopK: 1, Seed: 3, EOS: -1})
	if !slices.Equal(g1, g2) {
		t.Fatalf("top-k 1 %v differs from greedy %v", g2, g1)
	}
	// top-p tiny is greedy too.
	g3 := gen(SampleOptions{MaxTokens: 20, Temperature: 1, TopP: 1e-9, Seed: 3, EOS: -1})
	if !slices.Equal(g1, g3) {
		t.Fatalf("top-p 1e-9 %v differs from greedy %v", g3, g1)
	}
	// EOS stops.
	eos := int(g1[4])
	g4 := gen(SampleOptions{MaxTokens: 20, EOS: eos})
	if len(g4) > 5 || int(g4[len(g4)-1]) != eos {
		t.Fatalf("EOS %d did not stop generation: %v", eos, g4)
	}
}

// evenOnly allows even tokens and is done after 7.
type evenOnly struct{ n int }

func (e *evenOnly) Allow(mask []bool) {
	for i := range mask {
		mask[i] = i%2 == 0
	}
}
func (e *evenOnly) Push(tok uint16) error { e.n++; return nil }
func (e *evenOnly) Done() bool            { return e.n >= 2+7 }

func TestGenerateConstraint(t *testing.T) {
	m, _ := tinyModel(t, 30, 12)
	out, err := m.NewSampler(0).Generate(context.Background(), []uint16{1, 3}, SampleOptions{MaxTokens: 100, Temperature: 1.5, Seed: 1, EOS: -1, Constraint: &evenOnly{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 7 {
		t.Fatalf("constraint Done after 7 tokens, got %d", len(out))
	}
	for _, tok := range out {
		if tok%2 != 0 {
			t.Fatalf("odd token %d passed the constraint: %v", tok, out)
		}
	}
	_, err = m.NewSampler(0).Generate(context.Background(), []uint16{1}, SampleOptions{MaxTokens: 3, Mask: func(l []float32) {
		for i := range l {
			l[i] = float32(math.Inf(-1))
		}
	}})
	if err != ErrNoToken {
		t.Fatalf("all tokens masked: err %v, want ErrNoToken", err)
	}
}

func TestStepDoesNotAllocate(t *testing.T) {
	m, _ := tinyModel(t, 30, 13)
	s := m.NewSampler(64)
	s.Prefill([]uint16{1})
	allocs := testing.AllocsPerRun(20, func() {
		if s.pos >= s.W {
			s.Prefill([]uint16{1})
		}
		s.Step(3)
	})
	if allocs != 0 {
		t.Fatalf("a sampling step allocated %v times", allocs)
	}
}

// Force gives tokens that are pushed without sampling (and checked by the
// constraint); the model's own choice resumes after them, and its next
// logits follow from the forced tokens (same as a prompt holding them).
func TestGenerateForceAndAdjust(t *testing.T) {
	m, _ := tinyModel(t, 30, 14)
	forced := []uint16{4, 8, 6}
	k := 0
	opts := SampleOptions{MaxTokens: 6, Temperature: 1e-9, Seed: 3, EOS: -1, Constraint: &evenOnly{},
		Force: func() (uint16, bool) {
			if k < len(forced) {
				k++
				return forced[k-1], true
			}
			return 0, false
		}}
	out, err := m.NewSampler(0).Generate(context.Background(), []uint16{1, 3}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out[:3], forced) {
		t.Fatalf("first tokens %v, want the forced %v", out[:3], forced)
	}
	// Greedy after the forced tokens = greedy after a prompt that holds them.
	ref, err := m.NewSampler(0).Generate(context.Background(), []uint16{1, 3, 4, 8, 6},
		SampleOptions{MaxTokens: 3, Temperature: 1e-9, Seed: 3, EOS: -1, Constraint: &evenOnly{n: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out[3:], ref) {
		t.Errorf("after the forced tokens %v, want %v", out[3:], ref)
	}
	// A forced token the constraint refuses is an error that says so.
	k = 0
	forced = []uint16{5}
	opts.Constraint = &evenStrict{}
	if _, err := m.NewSampler(0).Generate(context.Background(), []uint16{1}, opts); err == nil || !strings.Contains(err.Error(), "forced token 5") {
		t.Errorf("odd forced token: %v", err)
	}
	// Adjust runs before the mask: raising token 10 makes greedy pick it.
	opts.Force = nil
	opts.Constraint = &evenOnly{}
	opts.Adjust = func(l []float32) { l[10] = 1e6 }
	out, err = m.NewSampler(0).Generate(context.Background(), []uint16{1}, opts)
	if err != nil || out[0] != 10 {
		t.Errorf("Adjust: %v %v", out, err)
	}
}

// evenStrict refuses odd tokens after the prompt's first.
type evenStrict struct{ evenOnly }

func (e *evenStrict) Push(tok uint16) error {
	e.n++
	if e.n > 1 && tok%2 != 0 {
		return fmt.Errorf("odd token %d", tok)
	}
	return nil
}
