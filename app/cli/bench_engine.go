package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/amtstudio/amt/app"
)

// Limits of `amt bench engine`: time, not memory (a small-preset step is
// about a second on a CPU; every figure is measured --repeat times).
const (
	maxEngineRepeat = 100
	maxEngineSteps  = 1000
)

func init() {
	c := &Command{
		Name:    "engine",
		Usage:   "bench engine [--json] [--repeat N] [--steps N] [--device cpu|cuda|auto]",
		Summary: "engine matmul vs OpenBLAS, small-preset training tokens/s (8×256), 1,024-token generation",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		jsonOut := fs.Bool("json", false, "print JSON")
		repeat := fs.Int("repeat", 3, "measurements per figure (best and spread reported)")
		steps := fs.Int("steps", 3, "training steps per measurement")
		dev := fs.String("device", "cpu", deviceFlagHelp)
		if _, err := ParseInterleaved(fs, args); err != nil {
			return err
		}
		if err := app.FirstError(app.IntIn("repeat", *repeat, 1, maxEngineRepeat), app.IntIn("steps", *steps, 1, maxEngineSteps), app.CheckDevice(*dev)); err != nil {
			return err
		}
		r, err := app.BenchEngine(ctx, *repeat, *steps, *dev)
		if err != nil {
			return err
		}
		if *jsonOut {
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(r)
		}
		fmt.Fprintf(env.Stdout, "device: %s\n", r.Device)
		if r.OpenBLASGFLOPS > 0 {
			fmt.Fprintf(env.Stdout, "matmul %v: engine %.1f GFLOP/s, OpenBLAS threaded %.1f GFLOP/s (ratio %.2f)\n", r.MatmulShape, r.MatmulGFLOPS, r.OpenBLASGFLOPS, r.MatmulRatio)
		} else {
			fmt.Fprintf(env.Stdout, "matmul %v: %.1f GFLOP/s on the device\n", r.MatmulShape, r.MatmulGFLOPS)
		}
		fmt.Fprintf(env.Stdout, "train small 8×256: %.0f tokens/s (spread %.0f–%.0f), %.2f CPU-s per step\n", r.TrainTokensPerSecond, r.TrainSpread[0], r.TrainSpread[1], r.TrainCPUSecondsStep)
		if len(r.TrainStageMS) > 0 {
			fmt.Fprintf(env.Stdout, "  device ms per step: forward %.2f, backward %.2f, optimizer %.2f, host→device %.3f\n",
				r.TrainStageMS["forward"], r.TrainStageMS["backward"], r.TrainStageMS["optimizer"], r.TrainStageMS["h2d"])
		}
		fmt.Fprintf(env.Stdout, "generate 1024 tokens (window %d): %.3f s (spread %.3f–%.3f)\n", r.GenerateWindow, r.GenerateSeconds1024, r.GenerateSpread[0], r.GenerateSpread[1])
		if r.GenerateCompactSeconds1024 > 0 {
			fmt.Fprintf(env.Stdout, "  compact sampler: %.3f s (spread %.3f–%.3f), ratio %.2f\n", r.GenerateCompactSeconds1024, r.GenerateCompactSpread[0], r.GenerateCompactSpread[1],
				r.GenerateCompactSeconds1024/r.GenerateSeconds1024)
		}
		fmt.Fprintf(env.Stdout, "params %d, vocab %d, workers %d, OpenBLAS kernels %s, peak RSS %.0f MB, load average %s\n", r.Params, r.Vocab, r.Workers, r.BLASCore, r.PeakRSSMB, r.LoadAverage)
		return nil
	}
	RegisterBench(c)
}
