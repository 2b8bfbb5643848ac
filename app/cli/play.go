package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/audio"
)

func init() {
	c := &Command{
		Name:    "play",
		Usage:   "play FILE.mid [--soundfont PATH|--builtin] [--reverb]",
		Summary: "play a MIDI file through the sound card (Ctrl-C stops)",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		sf := addSynthFlags(fs)
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return fmt.Errorf("%w: need one MIDI file", ErrUsage)
		}
		if err := sf.check(); err != nil {
			return err
		}
		opts := app.RenderOptions{Input: pos[0], SoundFont: *sf.soundfont, Builtin: *sf.builtin, SampleRate: *sf.rate, Reverb: *sf.reverb}
		res, err := app.PlayFile(ctx, opts, func(p, d time.Duration) {
			fmt.Fprintf(env.Stderr, "\r▶ %s / %s", fmtDur(p.Seconds()), fmtDur(d.Seconds()))
		})
		fmt.Fprintln(env.Stderr)
		if res != nil && res.Warning != "" {
			fmt.Fprintf(env.Stderr, "warning: %s\n", Safe(res.Warning))
		}
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(env.Stdout, "stopped")
			return nil
		}
		if errors.Is(err, audio.ErrNoDevice) {
			return fmt.Errorf("%w (amt render %s -o out.wav)", err, pos[0])
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "played %s with %s\n", fmtDur(res.AudioSeconds), Safe(res.SoundFont))
		return nil
	}
	Register(c)
}
