package app

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/audio"
	"github.com/amtstudio/amt/engine/eval"
	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/monitor"
	"github.com/amtstudio/amt/engine/pipeline"
	"github.com/amtstudio/amt/engine/synth"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/storage"
)

// The types and values the front ends name. The window (ui/) imports app
// and, for the scores and attributes it draws, engine/midi and
// engine/token: nothing else of engine/ and not storage
// (ui/layers_test.go checks it). What it needs of the layers below is
// named here, as aliases, so a value passes through unchanged and the
// window and the command line work on the same types.
type (
	// Metrics are a piece's musical measurements (engine/eval).
	Metrics = eval.Metrics
	// Adherence scores a piece against the attributes requested.
	Adherence = eval.Adherence
	// IngestEvent is one progress event of an ingestion
	// (IngestOptions.Progress).
	IngestEvent = pipeline.Event
	// StageStat is one pipeline stage's busy and wait time in a stored run.
	StageStat = storage.StageStat
	// TrainRun is a stored training run.
	TrainRun = storage.TrainRun
	// StageSeconds is the time of a training step (or run) per stage.
	StageSeconds = train.StageSeconds
	// ResourceSampler samples CPU, RAM, disk and GPU use at an interval
	// (StartResourceSampler); ResourceSample is one sample.
	ResourceSampler = monitor.Sampler
	ResourceSample  = monitor.Sample
)

// Item and run states as the store records them.
const (
	ItemFailed = storage.ItemFailed
	RunDone    = storage.RunDone
)

// ErrStoreInUse is returned (wrapped) by OpenStudio when another process
// holds the data directory.
var ErrStoreInUse = storage.ErrInUse

// ModelPresets are the model sizes a training run can start from (the
// names `amt train --preset` takes).
func ModelPresets() []string { return gpt.PresetNames() }

// HasModelWeights reports whether dir holds a model's weights (a training
// run that has written its first model).
func HasModelWeights(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, gpt.WeightsFile))
	return err == nil
}

// SoundFontDir is where installed SoundFonts are discovered.
const SoundFontDir = synth.SystemSoundFontDir

// FindSoundFonts lists the SoundFonts in SoundFontDir (what a render with
// no SoundFont chosen picks from, first first).
func FindSoundFonts() []string { return synth.FindSoundFonts(SoundFontDir) }

// AudioAvailable returns nil when a sound device can play, else why not
// (wrapping audio.ErrNoDevice).
func AudioAvailable() error { return audio.Available() }

// StartResourceSampler samples the machine's resources every interval
// until ctx is done or Stop is called; the samples arrive on Samples().
func StartResourceSampler(ctx context.Context, every time.Duration) (*ResourceSampler, error) {
	return monitor.Start(ctx, monitor.Options{Interval: every})
}

// WriteFileAtomic writes path through fill: a temporary file beside it,
// synced, then renamed over path, so a reader sees the old file or the
// whole new one. A path the user named goes through WriteOutput instead
// (output.go), which also handles symlinks, streams and folders.
func WriteFileAtomic(path string, fill func(f *os.File) error) error {
	return atomicfile.Write(path, fill)
}

// OpenMIDI reads a MIDI file as ingestion and `amt inspect` see it:
// re-barred when its declared meter gives way to the one its notes show
// (midi.Prepare), with its metadata.
func OpenMIDI(path string) (*midi.Score, midi.Metadata, error) {
	s, err := readMIDI(Stopping(), path)
	if err != nil {
		return nil, midi.Metadata{}, err
	}
	return s, midi.Prepare(s), nil
}

// ReadMIDI reads a MIDI file as it is, with the bar lines it declares:
// what Continue and Regenerate work on (`amt generate --continue FILE`
// reads it so too). path may be "-" (standard input) or a stream
// (app/input.go); the read stops when Stopping's context ends.
func ReadMIDI(path string) (*midi.Score, error) { return readMIDI(Stopping(), path) }

// WriteMIDI writes sc to path as a Standard MIDI File through WriteOutput:
// atomically to a file, or as a stream ("-", a pipe, a device).
func WriteMIDI(path string, sc *midi.Score) error {
	return WriteOutput(Stopping(), path, sc.Write)
}
