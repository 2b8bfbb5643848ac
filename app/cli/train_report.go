package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/amtstudio/amt/app"
)

func init() {
	c := &Command{
		Name:    "train-report",
		Usage:   "train-report --model DIR [--per-group N] [--bars N] [--seed S] [--rolls DIR] [--save FILE.json] [--json]",
		Summary: "after a fine-tune (amt train --from): held-out loss, the two-sample test against the dataset's held-out pieces, adherence and copying, before and after, with piano rolls",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		model := fs.String("model", "", "the fine-tuned model's folder (it holds lineage.json)")
		perGroup := fs.Int("per-group", 40, "held-out pieces answered by each model")
		bars := fs.Int("bars", 16, "bars compared")
		seed := fs.Uint64("seed", 1, "seed of the first piece (piece i uses seed+i)")
		rolls := fs.String("rolls", "", "folder: piano rolls of generated pieces beside held-out ones (before/rolls.png, after/rolls.png)")
		rollCount := fs.Int("roll-count", 8, "with --rolls, pieces drawn each")
		save := fs.String("save", "", "also write the whole report (both two-sample tests, every piece) as JSON to this file")
		jsonOut := fs.Bool("json", false, "print a JSON object")
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) > 0 || *model == "" {
			return fmt.Errorf("%w: --model is required, no positional arguments", ErrUsage)
		}
		if err := app.FirstError(app.IntIn("per-group", *perGroup, 5, 10000), app.IntIn("bars", *bars, 1, app.MaxGenerateBars),
			app.IntIn("roll-count", *rollCount, 1, 1000)); err != nil {
			return err
		}
		if *save != "" {
			if err := app.CheckOutput(*save); err != nil {
				return err
			}
		}
		progress := func(stage string, done, total int) {
			switch {
			case stage == "copies":
				fmt.Fprintf(env.Stderr, "train-report: indexing the %d pieces it learned from for copies\n", total)
			case done%10 == 0 || done == total:
				fmt.Fprintf(env.Stderr, "train-report: %s: %d/%d pieces generated\n", stage, done, total)
			}
		}
		rep, err := app.FineTuneReportOf(ctx, app.FineTuneReportOptions{Model: *model, PerGroup: *perGroup, Bars: *bars, Seed: *seed,
			Rolls: *rolls, RollCount: *rollCount}, progress)
		if err != nil {
			return err
		}
		if *save != "" {
			if err := rep.Save(*save); err != nil {
				return err
			}
		}
		if *jsonOut {
			rep.Before.Pieces, rep.After.Pieces = nil, nil
			return printJSON(env, rep)
		}
		w := bufio.NewWriter(env.Stdout)
		defer w.Flush()
		writeFineTuneReport(w, rep)
		if *rolls != "" {
			fmt.Fprintf(w, "\npiano rolls, generated beside held-out pieces: %s, %s\n", filepath.Join(*rolls, "before", "rolls.png"), filepath.Join(*rolls, "after", "rolls.png"))
		}
		return nil
	}
	Register(c)
}

// writeFineTuneReport prints the report for a musician: each figure
// before and after, with what it means.
func writeFineTuneReport(w io.Writer, r *app.FineTuneReport) {
	l := r.Lineage
	stop := "the planned steps"
	if l.EarlyStopped {
		stop = "stopped when the held-out loss stopped falling"
	}
	fmt.Fprintf(w, "%s: the %s tuned on %s (%d pieces learned from, %d held out), %d steps (%s), the weights of step %d kept; %s\n",
		r.Model, l.Base, l.Dataset, l.TrainPieces, len(l.HeldOut), l.Steps, stop, l.BestStep, l.Date.Local().Format("2006-01-02 15:04"))
	if r.BaseChanged {
		fmt.Fprintf(w, "note: the base's weights are not those the fine-tune started from (another build's default model?); \"before\" is today's base\n")
	}
	if r.SplitChanged {
		fmt.Fprintf(w, "note: %s no longer splits into the held-out pieces of the fine-tune (files added or removed since); copies are looked for in today's training pieces\n", l.Data)
	}
	b, a := r.Before, r.After
	pct := func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
	row := func(what, before, after, means string) {
		fmt.Fprintf(w, "  %-34s %13s %13s   %s\n", what, before, after, means)
	}
	fmt.Fprintf(w, "\n  %-34s %13s %13s\n", "", "before (base)", "after (tuned)")
	row("held-out loss (nats a token)", fmt.Sprintf("%.4f", r.ValLossBefore), fmt.Sprintf("%.4f", r.ValLossAfter), "lower: the held-out pieces surprise it less")
	row("told from the held-out pieces", pct(b.Accuracy), pct(a.Accuracy), fmt.Sprintf("by a classifier, %d pieces each side; 50%%: it cannot tell", a.Pairs))
	row("  logistic regression", pct(b.LR.Accuracy), pct(a.LR.Accuracy), "")
	row("  random forest", pct(b.RF.Accuracy), pct(a.RF.Accuracy), "")
	ba, aa := b.Adherence, a.Adherence
	row("asked tempo kept (TB)", pct(float64(ba.TB.Rate)), pct(float64(aa.TB.Rate)), "the prompt stated each piece's own tempo, key,")
	row("asked key kept (CK)", pct(float64(ba.CK.Rate)), pct(float64(aa.CK.Rate)), "meter and instruments")
	row("asked meter kept", pct(float64(ba.Meter.Rate)), pct(float64(aa.Meter.Rate)), "")
	row("asked instruments play (F1)", fmt.Sprintf("%.3f", float64(ba.F1)), fmt.Sprintf("%.3f", float64(aa.F1)), "")
	cb, ca, cr := r.CopiesBefore, r.CopiesAfter, r.CopiesReal
	row(fmt.Sprintf("copying ≤ %d bars in a row", app.MaxCopyRun), pct(cb.AtMost), pct(ca.AtMost), fmt.Sprintf("of pieces, from a piece it learned from (the held-out real pieces: %s)", pct(cr.AtMost)))
	row("  the longest copied run (bars)", fmt.Sprint(cb.Longest.Bars), fmt.Sprint(ca.Longest.Bars), fmt.Sprintf("(real: %d)", cr.Longest.Bars))
	if c := ca.Longest; c.Bars > 0 {
		fmt.Fprintf(w, "  the tuned model's longest: %s, bars %d–%d = %s bars %d–%d (%+d semitones)\n", ca.LongestIn, c.Bar+1, c.Bar+c.Bars, c.Piece, c.FromBar+1, c.FromBar+c.Bars, c.Transpose)
	}
	fmt.Fprintf(w, "\nfloors (issue 34)\n")
	for _, f := range r.Floors {
		met := "NOT met"
		if f.Met {
			met = "met"
		}
		fmt.Fprintf(w, "  %-16s %-7s %s\n", f.Name, met, f.What)
	}
}
