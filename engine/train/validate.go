package train

import (
	"errors"
	"fmt"
	"math"
)

// ErrBadOption marks an Options value outside its range.
var ErrBadOption = errors.New("train: bad option")

// ErrNonFinite marks a NaN or infinite loss, gradient norm or parameter:
// the run stops at the step where it first appears and writes nothing, so
// the last checkpoint and model stay as they were.
var ErrNonFinite = errors.New("not a finite number")

// Limits of Options (see validate). MaxBatchTokens bounds B × T of one
// micro-batch: the activations of the small preset take about 100 KB a
// token, so 1 M tokens already ask for 100 GB.
const (
	MaxSteps       = 100_000_000
	MaxBatch       = 4096
	MaxAccum       = 4096
	MaxBatchTokens = 1 << 20
)

// validate checks the options after defaults: counts within their ranges,
// rates and fractions finite and within theirs. Errors name the option,
// the value and the range.
func (o *Options) validate() error {
	in := func(name string, v, lo, hi int) error {
		if v < lo || v > hi {
			return fmt.Errorf("%w: %s %d outside %d to %d", ErrBadOption, name, v, lo, hi)
		}
		return nil
	}
	fin := func(name string, v, lo, hi float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s %v: %w (allowed %g to %g)", ErrBadOption, name, v, ErrNonFinite, lo, hi)
		}
		if v < lo || v > hi {
			return fmt.Errorf("%w: %s %g outside %g to %g", ErrBadOption, name, v, lo, hi)
		}
		return nil
	}
	for _, err := range []error{
		in("steps", o.Steps, 1, MaxSteps),
		in("batch", o.Batch, 1, MaxBatch),
		in("context", o.Context, 1, MaxBatchTokens),
		in("accum", o.Accum, 1, MaxAccum),
		in("warmup", o.Warmup, 0, MaxSteps),
		in("val-every", o.ValEvery, 0, MaxSteps),
		in("checkpoint-every", o.Checkpoint, 0, MaxSteps),
		fin("lr", o.LR, 0, 10),
		fin("min-lr", o.MinLR, 0, o.LR),
		fin("weight-decay", o.WeightDecay, 0, 10),
		fin("beta1", o.Beta1, 0, 1),
		fin("beta2", o.Beta2, 0, 1),
		fin("eps", o.Eps, 0, 1),
		fin("clip", o.Clip, 0, math.MaxFloat32),
		fin("val-frac", o.ValFrac, 0, 0.5),
	} {
		if err != nil {
			return err
		}
	}
	if o.LR <= 0 {
		return fmt.Errorf("%w: lr %g must be > 0", ErrBadOption, o.LR)
	}
	if n := int64(o.Batch) * int64(o.Context); n > MaxBatchTokens {
		return fmt.Errorf("%w: batch %d × context %d = %d tokens per micro-batch, more than the limit of %d", ErrBadOption, o.Batch, o.Context, n, MaxBatchTokens)
	}
	return nil
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
