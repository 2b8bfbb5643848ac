package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/amtstudio/amt/app"
)

func init() {
	c := &Command{
		Name:    "train",
		Usage:   "train --data DIR --out DIR [--from default|MODEL_DIR] [--preset small] [--steps N] [--batch B] [--context T] [--device cpu|cuda|auto] [--precision bf16|tf32|fp32] [--resume | --overwrite] [--json] [--profile DIR]",
		Summary: "train the GPT model on token shards or MIDI files, from random weights or fine-tuning a trained model (--from), on the CPU or a CUDA GPU (--device)",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		data := fs.String("data", "", "folder of token shards (NAME.bin + NAME.idx, vocab.json) or MIDI files")
		out := fs.String("out", "", "output folder: model files, checkpoint.safetensors, vocab.json")
		preset := fs.String("preset", "small", "model size: "+strings.Join(app.ModelPresets(), ", "))
		steps := fs.Int("steps", 1000, "optimizer steps in all")
		batch := fs.Int("batch", 8, "sequences per micro-batch (B)")
		context_ := fs.Int("context", 0, fmt.Sprintf("tokens per sequence (T); default %d, or the preset's positions where fewer (tiny: 128)", app.DefaultTrainContext))
		accum := fs.Int("accum", 1, "micro-batches accumulated per step")
		lr := fs.Float64("lr", 1e-3, "peak learning rate")
		minLR := fs.Float64("min-lr", 0, "final learning rate (default lr/10)")
		warmup := fs.Int("warmup", 0, "warm-up steps (default steps/20)")
		wd := fs.Float64("weight-decay", 0.1, "AdamW weight decay of matrices and embeddings")
		clip := fs.Float64("clip", 1, "gradient-norm clipping (0: none)")
		valEvery := fs.Int("val-every", 100, "validate every N steps")
		valFrac := fs.Float64("val-frac", 0.05, "share of pieces held out for validation")
		ckEvery := fs.Int("checkpoint-every", 100, "checkpoint every N steps")
		logEvery := fs.Int("log-every", 1, "print every N steps")
		seed := fs.Uint64("seed", 1, "seed of initialization, split and batches")
		resume := fs.Bool("resume", false, "continue from OUT/checkpoint.safetensors")
		overwrite := fs.Bool("overwrite", false, "start again over the checkpoint OUT holds (without it or --resume, such a run is refused)")
		jsonOut := fs.Bool("json", false, "JSON line per logged step and a final JSON object")
		profile := fs.String("profile", "", "write cpu.pprof and trace.out into this folder")
		dev := fs.String("device", "cpu", deviceFlagHelp)
		precision := fs.String("precision", "", "GPU matrix products: bf16 (default), tf32 or fp32")
		prefetch := fs.Int("prefetch", 2, fmt.Sprintf("batches the loader keeps ready (at most %d)", app.MaxPrefetch))
		loaders := fs.Int("loader-workers", 1, fmt.Sprintf("goroutines building batches (at most %d)", app.MaxLoaderWorkers))
		from := fs.String("from", "", "fine-tune a trained model: \""+app.FromDefault+"\" (the embedded default model) or a model folder; its size and vocabulary are kept, the flags left unset take the fine-tune defaults (docs/MODEL.md, \"Fine-tuning\"), a fifth of the pieces is held out, and OUT holds the best validated weights")
		patience := fs.Int("patience", 0, fmt.Sprintf("with --from: stop after this many validations without a lower held-out loss (default %d; -1: never)", app.FineTunePatience))
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if *from != "" {
			if set["preset"] {
				return fmt.Errorf("%w: --preset with --from: a fine-tune keeps its base model's size", ErrUsage)
			}
			// Unset flags take the fine-tune's defaults (0 in the spec).
			for name, p := range map[string]*int{"steps": steps, "batch": batch, "context": context_, "warmup": warmup,
				"val-every": valEvery, "checkpoint-every": ckEvery, "accum": accum} {
				if !set[name] {
					*p = 0
				}
			}
			if !set["lr"] {
				*lr = 0
			}
			if !set["val-frac"] {
				*valFrac = 0
			}
		} else if set["patience"] {
			return fmt.Errorf("%w: --patience needs --from (a run from random weights does not stop early)", ErrUsage)
		}
		if len(pos) > 0 || *data == "" || *out == "" {
			return fmt.Errorf("%w: --data and --out are required, no positional arguments", ErrUsage)
		}
		if *resume && *overwrite {
			return fmt.Errorf("%w: --resume continues the checkpoint, --overwrite replaces it: one at a time", ErrUsage)
		}
		if err := app.IntIn("log-every", *logEvery, 1, app.MaxSteps); err != nil {
			return err
		}
		if *warmup == 0 && *from == "" {
			*warmup = max(1, *steps/20)
		}
		if *profile != "" {
			stopProf, err := app.StartProfile(*profile)
			if err != nil {
				return err
			}
			defer stopProf()
		}
		w := bufio.NewWriter(env.Stdout)
		defer w.Flush()
		enc := json.NewEncoder(w)
		spec := app.TrainSpec{Data: *data, Out: *out, Preset: *preset, Steps: *steps, Batch: *batch, Context: *context_,
			Accum: *accum, LR: *lr, MinLR: *minLR, Warmup: *warmup, WeightDecay: *wd, Clip: *clip, ValEvery: *valEvery,
			ValFrac: *valFrac, CheckpointEvery: *ckEvery, Seed: *seed, Resume: *resume, Overwrite: *overwrite, Device: *dev, Precision: *precision,
			Prefetch: *prefetch, LoaderWorkers: *loaders, From: *from, Patience: *patience}
		onStart := func(i app.TrainStart) {
			if !*jsonOut {
				fmt.Fprintf(w, "device: %s\nmodel %s: %d parameters; data: %d pieces, %d tokens (%d files skipped)\n", i.Device, i.Preset, i.Params, i.Pieces, i.Tokens, i.Skipped)
				if f := i.FineTune; f != nil {
					fmt.Fprintf(w, "fine-tune: %d pieces to learn from (%d tokens), %d held out; %d steps of %d × %d tokens at most, stopping when the held-out loss stops falling\n",
						f.TrainPieces, f.TrainTokens, f.ValPieces, f.Steps, f.Batch, f.Context)
				}
				w.Flush()
			}
		}
		onStep := func(e app.TrainEvent) {
			if e.Step%*logEvery != 0 && e.ValLoss == nil && e.Step != e.Steps {
				return
			}
			if *jsonOut {
				enc.Encode(e)
			} else if e.Step == 0 && e.ValLoss != nil {
				fmt.Fprintf(w, "step 0/%d: the base model's held-out loss %.4f\n", e.Steps, *e.ValLoss)
			} else {
				val := ""
				if e.ValLoss != nil {
					val = fmt.Sprintf(" val %.4f", *e.ValLoss)
				}
				h2d := ""
				if e.Stage.Device {
					h2d = fmt.Sprintf(" h2d %.4fs", e.Stage.H2D)
				}
				fmt.Fprintf(w, "step %d/%d loss %.4f%s lr %.2e norm %.3f %.0f tok/s (data %.3fs%s fwd %.3fs bwd %.3fs opt %.3fs)\n",
					e.Step, e.Steps, e.Loss, val, e.LR, e.GradNorm, e.TokensPerSecond, e.Stage.Data, h2d, e.Stage.Forward, e.Stage.Backward, e.Stage.Optimizer)
			}
			w.Flush()
		}
		tr, runErr := app.TrainModel(ctx, spec, onStart, onStep)
		if tr == nil {
			return runErr
		}
		switch {
		case *jsonOut:
			enc.Encode(*tr)
		case runErr != nil: // not "done": the error follows on stderr
			fmt.Fprintf(w, "stopped at step %d, train loss %.4f; %s holds the last checkpoint written\n", tr.Steps, tr.TrainLoss, *out)
		case tr.Lineage != nil:
			l := tr.Lineage
			why := "the planned steps"
			if l.EarlyStopped {
				why = "the held-out loss stopped falling"
			}
			fmt.Fprintf(w, "done: %d steps (%s), %.0f tokens/s, peak RSS %.0f MB\nheld-out loss %.4f (%s) -> %.4f (step %d, kept); %d pieces held out\nmodel in %s (lineage in %s)\n",
				l.Steps, why, tr.TokensPerSecond, tr.PeakRSSMB, l.BaseValLoss, l.Base, l.BestValLoss, l.BestStep, len(l.HeldOut), *out, app.LineageFile)
		default:
			fmt.Fprintf(w, "done: %d steps, train loss %.4f, %.0f tokens/s, peak RSS %.0f MB, model in %s\n", tr.Steps, tr.TrainLoss, tr.TokensPerSecond, tr.PeakRSSMB, *out)
		}
		return runErr
	}
	Register(c)
}
