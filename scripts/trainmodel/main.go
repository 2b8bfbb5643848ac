// Command trainmodel trains the default text-to-music model (issue 8) on
// the token shards of ingested corpora with conditioned examples
// (engine/train/condition), and exports it in float16 for assets/model.
//
//	go run ./scripts/trainmodel --data DIR --out DIR [--preset small] [--steps N] [--batch B] [--context T]
//	go run ./scripts/trainmodel --export FROM --to assets/model
//
// DIR is walked for NAME.bin/NAME.idx shard pairs (several dataset exports
// side by side). Each logged step goes to OUT/log.jsonl as a JSON line.
// make model runs the whole recipe (scripts/make_model.sh).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/nn/cpu"
	"github.com/amtstudio/amt/engine/token"
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
	initDir := flag.String("init", "", "start from this model folder's weights (e.g. assets/model) instead of a fresh initialization: a longer run that goes on from the shipped model with a new schedule")
	export := flag.String("export", "", "export this model folder in float16 to --to, then exit")
	to := flag.String("to", "assets/model", "export destination")
	startProb := flag.Float64("start-prob", -1, "share of examples that open their piece (default: condition.DefaultOptions, 0.2)")
	keyLabels := flag.String("key-labels", "piece", "KEY labels of the examples: piece (the piece's key, as the shipped model) or window (each window's estimated key; docs/MODEL.md)")
	sourceWeights := flag.String("source-weight", "", "sampling weight of the pieces of a source (the folder of its shards under --data): NAME=W[,NAME=W…], e.g. arranged=0.25; others 1 (condition.Options.SourceWeight)")
	keyFrame := flag.String("key-frame", "absolute", "pitch frame of the examples: absolute (every key, KEY names tonic and mode) or tonic (every window moved to C major or A minor, KEY names the mode; condition.Options.TonicFrame)")
	flag.Parse()
	if *export != "" {
		if err := exportModel(*export, *to); err != nil {
			fmt.Fprintln(os.Stderr, "trainmodel:", err)
			os.Exit(1)
		}
		return
	}
	if *data == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "trainmodel: --data and --out are required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	co := condition.DefaultOptions()
	if *startProb >= 0 {
		if *startProb+co.EndProb > 1 {
			fmt.Fprintf(os.Stderr, "trainmodel: --start-prob %g: with the endings' %g it passes 1\n", *startProb, co.EndProb)
			os.Exit(2)
		}
		co.StartProb = *startProb
	}
	if *sourceWeights != "" {
		sw, err := parseSourceWeights(*sourceWeights)
		if err != nil {
			fmt.Fprintln(os.Stderr, "trainmodel: --source-weight:", err)
			os.Exit(2)
		}
		co.SourceWeight = sw
	}
	switch *keyLabels {
	case "window":
		co.WindowKey = true
	case "piece":
		co.WindowKey = false
	default:
		fmt.Fprintf(os.Stderr, "trainmodel: --key-labels %q: want window or piece\n", *keyLabels)
		os.Exit(2)
	}
	switch *keyFrame {
	case "tonic":
		co.TonicFrame = true
	case "absolute":
		co.TonicFrame = false
	default:
		fmt.Fprintf(os.Stderr, "trainmodel: --key-frame %q: want absolute or tonic\n", *keyFrame)
		os.Exit(2)
	}
	if err := run(ctx, *data, *out, *preset, *initDir, co, train.Options{Steps: *steps, Batch: *batch, Context: *ctxLen,
		LR: *lr, Warmup: *warmup, WeightDecay: 0.1, Clip: 1, ValEvery: *valEvery, ValFrac: 0.03, ValBatches: 8,
		Checkpoint: *ckEvery, Seed: *seed, SplitSeed: *splitSeed, OutDir: *out, Resume: *resume}); err != nil {
		fmt.Fprintln(os.Stderr, "trainmodel:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, data, out, preset, initDir string, co condition.Options, o train.Options) error {
	v := token.DefaultVocab()
	ds, err := train.OpenDir(data, v.Size(), nil)
	if err != nil {
		return err
	}
	defer ds.Close()
	sources := ds.Sources()
	for name := range co.SourceWeight {
		if sources[name] == 0 {
			return fmt.Errorf("--source-weight names %q, but no shard under %s lies in a folder of that name (sources: %v)", name, data, sources)
		}
	}
	be := cpu.New()
	defer be.Close()
	var m *gpt.Model
	if initDir != "" {
		if m, err = initModel(be, initDir, v); err != nil {
			return err
		}
		preset = "from " + initDir
	} else {
		cfg, err := gpt.Preset(preset, v.Size())
		if err != nil {
			return err
		}
		cfg.BOS, cfg.EOS = int(v.BOS), int(v.EOS)
		if m, err = gpt.New(be, cfg); err != nil {
			return err
		}
		m.Init(o.Seed)
	}
	if co.TonicFrame {
		m.Config.KeyFrame = gpt.KeyFrameTonic
	} else {
		m.Config.KeyFrame = ""
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := v.Save(filepath.Join(out, gpt.VocabFile)); err != nil {
		return err
	}
	logf, err := os.OpenFile(filepath.Join(out, "log.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	enc := json.NewEncoder(logf)
	start := time.Now()
	fmt.Printf("model %s: %d parameters; data: %d pieces %v, %d tokens; %d steps of %d×%d\n",
		preset, m.NumParams(), ds.Pieces(), sources, ds.Tokens(), o.Steps, o.Batch, o.Context)
	o.Examples = condition.New(v, co)
	o.OnStep = func(e train.Event) {
		type line struct {
			train.Event
			Elapsed float64 `json:"elapsed_s"`
		}
		enc.Encode(line{e, time.Since(start).Seconds()})
		if e.Step%10 == 0 || e.ValLoss != nil {
			val := ""
			if e.ValLoss != nil {
				val = fmt.Sprintf(" val %.4f", *e.ValLoss)
			}
			fmt.Printf("step %d/%d loss %.4f%s lr %.2e %.0f tok/s %.0fs\n", e.Step, e.Steps, e.Loss, val, e.LR, e.TokensPerSecond, time.Since(start).Seconds())
		}
	}
	res, err := train.Run(ctx, m, ds, o)
	fmt.Printf("done: %d steps in %.0fs, %.0f tokens/s, train %.4f val %.4f best val %.4f\n",
		res.Steps, res.Seconds, res.TokensPerSecond, res.TrainLoss, res.ValLoss, res.BestValLoss)
	return err
}

// initModel loads the model of folder dir (float16 or float32 weights) to
// train on from, refusing one whose vocabulary is not v: its token ids would
// mean other things.
func initModel(be *cpu.Backend, dir string, v *token.Vocab) (*gpt.Model, error) {
	mv, err := token.LoadVocab(filepath.Join(dir, gpt.VocabFile))
	if err != nil {
		return nil, err
	}
	if mv.Size() != v.Size() || mv.Version() != v.Version() {
		return nil, fmt.Errorf("%s: vocabulary version %d of %d tokens, this build's is version %d of %d", dir, mv.Version(), mv.Size(), v.Version(), v.Size())
	}
	m, err := gpt.Load(be, dir)
	if err != nil {
		return nil, err
	}
	if c := m.Config; c.BOS != int(v.BOS) || c.EOS != int(v.EOS) {
		return nil, fmt.Errorf("%s: BOS/EOS %d/%d, the vocabulary's are %d/%d", dir, c.BOS, c.EOS, v.BOS, v.EOS)
	}
	return m, nil
}

// exportModel writes the model of folder from into folder to as float16
// safetensors, config.json and vocab.json.
func exportModel(from, to string) error {
	be := cpu.New()
	defer be.Close()
	m, err := gpt.Load(be, from)
	if err != nil {
		return err
	}
	v, err := token.LoadVocab(filepath.Join(from, gpt.VocabFile))
	if err != nil {
		return err
	}
	if err := m.Save(to, "F16"); err != nil {
		return err
	}
	return v.Save(filepath.Join(to, gpt.VocabFile))
}

// parseSourceWeights reads NAME=W[,NAME=W…] with finite weights ≥ 0.
func parseSourceWeights(s string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, f := range strings.Split(s, ",") {
		name, w, ok := strings.Cut(strings.TrimSpace(f), "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("%q: want NAME=WEIGHT", f)
		}
		x, err := strconv.ParseFloat(w, 64)
		if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("%q: weight %q is not a finite number ≥ 0", f, w)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%q: %s named twice", s, name)
		}
		out[name] = x
	}
	return out, nil
}
