package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/amtstudio/amt/app"
)

func init() {
	c := &Command{
		Name:    "eval-compare",
		Usage:   "eval-compare OLD.json NEW.json [--json]",
		Summary: "set two reports saved by eval-model --save side by side: every floor before and after, and the pieces that changed (same prompts, same seeds); two-sample reports: accuracies, floors and features before and after",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		jsonOut := fs.Bool("json", false, "print a JSON object")
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 2 {
			return fmt.Errorf("%w: two reports (OLD.json NEW.json), got %d arguments", ErrUsage, len(pos))
		}
		if a, ok, err := app.ReadTwoSampleReport(pos[0]); err != nil {
			return err
		} else if ok {
			b, ok, err := app.ReadTwoSampleReport(pos[1])
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("%w: %s is a two-sample report, %s is not", ErrUsage, pos[0], pos[1])
			}
			d := app.CompareTwoSample(a, b)
			if *jsonOut {
				enc := json.NewEncoder(env.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(d)
			}
			writeTwoSampleDiff(env.Stdout, d, pos[0], pos[1])
			return nil
		}
		old, err := app.ReadSuiteReport(pos[0])
		if err != nil {
			return err
		}
		cur, err := app.ReadSuiteReport(pos[1])
		if err != nil {
			return err
		}
		d, err := app.CompareSuites(old, cur)
		if err != nil {
			return err
		}
		if *jsonOut {
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(d)
		}
		w := env.Stdout
		fmt.Fprintf(w, "floors (%s → %s)\n", pos[0], pos[1])
		for _, f := range d.Floors {
			fmt.Fprintf(w, "  %-22s %9s → %-9s %s → %s\n", f.Name, f3(f.OldValue), f3(f.NewValue), metWord(f.OldMet, f.OldJudged), metWord(f.NewMet, f.NewJudged))
		}
		fmt.Fprintf(w, "\npieces: %d changed, %d the same (tokens and adherence)\n", len(d.Changed), d.Same)
		for _, p := range d.Changed {
			var cs []string
			for k, v := range p.Checks {
				cs = append(cs, fmt.Sprintf("%s %v→%v", k, v[0], v[1]))
			}
			sort.Strings(cs)
			fmt.Fprintf(w, "  %4d %-44s tokens %5d → %-5d %s\n", p.Index, clip(p.Prompt, 44), p.OldTokens, p.NewTokens, strings.Join(cs, ", "))
		}
		return nil
	}
	Register(c)
}

// metWord is how eval-compare prints a floor on one side: met, NOT met, or
// "-" where that report did not judge it.
func metWord(met, judged bool) string {
	switch {
	case !judged:
		return "-"
	case met:
		return "met"
	}
	return "NOT met"
}
