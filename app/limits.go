package app

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/shirou/gopsutil/v3/mem"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/train"
)

// Every number a user gives on the command line (or in a form of the
// window, which fills the same specs) is checked where it enters: an error
// names the flag, the value and the allowed range, and is a usage error
// (exit 2). NaN and ±Inf are refused by name.

// ErrUsage marks a request the caller got wrong: a value out of range, a
// malformed argument, options that exclude each other. Errors wrapping it
// name the flag (or field), the value and what is allowed; the command
// line prints its usage after them and exits 2.
var ErrUsage = errors.New("usage")

// Limits of generation.
const (
	// MaxGenerateBars bounds a requested length. The token budget of a
	// piece is 200 tokens a bar, capped at MaxGenerateTokens, so longer
	// requests could not be met (--bars 100000 used to end silently at the
	// cap, 1,141 bars).
	MaxGenerateBars = 160
	// MaxGenerateTokens is the most new tokens one piece may sample.
	MaxGenerateTokens = 32768
	// MaxCandidates bounds --candidates (each is a whole piece sampled).
	MaxCandidates = 16
	// MaxKeyBias bounds --key-bias and --rhythm-bias (logit offsets; 10
	// already forbids or forces).
	MaxKeyBias = 100
)

// IntIn returns a usage error naming --flag when v is outside [lo, hi].
func IntIn(flag string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("%w: --%s %d: allowed %d to %d", ErrUsage, flag, v, lo, hi)
	}
	return nil
}

// FloatIn returns a usage error naming --flag when v is NaN, infinite or
// outside [lo, hi].
func FloatIn(flag string, v, lo, hi float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%w: --%s %v is not a finite number (allowed %g to %g)", ErrUsage, flag, v, lo, hi)
	}
	if v < lo || v > hi {
		return fmt.Errorf("%w: --%s %g: allowed %g to %g", ErrUsage, flag, v, lo, hi)
	}
	return nil
}

// FirstError returns the first non-nil error.
func FirstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// CheckSampling checks sampling settings (--temperature, --top-k,
// --top-p of generate and eval-model; a prompt request's).
func CheckSampling(temp float64, topK int, topP float64) error {
	return FirstError(
		FloatIn("temperature", temp, 0, gpt.MaxTemperature),
		IntIn("top-k", topK, 0, 65536),
		FloatIn("top-p", topP, 0, 1))
}

// Validate checks a training spec as `amt train` and the Training screen
// give it: each number within its range (errors name the flag), then the
// memory the run would ask for against the memory available.
func (s TrainSpec) Validate() error {
	low, lr, steps := 1, s.LR, s.Steps // a fine-tune's 0 steps, batch, context, accumulation or lr: its default
	if s.From != "" {
		low = 0
		if lr == 0 {
			lr = train.FineTuneLR
		}
		if steps == 0 {
			steps = train.MaxSteps
		}
	}
	err := FirstError(
		IntIn("steps", s.Steps, low, train.MaxSteps),
		IntIn("batch", s.Batch, low, train.MaxBatch),
		IntIn("context", s.Context, 2*low, gpt.MaxPositions),
		IntIn("accum", s.Accum, low, train.MaxAccum),
		FloatIn("lr", s.LR, 0, 10),
		FloatIn("min-lr", s.MinLR, 0, max(lr, 0)),
		IntIn("warmup", s.Warmup, 0, max(steps, 0)),
		FloatIn("weight-decay", s.WeightDecay, 0, 10),
		FloatIn("clip", s.Clip, 0, 1e6),
		IntIn("val-every", s.ValEvery, 0, train.MaxSteps),
		FloatIn("val-frac", s.ValFrac, 0, 0.5),
		IntIn("checkpoint-every", s.CheckpointEvery, 0, train.MaxSteps),
		IntIn("workers", s.Workers, 0, MaxTrainWorkers),
		IntIn("prefetch", s.Prefetch, 0, train.MaxPrefetch), // 0: engine/train's default
		IntIn("loader-workers", s.LoaderWorkers, 0, train.MaxLoaderWorkers),
		IntIn("patience", s.Patience, -1, train.MaxSteps),
		CheckDevice(s.Device))
	if err != nil {
		return err
	}
	if s.From != "" { // 0 is the default; the base's positions bound the context
		return nil
	}
	if s.LR <= 0 {
		return fmt.Errorf("%w: --lr %g must be > 0", ErrUsage, s.LR)
	}
	if n := int64(s.Batch) * int64(s.Context); n > train.MaxBatchTokens {
		return fmt.Errorf("%w: --batch %d × --context %d = %d tokens a micro-batch: allowed at most %d", ErrUsage, s.Batch, s.Context, n, train.MaxBatchTokens)
	}
	positions, err := presetPositions(s.Preset) // app/train_job.go
	if err != nil {
		return err
	}
	if s.Context > positions {
		return fmt.Errorf("%w: --context %d: the %s preset has %d positions (allowed 2 to %d)", ErrUsage, s.Context, s.Preset, positions, positions)
	}
	return nil
}

// checkMemory refuses work that needs more memory than the machine has
// available now: what names it ("training small at batch 8 × 256").
func checkMemory(what string, need int64) error {
	vm, err := mem.VirtualMemory()
	if err != nil || vm.Available == 0 {
		return nil // unknown: let the allocation decide
	}
	if need > int64(vm.Available) {
		return fmt.Errorf("%s needs about %.1f GB of memory; %.1f GB is available", what, float64(need)/1e9, float64(vm.Available)/1e9)
	}
	return nil
}

// checkPromptRequest refuses what a prompt request cannot deliver: numbers
// in the prompt the parser reported (u.Problems: "0 bpm", "13/7", two
// meters), a length beyond MaxGenerateBars, sampling options out of range.
// u is req's prompt as understood (Understand).
func checkPromptRequest(req PromptRequest, u *Understanding) error {
	bars := req.Bars
	if req.Attrs == nil {
		if len(u.Problems) > 0 {
			return fmt.Errorf("%w: prompt %q: %s", ErrUsage, req.Prompt, strings.Join(u.Problems, "; "))
		}
		if bars == 0 {
			bars = u.Named.Bars
		}
	} else if bars == 0 {
		bars = req.Attrs.Bars
	}
	if bars > MaxGenerateBars {
		return fmt.Errorf("%w: %d bars: a piece has at most %d (its token budget is %d)", ErrUsage, bars, MaxGenerateBars, MaxGenerateTokens)
	}
	if bars < 0 {
		return fmt.Errorf("%w: %d bars: allowed 1 to %d", ErrUsage, bars, MaxGenerateBars)
	}
	return FirstError(
		IntIn("tokens", req.MaxTokens, 0, MaxGenerateTokens),
		CheckSampling(req.Temperature, req.TopK, req.TopP),
		IntIn("candidates", req.Candidates, 0, MaxCandidates),
		FloatIn("key-bias", float64(req.KeyBias), 0, MaxKeyBias))
}
