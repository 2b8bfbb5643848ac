package app

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/engine/train/condition"
	"github.com/amtstudio/amt/engine/train/examples"
	"github.com/amtstudio/amt/storage"
)

// ExamplesSpec is an export of ready training examples (`amt datasets
// --export-examples`) for a trainer outside this program (cluster/train.py).
type ExamplesSpec struct {
	Train   int     // training examples
	Val     int     // validation examples; < 0: Train/20 (at least one batch)
	Context int     // tokens per example (the model's input length)
	Batch   int     // engine/train's batch: example i is row i mod Batch of batch i div Batch
	Seed    uint64  // as engine/train's --seed: the split and every example follow from it
	ValFrac float64 // share of pieces held out for validation
	// Progress receives (examples written, total); may be nil.
	Progress func(done, total int)
}

// DefaultExamplesSpec are the CLI's defaults.
func DefaultExamplesSpec() ExamplesSpec {
	d := DefaultTrainSpec()
	return ExamplesSpec{Train: 20000, Val: -1, Context: d.Context, Batch: d.Batch, Seed: d.Seed, ValFrac: d.ValFrac}
}

// ExportExamples writes the conditioned training examples of a dataset
// into dir: the live pieces (as `amt datasets --export` writes them) are
// split by piece into train and validation as engine/train splits them, and
// each example is made by the same builder engine/train uses
// (engine/train/condition with its default options, augmentation
// included), so an outside trainer sees the batches this program would.
// See engine/train/examples for the files.
func ExportExamples(ctx context.Context, st *storage.Store, project, dataset, dir string, spec ExamplesSpec) (*examples.Manifest, error) {
	if spec.Train < 1 || spec.Context < 2 || spec.Batch < 1 {
		return nil, fmt.Errorf("%w: export examples: --examples, --context and --batch must be ≥ 1, 2 and 1 (got %d, %d, %d)", ErrUsage, spec.Train, spec.Context, spec.Batch)
	}
	if spec.ValFrac < 0 || spec.ValFrac >= 1 {
		return nil, fmt.Errorf("%w: export examples: --val-frac %g outside [0, 1)", ErrUsage, spec.ValFrac)
	}
	if spec.Val < 0 {
		spec.Val = max(spec.Batch, spec.Train/20)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("export examples: %w", err)
	}
	pieces, err := os.MkdirTemp(dir, ".pieces-")
	if err != nil {
		return nil, fmt.Errorf("export examples: %w", err)
	}
	defer os.RemoveAll(pieces)
	if _, err := ExportDataset(ctx, st, project, dataset, pieces); err != nil {
		return nil, err
	}
	vpath := filepath.Join(pieces, gpt.VocabFile)
	vj, err := os.ReadFile(vpath)
	if err != nil {
		return nil, fmt.Errorf("export examples: %w", err)
	}
	v, err := token.ParseVocab(vj)
	if err != nil {
		return nil, fmt.Errorf("export examples: %s: %w", vpath, err)
	}
	data, err := train.OpenDir(pieces, v.Size(), nil)
	if err != nil {
		return nil, fmt.Errorf("export examples: dataset %q: %w", dataset, err)
	}
	defer data.Close()
	if spec.ValFrac == 0 {
		spec.Val = 0
	}
	co := condition.DefaultOptions()
	return examples.Write(ctx, dir, data, condition.New(v, co), examples.Options{
		Context: spec.Context, Train: spec.Train, Val: spec.Val, Batch: spec.Batch, Seed: spec.Seed, ValFrac: spec.ValFrac,
		VocabJSON: vj, VocabSize: v.Size(), PAD: int(v.PAD), BOS: int(v.BOS), EOS: int(v.EOS), SEP: int(v.SEP),
		Conditioning: co, Source: examples.Source{Project: project, Dataset: dataset, Pieces: data.Pieces(), Tokens: data.Tokens()},
		Progress: spec.Progress})
}

// examplesFlags registers the options of --export-examples on fs and
// returns a function reading them after parsing.
func examplesFlags(fs *flag.FlagSet) func() ExamplesSpec {
	d := DefaultExamplesSpec()
	n := fs.Int("examples", d.Train, "with --export-examples: training examples to write (export at least steps × batch of the outside run)")
	nv := fs.Int("val-examples", d.Val, "with --export-examples: validation examples (-1: examples/20, at least one batch)")
	ctxLen := fs.Int("context", d.Context, "with --export-examples: tokens per example (the model's context)")
	batch := fs.Int("batch", d.Batch, "with --export-examples: engine/train's batch (example i is row i mod B of its batch i div B)")
	seed := fs.Uint64("seed", d.Seed, "with --export-examples: seed of the split and of every example (as amt train --seed)")
	valFrac := fs.Float64("val-frac", d.ValFrac, "with --export-examples: share of pieces held out for validation")
	return func() ExamplesSpec {
		return ExamplesSpec{Train: *n, Val: *nv, Context: *ctxLen, Batch: *batch, Seed: *seed, ValFrac: *valFrac}
	}
}

// runExportExamples is `amt datasets --export-examples`.
func runExportExamples(ctx context.Context, env *Env, st *storage.Store, project, dataset, dir string, spec ExamplesSpec, asJSON bool) error {
	last := time.Time{}
	if !asJSON {
		spec.Progress = func(done, total int) {
			if now := time.Now(); now.Sub(last) >= time.Second || done == total {
				last = now
				fmt.Fprintf(env.Stderr, "\rexamples %d/%d", done, total)
				if done == total {
					fmt.Fprintln(env.Stderr)
				}
			}
		}
	}
	m, err := ExportExamples(ctx, st, project, dataset, dir, spec)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	}
	tr, va := m.Splits["train"], m.Splits["val"]
	fmt.Fprintf(env.Stdout, "exported dataset %q as examples of %d tokens in %s: train %d examples from %d pieces, val %d from %d; seed %d, vocabulary %d\n",
		dataset, m.Context, dir, tr.Examples, tr.Pieces, va.Examples, va.Pieces, m.Seed, m.Vocab.Size)
	fmt.Fprintf(env.Stdout, "train with: torchrun --standalone --nproc_per_node N cluster/train.py --examples %s --out MODEL_DIR --steps S --batch %d\n", shellQuote(dir), m.Batch)
	return nil
}
