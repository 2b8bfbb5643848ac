package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/amtstudio/amt/app"
)

// runTwoSample is `amt eval-model --two-sample` (app.TwoSample).
func runTwoSample(ctx context.Context, env *Env, m *app.Model, o app.TwoSampleOptions, rolls string, rollCount int, save, trainCritic string, jsonOut, pieces bool, copies []string) error {
	progress := func(done, total int) {
		if done%10 == 0 || done == total {
			fmt.Fprintf(env.Stderr, "two-sample: %d/%d pieces generated\n", done, total)
		}
	}
	rep, err := app.TwoSample(ctx, m, o, progress)
	if err != nil {
		return err
	}
	if len(copies) > 0 {
		fmt.Fprintf(env.Stderr, "two-sample: indexing the training pieces of %s for copies\n", strings.Join(copies, ", "))
		if err := rep.MeasureCopies(ctx, m.Vocab, copies); err != nil {
			return err
		}
	}
	if rolls != "" {
		if err := app.WriteTwoSampleRolls(rolls, rep, rollCount); err != nil {
			return err
		}
	}
	return finishTwoSample(env, rep, rolls, save, trainCritic, jsonOut, pieces)
}

// finishTwoSample saves, trains the critic and prints a two-sample report.
func finishTwoSample(env *Env, rep *app.TwoSampleReport, rolls, save, trainCritic string, jsonOut, pieces bool) error {
	if save != "" {
		if err := rep.Save(save); err != nil {
			return err
		}
	}
	if trainCritic != "" {
		c, err := app.TrainCritic(rep, app.CriticFeatures)
		if err != nil {
			return err
		}
		c.Trained = time.Now().Format("2006-01-02")
		if err := c.Save(trainCritic); err != nil {
			return err
		}
	}
	if jsonOut {
		if !pieces {
			rep.Pieces = nil
		}
		return printJSON(env, rep)
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	writeTwoSampleText(w, rep, pieces)
	if rolls != "" {
		fmt.Fprintf(w, "\npiano rolls (the most generated-looking pieces beside their real ones): %s\n", filepath.Join(rolls, "rolls.png"))
	}
	return nil
}

// reclassifyTwoSample is `amt eval-model --two-sample --from FILE`.
func reclassifyTwoSample(env *Env, from string, folds, repeats int, save, trainCritic string, jsonOut, pieces bool) error {
	rep, ok, err := app.ReadTwoSampleReport(from)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: --from %s: not a two-sample report", ErrUsage, from)
	}
	if err := rep.Reclassify(app.TwoSampleOptions{Folds: folds, Repeats: repeats}); err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	return finishTwoSample(env, rep, "", save, trainCritic, jsonOut, pieces)
}

func cvText(r *app.CVResult) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%% (95%% interval %.1f–%.1f%%; repeats %.1f–%.1f%%)", 100*r.Accuracy, 100*r.Low, 100*r.High, 100*r.Min, 100*r.Max)
}

// writeTwoSampleText prints a two-sample report.
func writeTwoSampleText(w io.Writer, rep *app.TwoSampleReport, pieces bool) {
	fmt.Fprintf(w, "model %s: %d real pieces answered (%v), %d bars each, decoding %s (key bias %g, candidates %d, temperature %g, top-p %g); %.0f s, %s s a piece\n",
		rep.Model, rep.Pairs, rep.Groups, rep.Bars, rep.Decoding, rep.KeyBias, rep.Candidates, rep.Temperature, rep.TopP, rep.Seconds, f3(rep.Seconds16))
	fmt.Fprintf(w, "real pieces: %s; prompts that do not read back as their piece's attributes: %d\n", rep.Selection, rep.PromptMismatch)
	fmt.Fprintf(w, "\ncan a classifier tell generated from real? (%d-fold cross-validation × %d, 50%% = cannot tell)\n", rep.LR.Folds, rep.LR.Repeats)
	fmt.Fprintf(w, "  logistic regression  %s\n  random forest        %s\n", cvText(rep.LR), cvText(rep.RF))
	if ga := rep.GroupAccuracy(); len(ga) > 0 {
		names := make([]string, 0, len(ga))
		for g := range ga {
			names = append(names, g)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, g := range names {
			parts[i] = fmt.Sprintf("%s %.1f%%", g, 100*ga[g])
		}
		fmt.Fprintf(w, "  random forest within each group (held-out probability, mean of the repeats): %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "  random forest on the %d features the critic does not see: %s\n", app.NumTwoSampleFeatures-len(app.CriticFeatures), cvText(rep.Unseen))
	fmt.Fprintf(w, "  the representation alone (real pieces against themselves through the tokenizer): LR %s, RF %s\n", cvText(rep.RepresentationLR), cvText(rep.RepresentationRF))
	a := rep.Adherence
	fmt.Fprintf(w, "\nadherence of the generated pieces: TB %.1f%% TBT %.1f%% CK %.1f%% meter %.1f%% instrument F1 %.3f drums in bars %.3f\n",
		100*float64(a.TB.Rate), 100*float64(a.TBT.Rate), 100*float64(a.CK.Rate), 100*float64(a.Meter.Rate), float64(a.F1), float64(a.DrumBars))

	if c := rep.Copies; c != nil {
		writeCopies(w, "copying", c)
	}

	fmt.Fprintf(w, "\nfeatures (medians; alone: a one-feature classifier's accuracy; importance: accuracy the forest loses without it; LR: standardised coefficient, > 0 higher in generated)\n")
	rows := append([]app.FeatureRow(nil), rep.Features...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Single > rows[j].Single })
	fmt.Fprintf(w, "  %-16s %9s %9s %9s %6s %7s %7s\n", "feature", "real", "generated", "tokenized", "alone", "import.", "LR")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-16s %9s %9s %9s %5.1f%% %7.3f %7.2f\n", r.Name, f3(r.Real), f3(r.Generated), f3(r.Tokenized), 100*float64(r.Single), float64(r.Importance), float64(r.Coef))
	}
	if len(rep.WhatIf) > 0 && rep.WhatIfBase != nil {
		rf, lr := app.ForestName, app.LinearName
		groups := func(f []float64) string {
			parts := make([]string, 0, len(f))
			for i, a := range f {
				if i < len(rep.WhatIfGroups) {
					parts = append(parts, fmt.Sprintf("%s %.0f", rep.WhatIfGroups[i], 100*a))
				}
			}
			return strings.Join(parts, ", ")
		}
		b := rep.WhatIfBase
		fmt.Fprintf(w, "\nwhat would it take? the classifiers if the generated pieces measured like real ones in one family of features\n")
		fmt.Fprintf(w, "(its values from other real pieces of their group; alone, then with every family above; %d repeats)\n", rep.WhatIfRepeats)
		fmt.Fprintf(w, "  %-11s %-13s %-13s %-15s  %-36s %s\n", "family", "forest alone", "+ those above", "linear alone/+", "forest alone within each group", "features")
		fmt.Fprintf(w, "  %-11s %5.1f%%        %-13s %5.1f%%           %-36s\n", "(none)", 100*b.Accuracy[rf], "", 100*b.Accuracy[lr], groups(b.Strata))
		for _, r := range rep.WhatIf {
			a, c := r.Alone, r.Cumulative
			fmt.Fprintf(w, "  %-11s %5.1f%% %+5.1f  %5.1f%% %+5.1f  %5.1f%% / %5.1f%%  %-36s %s\n", r.Family,
				100*a.Accuracy[rf], 100*(a.Accuracy[rf]-b.Accuracy[rf]), 100*c.Accuracy[rf], 100*(c.Accuracy[rf]-b.Accuracy[rf]),
				100*a.Accuracy[lr], 100*c.Accuracy[lr], groups(a.Strata), strings.Join(r.Features, " "))
		}
	}
	fmt.Fprintf(w, "\nfloors (issue 24)\n")
	for _, f := range rep.Floors {
		met := "NOT met"
		if f.Met {
			met = "met"
		}
		lim := fmt.Sprintf("%s %g", f.Op, f.Limit)
		if f.Op == "in" {
			lim = "in 0.5–1.5"
		}
		fmt.Fprintf(w, "  %-14s %8s %-10s %-7s %s\n", f.Name, f3(f.Value), lim, met, f.What)
	}
	if !pieces {
		return
	}
	fmt.Fprintf(w, "\npieces (p: the forest's held-out probability that the generated piece is generated)\n")
	for i, p := range rep.Pieces {
		if p.Error != "" {
			fmt.Fprintf(w, "  %3d %-28s %s: %s\n", i+1, clip(p.File, 28), clip(p.Prompt, 60), p.Error)
			continue
		}
		fmt.Fprintf(w, "  %3d %-28s p %4s  %s\n", i+1, clip(p.File, 28), f2(p.ProbGenerated), p.Prompt)
	}
}

// writeTwoSampleDiff prints `amt eval-compare` of two two-sample reports.
func writeTwoSampleDiff(w io.Writer, d *app.TwoSampleDiff, a, b string) {
	fmt.Fprintf(w, "two-sample test (%s → %s)\n", a, b)
	fmt.Fprintf(w, "  %-22s %-36s → %s\n", "model / decoding", d.Old.Model+" / "+d.Old.Decoding, d.New.Model+" / "+d.New.Decoding)
	fmt.Fprintf(w, "  %-22s %5.1f%% → %5.1f%%\n", "logistic regression", 100*d.Old.LR, 100*d.New.LR)
	fmt.Fprintf(w, "  %-22s %5.1f%% → %5.1f%%\n", "random forest", 100*d.Old.RF, 100*d.New.RF)
	fmt.Fprintf(w, "  %-22s %5.2f s → %5.2f s\n", "a piece", d.Old.Seconds, d.New.Seconds)
	if !d.SameReal {
		fmt.Fprintf(w, "  (the two reports answer different real pieces)\n")
	}
	fmt.Fprintf(w, "\nfloors\n")
	for _, f := range d.Floors {
		fmt.Fprintf(w, "  %-14s %8s → %-8s %s → %s\n", f.Name, f3(f.OldValue), f3(f.NewValue), metWord(f.OldMet, f.OldJudged), metWord(f.NewMet, f.NewJudged))
	}
	fmt.Fprintf(w, "\nfeatures: generated median before → after (real median; accuracy of the feature alone before → after)\n")
	for _, f := range d.Features {
		fmt.Fprintf(w, "  %-16s %8s → %-8s (real %8s; alone %5.1f%% → %5.1f%%)\n", f.Name, f3(f.Old), f3(f.New), f3(f.Real), 100*float64(f.OldAcc), 100*float64(f.NewAcc))
	}
}

// writeCopies prints a copy report: the share of pieces whose longest run
// copied from a training piece is at most app.MaxCopyRun bars, and the
// longest of all.
func writeCopies(w io.Writer, title string, c *app.CopyReport) {
	fmt.Fprintf(w, "\n%s: %d pieces against %s (%d pieces, %d bars with notes)\n", title, c.Measured, c.Training, c.Pieces, c.Bars)
	fmt.Fprintf(w, "  longest run of bars copied from one training piece (any transposition): ≤ %d bars in %.1f%% of pieces (issue 34: ≥ %.0f%%), median %.1f, 95th percentile %d\n",
		app.MaxCopyRun, 100*c.AtMost, 100*app.CopyFloorShare, c.Median, c.P95)
	if l := c.Longest; l.Bars > 0 {
		fmt.Fprintf(w, "  the longest: %d bars in %s (bars %d–%d) = %s bars %d–%d, %+d semitones\n",
			l.Bars, c.LongestIn, l.Bar+1, l.Bar+l.Bars, l.Piece, l.FromBar+1, l.FromBar+l.Bars, l.Transpose)
	}
}
