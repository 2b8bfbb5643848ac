package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/amtstudio/amt/app"
)

func init() {
	c := &Command{
		Name:    "examples",
		Usage:   "examples --shards DIR [--serve | --write DIR --examples N [--val-examples M]] [--context T] [--batch B] [--seed S] [--split-seed S] [--val-frac F] [--key-labels window|piece] [--key-frame tonic|absolute] [--start-prob P] [--workers N] [--json]",
		Summary: "conditioned training examples of token shards: served to a trainer as it asks (--serve, cluster/train.py --shards), written ahead (--write), or described",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		spec := app.DefaultExampleSourceSpec()
		spec.DefineFlags(fs)
		serve := fs.Bool("serve", false, "answer example requests on stdin with rows on stdout (the protocol of engine/train/stream; cluster/train.py --shards starts this)")
		write := fs.String("write", "", "write the first --examples training and --val-examples validation examples into this folder (the format of amt datasets --export-examples)")
		n := fs.Int("examples", 20000, "with --write: training examples")
		nv := fs.Int("val-examples", -1, "with --write: validation examples (-1: examples/20, at least one batch)")
		jsonOut := fs.Bool("json", false, "print the description or the manifest as JSON")
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) > 0 || spec.Shards == "" || (*serve && *write != "") {
			return fmt.Errorf("%w: --shards is required, --serve and --write exclude each other, no positional arguments", ErrUsage)
		}
		switch {
		case *serve:
			return app.ServeExamples(ctx, spec, env.Stdin, env.Stdout)
		case *write != "":
			if *nv < 0 {
				*nv = max(spec.Batch, *n/20)
			}
			if spec.ValFrac == 0 {
				*nv = 0
			}
			last := time.Time{}
			progress := func(done, total int) {
				if now := time.Now(); !*jsonOut && (now.Sub(last) >= time.Second || done == total) {
					last = now
					fmt.Fprintf(env.Stderr, "\rexamples %d/%d", done, total)
					if done == total {
						fmt.Fprintln(env.Stderr)
					}
				}
			}
			m, err := app.WriteShardExamples(ctx, spec, *write, *n, *nv, progress)
			if err != nil {
				return err
			}
			if *jsonOut {
				return printJSON(env, m)
			}
			tr, va := m.Splits["train"], m.Splits["val"]
			fmt.Fprintf(env.Stdout, "wrote examples of %d tokens from %s in %s: train %d examples from %d pieces, val %d from %d; seed %d\n",
				m.Context, spec.Shards, *write, tr.Examples, tr.Pieces, va.Examples, va.Pieces, m.Seed)
			return nil
		}
		h, err := app.DescribeExampleSource(spec)
		if err != nil {
			return err
		}
		h.VocabJSON = ""
		if *jsonOut {
			return printJSON(env, h)
		}
		tr, va := h.Splits["train"], h.Splits["val"]
		fmt.Fprintf(env.Stdout, "%s: %d pieces, %d tokens; train %d pieces (%d tokens), val %d pieces (%d tokens); examples of %d tokens, seed %d, split seed %d\nconditioning: %s\n",
			spec.Shards, h.Source.Pieces, h.Source.Tokens, tr.Pieces, tr.Tokens, va.Pieces, va.Tokens, h.Context, h.Seed, h.SplitSeed, h.Conditioning)
		fmt.Fprintf(env.Stdout, "train with: torchrun --nproc_per_node N cluster/train.py --shards %s --context %d --example-batch %d --example-seed %d --split-seed %d --val-frac %g --key-labels %s --key-frame %s --out MODEL_DIR --steps S --batch G\n",
			shellQuote(spec.Shards), h.Context, h.Batch, h.Seed, h.SplitSeed, h.ValFrac, spec.KeyLabels, spec.KeyFrame)
		return nil
	}
	Register(c)
}

func printJSON(env *Env, v any) error {
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
