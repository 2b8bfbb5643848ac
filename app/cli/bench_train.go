package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/amtstudio/amt/app"
)

// parseTrainBenchConfig reads "key=value" pairs separated by spaces or
// commas over def: batch, accum, prefetch, loaders (loader-workers),
// threads, device, precision.
func parseTrainBenchConfig(s string, def app.TrainBenchConfig) (app.TrainBenchConfig, error) {
	c := def
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return c, fmt.Errorf("%w: configuration %q: %q is not key=value", ErrUsage, s, f)
		}
		k = strings.ToLower(strings.TrimSpace(k))
		num := func(lo, hi int) (int, error) {
			n, err := strconv.Atoi(v)
			if err != nil || n < lo || n > hi {
				return 0, fmt.Errorf("%w: configuration %q: %s=%q: give a whole number from %d to %d", ErrUsage, s, k, v, lo, hi)
			}
			return n, nil
		}
		var err error
		switch k {
		case "batch":
			c.Batch, err = num(1, app.MaxBatch)
		case "accum":
			c.Accum, err = num(1, app.MaxAccum)
		case "prefetch":
			c.Prefetch, err = num(1, app.MaxPrefetch)
		case "loaders", "loader-workers", "loader_workers":
			c.LoaderWorkers, err = num(1, app.MaxLoaderWorkers)
		case "threads", "workers":
			c.Threads, err = num(0, app.MaxTrainWorkers)
		case "device":
			c.Device = strings.ToLower(v)
			if err := app.CheckDevice(v); err != nil {
				return c, fmt.Errorf("configuration %q: %w", s, err)
			}
		case "precision":
			c.Precision = strings.ToLower(v)
		default:
			return c, fmt.Errorf("%w: configuration %q: unknown key %q (batch, accum, prefetch, loaders, threads, device, precision)", ErrUsage, s, k)
		}
		if err != nil {
			return c, err
		}
	}
	return c, nil
}

func init() {
	c := &Command{
		Name:  "train",
		Usage: "bench train --data DIR [--preset small] [--context T] [--steps 10] [--warmup 2] [--rounds N] [--json] [--compare] [CONFIG [CONFIG]]",
		Summary: "training speed of one configuration, or of two on the same data with --compare (tokens/s, stage times, speed-up); " +
			"CONFIG is key=value pairs: batch, accum, prefetch, loaders, threads, device, precision (e.g. \"batch=8 accum=2 device=cuda precision=bf16\")",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		data := fs.String("data", "", "folder of token shards (NAME.bin + NAME.idx, vocab.json) or MIDI files")
		preset := fs.String("preset", "small", "model size")
		ctxLen := fs.Int("context", 0, fmt.Sprintf("tokens per sequence (T); default %d, or the preset's positions where fewer", app.DefaultTrainContext))
		steps := fs.Int("steps", 10, fmt.Sprintf("steps measured per configuration (at most %d)", app.MaxBenchTrainSteps))
		warmup := fs.Int("warmup", 2, "steps run first and left out of the figures")
		rounds := fs.Int("rounds", 1, fmt.Sprintf("configurations take turns this many times; each one's best round is reported (at most %d)", app.MaxBenchRounds))
		seed := fs.Uint64("seed", 1, "seed of initialization and batches (the same for every configuration)")
		compare := fs.Bool("compare", false, "measure two configurations and the speed-up of the second over the first")
		jsonOut := fs.Bool("json", false, "print JSON")
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if *data == "" {
			return fmt.Errorf("%w: --data is required", ErrUsage)
		}
		want := 1
		if *compare {
			want = 2
		}
		if len(pos) > want {
			return fmt.Errorf("%w: %d configurations given, at most %d (--compare takes two)", ErrUsage, len(pos), want)
		}
		if *compare && len(pos) == 0 {
			return fmt.Errorf("%w: --compare needs two configurations (or one, compared with the defaults %q)", ErrUsage, app.DefaultTrainBenchConfig())
		}
		var cfgs []app.TrainBenchConfig
		if *compare && len(pos) == 1 {
			cfgs = append(cfgs, app.DefaultTrainBenchConfig())
		}
		for _, p := range pos {
			cfg, err := parseTrainBenchConfig(p, app.DefaultTrainBenchConfig())
			if err != nil {
				return err
			}
			cfgs = append(cfgs, cfg)
		}
		if len(cfgs) == 0 {
			cfgs = []app.TrainBenchConfig{app.DefaultTrainBenchConfig()}
		}
		r, err := app.BenchTrain(ctx, *data, *preset, *ctxLen, *steps, *warmup, *rounds, *seed, cfgs)
		if err != nil {
			return err
		}
		if *jsonOut {
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(r)
		}
		fmt.Fprintf(env.Stdout, "data %s, preset %s, context %d: %d steps measured after %d warm-up, same seed, best of %d round(s)\n", r.Data, r.Preset, r.Context, r.Steps, r.Warmup, r.Rounds)
		app.WriteTrainComparison(env.Stdout, r.Runs...)
		return nil
	}
	RegisterBench(c)
}
