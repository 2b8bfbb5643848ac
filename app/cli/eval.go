package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/token"
)

// parseAttrs reads --attrs: JSON of token.Attributes (fields left out stay
// unspecified), or @FILE holding it.
func parseAttrs(arg string) (*token.Attributes, error) {
	data := []byte(arg)
	if name, ok := strings.CutPrefix(arg, "@"); ok {
		b, err := app.ReadInput(name)
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
		opts := app.EvalOptions{Paths: paths, Reference: *ref, Workers: *workers}
		switch {
		case *attrs != "":
			if opts.Request, err = parseAttrs(*attrs); err != nil {
				return err
			}
		case *prompt != "":
			// The attributes the prompt names (Understanding.Named); what
			// its mood and genre words imply is not checked.
			a := app.Understand(app.UnderstandRequest{Prompt: *prompt}, nil).Named
			opts.Request = &a
		}
		rep, err := app.Evaluate(ctx, opts)
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

func f4(x app.Num) string {
	if math.IsNaN(float64(x)) {
		return "-"
	}
	return fmt.Sprintf("%.4g", float64(x))
}

// writeEvalText prints the report as aligned text.
func writeEvalText(w io.Writer, rep *app.EvalReport) {
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
				f4(app.Num(m.PitchClassEntropy)), f4(app.Num(m.ScaleConsistency)), f4(app.Num(m.GrooveConsistency)),
				f4(app.Num(m.Polyphony)), f4(app.Num(m.EmptyBeatRate)), f4(app.Num(m.NotesPerSecond)), asa)
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintf(tw, "evaluated %d files (%d failed); metrics %.0f pieces/s per core, parsing %.3f s, wall %.3f s\n\n",
		rep.Evaluated, rep.Failed, rep.PiecesPerSecond, rep.ParseSeconds, rep.WallSeconds)
	for _, s := range rep.Skipped {
		fmt.Fprintf(tw, "skipped %s: %s (not a regular file, never opened)\n", Safe(s.Path), s.Kind)
	}
	if len(rep.Skipped) > 0 {
		fmt.Fprintln(tw)
	}
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
			r    app.Rate
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
		if d := app.CorpusDir(); d != "" {
			dir = filepath.Join(d, app.RefPOP909)
		} else {
			return fmt.Errorf("%w: no DIR given and the POP909 corpus was not found (set AMT_SHARED_DATA)", ErrUsage)
		}
	case 1:
		dir = pos[0]
	default:
		return fmt.Errorf("%w: one DIR at most", ErrUsage)
	}
	out, err := app.BenchEval(ctx, dir, *rounds)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
