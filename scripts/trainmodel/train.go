package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/cpu"
	"github.com/amtstudio/amt/engine/nn/device"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/engine/train/condition"
)

// config is one trainmodel run.
type config struct {
	Data, Out string
	Preset    string
	Init      string // model folder to start from ("": a fresh initialization)
	// Device ("auto", "cpu", "cuda") and Precision of the GPU's products
	// ("": the backend's default, bf16).
	Device, Precision string
	Cond              condition.Options
	// Shares, when set, is the mixture as shares of the examples: run
	// derives Cond.SourceWeight from the data (condition.WeightsForShares).
	Shares map[string]float64
	// Train: the run's options. LoaderWorkers and Prefetch ≤ 0 are sized
	// by loaderDefaults once the device is known.
	Train train.Options

	wrap func(train.Examples) train.Examples // tests: watch the examples
}

// loaderDefaults sizes the batch loader. On the CPU the engine's matrix
// products use every core, so one loader goroutine and two batches ahead
// (engine/train's defaults) suffice: a conditioned batch of 4 × 1,024
// takes a few ms against a step of ~1 s. On a GPU a step of 16 × 1,024 takes
// ~40 ms and the examples (window search, key estimation, re-voicing) are
// built on the host, so three quarters of the cores build batches, one
// queued ahead per worker: on the H100 machine's 16 cores, 12 workers kept
// the GPU fed at 398 k tokens/s (../shared/gpu, 2026-11-27); on a machine
// of more than 85 cores that stays within train.MaxLoaderWorkers. An
// explicit value (> 0) is kept (train.Run checks it).
func loaderDefaults(gpu bool, cores, workers, prefetch int) (int, int) {
	if workers <= 0 {
		workers = 1
		if gpu {
			workers = min(max(1, cores*3/4), train.MaxLoaderWorkers)
		}
	}
	if prefetch <= 0 {
		prefetch = 2
		if gpu {
			prefetch = min(max(2, workers), train.MaxPrefetch)
		}
	}
	return workers, prefetch
}

// run trains the model of c on the device it names, printing progress to
// w and every step to c.Out/log.jsonl.
func run(ctx context.Context, c config, w io.Writer) (train.Result, error) {
	v := token.DefaultVocab()
	ds, err := train.OpenDir(c.Data, v.Size(), nil)
	if err != nil {
		return train.Result{}, err
	}
	defer ds.Close()
	sources := ds.Sources()
	o := c.Train
	splitSeed := o.SplitSeed
	if splitSeed == 0 {
		splitSeed = o.Seed
	}
	if c.Cond, err = resolveShares(ds, v, c.Cond, c.Shares, o.ValFrac, splitSeed); err != nil {
		return train.Result{}, err
	}
	if err := checkSources(sources, c.Cond, c.Data); err != nil {
		return train.Result{}, err
	}
	be, choice, err := device.OpenWith(c.Device, 0, c.Precision)
	if err != nil {
		return train.Result{}, err
	}
	defer be.Close()
	o.LoaderWorkers, o.Prefetch = loaderDefaults(choice.Name != "cpu", runtime.NumCPU(), o.LoaderWorkers, o.Prefetch)
	fmt.Fprintf(w, "device: %s; loader workers %d, prefetch %d\n", choice.Reason, o.LoaderWorkers, o.Prefetch)
	preset := c.Preset
	var m *gpt.Model
	if c.Init != "" {
		if m, err = initModel(be, c.Init, v); err != nil {
			return train.Result{}, err
		}
		preset = "from " + c.Init
	} else {
		cfg, err := gpt.Preset(c.Preset, v.Size())
		if err != nil {
			return train.Result{}, err
		}
		cfg.BOS, cfg.EOS = int(v.BOS), int(v.EOS)
		if m, err = gpt.New(be, cfg); err != nil {
			return train.Result{}, err
		}
		m.Init(o.Seed)
	}
	if c.Cond.TonicFrame {
		m.Config.KeyFrame = gpt.KeyFrameTonic
	} else {
		m.Config.KeyFrame = ""
	}
	// The folder is claimed before vocab.json and log.jsonl are written:
	// one run per folder, none over a checkpoint unless --resume or
	// --overwrite.
	claim, err := train.ClaimDir(c.Out, o.Steps, o.Resume, o.Overwrite)
	if err != nil {
		return train.Result{}, err
	}
	defer claim.Release()
	o.Claim = claim
	if err := v.Save(filepath.Join(c.Out, gpt.VocabFile)); err != nil {
		return train.Result{}, err
	}
	logf, err := os.OpenFile(filepath.Join(c.Out, "log.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return train.Result{}, err
	}
	defer logf.Close()
	enc := json.NewEncoder(logf)
	start := time.Now()
	fmt.Fprintf(w, "model %s: %d parameters; data: %d pieces %v, %d tokens; %d steps of %d×%d\n",
		preset, m.NumParams(), ds.Pieces(), sources, ds.Tokens(), o.Steps, o.Batch, o.Context)
	rows := mixture(ds, v, c.Cond, o.ValFrac, splitSeed)
	var mix []string
	for _, r := range rows {
		mix = append(mix, fmt.Sprintf("%s %.1f%%", r.Name, 100*r.Share))
	}
	fmt.Fprintf(w, "mixture (share of the examples): %s; human-made %.1f%%\n", strings.Join(mix, ", "), 100*humanShare(rows))
	o.OutDir = c.Out
	o.Examples = condition.New(v, c.Cond)
	if c.wrap != nil {
		o.Examples = c.wrap(o.Examples)
	}
	onStep := o.OnStep
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
			fmt.Fprintf(w, "step %d/%d loss %.4f%s lr %.2e %.0f tok/s %.0fs\n", e.Step, e.Steps, e.Loss, val, e.LR, e.TokensPerSecond, time.Since(start).Seconds())
		}
		if onStep != nil {
			onStep(e)
		}
	}
	res, err := train.Run(ctx, m, ds, o)
	fmt.Fprintf(w, "done: %d steps in %.0fs, %.0f tokens/s, train %.4f val %.4f best val %.4f\n",
		res.Steps, res.Seconds, res.TokensPerSecond, res.TrainLoss, res.ValLoss, res.BestValLoss)
	return res, err
}

// checkSources refuses options naming a source the data lacks: a typo
// would silently leave the mixture as it was.
func checkSources(sources map[string]int, co condition.Options, data string) error {
	for name := range co.SourceWeight {
		if sources[name] == 0 {
			return fmt.Errorf("--source-weight names %q, but no shard under %s lies in a folder of that name (sources: %v)", name, data, sources)
		}
	}
	for name := range co.FlatVelocity {
		if sources[name] == 0 {
			return fmt.Errorf("--flat-velocity names %q, but no shard under %s lies in a folder of that name (sources: %v)", name, data, sources)
		}
	}
	return nil
}

// resolveShares sets co.SourceWeight from the wanted shares of the
// examples (nil: co unchanged), over the training split the run will make.
func resolveShares(ds *train.Dataset, v *token.Vocab, co condition.Options, shares map[string]float64, valFrac float64, splitSeed uint64) (condition.Options, error) {
	if shares == nil {
		return co, nil
	}
	plain := co
	plain.SourceWeight = nil
	tr, _ := ds.Split(valFrac, splitSeed)
	w, err := condition.WeightsForShares(condition.New(v, plain).Shares(tr), shares)
	if err != nil {
		return co, err
	}
	co.SourceWeight = w
	return co, nil
}

// printCard prints the mixture of the data under dir (--card).
func printCard(w io.Writer, dir string, co condition.Options, shares map[string]float64, splitSeed uint64) error {
	v := token.DefaultVocab()
	ds, err := train.OpenDir(dir, v.Size(), nil)
	if err != nil {
		return err
	}
	defer ds.Close()
	if co, err = resolveShares(ds, v, co, shares, valFrac, splitSeed); err != nil {
		return err
	}
	if err := checkSources(ds.Sources(), co, dir); err != nil {
		return err
	}
	writeCard(w, mixture(ds, v, co, valFrac, splitSeed))
	return nil
}

// initModel loads the model of folder dir (float16 or float32 weights) onto
// be to train on from, refusing one whose vocabulary is not v: its token ids
// would mean other things.
func initModel(be nn.Backend, dir string, v *token.Vocab) (*gpt.Model, error) {
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
