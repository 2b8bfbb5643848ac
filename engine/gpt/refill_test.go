package gpt

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// Refill pins a prompt prefix: every token after the window first fills is
// the greedy choice given exactly prefix + the recent tokens that Refill
// returned, recomputed here from scratch with a fresh sampler.
func TestGenerateRefillPinsPrefix(t *testing.T) {
	m, _ := tinyModel(t, 30, 5)
	ctx := context.Background()
	const W = 12
	prefix := []uint16{1, 2, 3}
	var calls [][]uint16
	refill := func(hist []uint16) []uint16 {
		re := append(append([]uint16(nil), prefix...), hist[len(hist)-4:]...)
		calls = append(calls, re)
		return re
	}
	out, err := m.NewSampler(W).Generate(ctx, prefix, SampleOptions{MaxTokens: 30, EOS: -1, Refill: refill})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 30 || len(calls) == 0 {
		t.Fatalf("%d tokens, %d refills; want 30 tokens and at least one refill", len(out), len(calls))
	}
	// The token after the first refill: argmax of a fresh prefill of it.
	hist := append(append([]uint16(nil), prefix...), out...)
	// The cache fills after W-len(prefix) steps; the token sampled then
	// ends the first refill, and the one after it is the first sampled
	// from the refilled window.
	first := W - len(prefix) + 1
	ref := m.NewSampler(W)
	logits, err := ref.Prefill(calls[0])
	if err != nil {
		t.Fatal(err)
	}
	best := 0
	for i, l := range logits {
		if l > logits[best] {
			best = i
		}
	}
	if got := hist[len(prefix)+first]; int(got) != best {
		t.Fatalf("token after the refill is %d, fresh prefill of %v picks %d", got, calls[0], best)
	}
	if !slices.Equal(calls[0][:3], prefix) {
		t.Fatalf("refill %v lost the prefix", calls[0])
	}
	// A refill that does not end with the last token is an error, not a
	// silent desynchronisation of the constraint.
	_, err = m.NewSampler(W).Generate(ctx, prefix, SampleOptions{MaxTokens: 30, EOS: -1,
		Refill: func(hist []uint16) []uint16 { return []uint16{1, 2} }})
	if err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("bad refill: err %v, want an error", err)
	}
}
