package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/eval"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/text"
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
}

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
	files, err := collectMIDI(opts.Paths)
	if err != nil {
		return nil, err
	}
	rep := &EvalReport{Request: opts.Request, Workers: workers}
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
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		fs, err := corpus.List(p)
		if err != nil {
			return nil, fmt.Errorf("eval: list %s: %w", p, err)
		}
		if len(fs) == 0 {
			return nil, fmt.Errorf("eval: %s: %w", p, ErrNoMIDI)
		}
		files = append(files, fs...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("eval: %w given", ErrNoMIDI)
	}
	return files, nil
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
				s, err := midi.ReadFile(files[i])
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

// parseAttrs reads --attrs: JSON of token.Attributes (fields left out stay
// unspecified), or @FILE holding it.
func parseAttrs(arg string) (*token.Attributes, error) {
	data := []byte(arg)
	if name, ok := strings.CutPrefix(arg, "@"); ok {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("--attrs: %w", err)
		}
		data = b
	}
	a := token.Unspecified()
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("%w: --attrs: %v", ErrUsage, err)
	}
	return &a, nil
}

func init() {
	c := &Command{
		Name:    "eval",
		Usage:   "eval PATH... [--attrs JSON|@FILE | --prompt TEXT] [--reference DIR] [--workers N] [--pieces] [--json]",
		Summary: "measure MIDI files: musical metrics, prompt adherence, comparison with a reference set",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		attrs := fs.String("attrs", "", "requested attributes as token.Attributes JSON (or @FILE): score adherence")
		prompt := fs.String("prompt", "", "requested attributes as a text prompt (parsed like the composer's): score adherence")
		ref := fs.String("reference", "", "folder of reference MIDI files (e.g. the training corpus) to compare with")
		workers := fs.Int("workers", 0, "files measured at once (0: one per core)")
		asJSON := fs.Bool("json", false, "print the report as JSON")
		pieces := fs.Bool("pieces", true, "include each file's metrics (false: summary only)")
		paths, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(paths) == 0 {
			return fmt.Errorf("%w: no PATH given", ErrUsage)
		}
		if *attrs != "" && *prompt != "" {
			return fmt.Errorf("%w: give --attrs or --prompt, not both", ErrUsage)
		}
		opts := EvalOptions{Paths: paths, Reference: *ref, Workers: *workers}
		switch {
		case *attrs != "":
			if opts.Request, err = parseAttrs(*attrs); err != nil {
				return err
			}
		case *prompt != "":
			// The prompt's attributes, as the composer forces them; its
			// mood and genre words are not checked.
			p := text.ParsePrompt(*prompt)
			opts.Request = &p.Attrs
		}
		rep, err := Evaluate(ctx, opts)
		if err != nil {
			return err
		}
		if !*pieces {
			rep.Pieces = nil
		}
		if *asJSON {
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(rep)
		}
		writeEvalText(env.Stdout, rep)
		return nil
	}
	Register(c)

	RegisterBench(&Command{
		Name:    "eval",
		Usage:   "bench eval [DIR] (default: the POP909 corpus)",
		Summary: "evaluation metrics: pieces/s over a folder, parsed first, one core, against midi.Analyze",
		Run:     benchEval,
	})
}

func f4(x eval.Num) string {
	if math.IsNaN(float64(x)) {
		return "-"
	}
	return fmt.Sprintf("%.4g", float64(x))
}

// writeEvalText prints the report as aligned text.
func writeEvalText(w io.Writer, rep *EvalReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(rep.Pieces) > 0 {
		fmt.Fprintln(tw, "file\tnotes\tkey\tbpm\tpc_entropy\tscale\tgroove\tpolyphony\tempty_beats\tnotes/s\tasa\t")
		for _, p := range rep.Pieces {
			if p.Error != "" {
				fmt.Fprintf(tw, "%s\terror: %s\t\n", Safe(p.File), Safe(p.Error))
				continue
			}
			m := p.Metrics
			key := "-"
			if m.Key.Tonic >= 0 {
				key = m.Key.String()
			}
			asa := "-"
			if p.Adherence != nil {
				asa = f4(p.Adherence.ASA)
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%.4g\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", Safe(p.File), m.Notes, key, m.TempoBPM,
				f4(eval.Num(m.PitchClassEntropy)), f4(eval.Num(m.ScaleConsistency)), f4(eval.Num(m.GrooveConsistency)),
				f4(eval.Num(m.Polyphony)), f4(eval.Num(m.EmptyBeatRate)), f4(eval.Num(m.NotesPerSecond)), asa)
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintf(tw, "evaluated %d files (%d failed); metrics %.0f pieces/s per core, parsing %.3f s, wall %.3f s\n\n",
		rep.Evaluated, rep.Failed, rep.PiecesPerSecond, rep.ParseSeconds, rep.WallSeconds)
	if rep.Reference == nil {
		fmt.Fprintln(tw, "metric\tn\tmean\tstd\tmedian\t")
		for _, s := range rep.Summary {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t\n", s.Metric, s.N, f4(s.Mean), f4(s.Std), f4(s.Median))
		}
	} else {
		r := rep.Reference
		fmt.Fprintf(tw, "reference %s: %d files (%d failed)\n", Safe(r.Path), r.Evaluated, r.Failed)
		fmt.Fprintln(tw, "metric\tmean ± std\tref mean ± std\toverlap\tKL\tref overlap\tref KL\t")
		for _, c := range r.Comparisons {
			fmt.Fprintf(tw, "%s\t%s ± %s\t%s ± %s\t%s\t%s\t%s\t%s\t\n", c.Metric, f4(c.Gen.Mean), f4(c.Gen.Std),
				f4(c.Ref.Mean), f4(c.Ref.Std), f4(c.OverlapGen), f4(c.KLGen), f4(c.OverlapRef), f4(c.KLRef))
		}
	}
	if a := rep.Adherence; a != nil {
		fmt.Fprintln(tw, "\nadherence\tpieces\trate\t")
		for _, r := range []struct {
			name string
			r    eval.Rate
		}{{"TB (tempo bin)", a.TB}, {"TBT (bin ±1)", a.TBT}, {"CK (key)", a.CK}, {"CKD (key or relative)", a.CKD},
			{"meter", a.Meter}, {"drums (≥ 90% of bars when asked)", a.Drums}, {"length ±10%", a.Length}} {
			if r.r.N > 0 {
				fmt.Fprintf(tw, "%s\t%d\t%s\t\n", r.name, r.r.N, f4(r.r.Rate))
			}
		}
		if a.InstrumentPieces > 0 {
			fmt.Fprintf(tw, "instruments P/R/F1\t%d\t%s / %s / %s\t\n", a.InstrumentPieces, f4(a.Precision), f4(a.Recall), f4(a.F1))
		}
		fmt.Fprintf(tw, "ASA\t%d\t%s\t\n", a.Pieces, f4(a.ASA))
	}
	tw.Flush()
}

// benchEval is `amt bench eval [DIR]`.
func benchEval(ctx context.Context, env *Env, args []string) error {
	c := &Command{Name: "bench eval", Usage: "bench eval [DIR]", Summary: "evaluation metrics rate"}
	fs := NewFlags(env, c)
	rounds := fs.Int("rounds", 3, "passes over the folder (the best is kept)")
	pos, err := ParseInterleaved(fs, args)
	if err != nil {
		return err
	}
	dir := ""
	switch len(pos) {
	case 0:
		if d := corpus.Dir(); d != "" {
			dir = filepath.Join(d, corpus.POP909)
		} else {
			return fmt.Errorf("%w: no DIR given and the POP909 corpus was not found (set AMT_SHARED_DATA)", ErrUsage)
		}
	case 1:
		dir = pos[0]
	default:
		return fmt.Errorf("%w: one DIR at most", ErrUsage)
	}
	out, err := BenchEval(ctx, dir, *rounds)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
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
		for r := 0; r < max(rounds, 1); r++ {
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
