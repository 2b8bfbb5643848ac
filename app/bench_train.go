package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/storage"
)

// TrainBenchConfig is one training configuration `amt bench train`
// measures: what changes speed, not what changes the model.
type TrainBenchConfig struct {
	Batch         int    `json:"batch"`
	Accum         int    `json:"accum"`
	Prefetch      int    `json:"prefetch"`       // batches the loader keeps ready
	LoaderWorkers int    `json:"loader_workers"` // goroutines building batches
	Threads       int    `json:"threads"`        // CPU backend workers (0: one per core)
	Device        string `json:"device"`         // cpu, cuda, auto
	Precision     string `json:"precision"`      // GPU matrix products; "" default
}

// DefaultTrainBenchConfig is `amt train`'s defaults.
func DefaultTrainBenchConfig() TrainBenchConfig {
	return TrainBenchConfig{Batch: 8, Accum: 1, Prefetch: 2, LoaderWorkers: 1, Device: "cpu"}
}

func (c TrainBenchConfig) String() string {
	s := fmt.Sprintf("batch=%d accum=%d prefetch=%d loaders=%d device=%s", c.Batch, c.Accum, c.Prefetch, c.LoaderWorkers, c.Device)
	if c.Threads > 0 {
		s += fmt.Sprintf(" threads=%d", c.Threads)
	}
	if c.Precision != "" {
		s += " precision=" + c.Precision
	}
	return s
}

// TrainFigures are the speed of one training run or configuration: what
// `amt bench train` prints and the Training screen compares.
type TrainFigures struct {
	Label           string  `json:"label"`
	Config          string  `json:"config"`
	Device          string  `json:"device,omitempty"` // the backend opened and why, when known
	Steps           int     `json:"steps"`            // steps measured
	TokensPerSecond float64 `json:"tokens_per_second"`
	// Spread is [worst, best] tokens/s over the rounds of `amt bench
	// train --rounds` (the figures are the best round's).
	Spread      [2]float64 `json:"tokens_per_second_spread,omitempty"`
	StepSeconds float64    `json:"step_seconds"`
	// Stage is seconds per step; on a GPU the times other than data wait
	// are the device's (Stage.Device).
	Stage train.StageSeconds `json:"stage_seconds_per_step"`
}

// figuresOf measures events: tokens per step over the summed step times
// (each step's time is tokensPerStep / its tokens/s), stages averaged.
func figuresOf(events []train.Event, tokensPerStep int) TrainFigures {
	var f TrainFigures
	secs := 0.0
	for _, e := range events {
		if e.TokensPerSecond <= 0 {
			continue
		}
		secs += float64(tokensPerStep) / e.TokensPerSecond
		s := e.Stage
		f.Stage.Data += s.Data
		f.Stage.H2D += s.H2D
		f.Stage.Forward += s.Forward
		f.Stage.Backward += s.Backward
		f.Stage.Optimizer += s.Optimizer
		f.Stage.Device = f.Stage.Device || s.Device
		f.Steps++
	}
	if f.Steps == 0 || secs == 0 {
		return f
	}
	f.StepSeconds = secs / float64(f.Steps)
	f.TokensPerSecond = float64(tokensPerStep*f.Steps) / secs
	n := float64(f.Steps)
	f.Stage.Data, f.Stage.H2D, f.Stage.Forward, f.Stage.Backward, f.Stage.Optimizer =
		f.Stage.Data/n, f.Stage.H2D/n, f.Stage.Forward/n, f.Stage.Backward/n, f.Stage.Optimizer/n
	return f
}

// RunStages are a run's stage totals as the store keeps them: Items is the
// number of steps they cover; "h2d" is there when the times are the
// device's.
func RunStages(r *TrainResult) []storage.StageStat {
	st, steps := r.StageSeconds, r.Steps-r.StartStep
	out := []storage.StageStat{{Name: "data", BusySeconds: st.Data, Items: steps}}
	if st.Device {
		out = append(out, storage.StageStat{Name: "h2d", BusySeconds: st.H2D, Items: steps})
	}
	return append(out, storage.StageStat{Name: "forward", BusySeconds: st.Forward, Items: steps},
		storage.StageStat{Name: "backward", BusySeconds: st.Backward, Items: steps},
		storage.StageStat{Name: "optimizer", BusySeconds: st.Optimizer, Items: steps})
}

// FiguresOfRun are the speed figures of a stored run: tokens/s over its
// steps after the first (as `amt bench train` leaves out warm-up), and
// its stage times per step.
func FiguresOfRun(r storage.TrainRun, metrics map[string][2][]float64) TrainFigures {
	f := TrainFigures{Label: fmt.Sprintf("run %d", r.ID)}
	var cfg TrainJobConfig
	if json.Unmarshal(r.Config, &cfg) == nil && cfg.Spec.Batch > 0 {
		s := cfg.Spec
		c := TrainBenchConfig{Batch: s.Batch, Accum: max(1, s.Accum), Prefetch: s.Prefetch, LoaderWorkers: s.LoaderWorkers,
			Threads: s.Workers, Device: s.Device, Precision: s.Precision}
		if c.Prefetch == 0 {
			c.Prefetch = 2
		}
		if c.LoaderWorkers == 0 {
			c.LoaderWorkers = 1
		}
		if c.Device == "" {
			c.Device = "cpu"
		}
		f.Config = c.String()
	}
	tps := metrics["tokens_per_s"][1]
	if len(tps) > 1 {
		tps = tps[1:]
	}
	inv := 0.0
	for _, v := range tps {
		if v > 0 {
			inv += 1 / v
			f.Steps++
		}
	}
	if inv > 0 {
		f.TokensPerSecond = float64(f.Steps) / inv // the harmonic mean: total tokens over total time
	}
	for _, s := range r.Stages {
		if s.Items <= 0 {
			continue
		}
		v := s.BusySeconds / float64(s.Items)
		switch s.Name {
		case "data":
			f.Stage.Data = v
		case "h2d":
			f.Stage.H2D, f.Stage.Device = v, true
		case "forward":
			f.Stage.Forward = v
		case "backward":
			f.Stage.Backward = v
		case "optimizer":
			f.Stage.Optimizer = v
		}
	}
	if tokens := cfg.Spec.Batch * cfg.Spec.Context * max(1, cfg.Spec.Accum); f.TokensPerSecond > 0 && tokens > 0 {
		f.StepSeconds = float64(tokens) / f.TokensPerSecond
	}
	return f
}

// Speedup is how many times faster b trains than a (tokens/s); 0 when
// either is unknown.
func Speedup(a, b TrainFigures) float64 {
	if a.TokensPerSecond <= 0 || b.TokensPerSecond <= 0 {
		return 0
	}
	return b.TokensPerSecond / a.TokensPerSecond
}

// WriteTrainComparison prints figures side by side (tokens/s, step time and
// its stages, per step), for two the speed-up of the second over the
// first, and then each one's configuration and device.
func WriteTrainComparison(w io.Writer, figs ...TrainFigures) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(name string, cell func(f TrainFigures) string) {
		fmt.Fprint(tw, name+"\t")
		for _, f := range figs {
			fmt.Fprint(tw, cell(f)+"\t")
		}
		fmt.Fprintln(tw)
	}
	ms := func(v float64) string { return fmt.Sprintf("%.1f ms", v*1000) }
	row("", func(f TrainFigures) string { return f.Label })
	row("tokens/s", func(f TrainFigures) string { return fmt.Sprintf("%.0f", f.TokensPerSecond) })
	if figs[0].Spread[0] > 0 && figs[0].Spread[0] != figs[0].Spread[1] {
		row("worst round", func(f TrainFigures) string { return fmt.Sprintf("%.0f", f.Spread[0]) })
	}
	row("step", func(f TrainFigures) string { return ms(f.StepSeconds) })
	row("data wait", func(f TrainFigures) string { return ms(f.Stage.Data) })
	row("host→device", func(f TrainFigures) string {
		if !f.Stage.Device {
			return "–"
		}
		return ms(f.Stage.H2D)
	})
	row("forward", func(f TrainFigures) string { return ms(f.Stage.Forward) })
	row("backward", func(f TrainFigures) string { return ms(f.Stage.Backward) })
	row("optimizer", func(f TrainFigures) string { return ms(f.Stage.Optimizer) })
	tw.Flush()
	if len(figs) == 2 {
		if s := Speedup(figs[0], figs[1]); s > 0 {
			fmt.Fprintf(w, "speed-up: %s is %.2f× %s (tokens/s)\n", figs[1].Label, s, figs[0].Label)
		}
	}
	for _, f := range figs {
		clock := "host clock"
		if f.Stage.Device {
			clock = "device events"
		}
		fmt.Fprintf(w, "%s: %s; stage times from the %s", f.Label, f.Config, clock)
		if f.Device != "" {
			fmt.Fprintf(w, "; %s", f.Device)
		}
		fmt.Fprintln(w)
	}
}

// TrainBench is the result of `amt bench train`.
type TrainBench struct {
	Data    string         `json:"data"`
	Preset  string         `json:"preset"`
	Context int            `json:"context"`
	Steps   int            `json:"steps"`  // measured per configuration
	Warmup  int            `json:"warmup"` // steps run first and left out
	Rounds  int            `json:"rounds"` // A, B, A, B, …: the best round of each is reported
	Runs    []TrainFigures `json:"runs"`
	Speedup float64        `json:"speedup,omitempty"` // second over first
}

// Limits of `amt bench train`: the events of every measured step are kept
// to average, and each round trains every configuration again.
const (
	MaxBenchTrainSteps = 10_000 // --steps and --warmup
	MaxBenchRounds     = 100
)

// BenchTrain trains each configuration for warmup+steps steps on the same
// data, model and seed, and measures the steps after the warm-up; with
// rounds > 1 the configurations take turns that many times (so a busy
// machine's noise falls on both) and each one's best round is kept.
// context_ 0 is the preset's default (TrainSpec). Every number and every
// configuration is checked before the first run (usage errors).
func BenchTrain(ctx context.Context, data, preset string, context_, steps, warmup, rounds int, seed uint64, cfgs []TrainBenchConfig) (TrainBench, error) {
	if err := FirstError(IntIn("steps", steps, 1, MaxBenchTrainSteps), IntIn("warmup", warmup, 0, MaxBenchTrainSteps),
		IntIn("rounds", rounds, 1, MaxBenchRounds)); err != nil {
		return TrainBench{}, err
	}
	specs := make([]TrainSpec, len(cfgs))
	for i, c := range cfgs {
		specs[i] = benchSpec(data, preset, context_, steps, warmup, seed, c)
		if err := specs[i].Validate(); err != nil {
			return TrainBench{}, fmt.Errorf("bench train: configuration %d (%s): %w", i+1, c, err)
		}
	}
	if len(specs) > 0 {
		context_ = specs[0].Context
	}
	r := TrainBench{Data: data, Preset: preset, Context: context_, Steps: steps, Warmup: warmup, Rounds: rounds}
	r.Runs = make([]TrainFigures, len(cfgs))
	for round := 0; round < rounds; round++ {
		for i, c := range cfgs {
			f, err := benchTrainOnce(ctx, specs[i], warmup, c)
			if err != nil {
				return r, fmt.Errorf("bench train: configuration %d (%s): %w", i+1, c, err)
			}
			f.Label = string(rune('A' + i))
			best := &r.Runs[i]
			lo, hi := f.TokensPerSecond, f.TokensPerSecond
			if round > 0 {
				lo, hi = min(lo, best.Spread[0]), max(hi, best.Spread[1])
			}
			if round == 0 || f.TokensPerSecond > best.TokensPerSecond {
				*best = f
			}
			best.Spread = [2]float64{lo, hi}
		}
	}
	if len(r.Runs) == 2 {
		r.Speedup = Speedup(r.Runs[0], r.Runs[1])
	}
	return r, nil
}

// benchSpec is the training run that measures c: validation and the
// checkpoint only at the end.
func benchSpec(data, preset string, context_, steps, warmup int, seed uint64, c TrainBenchConfig) TrainSpec {
	spec := DefaultTrainSpec()
	spec.Data, spec.Preset, spec.Context, spec.Seed = data, preset, context_, seed
	spec.Steps, spec.ValEvery, spec.CheckpointEvery = warmup+steps, 0, 0
	spec.Batch, spec.Accum, spec.Prefetch, spec.LoaderWorkers = c.Batch, c.Accum, c.Prefetch, c.LoaderWorkers
	spec.Workers, spec.Device, spec.Precision = c.Threads, c.Device, c.Precision
	return spec.withDefaults()
}

func benchTrainOnce(ctx context.Context, spec TrainSpec, warmup int, c TrainBenchConfig) (TrainFigures, error) {
	if err := ctx.Err(); err != nil {
		return TrainFigures{}, err
	}
	out, err := os.MkdirTemp("", "amt-bench-train-")
	if err != nil {
		return TrainFigures{}, err
	}
	forget, err := atomicfile.Track(out) // removed also when a stop outlives its grace
	if err != nil {
		return TrainFigures{}, err
	}
	defer forget()
	spec.Out = out
	var events []train.Event
	device := ""
	_, err = TrainModel(ctx, spec, func(s TrainStart) { device = s.Device }, func(e train.Event) {
		if e.Step > warmup {
			events = append(events, e)
		}
	})
	os.RemoveAll(out)
	if err != nil {
		return TrainFigures{}, err
	}
	f := figuresOf(events, c.Batch*spec.Context*c.Accum)
	f.Config, f.Device = c.String(), device
	return f, nil
}
