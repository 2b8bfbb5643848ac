// Package pipeline owns staged concurrent ingestion of a folder of MIDI
// files: scan → read → parse + metadata → text (captions) → embed →
// tokenize → write shards, with bounded queues between stages and worker
// counts per stage; then k-means over the caption embeddings into style
// groups and the STYLE token patched into every piece. It measures each
// stage (busy and waiting time, items, bytes, queue depth) and gives a
// bottleneck verdict with concrete suggestions.
//
// The per-file work comes through the Processor interface and results leave
// through the Sink interface, so the package knows nothing of the store:
// engine/pipeline must never import storage/, app/ or ui/.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// Mode is how file bytes reach the CPU stages.
type Mode string

const (
	// Stream reads files in reader goroutines while the CPU stages work
	// (disk overlapped with CPU through bounded queues).
	Stream Mode = "stream"
	// Preload reads the whole corpus into RAM in parallel first.
	Preload Mode = "preload"
	// MMap streams like Stream but looks every file's content hash up in a
	// memory-mapped cache of pre-processed arrays (tokens, attributes,
	// caption, embedding) written by earlier runs, skipping the CPU stages
	// for hits, and adds this run's results to it.
	MMap Mode = "mmap"
)

// ParseMode checks a mode name.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case Stream, Preload, MMap:
		return Mode(s), nil
	case "":
		return Stream, nil
	}
	return "", fmt.Errorf("pipeline: unknown read mode %q (stream, preload or mmap)", s)
}

// Workers are the goroutines per stage; zero fields take defaults.
type Workers struct {
	Read     int `json:"read"`
	Parse    int `json:"parse"`
	Text     int `json:"text"`
	Embed    int `json:"embed"`
	Tokenize int `json:"tokenize"`
}

// DefaultWorkers sizes the stages from the core count: the CPU-heavy parse
// and tokenize stages get one worker per core, reading two (I/O overlaps),
// text and embedding (light) half the cores.
func DefaultWorkers(cores int) Workers {
	if cores < 1 {
		cores = 1
	}
	half := max(1, cores/2)
	return Workers{Read: 2, Parse: cores, Text: half, Embed: half, Tokenize: cores}
}

// Fill returns w with zero fields replaced by the defaults for cores.
func (w Workers) Fill(cores int) Workers {
	d := DefaultWorkers(cores)
	pick := func(a, b int) int {
		if a > 0 {
			return min(a, MaxWorkers) // a stored setting is not trusted
		}
		return b
	}
	return Workers{pick(w.Read, d.Read), pick(w.Parse, d.Parse), pick(w.Text, d.Text),
		pick(w.Embed, d.Embed), pick(w.Tokenize, d.Tokenize)}
}

// MaxWorkers bounds a stage's workers (Fill clamps to it).
const MaxWorkers = 1024

// All sets every stage to n workers (the --workers flag).
func All(n int) Workers { return Workers{n, n, n, n, n} }

// Item is one file travelling through the stages. Each stage fills its
// fields; a set Err makes the later stages pass it on untouched, and it is
// recorded as a failed item.
type Item struct {
	Path    string // slash-separated, relative to the root
	Abs     string
	Size    int64
	ModTime int64 // unix nanoseconds
	Hash    string

	Data       []byte      // file bytes; dropped after parsing
	Score      *midi.Score // dropped after tokenizing
	Meta       any         // JSON-encodable metadata (midi.Metadata, or raw JSON from the cache)
	Attrs      token.Attributes
	Caption    string
	Embedding  []float32
	Tokens     []uint16 // BOS … EOS
	StyleIndex int      // position of the STYLE token in Tokens; -1 if none

	Err      error
	Cached   bool  // filled from the mmap cache
	cacheBad error // its mmap-cache entry was damaged: rebuilt from the file
	touched  bool  // same content as stored: only its modification time is recorded

	// Set by the write stage for items with tokens.
	Shard  string // shard name (file stem) in the shard folder
	Offset uint64 // first token of the piece in the shard
}

// Processor does the per-file work. Its methods are called concurrently by
// the stage workers, each on its own Item.
type Processor interface {
	// Analyze parses it.Data and measures it: Score, Meta, Attrs.
	Analyze(it *Item) error
	// Caption writes it.Caption from what is known of the piece.
	Caption(ctx context.Context, it *Item) error
	// Embed writes it.Embedding (the same dimension for every item).
	Embed(it *Item) error
	// Tokenize writes it.Tokens and it.StyleIndex.
	Tokenize(it *Item) error
	// Styles is the number of STYLE tokens of the vocabulary (upper bound of
	// k); StyleToken is the token of style group k for a piece with attrs.
	Styles() int
	StyleToken(attrs token.Attributes, k int) uint16
}

// Known is what the sink holds of a file from an earlier run.
type Known struct {
	Size    int64
	ModTime int64
	Hash    string
}

// Sink receives the results. Calls come from one goroutine at a time except
// Known, which must be safe for concurrent use.
type Sink interface {
	// Known reports what is stored for path, if anything.
	Known(path string) (Known, bool)
	// Commit records one batch in one transaction. Its shard files (if any)
	// are already written and synced in the shard folder.
	Commit(ctx context.Context, b *Batch) error
	// StyleSet returns every stored piece with tokens (all runs, not only
	// this one) and the dataset's shards, for clustering.
	StyleSet(ctx context.Context) (*StyleSet, error)
	// Restyle records new styles and rewritten shards in one transaction.
	Restyle(ctx context.Context, r *Restyle) error
}

// ShardFile describes a shard pair written in the shard folder.
type ShardFile struct {
	Name   string // file stem: Name.bin and Name.idx
	Hash   string // hex SHA-256 of Name.bin
	Pieces int
	Tokens int64
}

// Batch is what one Commit records: a shard and the items whose pieces it
// holds, failed items, and unchanged files whose modification time moved.
type Batch struct {
	Shard   *ShardFile // nil when the batch has no pieces
	Items   []*Item    // processed items, ok (Shard/Offset set) or failed (Err set)
	Touched []*Item    // same content as stored; only Path, Size, ModTime, Hash set
}

// Piece is one stored piece as clustering sees it.
type Piece struct {
	Path       string
	Shard      string
	Offset     uint64
	Tokens     int
	StyleIndex int
	Style      int
	Attrs      token.Attributes
	Embedding  []float32
}

// StyleSet is the input of the style phase.
type StyleSet struct {
	Pieces []Piece
	// ShardPieces maps each shard name of the dataset to its piece count
	// (live or not), so shards holding replaced pieces get compacted.
	ShardPieces map[string]int
}

// Restyle is the output of the style phase: Styles[i] is the group of
// Pieces[i] (in StyleSet order); Moved lists the pieces whose shard was
// rewritten, with their new Shard and Offset; Rewrites the new shard files
// and Dropped the shards they replace.
type Restyle struct {
	K       int
	Pieces  []Piece // every piece, Style set, Shard/Offset current
	Added   []ShardFile
	Dropped []string
}

// Event is a progress report. Sends never block: a slow reader misses
// intermediate events, never the pipeline's progress.
type Event struct {
	Stage string // "scan", "ingest", "style", "done"
	Done  int    // items committed so far
	Total int    // files to process (known after the scan)
	Path  string // last file committed
}

// Config is one run.
type Config struct {
	Root     string // folder to ingest
	Mode     Mode
	Workers  Workers
	ShardDir string // absolute folder for shard files
	// ShardPrefix starts every shard name this run writes (unique per run,
	// e.g. "r000012-").
	ShardPrefix string
	// CacheFile is the mmap-mode cache (absolute path); its name should
	// change with anything that changes the pre-processed arrays (vocabulary,
	// embedder).
	CacheFile  string
	BatchItems int // items per commit (and per shard); 0 means 256
	QueueLen   int // capacity of each queue; 0 means 64
	Seed       int64
	MaxStyles  int // upper bound of k; 0 means 64
	// MaxShardTokens caps the shards the style phase writes; 0 means 16 Mi
	// tokens (32 MiB).
	MaxShardTokens int
	Progress       chan<- Event
	// Cores used by the verdict; 0 means runtime.NumCPU().
	Cores int
	// FreeRAM in bytes for the verdict's preload advice; 0 means unknown.
	FreeRAM uint64
}

// ErrNoFiles is returned when the folder holds no MIDI file.
var ErrNoFiles = errors.New("no MIDI files")

func (c *Config) fill() {
	if c.Mode == "" {
		c.Mode = Stream
	}
	if c.Cores <= 0 {
		c.Cores = runtime.NumCPU()
	}
	c.Workers = c.Workers.Fill(c.Cores)
	if c.BatchItems <= 0 {
		c.BatchItems = 256
	}
	if c.QueueLen <= 0 {
		c.QueueLen = 64
	}
	if c.MaxShardTokens <= 0 {
		c.MaxShardTokens = 16 << 20
	}
	if c.MaxStyles <= 0 {
		c.MaxStyles = 64
	}
}

func (c *Config) emit(e Event) {
	if c.Progress == nil {
		return
	}
	select {
	case c.Progress <- e:
	default:
	}
}
