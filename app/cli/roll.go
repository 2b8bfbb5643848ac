package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/amtstudio/amt/app"
)

func init() {
	c := &Command{
		Name:    "roll",
		Usage:   "roll FILE.mid... -o OUT.png [--bars 16] [--cols N] [--px-per-beat 12] [--height 150]",
		Summary: "draw piano rolls of MIDI files side by side as a PNG (colour per instrument family, drums in a lane, bar lines)",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		out := fs.String("o", "", "output PNG file (required)")
		bars := fs.Int("bars", 16, "bars drawn from the start of each file")
		cols := fs.Int("cols", 1, "panels a row")
		px := fs.Int("px-per-beat", 12, "pixels per quarter note")
		height := fs.Int("height", 150, "height of the pitched area in pixels")
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) == 0 {
			return fmt.Errorf("%w: need at least one MIDI file", ErrUsage)
		}
		if *out == "" {
			return fmt.Errorf("%w: -o OUT.png is required", ErrUsage)
		}
		if env, err = checkOutputs(env, *out); err != nil { // output.go
			return err
		}
		if !strings.EqualFold(filepath.Ext(*out), ".png") && !app.OutputIsStream(*out) {
			return fmt.Errorf("%w: -o %s: the output must be a .png file (or -, a pipe, a device)", ErrUsage, *out)
		}
		switch {
		case *bars < 1 || *bars > app.MaxRollBars:
			return fmt.Errorf("%w: --bars %d: 1 to %d", ErrUsage, *bars, app.MaxRollBars)
		case *cols < 1 || *cols > 16:
			return fmt.Errorf("%w: --cols %d: 1 to 16", ErrUsage, *cols)
		case *px < 1 || *px > 96:
			return fmt.Errorf("%w: --px-per-beat %d: 1 to 96", ErrUsage, *px)
		case *height < 24 || *height > 2000:
			return fmt.Errorf("%w: --height %d: 24 to 2000", ErrUsage, *height)
		case len(pos) > 256:
			return fmt.Errorf("%w: %d files: at most 256", ErrUsage, len(pos))
		}
		if err := app.RollFiles(ctx, *out, pos, app.RollOptions{Bars: *bars, Cols: *cols, PxPerBeat: *px, Height: *height}); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "wrote %s: %d piano rolls\n", *out, len(pos))
		return nil
	}
	Register(c)
}
