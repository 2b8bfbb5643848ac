package app

import (
	"context"
	"runtime"
	"slices"
	"testing"
)

// TestParallelCandidatesMatchSequential: candidates sampled side by side
// on lanes (one-worker copies of the model) give the piece, the candidate
// count and the adherence that one-by-one sampling on the model itself
// gives, for prompts that need more than one wave.
func TestParallelCandidatesMatchSequential(t *testing.T) {
	m, err := DefaultModel()
	if err != nil {
		t.Skip(err)
	}
	prompts := []string{
		"A melancholic ballad in A minor for piano, 70 bpm, 8 bars",
		"an upbeat pop song in G major with piano, bass and drums, 4 bars",
	}
	run := func(procs int, p string) *PromptResult {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		if got := len(m.lanes(4)); got != min(procs, MaxLanes) {
			t.Fatalf("GOMAXPROCS %d: %d lanes, want %d", procs, got, min(procs, MaxLanes))
		}
		ticks := 0
		r, err := GenerateFromPrompt(context.Background(), m, PromptRequest{Prompt: p, Seed: 11, KeyBias: DefaultKeyBias,
			Candidates: 4, OnToken: func(n int) {
				if n != ticks+1 {
					t.Errorf("progress %d after %d", n, ticks)
				}
				ticks = n
			}})
		if err != nil {
			t.Fatal(err)
		}
		if ticks < r.Sampled {
			t.Errorf("progress reached %d, fewer than the %d tokens sampled", ticks, r.Sampled)
		}
		return r
	}
	for _, p := range prompts {
		seq, par := run(1, p), run(3, p)
		if !slices.Equal(seq.Tokens, par.Tokens) || seq.Tried != par.Tried || seq.Sampled != par.Sampled ||
			seq.Adherence.Met != par.Adherence.Met {
			t.Errorf("%q: sequential %d tokens, candidate %d, %d sampled, met %d; side by side %d, %d, %d, %d", p,
				len(seq.Tokens), seq.Tried, seq.Sampled, seq.Adherence.Met, len(par.Tokens), par.Tried, par.Sampled, par.Adherence.Met)
		}
		t.Logf("%q: candidate %d of 4 kept (met %d of %d)", p, seq.Tried, seq.Adherence.Met, seq.Adherence.Checked)
	}
}
