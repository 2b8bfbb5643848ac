package app

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/amtstudio/amt/engine/synth"
)

// BenchSynthResult is what `amt bench synth` prints: real-time factors
// (audio seconds per CPU second of the process, user + system) on ONE core
// (GOMAXPROCS 1), so other work on a shared machine does not skew them.
type BenchSynthResult struct {
	File             string  `json:"file"`
	SoundFont        string  `json:"soundfont"`
	AudioSeconds     float64 `json:"audio_seconds"`
	Passes           int     `json:"passes"`
	SoundFontRTF     float64 `json:"soundfont_realtime_factor"`
	SoundFontFxRTF   float64 `json:"soundfont_reverb_chorus_realtime_factor"`
	BuiltinRTF       float64 `json:"builtin_realtime_factor"`
	SoundFontVsFloor float64 `json:"soundfont_vs_floor"` // realtime factor / 100 (the floor)
	// The built-in synthesizer on the same file in the same run is the
	// baseline the SoundFont figure is quoted against.
	SoundFontVsBuiltin float64 `json:"soundfont_vs_builtin"`
	GoVersion          string  `json:"go_version"`
}

// BenchSynth times rendering of one MIDI file on one core with the
// SoundFont (and with reverb and chorus) and with the built-in synthesizer,
// each for at least minSec seconds.
func BenchSynth(ctx context.Context, file, soundFont string, minSec float64) (*BenchSynthResult, error) {
	s, err := readMIDI(ctx, file)
	if err != nil {
		return nil, fmt.Errorf("bench synth: %w", err)
	}
	if soundFont == "" {
		if fonts := synth.FindSoundFonts(synth.SystemSoundFontDir); len(fonts) > 0 {
			soundFont = fonts[0]
		}
	}
	sf, err := synth.LoadSoundFontCached(soundFont)
	if err != nil {
		return nil, fmt.Errorf("bench synth: %w", err)
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	res := &BenchSynthResult{File: file, SoundFont: soundFont, GoVersion: runtime.Version()}
	time1 := func(r synth.Renderer) (float64, error) {
		var audio, busy float64
		passes := 0
		for busy < minSec || passes == 0 {
			t0 := time.Now()
			c0, okCPU := cpuSeconds()
			p, err := r.Render(ctx, s)
			if err != nil {
				return 0, fmt.Errorf("bench synth: %w", err)
			}
			c1, ok := cpuSeconds()
			if ok && okCPU && c1 > c0 {
				busy += c1 - c0 // CPU time: other processes on a shared machine do not count
			} else {
				busy += time.Since(t0).Seconds()
			}
			audio += p.Seconds()
			res.AudioSeconds = p.Seconds()
			passes++
		}
		res.Passes = max(res.Passes, passes)
		return audio / busy, nil
	}
	if res.SoundFontRTF, err = time1(synth.NewSoundFontRenderer(sf, synth.Options{})); err != nil {
		return nil, err
	}
	if res.SoundFontFxRTF, err = time1(synth.NewSoundFontRenderer(sf, synth.Options{Reverb: true, Chorus: true})); err != nil {
		return nil, err
	}
	if res.BuiltinRTF, err = time1(synth.NewBuiltinRenderer(synth.Options{})); err != nil {
		return nil, err
	}
	res.SoundFontVsFloor = res.SoundFontRTF / 100
	res.SoundFontVsBuiltin = res.SoundFontRTF / res.BuiltinRTF
	return res, nil
}
