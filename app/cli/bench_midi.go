package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/amtstudio/amt/app"
)

func init() {
	c := &Command{
		Name:    "midi",
		Usage:   "bench midi --corpus DIR [--json] [--min-seconds S]",
		Summary: "MIDI parse and tokenize rates on one core against gomidi, and round-trip note match",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		dir := fs.String("corpus", "", "folder of MIDI files (searched recursively)")
		fs.Bool("json", true, "print one JSON object (the only output form)")
		minSec := fs.Float64("min-seconds", 1, "least time of each timed pass")
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if *dir == "" && len(pos) == 1 {
			*dir = pos[0]
		} else if len(pos) > 0 {
			return fmt.Errorf("%w: unexpected arguments %v", ErrUsage, pos)
		}
		if *dir == "" {
			return fmt.Errorf("%w: --corpus DIR is required", ErrUsage)
		}
		if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
			return fmt.Errorf("bench midi: corpus %s is not a folder", *dir)
		}
		r, err := app.BenchMIDI(ctx, app.BenchMIDIOptions{Corpus: *dir, MinSeconds: *minSec})
		if err != nil {
			return err
		}
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	RegisterBench(c)
}
