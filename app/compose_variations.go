package app

import (
	"context"
	"fmt"
)

// MaxVariations bounds one Variations call.
const MaxVariations = 8

// Variation is one of several pieces sampled for the same request, kept
// in memory until the user keeps it (Keep stores it in the history).
type Variation struct {
	Request ComposeRequest // the request, with this variation's seed
	Result  *ComposeResult // Piece is zero until kept
	model   *Model
	gen     *PromptResult
}

// Variations samples n pieces (1–MaxVariations) for req, with seeds
// req.Seed, req.Seed+1, …, each exactly the piece Compose makes for that
// seed (`amt generate "PROMPT" --seed S` too), and stores none of them.
// each (may be nil) hears every variation as it is ready, so a window can
// show them one by one; req.Progress counts over all n.
func (s *Studio) Variations(ctx context.Context, req ComposeRequest, n int, each func(i int, v *Variation)) ([]*Variation, error) {
	if n < 1 || n > MaxVariations {
		return nil, fmt.Errorf("variations: %d asked, 1–%d", n, MaxVariations)
	}
	var out []*Variation
	progress := req.Progress
	for i := 0; i < n; i++ {
		r := req
		r.Seed = req.Seed + uint64(i)
		r.Progress = nil
		if progress != nil {
			r.Progress = func(done, total int) { progress(i*total+done, n*total) }
		}
		m, gen, err := composeOne(ctx, r)
		if err != nil {
			return out, fmt.Errorf("variation %d (seed %d): %w", i+1, r.Seed, err)
		}
		r.Progress = nil
		mt, ad := gen.Metrics, gen.Adherence
		v := &Variation{Request: r, model: m, gen: gen, Result: &ComposeResult{Score: gen.Score, Requested: gen.Requested,
			Decoded: gen.Decoded, Tokens: gen.New, Seconds: gen.Seconds, Metrics: &mt, Adherence: &ad}}
		out = append(out, v)
		if each != nil {
			each(i, v)
		}
	}
	return out, nil
}

// Keep stores a variation in the history of its request's project, with
// its request and seed, and returns it as Compose would have; a variation
// kept before is returned as stored then.
func (s *Studio) Keep(v *Variation) (*ComposeResult, error) {
	if v == nil || v.gen == nil {
		return nil, fmt.Errorf("keep: no variation")
	}
	if v.Result.Piece.ID != 0 {
		return v.Result, nil
	}
	res, err := s.storeGenerated(v.Request.Project, v.Request.Prompt, v.Request.Seed, v.model, v.gen)
	if err != nil {
		return nil, err
	}
	v.Result = res
	return res, nil
}
