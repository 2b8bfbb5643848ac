package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/amtstudio/amt/app"
)

func init() {
	c := &Command{
		Name:    "snapshot",
		Usage:   "snapshot --screen compose|datasets|training|settings -o FILE.png [--width W --height H] [--home DIR]",
		Summary: "render a screen with the headless driver and save it as PNG",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		screen := fs.String("screen", "compose", "screen to render")
		out := fs.String("o", "", "output PNG file")
		w := fs.Int("width", 1100, "width in pixels")
		h := fs.Int("height", 720, "height in pixels")
		home := fs.String("home", "", "render this data directory's state (default: build a demo state in a temp folder)")
		if _, err := ParseInterleaved(fs, args); err != nil {
			return err
		}
		if *out == "" {
			return fmt.Errorf("%w: -o FILE.png is required", ErrUsage)
		}
		if _, err := checkOutputs(env, *out); err != nil { // output.go
			return err
		}
		// A window larger than 8K would ask the headless driver for
		// gigabytes (100,000 × 100,000 died out of memory).
		if err := app.FirstError(app.IntIn("width", *w, 1, 8192), app.IntIn("height", *h, 1, 8192)); err != nil {
			return err
		}
		if env.Snapshot == nil {
			return errors.New("this program was built without the window")
		}
		return env.Snapshot(*screen, *home, *w, *h, *out)
	}
	Register(c)
}
