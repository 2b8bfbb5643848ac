package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/amtstudio/amt/app"
)

// freeTextFlags are eval-model's flags of the free-text suite (issue 25).
type freeTextFlags struct {
	on    *bool
	part  *string
	seeds *int
}

func defineFreeTextFlags(fs interface {
	Bool(string, bool, string) *bool
	String(string, string, string) *string
	Int(string, int, string) *int
}) freeTextFlags {
	return freeTextFlags{
		on:    fs.Bool("freetext", false, "run the free-text suite (--suite default "+app.DefaultFreeTextSuite+"): each prompt with --seeds seeds, its listener's expectations checked by majority"),
		part:  fs.String("part", "all", "with --freetext: dev, held-out or all"),
		seeds: fs.Int("seeds", app.FreeTextSeeds, "with --freetext: seeds per prompt (--seed, --seed+1, …)"),
	}
}

// runFreeText is `amt eval-model --freetext`.
func runFreeText(ctx context.Context, env *Env, m *app.Model, suite string, limit int, seed uint64, o app.FreeTextOptions, f freeTextFlags, jsonOut bool, save string) error {
	prompts, err := app.ReadFreeText(suite)
	if err != nil {
		return err
	}
	var keep []app.FreeTextPrompt
	for _, p := range prompts {
		switch *f.part {
		case "all":
		case "dev":
			if p.HeldOut {
				continue
			}
		case "held-out":
			if !p.HeldOut {
				continue
			}
		default:
			return fmt.Errorf("%w: --part %q: dev, held-out or all", ErrUsage, *f.part)
		}
		keep = append(keep, p)
	}
	if limit > 0 && limit < len(keep) {
		keep = keep[:limit]
	}
	if *f.seeds < 1 || *f.seeds > 16 {
		return fmt.Errorf("%w: --seeds %d: 1–16", ErrUsage, *f.seeds)
	}
	for i := 0; i < *f.seeds; i++ {
		o.Seeds = append(o.Seeds, seed+uint64(i))
	}
	rep, err := app.EvalFreeText(ctx, m, keep, o, nil)
	if err != nil {
		return err
	}
	rep.Suite = suite
	if save != "" {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return fmt.Errorf("eval-model: %w", err)
		}
		if err := app.WriteOutputBytes(save, append(data, '\n')); err != nil {
			return fmt.Errorf("eval-model: save %s: %w", save, err)
		}
	}
	if jsonOut {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	writeFreeText(w, rep)
	return nil
}

func writeFreeText(w io.Writer, rep *app.FreeTextReport) {
	seeds := make([]string, len(rep.Seeds))
	for i, s := range rep.Seeds {
		seeds[i] = strconv.FormatUint(s, 10)
	}
	fmt.Fprintf(w, "model %s, free-text suite %s, seeds %s, %.0f s\n\n", rep.Model, rep.Suite, strings.Join(seeds, ","), rep.Seconds)
	for _, r := range rep.Results {
		mark := "ok"
		if !r.AllMet {
			mark = "--"
		}
		var miss []string
		for i, ok := range r.Majority {
			if !ok {
				var got []string
				for _, p := range r.Pieces {
					got = append(got, measureText(r.Expect[i].Text, p))
				}
				miss = append(miss, r.Expect[i].Text+" ("+strings.Join(got, " ")+")")
			}
		}
		part := ""
		if r.HeldOut {
			part = "[held-out] "
		}
		fmt.Fprintf(w, "%s %s%s", mark, part, clip(r.Prompt, 70))
		if real, asked := partsOf(r); asked > 0 {
			fmt.Fprintf(w, "  parts %d/%d", real, asked)
		}
		if len(miss) > 0 {
			fmt.Fprintf(w, "  missed: %s", strings.Join(miss, "; "))
		}
		fmt.Fprintln(w)
	}
	row := func(name string, s app.FreeTextScore) {
		if s.Prompts == 0 {
			return
		}
		fmt.Fprintf(w, "%-9s %3d prompts: expectations met %d/%d = %.1f%% (floor 90%%), prompts with all met %d/%d = %.1f%% (floor 75%%), per seed %.1f%%\n",
			name, s.Prompts, s.Met, s.Expectations, 100*s.Rate, s.AllMet, s.Prompts, 100*s.AllMetRate, 100*s.PerSeedRate)
	}
	fmt.Fprintln(w)
	row("dev", rep.Dev)
	row("held-out", rep.HeldOut)
	row("all", rep.All)
	parts := func(name string, s app.FreeTextScore) {
		if s.PartsRequested == 0 {
			return
		}
		fmt.Fprintf(w, "%-9s requested pitched instruments playing in ≥ half the bars: %d/%d = %.1f%% (floor 90%%), below 1 note per 2 bars: %d (floor 0)\n",
			name, s.PartsReal, s.PartsRequested, 100*float64(s.PartShare), s.PartCameos)
	}
	parts("dev", rep.Dev)
	parts("held-out", rep.HeldOut)
	parts("all", rep.All)
	if len(rep.Instruments) > 0 {
		fmt.Fprintf(w, "\nrequested instruments with a real part, over every piece:\n")
		for _, t := range rep.Instruments {
			fmt.Fprintf(w, "  %3d %-26s %3d/%-3d\n", t.Program, t.Name, t.Real, t.Requested)
		}
	}
}

// partsOf sums a prompt's requested pitched instruments with a real part
// over its seeds.
func partsOf(r app.FreeTextResult) (real, asked int) {
	for _, p := range r.Pieces {
		if p.Parts != nil {
			real += p.Parts.Real
			asked += p.Parts.Requested
		}
	}
	return real, asked
}

// measureText is what one piece measured for an expectation.
func measureText(exp string, p app.FreeTextPiece) string {
	if p.Error != "" {
		return "error"
	}
	m := p.Measures
	switch {
	case strings.HasPrefix(exp, "tempo"):
		return fmt.Sprintf("%.0f", m.TempoBPM)
	case strings.HasPrefix(exp, "vel"):
		return fmt.Sprintf("%.0f", m.Velocity)
	case strings.HasPrefix(exp, "npb"):
		return fmt.Sprintf("%.1f", m.NotesPerBeat)
	case strings.HasPrefix(exp, "pitch"):
		return fmt.Sprintf("%.0f", m.Pitch)
	case strings.HasPrefix(exp, "mode"):
		return m.Key
	case strings.HasPrefix(exp, "meter"):
		return m.Meter
	case strings.HasPrefix(exp, "drums"):
		return fmt.Sprintf("%.2f", m.DrumBars)
	case strings.HasPrefix(exp, "part"):
		var ps []string
		for _, p := range m.Parts {
			ps = append(ps, fmt.Sprintf("%d:%.2f", p.Program, p.Bars))
		}
		return "[" + strings.Join(ps, " ") + "]"
	case strings.HasPrefix(exp, "lead"):
		return fmt.Sprintf("lead %d", m.Lead)
	}
	return fmt.Sprint(m.Programs, map[bool]string{true: "+d", false: ""}[m.Drums])
}
