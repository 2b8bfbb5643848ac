package app

import (
	"github.com/amtstudio/amt/engine/audio"
	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/eval"
	"github.com/amtstudio/amt/engine/pipeline"
	"github.com/amtstudio/amt/engine/roll"
	"github.com/amtstudio/amt/engine/text"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/storage"
)

// The names the command line (app/cli) prints or passes on, beside those
// of frontend.go that the window shares. Like ui/, app/cli imports app and
// the value types of engine/midi and engine/token only (app/cli's
// TestCLIImportsOnlyApp): what it needs of the engine and the store is
// named here, as aliases, so a value reaches the printer unchanged and
// the command line and the window call the same functions on the same
// input.
type (
	// Store is an open data directory (OpenStore).
	Store = storage.Store
	// IngestRun is a stored ingestion run (IngestRuns).
	IngestRun = storage.IngestRun
	// IngestMode is an ingestion read mode (stream, preload, mmap);
	// IngestWorkers the workers per stage; IngestStageStats one stage's
	// figures in an ingestion report.
	IngestMode       = pipeline.Mode
	IngestWorkers    = pipeline.Workers
	IngestStageStats = pipeline.StageStats
	// IngestSkipped is an entry named like a MIDI file that ingestion
	// left out, with its kind ("named pipe (FIFO)", …).
	IngestSkipped = pipeline.SkippedFile
	// Num is a measured number that encodes NaN and ±Inf in JSON as null
	// (engine/eval); Rate a share of pieces meeting a check.
	Num  = eval.Num
	Rate = eval.Rate
	// TrainEvent reports one training step (TrainModel's onStep).
	TrainEvent = train.Event
	// LevelOptions are the thresholds of CheckWAV (clipping, silence).
	LevelOptions = audio.LevelOptions
)

// RunInterrupted is the state of an ingestion run whose process ended
// before it did (a kill, a crash): the store found it still running.
const RunInterrupted = storage.RunInterrupted

// ErrNoAudioDevice is returned (wrapped) by PlayScore when no sound device
// can play.
var ErrNoAudioDevice = audio.ErrNoDevice

// MaxRollBars bounds RollOptions.Bars.
const MaxRollBars = roll.MaxBars

// CorpusDir is the folder of the shared real corpora ($AMT_SHARED_DATA, or
// shared/data above the working folder); "" when there is none. The
// corpora under it are named RefPOP909, RefNottingham, RefOpenMSX and
// RefFreedoom.
func CorpusDir() string { return corpus.Dir() }

// ParseIngestMode reads an ingestion read mode: stream, preload or mmap.
func ParseIngestMode(s string) (IngestMode, error) { return pipeline.ParseMode(s) }

// AllWorkers is n workers for every ingestion stage.
func AllWorkers(n int) IngestWorkers { return pipeline.All(n) }

// GenreFamily is the genre family a genre word belongs to ("bossa nova" →
// "latin"); "" when the word names no genre (what --genre refuses).
func GenreFamily(word string) string { return text.GenreFamily(word) }

// LoadVocab reads a vocabulary file (vocab.json beside a model or a
// dataset's shards).
func LoadVocab(path string) (*token.Vocab, error) { return token.LoadVocab(path) }
