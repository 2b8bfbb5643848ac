// Command trainmodel trains the default text-to-music model (issue 8) on
// the token shards of ingested corpora with conditioned examples
// (engine/train/condition), on the CPU or a GPU, and exports it in float16
// for assets/model.
//
//	go run ./scripts/trainmodel --data DIR --out DIR [--preset small] [--steps N] [--batch B] [--context T]
//	                            [--device auto|cpu|cuda] [--precision bf16|tf32|fp32] [--loader-workers N] [--prefetch N]
//	go run ./scripts/trainmodel --export FROM --to assets/model
//	go run ./scripts/trainmodel --data DIR --card [--source-weight …] [--flat-velocity …]
//	go run ./scripts/trainmodel --data DIR --heldout MODEL[,MODEL…] [--split-seed S] [--key-labels …] [--key-frame …]
//
// DIR is walked for NAME.bin/NAME.idx shard pairs (several dataset exports
// side by side). Each logged step goes to OUT/log.jsonl as a JSON line.
// make model runs the whole recipe (scripts/make_model.sh; DEVICE=cuda on a
// GPU). For a GPU machine without Go, scripts/gpu/build-trainmodel.sh builds
// a copy that needs only libc (docs/GPU.md, "Training the default model on a
// GPU").
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/engine/train/condition"
)

func main() {
	data := flag.String("data", "", "folder holding token shards (walked recursively)")
	out := flag.String("out", "", "output folder (checkpoint, model files, vocab.json, log.jsonl)")
	preset := flag.String("preset", "small", "model size")
	steps := flag.Int("steps", 2000, "optimizer steps")
	batch := flag.Int("batch", 8, "sequences per step")
	ctxLen := flag.Int("context", 512, "tokens per sequence")
	lr := flag.Float64("lr", 1e-3, "peak learning rate")
	warmup := flag.Int("warmup", 100, "warm-up steps")
	valEvery := flag.Int("val-every", 100, "validate every N steps")
	ckEvery := flag.Int("checkpoint-every", 100, "checkpoint every N steps")
	seed := flag.Uint64("seed", 1, "seed of the examples")
	splitSeed := flag.Uint64("split-seed", 0, "seed of the validation split (0: --seed); keep the first run's when continuing with --init and a new --seed")
	resume := flag.Bool("resume", false, "continue from OUT/checkpoint.safetensors")
	overwrite := flag.Bool("overwrite", false, "start again over the checkpoint OUT holds (refused without --resume or this)")
	initDir := flag.String("init", "", "start from this model folder's weights (e.g. assets/model) instead of a fresh initialization: a longer run that goes on from the shipped model with a new schedule")
	export := flag.String("export", "", "export this model folder in float16 to --to, then exit")
	to := flag.String("to", "assets/model", "export destination")
	startProb := flag.Float64("start-prob", -1, "share of examples that open their piece (default: condition.DefaultOptions, 0.2)")
	keyLabels := flag.String("key-labels", "piece", "KEY labels of the examples: piece (the piece's key, as the shipped model) or window (each window's estimated key; docs/MODEL.md)")
	sourceWeights := flag.String("source-weight", "", "sampling weight of the pieces of a source (the folder of its shards under --data): NAME=W[,NAME=W…], e.g. arranged=0.25; others 1 (condition.Options.SourceWeight)")
	sourceShares := flag.String("source-share", "", "the mixture as shares of the examples: NAME=SHARE[,NAME=SHARE…] (0.3 or 30%); sources not named share what is left in their natural proportions; the source weights are derived from the data (condition.WeightsForShares; not with --source-weight)")
	flatVelocity := flag.String("flat-velocity", "", "sources whose velocities come from notation, not players: NAME[,NAME…]; their Velocity targets are left out of the loss (condition.Options.FlatVelocity)")
	heldout := flag.String("heldout", "", "score these model folders (MODEL[,MODEL…]) on the held-out pieces of --data, source by source (the split of --split-seed; the examples of --key-labels, --key-frame, --flat-velocity, --batch, --context), print the table and exit")
	heldoutBatches := flag.Int("heldout-batches", 8, "batches a source for --heldout")
	card := flag.Bool("card", false, "print the mixture the run would see (each source's pieces, tokens, held-out pieces, weight and share of the examples, the human-made share) as docs/DATA.md's table, then exit")
	parts := flag.String("parts", "", "issue 33's example options: real (a window lists only programs playing a part: half its bars, 1 note per 2 bars), roles (re-voicing keeps each part's role), or both joined by a comma; default neither (condition.Options.RealParts, RevoiceRoles)")
	keyFrame := flag.String("key-frame", "absolute", "pitch frame of the examples: absolute (every key, KEY names tonic and mode) or tonic (every window moved to C major or A minor, KEY names the mode; condition.Options.TonicFrame)")
	dev := flag.String("device", "auto", "where to train: auto (a GPU when the CUDA backend opens, else the CPU), cpu, or cuda (an error without a GPU)")
	precision := flag.String("precision", "", "the GPU's matrix products: bf16 (default), tf32 or fp32 (master weights and optimizer stay fp32)")
	loaders := flag.Int("loader-workers", 0, "goroutines building batches (0: 1 on the CPU, 3/4 of the cores on a GPU); the batches are the same with any number")
	prefetch := flag.Int("prefetch", 0, "batches built ahead (0: 2 on the CPU, one per loader worker on a GPU)")
	flag.Parse()
	if *export != "" {
		if err := exportModel(*export, *to); err != nil {
			fmt.Fprintln(os.Stderr, "trainmodel:", err)
			os.Exit(1)
		}
		return
	}
	if *data == "" || (*out == "" && !*card && *heldout == "") {
		fmt.Fprintln(os.Stderr, "trainmodel: --data and --out are required (--card and --heldout need --data only)")
		os.Exit(2)
	}
	co := condition.DefaultOptions()
	for _, err := range []error{co.SetStartProb(*startProb), co.SetKeyLabels(*keyLabels), co.SetKeyFrame(*keyFrame), co.SetSourceWeights(*sourceWeights), co.SetFlatVelocity(*flatVelocity), co.SetParts(*parts)} {
		if err != nil {
			fmt.Fprintln(os.Stderr, "trainmodel:", err)
			os.Exit(2)
		}
	}
	shares, err := condition.ParseShares(*sourceShares)
	if err == nil && shares != nil && co.SourceWeight != nil {
		err = fmt.Errorf("--source-share and --source-weight both set the mixture: give one")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "trainmodel:", err)
		os.Exit(2)
	}
	if *card {
		split := *splitSeed
		if split == 0 {
			split = *seed
		}
		if err := printCard(os.Stdout, *data, co, shares, split); err != nil {
			fmt.Fprintln(os.Stderr, "trainmodel:", err)
			os.Exit(1)
		}
		return
	}
	if *heldout != "" {
		if err := runHeldOut(os.Stdout, *data, strings.Split(*heldout, ","), co, shares, *splitSeed, *seed, *dev, *precision, *heldoutBatches, *batch, *ctxLen); err != nil {
			fmt.Fprintln(os.Stderr, "trainmodel:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c := config{Data: *data, Out: *out, Preset: *preset, Init: *initDir, Device: *dev, Precision: *precision, Cond: co, Shares: shares,
		Train: train.Options{Steps: *steps, Batch: *batch, Context: *ctxLen, LR: *lr, Warmup: *warmup, WeightDecay: 0.1, Clip: 1,
			ValEvery: *valEvery, ValFrac: valFrac, ValBatches: 8, Checkpoint: *ckEvery, Seed: *seed, SplitSeed: *splitSeed,
			Resume: *resume, Overwrite: *overwrite, LoaderWorkers: *loaders, Prefetch: *prefetch}}
	if _, err := run(ctx, c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "trainmodel:", err)
		os.Exit(1)
	}
}

// valFrac is the share of pieces the default model holds out for validation.
const valFrac = 0.03
