package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
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
	Input string // a .mid file ("-": standard input)
	// Output is the WAV written through WriteOutput (a .wav file, "-" or
	// another stream); empty renders without writing.
	Output string
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

// ErrNoNotes is returned (wrapped) for a piece with nothing to render.
var ErrNoNotes = errors.New("no notes to render")

// MaxInMemorySeconds bounds RenderScore without an Output: the PCM is kept
// in memory (8 bytes a frame, 15 min ≈ 318 MB at 44.1 kHz). Longer pieces
// are written to a WAV (streamed, constant memory) or played as a stream
// (StreamScore).
const MaxInMemorySeconds = 15 * 60

// RenderFile renders a MIDI file to audio, and writes a WAV when Output is
// set. A SoundFont that was asked for and cannot be read is an error.
func RenderFile(ctx context.Context, opts RenderOptions) (*RenderResult, error) {
	if opts.Output != "" {
		if err := CheckOutput(opts.Output); err != nil { // before reading: a folder fails at once
			return nil, fmt.Errorf("render: %w", err)
		}
	}
	s, err := readMIDI(ctx, opts.Input)
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	return RenderScore(ctx, s, opts)
}

// StreamScore prepares s for block-by-block rendering (playback with
// audio.NewStreamPlayer) with the synthesizer RenderScore would use. The
// result names the synthesizer, any warning, the notes and the length. A
// piece whose last note ends after synth.MaxSeconds is refused first
// (synth.ErrTooLong), before any work.
func StreamScore(s *midi.Score, opts RenderOptions) (*synth.Stream, *RenderResult, error) {
	if opts.SampleRate != 0 && opts.SampleRate != 44100 && opts.SampleRate != 48000 {
		return nil, nil, fmt.Errorf("%w: --rate %d (44100 or 48000)", ErrUsage, opts.SampleRate)
	}
	if s.NoteCount() == 0 {
		return nil, nil, fmt.Errorf("render %s: %w (the piece holds only meta events)", opts.Input, ErrNoNotes)
	}
	// The render's one bound on length (synth.MaxSeconds), before the
	// SoundFont is read: a note past it was once dropped without a word.
	if err := synth.CheckScore(s); err != nil {
		return nil, nil, fmt.Errorf("render %s: %w", opts.Input, err)
	}
	r, warn, err := synth.New(opts.SoundFont, opts.Builtin, synth.Options{SampleRate: opts.SampleRate, Reverb: opts.Reverb, Chorus: opts.Reverb,
		Context: Stopping()}) // a stop ends the read of a large SoundFont
	if err != nil {
		return nil, nil, fmt.Errorf("render %s: %w", opts.Input, err)
	}
	res := &RenderResult{Input: opts.Input, Output: opts.Output, SoundFont: r.Name(), SampleRate: r.SampleRate(), Notes: s.NoteCount()}
	if warn != nil {
		res.Warning = warn.Error()
	}
	st := r.Stream(s)
	res.AudioSeconds = float64(st.Length()) / float64(r.SampleRate())
	return st, res, nil
}

// RenderScore is RenderFile for a Score already in memory (opts.Input only
// names it). With Output set the audio streams to the WAV in blocks
// (memory constant however long the piece; the WAV format's 4 GiB is
// checked before rendering); without, the PCM is returned in memory, up
// to MaxInMemorySeconds.
func RenderScore(ctx context.Context, s *midi.Score, opts RenderOptions) (*RenderResult, error) {
	bits := opts.Bits
	if bits == 0 {
		bits = 16
	}
	if bits != 16 && bits != 24 {
		return nil, fmt.Errorf("%w: --bits %d (16 or 24)", ErrUsage, bits)
	}
	if opts.Output != "" {
		if err := CheckOutput(opts.Output); err != nil {
			return nil, fmt.Errorf("render %s: %w", opts.Input, err)
		}
	}
	st, res, err := StreamScore(s, opts)
	if err != nil {
		return nil, err
	}
	rate := float64(res.SampleRate)
	most := st.MaxFrames()
	if opts.Output != "" {
		if need := audio.WAVBytes(most, 2, bits); need > audio.MaxWAVData {
			fit := float64(audio.MaxWAVData) / float64(audio.WAVBytes(1, 2, bits)) / rate
			return nil, fmt.Errorf("render %s: %s of audio needs %.1f GB as a %d-bit WAV: %w (a WAV holds at most 4 GiB, %s at %d Hz)",
				opts.Input, fmtDur(float64(most)/rate), float64(need)/1e9, bits, audio.ErrTooLong, fmtDur(fit), res.SampleRate)
		}
	} else if float64(most) > MaxInMemorySeconds*rate {
		return nil, fmt.Errorf("render %s: %s of audio is more than the %s rendered in memory; write a WAV instead (-o OUT.wav)",
			opts.Input, fmtDur(float64(most)/rate), fmtDur(MaxInMemorySeconds))
	}
	var progress func(done, total int64)
	if opts.Progress != nil {
		progress = func(done, total int64) { opts.Progress(float64(done)/rate, float64(total)/rate) }
	}
	var stats pcmStats
	cpu0, okCPU := cpuSeconds()
	t0 := time.Now()
	if opts.Output != "" {
		// A file: the header's sizes are patched at the end. A stream
		// cannot seek back: its header announces the most frames the
		// piece can have, and silence fills what the release tails
		// did not use.
		err = WriteOutput(ctx, opts.Output, func(out io.Writer) error {
			var w *audio.WAVWriter
			var err error
			if f, ok := out.(*os.File); ok {
				w, err = audio.NewWAVWriter(f, res.SampleRate, 2, bits)
			} else {
				w, err = audio.NewWAVStreamWriter(out, res.SampleRate, 2, bits, most)
			}
			if err != nil {
				return err
			}
			if _, err := synth.RenderTo(ctx, st, func(b []float32) error {
				stats.add(b)
				return w.Write(b)
			}, progress); err != nil {
				return err
			}
			return w.Close()
		})
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", opts.Input, err)
		}
	} else {
		pcm, err := synth.RenderStream(ctx, st, progress)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", opts.Input, err)
		}
		stats.add(pcm.Samples)
		res.PCM = pcm
	}
	res.CPUSeconds = time.Since(t0).Seconds()
	if cpu1, ok := cpuSeconds(); ok && okCPU && cpu1 > cpu0 {
		res.CPUSeconds = cpu1 - cpu0
	}
	res.AudioSeconds = float64(stats.n/2) / rate
	if res.CPUSeconds > 0 {
		res.RealtimeFactor = res.AudioSeconds / res.CPUSeconds
	}
	res.Peak, res.RMS = stats.peak, 0
	if stats.n > 0 {
		res.RMS = math.Sqrt(stats.sq / float64(stats.n))
	}
	return res, nil
}

// pcmStats accumulates the peak and the sum of squares of samples seen in
// blocks (as synth.PCM's Peak and RMS compute them whole).
type pcmStats struct {
	peak float64
	sq   float64
	n    int64
}

func (p *pcmStats) add(b []float32) {
	for _, v := range b {
		x := math.Abs(float64(v))
		p.peak = max(p.peak, x)
		p.sq += x * x
	}
	p.n += int64(len(b))
}

// fmtDur formats seconds as m:ss, or h:mm:ss from an hour.
func fmtDur(sec float64) string {
	s := int(max(sec, 0))
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
