package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"time"

	"github.com/amtstudio/amt/app"
)

// examplesFlags registers the options of --export-examples on fs and
// returns a function reading them after parsing.
func examplesFlags(fs *flag.FlagSet) func() app.ExamplesSpec {
	d := app.DefaultExamplesSpec()
	n := fs.Int("examples", d.Train, "with --export-examples: training examples to write (export at least steps × batch of the outside run)")
	nv := fs.Int("val-examples", d.Val, "with --export-examples: validation examples (-1: examples/20, at least one batch)")
	ctxLen := fs.Int("context", d.Context, "with --export-examples: tokens per example (the model's context)")
	batch := fs.Int("batch", d.Batch, "with --export-examples: engine/train's batch (example i is row i mod B of its batch i div B)")
	seed := fs.Uint64("seed", d.Seed, "with --export-examples: seed of the split and of every example (as amt train --seed)")
	valFrac := fs.Float64("val-frac", d.ValFrac, "with --export-examples: share of pieces held out for validation")
	return func() app.ExamplesSpec {
		return app.ExamplesSpec{Train: *n, Val: *nv, Context: *ctxLen, Batch: *batch, Seed: *seed, ValFrac: *valFrac}
	}
}

// runExportExamples is `amt datasets --export-examples`.
func runExportExamples(ctx context.Context, env *Env, st *app.Store, project, dataset, dir string, spec app.ExamplesSpec, asJSON bool) error {
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
	m, err := app.ExportExamples(ctx, st, project, dataset, dir, spec)
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
