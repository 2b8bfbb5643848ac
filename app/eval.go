package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/eval"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// EvalOptions configures Evaluate.
type EvalOptions struct {
	// Paths are MIDI files or folders (searched recursively for .mid/.midi).
	Paths []string
	// Request, when set, is what the pieces were asked to be: each piece's
	// adherence to it is scored.
	Request *token.Attributes
	// Reference, when set, is a folder (or file) of reference pieces the
	// set is compared with (mgeval overlap and KL per metric).
	Reference string
	// Workers is the number of files parsed and measured at once; 0 means
	// one per core.
	Workers int
	// Progress, when set, receives an event after each file; sends never
	// block (an event the receiver is not ready for is dropped), so a slow
	// UI only sees fewer updates.
	Progress chan<- EvalProgress
}

// EvalProgress is a progress event of Evaluate.
type EvalProgress struct {
	Stage string `json:"stage"` // "evaluate" or "reference"
	Done  int    `json:"done"`
	Total int    `json:"total"`
	File  string `json:"file"` // the file just finished
}

// EvalPiece is one file's result: metrics (and adherence) or the error that
// kept it from being measured.
type EvalPiece struct {
	File      string          `json:"file"`
	Error     string          `json:"error,omitempty"`
	Metrics   *eval.Metrics   `json:"metrics,omitempty"`
	Adherence *eval.Adherence `json:"adherence,omitempty"`
}

// EvalSet is the evaluation of a set of files.
type EvalSet struct {
	Pieces    []EvalPiece       `json:"pieces,omitempty"`
	Evaluated int               `json:"evaluated"`
	Failed    int               `json:"failed"`
	Summary   []eval.MetricStat `json:"summary"`
	// Seconds spent parsing and measuring, summed over workers; Wall is
	// the elapsed time.
	ParseSeconds  float64 `json:"parse_seconds"`
	MetricSeconds float64 `json:"metric_seconds"`
	WallSeconds   float64 `json:"wall_seconds"`
	// PiecesPerSecond is the metrics rate per core, parsing excluded:
	// Evaluated / MetricSeconds.
	PiecesPerSecond float64 `json:"pieces_per_second"`

	metrics []eval.Metrics
}

// EvalReport is what `amt eval` prints.
type EvalReport struct {
	EvalSet
	Request   *token.Attributes      `json:"request,omitempty"`
	Adherence *eval.AdherenceSummary `json:"adherence,omitempty"`
	Reference *EvalReference         `json:"reference,omitempty"`
	Workers   int                    `json:"workers"`
	// Skipped are the entries of the folders given that are named like
	// MIDI files but are no regular files (a named pipe, a device, a
	// dangling symlink): never opened.
	Skipped []SkippedFile `json:"skipped,omitempty"`
}

// SkippedFile is an entry a folder walk left out, and what it is ("named
// pipe (FIFO)", "symlink to a character device", "dangling symlink", …).
type SkippedFile = corpus.Skipped

// EvalReference is the reference set and the comparison with it.
type EvalReference struct {
	Path        string            `json:"path"`
	Evaluated   int               `json:"evaluated"`
	Failed      int               `json:"failed"`
	Summary     []eval.MetricStat `json:"summary"`
	Comparisons []eval.Comparison `json:"comparisons"`
}

// ErrNoMIDI marks paths that hold no MIDI file.
var ErrNoMIDI = errors.New("no MIDI files")

// Evaluate measures every MIDI file under opts.Paths, scores adherence to
// opts.Request and compares with opts.Reference. A file that cannot be read
// is reported in its EvalPiece and skipped; Evaluate fails only when no file
// could be measured, a path is missing, or ctx is cancelled.
func Evaluate(ctx context.Context, opts EvalOptions) (*EvalReport, error) {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	files, skipped, err := collectMIDISkipping(opts.Paths)
	if err != nil {
		return nil, err
	}
	rep := &EvalReport{Request: opts.Request, Workers: workers, Skipped: skipped}
	set, err := evaluateSet(ctx, "evaluate", files, opts.Request, workers, opts.Progress)
	if err != nil {
		return nil, err
	}
	rep.EvalSet = *set
	if set.Evaluated == 0 {
		return rep, fmt.Errorf("eval: none of %d files could be measured (first: %s: %s)", len(files), set.Pieces[0].File, set.Pieces[0].Error)
	}
	if opts.Request != nil {
		as := make([]eval.Adherence, 0, set.Evaluated)
		for _, p := range set.Pieces {
			if p.Adherence != nil {
				as = append(as, *p.Adherence)
			}
		}
		s := eval.SummarizeAdherence(as)
		rep.Adherence = &s
	}
	if opts.Reference != "" {
		rfiles, err := collectMIDI([]string{opts.Reference})
		if err != nil {
			return nil, fmt.Errorf("reference: %w", err)
		}
		ref, err := evaluateSet(ctx, "reference", rfiles, nil, workers, opts.Progress)
		if err != nil {
			return nil, fmt.Errorf("reference: %w", err)
		}
		if ref.Evaluated == 0 {
			return nil, fmt.Errorf("reference %s: none of %d files could be measured", opts.Reference, len(rfiles))
		}
		rep.Reference = &EvalReference{
			Path: opts.Reference, Evaluated: ref.Evaluated, Failed: ref.Failed, Summary: ref.Summary,
			Comparisons: eval.Compare(set.metrics, ref.metrics),
		}
	}
	return rep, nil
}

// collectMIDI expands folders into their MIDI files (sorted); plain files
// are kept whatever their extension.
func collectMIDI(paths []string) ([]string, error) {
	files, _, err := collectMIDISkipping(paths)
	return files, err
}

// collectMIDISkipping is collectMIDI, also returning the entries of the
// folders that are named like MIDI files but are not regular files.
func collectMIDISkipping(paths []string) ([]string, []SkippedFile, error) {
	var files []string
	var skipped []SkippedFile
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, fmt.Errorf("eval: %w", err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		fs, sk, err := corpus.ListSkipping(p)
		if err != nil {
			return nil, nil, fmt.Errorf("eval: list %s: %w", p, err)
		}
		skipped = append(skipped, sk...)
		if len(fs) == 0 {
			return nil, nil, fmt.Errorf("eval: %s: %w", p, ErrNoMIDI)
		}
		files = append(files, fs...)
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("eval: %w given", ErrNoMIDI)
	}
	return files, skipped, nil
}

// evaluateSet parses and measures files with a pool of workers; each worker
// reuses one eval.Evaluator.
func evaluateSet(ctx context.Context, stage string, files []string, req *token.Attributes, workers int, progress chan<- EvalProgress) (*EvalSet, error) {
	start := time.Now()
	pieces := make([]EvalPiece, len(files))
	metrics := make([]eval.Metrics, len(files))
	ok := make([]bool, len(files))
	var next, done atomic.Int64
	var parseNS, metricNS atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(files)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ev eval.Evaluator
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(files) {
					return
				}
				p := &pieces[i]
				p.File = files[i]
				t0 := time.Now()
				s, err := readMIDI(ctx, files[i]) // a file named directly may be a stream
				t1 := time.Now()
				parseNS.Add(int64(t1.Sub(t0)))
				if err == nil {
					metrics[i], err = ev.Measure(s)
					metricNS.Add(int64(time.Since(t1)))
					if err != nil {
						err = fmt.Errorf("%s: %w", files[i], err)
					}
				}
				if err != nil {
					p.Error = err.Error()
				} else {
					ok[i] = true
					p.Metrics = &metrics[i]
					if req != nil {
						a := eval.Adhere(*req, &metrics[i])
						p.Adherence = &a
					}
				}
				n := int(done.Add(1))
				if progress != nil {
					select {
					case progress <- EvalProgress{Stage: stage, Done: n, Total: len(files), File: files[i]}:
					default:
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("eval: cancelled after %d of %d files: %w", done.Load(), len(files), err)
	}
	set := &EvalSet{Pieces: pieces, WallSeconds: time.Since(start).Seconds()}
	for i := range files {
		if ok[i] {
			set.metrics = append(set.metrics, metrics[i])
		} else {
			set.Failed++
		}
	}
	set.Evaluated = len(set.metrics)
	set.Summary = eval.Summarize(set.metrics)
	set.ParseSeconds = float64(parseNS.Load()) / 1e9
	set.MetricSeconds = float64(metricNS.Load()) / 1e9
	if set.MetricSeconds > 0 {
		set.PiecesPerSecond = float64(set.Evaluated) / set.MetricSeconds
	}
	return set, nil
}

// EvalBench is what `amt bench eval` prints (its fields in the
// alphabetical order the command has always printed them in).
type EvalBench struct {
	AnalyzePiecesPerSecond float64 `json:"analyze_pieces_per_second"`
	Cores                  int     `json:"cores"`
	Dir                    string  `json:"dir"`
	Files                  int     `json:"files"`
	FloorPiecesPerSecond   int     `json:"floor_pieces_per_second"`
	ParseFilesPerSecond    float64 `json:"parse_files_per_second"`
	Parsed                 int     `json:"parsed"`
	PiecesPerSecond        float64 `json:"pieces_per_second"` // eval.Measure
	RatioToAnalyze         float64 `json:"ratio_to_analyze"`
}

// BenchEval parses every MIDI file under dir, then times midi.Analyze
// alone (the baseline) and eval.Measure over the same scores on one core,
// each the best of rounds passes.
func BenchEval(ctx context.Context, dir string, rounds int) (*EvalBench, error) {
	files, err := collectMIDI([]string{dir})
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	var scores []*midi.Score
	for _, f := range files {
		if s, err := midi.ReadFile(f); err == nil {
			scores = append(scores, s)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	parse := time.Since(t0).Seconds()
	best := func(f func()) float64 {
		b := math.Inf(1)
		for r := 0; r < max(rounds, 1) && ctx.Err() == nil; r++ { // a stop ends the rounds
			t := time.Now()
			f()
			b = min(b, time.Since(t).Seconds())
		}
		return b
	}
	var ev eval.Evaluator
	analyze := best(func() {
		for _, s := range scores {
			midi.Analyze(s)
		}
	})
	measure := best(func() {
		for _, s := range scores {
			ev.Measure(s)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := float64(len(scores))
	return &EvalBench{
		Dir: dir, Files: len(files), Parsed: len(scores),
		ParseFilesPerSecond:    n / parse,
		AnalyzePiecesPerSecond: n / analyze,
		PiecesPerSecond:        n / measure,
		RatioToAnalyze:         analyze / measure,
		FloorPiecesPerSecond:   1000,
		Cores:                  1,
	}, nil
}
