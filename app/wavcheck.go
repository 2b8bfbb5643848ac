package app

import (
	"fmt"

	"github.com/amtstudio/amt/engine/audio"
)

// WAVCheck is one file's levels (`amt wavcheck --json`).
type WAVCheck struct {
	File       string `json:"file"`
	SampleRate int    `json:"sample_rate"`
	Channels   int    `json:"channels"`
	audio.Levels
}

// CheckWAV reads a WAV file and measures its levels.
func CheckWAV(path string, o audio.LevelOptions) (*WAVCheck, error) {
	p, err := audio.ReadWAV(path)
	if err != nil {
		return nil, fmt.Errorf("wavcheck: %w", err)
	}
	return &WAVCheck{File: path, SampleRate: p.SampleRate, Channels: p.Channels,
		Levels: audio.MeasureLevels(p.Samples, p.Channels, p.SampleRate, o)}, nil
}
