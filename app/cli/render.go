package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/amtstudio/amt/app"
)

// synthFlags adds the synthesizer choice shared by render and play.
type synthFlags struct {
	soundfont *string
	builtin   *bool
	rate      *int
	reverb    *bool
}

func addSynthFlags(fs interface {
	String(name, value, usage string) *string
	Bool(name string, value bool, usage string) *bool
	Int(name string, value int, usage string) *int
}) synthFlags {
	return synthFlags{
		soundfont: fs.String("soundfont", "", "SoundFont .sf2 to play with (default: the first in "+app.SoundFontDir+", else the built-in synthesizer)"),
		builtin:   fs.Bool("builtin", false, "use the built-in synthesizer even when a SoundFont is installed"),
		rate:      fs.Int("rate", 44100, "sample rate: 44100 or 48000"),
		reverb:    fs.Bool("reverb", false, "add reverb and chorus"),
	}
}

func (f synthFlags) check() error {
	if *f.builtin && *f.soundfont != "" {
		return fmt.Errorf("%w: --soundfont and --builtin exclude each other", ErrUsage)
	}
	return nil
}

func init() {
	c := &Command{
		Name:    "render",
		Usage:   "render FILE.mid -o OUT.wav [--soundfont PATH|--builtin] [--rate 44100|48000] [--bits 16|24] [--reverb] [--mute N,..] [--solo N,..] [--volume N=V,..] [--program N=P,..] [--stems] [--json]",
		Summary: "render a MIDI file to a WAV file with a SoundFont or the built-in synthesizer",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		out := fs.String("o", "", "output WAV file (required)")
		bits := fs.Int("bits", 16, "WAV bit depth: 16 or 24")
		asJSON := fs.Bool("json", false, "print the result as JSON")
		sf := addSynthFlags(fs)
		mf := addMixFlags(fs)
		stems := fs.Bool("stems", false, "also write each audible track alone beside OUT.wav (OUT-NN-INSTRUMENT.mid and .wav)")
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return fmt.Errorf("%w: need one MIDI file", ErrUsage)
		}
		if *out == "" {
			return fmt.Errorf("%w: -o OUT.wav is required", ErrUsage)
		}
		if env, err = checkOutputs(env, *out); err != nil { // output.go
			return err
		}
		if err := checkWAVName("-o", *out); err != nil {
			return err
		}
		if err := app.CheckApart([]app.FileArg{{Name: "the input", Path: pos[0]}, {Name: "--soundfont", Path: *sf.soundfont}},
			[]app.FileArg{{Name: "-o", Path: *out}}); err != nil { // app/output.go
			return err
		}
		if *stems && app.OutputIsStream(*out) {
			return fmt.Errorf("%w: --stems -o %s: stems are written beside a WAV file, and a stream has no folder", ErrUsage, *out)
		}
		if err := sf.check(); err != nil {
			return err
		}
		opts := app.RenderOptions{Input: pos[0], Output: *out, SoundFont: *sf.soundfont, Builtin: *sf.builtin,
			SampleRate: *sf.rate, Bits: *bits, Reverb: *sf.reverb}
		// The progress line is redrawn with carriage returns: only on a
		// terminal (a log file or a pipe gets the result line alone).
		tty := !*asJSON && isTerminal(env.Stderr)
		if tty {
			last := time.Time{}
			opts.Progress = func(done, total float64) {
				if time.Since(last) > 200*time.Millisecond {
					last = time.Now()
					fmt.Fprintf(env.Stderr, "\rrendering %s / %s", fmtDur(done), fmtDur(total))
				}
			}
		}
		res, files, err := renderMixed(ctx, opts, mf, *stems)
		if tty {
			fmt.Fprint(env.Stderr, "\r\033[K")
		}
		if err != nil {
			return err
		}
		if res.Warning != "" {
			fmt.Fprintf(env.Stderr, "warning: %s\n", Safe(res.Warning))
		}
		if *asJSON {
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(res)
		}
		fmt.Fprintf(env.Stdout, "%s: %s of audio with %s in %.2f s CPU (%.0f× real time), peak %.3f, rms %.4f\n",
			Safe(res.Output), fmtDur(res.AudioSeconds), Safe(res.SoundFont), res.CPUSeconds, res.RealtimeFactor, res.Peak, res.RMS)
		for _, f := range files {
			fmt.Fprintf(env.Stdout, "stem %s\n", Safe(f))
		}
		return nil
	}
	Register(c)
}

// renderMixed is RenderFile with the track flags (--program, --mute,
// --solo, --volume) applied and, with stems, each audible track written
// alone beside the output (ExportStems: the window's Export stems).
func renderMixed(ctx context.Context, opts app.RenderOptions, mf mixFlags, stems bool) (*app.RenderResult, []string, error) {
	if !mf.set() && !stems {
		res, err := app.RenderFile(ctx, opts)
		return res, nil, err
	}
	sc, err := app.ReadMIDI(opts.Input)
	if err != nil {
		return nil, nil, fmt.Errorf("render: %w", err)
	}
	sc, mix, err := mf.apply(sc)
	if err != nil {
		return nil, nil, err
	}
	mixed, err := app.MixScore(sc, mix)
	if err != nil {
		return nil, nil, fmt.Errorf("render %s: %w", opts.Input, err)
	}
	dir, base := filepath.Dir(opts.Output), strings.TrimSuffix(filepath.Base(opts.Output), filepath.Ext(opts.Output))
	if stems {
		// Before the first WAV: no stem may replace the input (a stem
		// rendered again with --stems names its own stems like itself).
		paths, err := app.StemPaths(sc, mix, dir, base, true)
		if err != nil {
			return nil, nil, err
		}
		outs := []app.FileArg{{Name: "-o", Path: opts.Output}}
		for _, p := range paths {
			outs = append(outs, app.FileArg{Name: "stem", Path: p})
		}
		if err := app.CheckApart([]app.FileArg{{Name: "the input", Path: opts.Input}, {Name: "--soundfont", Path: opts.SoundFont}}, outs); err != nil {
			return nil, nil, err
		}
	}
	res, err := app.RenderScore(ctx, mixed, opts)
	if err != nil || !stems {
		return res, nil, err
	}
	ro := opts
	ro.Progress = nil
	files, err := app.ExportStems(ctx, sc, dir, base, app.StemOptions{Mix: mix, WAV: true, Render: ro})
	return res, files, err
}

// checkWAVName refuses a WAV output whose name does not end in .wav (a
// stream has no name to end so): `--wav song.mid` would leave a WAV named
// as a MIDI file, or replace one.
func checkWAVName(flag, path string) error {
	if path == "" || strings.EqualFold(filepath.Ext(path), ".wav") || app.OutputIsStream(path) {
		return nil
	}
	return fmt.Errorf("%w: %s %s: the output must be a .wav file (or -, a pipe, a device)", ErrUsage, flag, path)
}

// fmtDur formats seconds as m:ss, or h:mm:ss from an hour.
func fmtDur(sec float64) string {
	s := int(max(sec, 0))
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
