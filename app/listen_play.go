package app

import (
	"context"
	"fmt"
	"time"

	"github.com/amtstudio/amt/engine/audio"
)

// PlayFile plays a MIDI file, rendering it block by block as it plays
// (memory constant however long the piece), to the end or until ctx is
// cancelled. It reads the file first (a bad file is the first thing to
// report), then checks for a sound device, so a machine without one gets
// audio.ErrNoDevice at once. progress (if not nil) is called about every
// 100 ms with the playhead.
func PlayFile(ctx context.Context, opts RenderOptions, progress func(pos, dur time.Duration)) (*RenderResult, error) {
	s, err := readMIDI(ctx, opts.Input)
	if err != nil {
		return nil, fmt.Errorf("play: %w", err)
	}
	if err := audio.Available(); err != nil {
		return nil, fmt.Errorf("play %s: %w", opts.Input, err)
	}
	opts.Output = ""
	st, res, err := StreamScore(s, opts)
	if err != nil {
		return nil, err
	}
	p, err := audio.NewStreamPlayer(st)
	if err != nil {
		return res, fmt.Errorf("play %s: %w", opts.Input, err)
	}
	defer p.Close()
	p.Play()
	if !p.Wait(ctx, progress) {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("play %s: stopped: %w", opts.Input, err)
		}
		if err := p.Err(); err != nil {
			return res, fmt.Errorf("play %s: %w", opts.Input, err)
		}
	}
	return res, nil
}
