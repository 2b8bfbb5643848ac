package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/amtstudio/amt/app"
)

func init() {
	c := &Command{
		Name:    "wavcheck",
		Usage:   "wavcheck FILE.wav... [--silence-db -60] [--min-silence 1] [--clip 0.999] [--json]",
		Summary: "check rendered audio: peak, RMS, clipped samples and silent stretches of WAV files",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		silence := fs.Float64("silence-db", -60, "a 50 ms window whose peak is below this level (dBFS) is silent")
		minSilence := fs.Float64("min-silence", 1, "report silent stretches at least this long (seconds)")
		clip := fs.Float64("clip", 0.999, "a sample at or above this magnitude (full scale 1) is clipped")
		jsonOut := fs.Bool("json", false, "print a JSON array")
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) == 0 {
			return fmt.Errorf("%w: need at least one WAV file", ErrUsage)
		}
		switch {
		case math.IsNaN(*silence) || *silence >= 0 || *silence < -200:
			return fmt.Errorf("%w: --silence-db %g: below 0 and at least -200", ErrUsage, *silence)
		case math.IsNaN(*minSilence) || *minSilence <= 0 || *minSilence > 3600:
			return fmt.Errorf("%w: --min-silence %g: above 0, at most 3600", ErrUsage, *minSilence)
		case math.IsNaN(*clip) || *clip <= 0 || *clip > 1:
			return fmt.Errorf("%w: --clip %g: above 0, at most 1", ErrUsage, *clip)
		}
		o := app.LevelOptions{ClipLevel: *clip, SilenceDB: *silence, MinSilence: *minSilence}
		var out []*app.WAVCheck
		for _, f := range pos {
			if err := ctx.Err(); err != nil {
				return err
			}
			r, err := app.CheckWAV(ctx, f, o)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		if *jsonOut {
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		}
		for _, r := range out {
			fmt.Fprintf(env.Stdout, "%s: %.1f s, peak %.3f (%.1f dBFS), rms %.4f (%.1f dBFS), %d clipped samples, %d silent stretches ≥ %g s (%.1f s)",
				r.File, r.Seconds, r.Peak, r.PeakDB, r.RMS, r.RMSDB, r.Clipped, len(r.Silences), *minSilence, r.SilentSeconds)
			for _, s := range r.Silences {
				fmt.Fprintf(env.Stdout, " [%.2f–%.2f]", s.Start, s.End)
			}
			fmt.Fprintln(env.Stdout)
		}
		return nil
	}
	Register(c)
}
