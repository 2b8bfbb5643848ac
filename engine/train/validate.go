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
// token, so 1 M tokens already ask for 100 GB. MaxLoaderWorkers and
// MaxPrefetch bound the loader: each queued batch holds 8 × B × T bytes
// (LoaderBytes), and on the H100 machine 12 workers with 12 batches ahead
// kept the GPU fed at 398 k tokens/s, so 64 of each leaves room for
// bigger machines while a prefetch of 10⁹ (9 GB, no first step) is
// refused.
const (
	MaxSteps         = 100_000_000
	MaxBatch         = 4096
	MaxAccum         = 4096
	MaxBatchTokens   = 1 << 20
	MaxLoaderWorkers = 64
	MaxPrefetch      = 64
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
		in("patience", o.Patience, 0, MaxSteps),
		in("prefetch", o.Prefetch, 1, MaxPrefetch),
		in("loader-workers", o.LoaderWorkers, 1, MaxLoaderWorkers),
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

// loaderBuffers is how many batch buffers the loader of Run allocates for
// workers goroutines and prefetch batches ahead: each worker's share of the
// queue, one being filled per worker, the current batch and the one
// prefetched to the device.
func loaderBuffers(workers, prefetch int) int {
	per := (prefetch + workers - 1) / workers
	return workers*per + workers + 2
}

// LoaderBytes is the memory of the batch buffers of a run (inputs and
// targets, int32) with these options; workers and prefetch ≤ 0 take Run's
// defaults (1 and 2).
func LoaderBytes(batch, context, workers, prefetch int) int64 {
	if workers < 1 {
		workers = 1
	}
	if prefetch < 1 {
		prefetch = 2
	}
	return int64(loaderBuffers(workers, prefetch)) * 8 * int64(batch) * int64(context)
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
