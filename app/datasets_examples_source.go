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

// openSource opens the shards, a bad option being a usage error: the size
// flags first, against the limits of examples_export.go (writing: the
// counts too, as checkExampleSizes takes them), before any work.
func openSource(spec ExampleSourceSpec, writing bool, n, val int) (*stream.Source, error) {
	err := checkExampleSizes(spec.Context, spec.Batch, writing, n, val)
	if err == nil {
		err = IntIn("workers", spec.Workers, 0, MaxExampleWorkers)
	}
	if err != nil {
		return nil, err
	}
	src, err := stream.Open(spec)
	if errors.Is(err, stream.ErrRequest) {
		return nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return src, err
}

// DescribeExampleSource opens the shards and returns the stream's header
// (pieces and tokens of each split, the conditioning) without serving.
func DescribeExampleSource(spec ExampleSourceSpec) (ExampleStreamHeader, error) {
	src, err := openSource(spec, false, 0, 0)
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
	src, err := openSource(spec, false, 0, 0)
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
	if err := CheckOutputDir(dir); err != nil { // app/output.go: before any work
		return nil, fmt.Errorf("examples: %w", err)
	}
	if val < 0 {
		return nil, fmt.Errorf("%w: --val-examples %d: allowed 0 to %d", ErrUsage, val, MaxExamples)
	}
	src, err := openSource(spec, true, n, val)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	v := src.Vocab()
	if err := checkFreeSpace(dir, exampleBytes(n+val, spec.Context, v.Size())+int64(len(src.VocabJSON())),
		fmt.Sprintf("examples: %d examples of %d tokens (--examples %d, --val-examples %d, --context %d)", n+val, spec.Context, n, val, spec.Context)); err != nil { // app/output.go
		return nil, err
	}
	h := src.Header()
	return examples.Write(ctx, dir, src.Dataset(), src.Builder(), examples.Options{Context: spec.Context, Train: n, Val: val,
		Batch: spec.Batch, Seed: spec.Seed, SplitSeed: spec.SplitSeed, ValFrac: spec.ValFrac, VocabJSON: src.VocabJSON(),
		VocabSize: v.Size(), PAD: int(v.PAD), BOS: int(v.BOS), EOS: int(v.EOS), SEP: int(v.SEP), Conditioning: src.Conditioning(),
		Source: h.Source, Progress: progress})
}
