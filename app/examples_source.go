package app

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/amtstudio/amt/engine/train/examples"
	"github.com/amtstudio/amt/engine/train/stream"
)

// ExampleSourceSpec says which conditioned examples `amt examples` builds
// from a folder of token shards (engine/train/stream.Spec): the example
// source of a cluster run (docs/CLUSTER.md).
type ExampleSourceSpec = stream.Spec

// ExampleStreamHeader describes a stream (what `amt examples` prints).
type ExampleStreamHeader = stream.Header

// DefaultExampleSourceSpec are `amt examples`' defaults: the default
// model's conditioning (window keys, tonic frame) and `amt datasets
// --export-examples`' context, batch, seed and validation share.
func DefaultExampleSourceSpec() ExampleSourceSpec { return stream.DefaultSpec() }

// openSource opens the shards, a bad option being a usage error.
func openSource(spec ExampleSourceSpec) (*stream.Source, error) {
	src, err := stream.Open(spec)
	if errors.Is(err, stream.ErrRequest) {
		return nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return src, err
}

// DescribeExampleSource opens the shards and returns the stream's header
// (pieces and tokens of each split, the conditioning) without serving.
func DescribeExampleSource(spec ExampleSourceSpec) (ExampleStreamHeader, error) {
	src, err := openSource(spec)
	if err != nil {
		return ExampleStreamHeader{}, err
	}
	defer src.Close()
	return src.Header(), nil
}

// ServeExamples serves the examples of spec on out as a trainer asks for
// them on in (cluster/train.py --shards; the protocol of engine/train/stream)
// until in ends or ctx is cancelled.
func ServeExamples(ctx context.Context, spec ExampleSourceSpec, in io.Reader, out io.Writer) error {
	if in == nil || out == nil {
		return errors.New("examples: serve needs an input and an output")
	}
	src, err := openSource(spec)
	if err != nil {
		return err
	}
	defer src.Close()
	return src.Serve(ctx, in, out)
}

// WriteShardExamples writes the first n training and val validation
// examples of spec into dir as `amt datasets --export-examples` does
// (engine/train/examples' folder), from token shards instead of a stored
// dataset: the same rows the stream serves for those numbers. progress
// may be nil.
func WriteShardExamples(ctx context.Context, spec ExampleSourceSpec, dir string, n, val int, progress func(done, total int)) (*examples.Manifest, error) {
	if n < 1 || val < 0 {
		return nil, fmt.Errorf("%w: examples: --examples %d and --val-examples %d: want ≥ 1 and ≥ 0", ErrUsage, n, val)
	}
	src, err := openSource(spec)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	v := src.Vocab()
	h := src.Header()
	return examples.Write(ctx, dir, src.Dataset(), src.Builder(), examples.Options{Context: spec.Context, Train: n, Val: val,
		Batch: spec.Batch, Seed: spec.Seed, SplitSeed: spec.SplitSeed, ValFrac: spec.ValFrac, VocabJSON: src.VocabJSON(),
		VocabSize: v.Size(), PAD: int(v.PAD), BOS: int(v.BOS), EOS: int(v.EOS), SEP: int(v.SEP), Conditioning: src.Conditioning(),
		Source: h.Source, Progress: progress})
}
