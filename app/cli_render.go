package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v3/process"

	"github.com/amtstudio/amt/engine/audio"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/synth"
)

// SettingSoundFont is the settings key of the SoundFont path (a JSON
// string); empty means discovery under /usr/share/sounds/sf2.
const SettingSoundFont = "audio.soundfont"

// RenderOptions configures RenderFile.
type RenderOptions struct {
	Input  string // a .mid file
	Output string // a .wav file; empty renders without writing
	// SoundFont is a .sf2 path (from settings or --soundfont); empty means
	// the first found in /usr/share/sounds/sf2, else the built-in synth.
	SoundFont  string
	Builtin    bool // use the built-in synthesizer
	SampleRate int  // 44100 (0) or 48000
	Bits       int  // 16 (0) or 24
	Reverb     bool // reverb and chorus sends
	// Progress, when set, is called about every second of audio rendered
	// with the seconds done and the total.
	Progress func(done, total float64)
}

// RenderResult is what `amt render --json` prints.
type RenderResult struct {
	Input      string `json:"input"`
	Output     string `json:"output,omitempty"`
	SoundFont  string `json:"soundfont"` // the synthesizer used: "NAME (SoundFont)" or "built-in"
	Warning    string `json:"warning,omitempty"`
	SampleRate int    `json:"sample_rate"`
	Notes      int    `json:"notes"`
	// AudioSeconds is the length rendered (release tails included).
	AudioSeconds float64 `json:"audio_seconds"`
	// CPUSeconds is the process's user+system CPU time spent rendering
	// (the synthesis runs on one goroutine), or the wall time where the
	// OS does not report it.
	CPUSeconds     float64 `json:"cpu_seconds"`
	RealtimeFactor float64 `json:"realtime_factor"` // audio_seconds / cpu_seconds
	Peak           float64 `json:"peak"`
	RMS            float64 `json:"rms"`
	// PCM is the rendered audio (not printed).
	PCM *synth.PCM `json:"-"`
}

// cpuSeconds returns the process's CPU time so far (user + system).
func cpuSeconds() (float64, bool) {
	p, err := process.NewProcess(int32(os.Getpid()))
	if err != nil {
		return 0, false
	}
	t, err := p.Times()
	if err != nil {
		return 0, false
	}
	return t.User + t.System, true
}

// RenderFile renders a MIDI file to audio, and writes a WAV when Output is
// set. A SoundFont that cannot be read is reported in Warning and the
// built-in synthesizer is used instead.
func RenderFile(ctx context.Context, opts RenderOptions) (*RenderResult, error) {
	s, err := midi.ReadFile(opts.Input)
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	return RenderScore(ctx, s, opts)
}

// RenderScore is RenderFile for a Score already in memory (opts.Input only
// names it).
func RenderScore(ctx context.Context, s *midi.Score, opts RenderOptions) (*RenderResult, error) {
	bits := opts.Bits
	if bits == 0 {
		bits = 16
	}
	if bits != 16 && bits != 24 {
		return nil, fmt.Errorf("%w: --bits %d (16 or 24)", ErrUsage, bits)
	}
	if opts.SampleRate != 0 && opts.SampleRate != 44100 && opts.SampleRate != 48000 {
		return nil, fmt.Errorf("%w: --rate %d (44100 or 48000)", ErrUsage, opts.SampleRate)
	}
	r, warn := synth.New(opts.SoundFont, opts.Builtin, synth.Options{SampleRate: opts.SampleRate, Reverb: opts.Reverb, Chorus: opts.Reverb})
	res := &RenderResult{Input: opts.Input, Output: opts.Output, SoundFont: r.Name(), SampleRate: r.SampleRate(), Notes: s.NoteCount()}
	if warn != nil {
		res.Warning = warn.Error()
	}
	var progress func(done, total int64)
	if opts.Progress != nil {
		rate := float64(r.SampleRate())
		progress = func(done, total int64) { opts.Progress(float64(done)/rate, float64(total)/rate) }
	}
	cpu0, okCPU := cpuSeconds()
	t0 := time.Now()
	pcm, err := synth.RenderStream(ctx, r.Stream(s), progress)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", opts.Input, err)
	}
	res.CPUSeconds = time.Since(t0).Seconds()
	if cpu1, ok := cpuSeconds(); ok && okCPU && cpu1 > cpu0 {
		res.CPUSeconds = cpu1 - cpu0
	}
	res.PCM = pcm
	res.AudioSeconds = pcm.Seconds()
	if res.CPUSeconds > 0 {
		res.RealtimeFactor = res.AudioSeconds / res.CPUSeconds
	}
	res.Peak, res.RMS = pcm.Peak(), pcm.RMS()
	if opts.Output != "" {
		if err := audio.WriteWAV(opts.Output, pcm, bits); err != nil {
			return nil, fmt.Errorf("render: %w", err)
		}
	}
	return res, nil
}

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
		soundfont: fs.String("soundfont", "", "SoundFont .sf2 to play with (default: the first in "+synth.SystemSoundFontDir+", else the built-in synthesizer)"),
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

func fmtDur(sec float64) string {
	sec = max(sec, 0)
	return fmt.Sprintf("%d:%02d", int(sec)/60, int(sec)%60)
}

func init() {
	c := &Command{
		Name:    "render",
		Usage:   "render FILE.mid -o OUT.wav [--soundfont PATH|--builtin] [--rate 44100|48000] [--bits 16|24] [--reverb] [--json]",
		Summary: "render a MIDI file to a WAV file with a SoundFont or the built-in synthesizer",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		out := fs.String("o", "", "output WAV file (required)")
		bits := fs.Int("bits", 16, "WAV bit depth: 16 or 24")
		asJSON := fs.Bool("json", false, "print the result as JSON")
		sf := addSynthFlags(fs)
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
		if !strings.EqualFold(filepath.Ext(*out), ".wav") {
			return fmt.Errorf("%w: -o %s: the output must be a .wav file", ErrUsage, *out)
		}
		if err := sf.check(); err != nil {
			return err
		}
		opts := RenderOptions{Input: pos[0], Output: *out, SoundFont: *sf.soundfont, Builtin: *sf.builtin,
			SampleRate: *sf.rate, Bits: *bits, Reverb: *sf.reverb}
		if !*asJSON {
			last := time.Time{}
			opts.Progress = func(done, total float64) {
				if time.Since(last) > 200*time.Millisecond {
					last = time.Now()
					fmt.Fprintf(env.Stderr, "\rrendering %s / %s", fmtDur(done), fmtDur(total))
				}
			}
		}
		res, err := RenderFile(ctx, opts)
		if !*asJSON {
			fmt.Fprint(env.Stderr, "\r\033[K")
		}
		if err != nil {
			return err
		}
		if res.Warning != "" {
			fmt.Fprintf(env.Stderr, "warning: %s\n", res.Warning)
		}
		if *asJSON {
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(res)
		}
		fmt.Fprintf(env.Stdout, "%s: %s of audio with %s in %.2f s CPU (%.0f× real time), peak %.3f, rms %.4f\n",
			res.Output, fmtDur(res.AudioSeconds), res.SoundFont, res.CPUSeconds, res.RealtimeFactor, res.Peak, res.RMS)
		return nil
	}
	Register(c)
}
