package app

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/userfile"
)

// Inputs: every file a user names for reading goes through this file (or
// an engine reader built on engine/userfile), whether the window or the
// command line asks:
//
//   - Files named directly (amt inspect, tokenize, render, play, eval,
//     roll, generate --continue, a suite, --attrs @FILE) may be regular
//     files or streams: "-" is standard input, a named pipe or /dev/stdin
//     is read to its end (`amt generate … -o - | amt render - -o
//     out.wav`). The open never waits (a FIFO with no writer reads as
//     empty), every read is bounded (MIDI: midi.MaxFileSize; text:
//     MaxTextInput) and stops when the work is stopped (Stopping).
//     Folders and block devices are refused.
//   - Files found in folders (ingestion, amt eval DIR, train --data,
//     --reference) are taken only when regular files or symlinks to
//     regular files; anything else is listed as skipped with its kind
//     (engine/pipeline, engine/corpus, engine/train).
//   - Files that must seek or be mapped (WAVs to check, SoundFonts,
//     model weights, vocabularies, shards) must be regular files.

// MaxTextInput bounds a text file a user names (a prompt suite, --attrs
// @FILE, a saved suite report).
const MaxTextInput = 64 << 20

// readMIDI reads the MIDI file a user named: "-" is standard input.
func readMIDI(ctx context.Context, path string) (*midi.Score, error) {
	if path != StdoutPath {
		return midi.ReadFileContext(ctx, path)
	}
	data, err := userfile.ReadAll(ctx, os.Stdin, "standard input", midi.MaxFileSize)
	if errors.Is(err, userfile.ErrTooLarge) {
		return nil, &midi.Error{File: "standard input", Track: -1, Offset: -1, Err: fmt.Errorf("%w: more than the %d MB a MIDI file may have", midi.ErrUnsupported, midi.MaxFileSize>>20)}
	}
	if err != nil {
		return nil, fmt.Errorf("midi: %w", err)
	}
	return midi.Parse("standard input", data)
}

// ReadInput reads a text file a user named ("-": standard input), at most
// MaxTextInput bytes, until Stopping's context ends.
func ReadInput(path string) ([]byte, error) {
	if path == StdoutPath {
		return userfile.ReadAll(Stopping(), os.Stdin, "standard input", MaxTextInput)
	}
	return userfile.ReadFile(Stopping(), path, MaxTextInput)
}
