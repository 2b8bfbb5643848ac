package gpt

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// pickFullSort is nucleus sampling with a comparator sort (pick's earlier
// form), the reference for pick's packed-key sort.
func pickFullSort(logits []float32, rng *rand.Rand, temp, topP float64, topK int) uint16 {
	cand := make([]int32, len(logits))
	for i := range cand {
		cand[i] = int32(i)
	}
	slices.SortFunc(cand, func(a, b int32) int {
		switch {
		case logits[a] > logits[b]:
			return -1
		case logits[a] < logits[b]:
			return 1
		}
		return int(a - b)
	})
	if topK > 0 && topK < len(cand) {
		cand = cand[:topK]
	}
	mx := float64(logits[cand[0]])
	prob := make([]float64, len(cand))
	sum := 0.0
	for i, id := range cand {
		prob[i] = math.Exp((float64(logits[id]) - mx) / temp)
		sum += prob[i]
	}
	acc := 0.0
	for i := range cand {
		acc += prob[i] / sum
		if acc >= topP {
			cand = cand[:i+1]
			break
		}
	}
	sum = 0
	for i := range cand {
		sum += prob[i]
	}
	u := rng.Float64() * sum
	for i, id := range cand {
		u -= prob[i]
		if u < 0 {
			return uint16(id)
		}
	}
	return uint16(cand[len(cand)-1])
}

// TestNucleusMatchesComparatorSort: over peaked and flat random logit
// vectors (with ties, negative zero and top-k), temperatures and top-p
// values, pick draws the same token as the comparator sort from the same
// random stream.
func TestNucleusMatchesComparatorSort(t *testing.T) {
	const V = 400
	s := &Sampler{idx: make([]int32, V), keys: make([]uint64, V), prob: make([]float64, V), mask: make([]bool, V)}
	gen := rand.New(rand.NewPCG(8, 9))
	logits, work := make([]float32, V), make([]float32, V)
	kept, trials := 0, 0
	for trial := 0; trial < 3000; trial++ {
		spread := []float64{0.1, 1, 3, 8}[trial%4]
		for i := range logits {
			logits[i] = float32(gen.NormFloat64() * spread)
		}
		if trial%7 == 0 {
			logits[gen.IntN(V)] = logits[0] // ties
		}
		if trial%11 == 0 {
			logits[3], logits[9] = float32(math.Copysign(0, -1)), 0 // -0 ties +0
		}
		temp := []float64{0.7, 1, 1.5}[trial%3]
		topP := []float64{0.5, 0.9, 0.95, 0.99}[trial%4]
		topK := 0
		if trial%5 == 0 {
			topK = 20
		}
		seed := uint64(trial)
		copy(work, logits)
		got, err := s.pick(work, rand.New(rand.NewPCG(seed, 1)), SampleOptions{Temperature: temp, TopP: topP, TopK: topK})
		if err != nil {
			t.Fatal(err)
		}
		want := pickFullSort(logits, rand.New(rand.NewPCG(seed, 1)), temp, topP, topK)
		if got != want {
			t.Fatalf("trial %d (spread %g, T %g, top-p %g): pick %d, full sort %d", trial, spread, temp, topP, got, want)
		}
		trials++
		kept += int(got)
	}
	if trials != 3000 || kept == 0 {
		t.Fatalf("degenerate test: %d trials", trials)
	}
}

// TestPickPlain: with Plain true, pick draws from the logits as they are
// (temperature 1, no nucleus); without it, top-p 0.5 at temperature 0.5
// never draws the tail. Logits ln(0.6), ln(0.3), ln(0.1): plain frequencies
// 0.6, 0.3, 0.1.
func TestPickPlain(t *testing.T) {
	s := &Sampler{idx: make([]int32, 3), keys: make([]uint64, 3), prob: make([]float64, 3), mask: make([]bool, 3)}
	rng := rand.New(rand.NewPCG(1, 2))
	base := []float32{float32(math.Log(0.6)), float32(math.Log(0.3)), float32(math.Log(0.1))}
	var plain, cut [3]int
	const n = 20000
	for i := 0; i < n; i++ {
		for k, on := range []bool{true, false} {
			logits := slices.Clone(base)
			got, err := s.pick(logits, rng, SampleOptions{Temperature: 0.5, TopP: 0.5, Plain: func() bool { return on }})
			if err != nil {
				t.Fatal(err)
			}
			if k == 0 {
				plain[got]++
			} else {
				cut[got]++
			}
		}
	}
	for i, p := range []float64{0.6, 0.3, 0.1} {
		if f := float64(plain[i]) / n; math.Abs(f-p) > 0.015 {
			t.Errorf("plain: token %d drawn %.3f of the time, want %.1f", i, f, p)
		}
	}
	if cut[1] != 0 || cut[2] != 0 {
		t.Errorf("top-p 0.5 at temperature 0.5 drew the tail: %v", cut)
	}
}
