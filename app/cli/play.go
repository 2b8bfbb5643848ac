package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/amtstudio/amt/app"
)

func init() {
	c := &Command{
		Name:    "play",
		Usage:   "play FILE.mid [--soundfont PATH|--builtin] [--reverb] [--loop FROM-TO] [--tempo F] [--mute N,..] [--solo N,..] [--volume N=V,..] [--program N=P,..]",
		Summary: "play a MIDI file through the sound card (Ctrl-C stops); loop bars, change tempo, mix tracks",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		sf := addSynthFlags(fs)
		loop := fs.String("loop", "", "play bars FROM-TO over and over (1-based, inclusive) until Ctrl-C")
		tempo := fs.Float64("tempo", 1, fmt.Sprintf("playback speed, %g–%g (1: as written)", app.MinPlayTempo, app.MaxPlayTempo))
		mf := addMixFlags(fs)
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
		sc, err := app.ReadMIDI(pos[0])
		if err != nil {
			return fmt.Errorf("play: %w", err)
		}
		sc, mix, err := mf.apply(sc)
		if err != nil {
			return err
		}
		o := app.PlayOptions{Render: app.RenderOptions{Input: pos[0], SoundFont: *sf.soundfont, Builtin: *sf.builtin, SampleRate: *sf.rate, Reverb: *sf.reverb},
			Mix: mix, Tempo: *tempo}
		if *loop != "" {
			if o.LoopFrom, o.LoopTo, err = app.ParseBarRange(*loop); err != nil {
				return fmt.Errorf("%w: --loop: %v", ErrUsage, err)
			}
		}
		var progress func(sec float64)
		tty := isTerminal(env.Stderr) // the playhead line is redrawn in place
		if tty {
			total := fmtDur(sc.Seconds())
			progress = func(sec float64) { fmt.Fprintf(env.Stderr, "\r▶ %s / %s", fmtDur(sec), total) }
		}
		res, err := app.PlayScore(ctx, sc, o, progress)
		if tty {
			fmt.Fprintln(env.Stderr)
		}
		if res != nil && res.Warning != "" {
			fmt.Fprintf(env.Stderr, "warning: %s\n", Safe(res.Warning))
		}
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(env.Stdout, "stopped")
			return nil
		}
		if errors.Is(err, app.ErrNoAudioDevice) {
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
