package app

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/amtstudio/amt/engine/audio"
)

// WAVCheck is one file's levels (`amt wavcheck --json`).
type WAVCheck struct {
	File       string `json:"file"`
	SampleRate int    `json:"sample_rate"`
	Channels   int    `json:"channels"`
	audio.Levels
}

// CheckWAV reads a WAV file and measures its levels block by block, so
// memory stays constant however long the file (a header's claims are
// checked by audio.OpenWAV: a truncated data chunk or an absurd field is
// an error naming the file). It stops with ctx's error when ctx ends.
func CheckWAV(ctx context.Context, path string, o audio.LevelOptions) (*WAVCheck, error) {
	r, err := audio.OpenWAV(path)
	if err != nil {
		return nil, fmt.Errorf("wavcheck: %w", err)
	}
	defer r.Close()
	m := audio.NewLevelMeter(r.Channels, r.SampleRate, o)
	buf := make([]float32, 8192*r.Channels)
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("wavcheck %s: %w", path, err)
		}
		n, err := r.Read(buf)
		m.Add(buf[:n])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("wavcheck %s: %w", path, err)
		}
	}
	return &WAVCheck{File: path, SampleRate: r.SampleRate, Channels: r.Channels, Levels: m.Result()}, nil
}
