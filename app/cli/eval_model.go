package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/amtstudio/amt/app"
)

func init() {
	c := &Command{
		Name:    "eval-model",
		Usage:   "eval-model [--model DIR] [--suite FILE] [--bars N] [--seed S] [--limit N] [--corpus DIR] [--reference NAME=DIR]... [--match NAME] [--model-alone] [--rolls DIR] [--save FILE.json] [--json] [--pieces]\n       eval-model --two-sample [--model DIR] [--per-group N] [--real DIR]... [--copies DIR]... [--select-seed S] [--folds K] [--repeats R] [--rolls DIR] [--save FILE.json] [--json] [--pieces]\n       eval-model --freetext [--part dev|held-out|all] [--seeds N] [--model DIR] [--levers L] [--save FILE.json] [--json]",
		Summary: "run the prompt suite through a model (default: the embedded one): adherence, musicality against the real corpora, floors, speed",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		model := fs.String("model", "", "model folder (default: the embedded model)")
		suite := fs.String("suite", app.DefaultSuite, "prompt file, one prompt a line")
		bars := fs.Int("bars", 0, "bars per piece (default: the prompt's, else 16)")
		seed := fs.Uint64("seed", 1, "seed of the first prompt (prompt i uses seed+i)")
		limit := fs.Int("limit", 0, "only the first N prompts")
		corpusDir := fs.String("corpus", "", "corpora folder for the references (default: ../shared/data when present, else the stored figures; \"stored\": the stored figures)")
		var extra []app.NamedDir
		fs.Func("reference", "NAME=DIR: a further reference corpus (e.g. an arranged corpus); repeatable", func(s string) error {
			nd, err := parseNamedDir(s)
			if err == nil {
				extra = append(extra, nd)
			}
			return err
		})
		match := fs.String("match", "", "set every piece against this reference (default: chosen from the request; see MatchCorpus)")
		alone := fs.Bool("model-alone", true, "also run the suite with key bias 0 and one candidate: the model's own CK and the time of one sample")
		rolls := fs.String("rolls", "", "folder: write piano rolls (rolls.png) of suite pieces next to real pieces of their matched corpus, and their MIDI files")
		rollCount := fs.Int("roll-count", 8, "with --rolls, how many suite pieces (spread evenly over the suite)")
		keyBias := fs.Float64("key-bias", app.DefaultKeyBias, "logit penalty of pitches outside the requested key's scale (0: the model alone)")
		rhythmBias := fs.Float64("rhythm-bias", app.DefaultRhythmBias, "logit bonus of the positions where the previous bar started pitched notes (0: none)")
		candidates := fs.Int("candidates", app.DefaultCandidates, "per prompt, sample up to N pieces and keep the one that meets the most requested attributes (1: one sample)")
		temp := fs.Float64("temperature", app.DefaultTemperature, "sampling temperature")
		topP := fs.Float64("top-p", app.DefaultTopP, "nucleus sampling mass")
		jsonOut := fs.Bool("json", false, "print a JSON object")
		exact := fs.Bool("exact", false, exactFlagHelp)
		pieces := fs.Bool("pieces", false, "include every piece (a table in text, the pieces in JSON)")
		save := fs.String("save", "", "also write the whole report, every piece included, as JSON to this file")
		ft := defineFreeTextFlags(fs) // eval_freetext.go
		twoSample := fs.Bool("two-sample", false, "the two-sample test instead of the suite: real pieces answered by the model through prompts stating their own attributes; can classifiers tell them apart?")
		perGroup := fs.Int("per-group", 40, "with --two-sample: real pieces per group (POP909, Nottingham, game music; or per --real folder)")
		var realDirs []string
		fs.Func("real", "with --two-sample: a folder of real MIDI files to use instead of the corpora (e.g. pieces outside the training data); repeatable", func(s string) error {
			realDirs = append(realDirs, s)
			return nil
		})
		selectSeed := fs.Uint64("select-seed", 1, "with --two-sample: the seed that orders the real files")
		var copies []string
		fs.Func("copies", "with --two-sample: a folder of the model's training pieces (MIDI); reports each generated piece's longest run of bars copied from one of them (any transposition); repeatable", func(s string) error {
			copies = append(copies, s)
			return nil
		})
		folds := fs.Int("folds", 5, "with --two-sample: cross-validation folds")
		repeats := fs.Int("repeats", 10, "with --two-sample: cross-validation repeats")
		form := fs.String("form", "auto", "form of the pieces ("+strings.Join(app.Forms, ", ")+")")
		criticFile := fs.String("critic", "", "with the critic lever: the critic file to use (default: the embedded one)")
		trainCritic := fs.String("train-critic", "", "with --two-sample: fit a critic on this run's pairs and write it to this file")
		exclude := fs.String("exclude", "", "with --two-sample: a saved two-sample report whose real pieces are not chosen (train a critic on other pieces)")
		from := fs.String("from", "", "with --two-sample: re-run the classifiers, the what-if analysis and the floors on a saved report's features (no generation)")
		leverList := fs.String("levers", "default", "decoding levers of issue 24: default, none, or a list (canonical,vary)")
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) > 0 {
			return fmt.Errorf("%w: unexpected arguments %v", ErrUsage, pos)
		}
		if *twoSample {
			if err := app.FirstError(app.IntIn("per-group", *perGroup, 1, 10000), app.IntIn("folds", *folds, 2, 20), app.IntIn("repeats", *repeats, 1, 100)); err != nil {
				return err
			}
		}
		if len(copies) > 0 && !*twoSample {
			return fmt.Errorf("%w: --copies measures the answers of --two-sample: add --two-sample", ErrUsage)
		}
		if *from != "" {
			if !*twoSample {
				return fmt.Errorf("%w: --from re-reads a --two-sample report: add --two-sample", ErrUsage)
			}
			if *rolls != "" {
				return fmt.Errorf("%w: --rolls needs the generated pieces, which a saved report does not hold", ErrUsage)
			}
			if env, err = checkOutputs(env, *save, *trainCritic); err != nil {
				return err
			}
			return reclassifyTwoSample(env, *from, *folds, *repeats, *save, *trainCritic, *jsonOut, *pieces)
		}
		if env, err = checkOutputs(env, *save, *trainCritic); err != nil { // output.go: before the suite runs
			return err
		}
		if *rolls != "" {
			if err := app.CheckOutputDir(*rolls); err != nil {
				return err
			}
		}
		if *rollCount < 1 {
			return fmt.Errorf("%w: --roll-count %d: at least 1", ErrUsage, *rollCount)
		}
		if err := app.FirstError(checkGenerate(*bars, 0, *temp, 0, *topP, max(*candidates, 1), *keyBias, *rhythmBias), app.IntIn("limit", *limit, 0, 1<<20)); err != nil {
			return err // checkGenerate: generate.go
		}
		levers, err := app.ParseLevers(*leverList)
		if err != nil {
			return err
		}
		if !slices.Contains(app.Forms, *form) {
			return fmt.Errorf("%w: --form %q: one of %s", ErrUsage, *form, strings.Join(app.Forms, ", "))
		}
		if *ft.on && *twoSample {
			return fmt.Errorf("%w: --freetext and --two-sample are two runs", ErrUsage)
		}
		if *ft.on && *suite == app.DefaultSuite {
			*suite = app.DefaultFreeTextSuite
		}
		var prompts []string
		if !*twoSample && !*ft.on {
			var err error
			if prompts, err = app.ReadSuite(*suite); err != nil {
				return err
			}
			if *limit > 0 && *limit < len(prompts) {
				prompts = prompts[:*limit]
			}
		}
		var m *app.Model
		if *model != "" {
			if m, err = app.LoadModel(*model); err != nil {
				return err
			}
			defer m.Close()
		} else if m, err = app.DefaultModel(); err != nil {
			return err
		}
		if *exact {
			m.Exact = true
		}
		if *ft.on {
			return runFreeText(ctx, env, m, *suite, *limit, *seed, app.FreeTextOptions{KeyBias: float32(*keyBias), Candidates: *candidates,
				Temperature: *temp, TopP: *topP, Bars: *bars, Levers: levers}, ft, *jsonOut, *save)
		}
		switch *corpusDir {
		case "":
			*corpusDir = app.CorpusDir()
		case "stored":
			*corpusDir = ""
		}
		var critic *app.Critic
		if *criticFile != "" {
			if critic, err = app.ReadCritic(*criticFile); err != nil {
				return err
			}
		}
		if *twoSample {
			var excl []string
			if *exclude != "" {
				old, ok, err := app.ReadTwoSampleReport(*exclude)
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("%w: --exclude %s: not a two-sample report", ErrUsage, *exclude)
				}
				for _, p := range old.Pieces {
					excl = append(excl, p.File)
				}
			}
			return runTwoSample(ctx, env, m, app.TwoSampleOptions{DataDir: *corpusDir, RealDirs: realDirs, PerGroup: *perGroup, Bars: *bars, Seed: *seed,
				SelectSeed: *selectSeed, Exclude: excl, Folds: *folds, Repeats: *repeats,
				Request: app.PromptRequest{KeyBias: float32(*keyBias), RhythmBias: float32(*rhythmBias), Candidates: *candidates, Temperature: *temp, TopP: *topP, Form: *form, Levers: levers, Critic: critic}},
				*rolls, *rollCount, *save, *trainCritic, *jsonOut, *pieces, copies)
		}
		rep, err := app.EvalSuite(ctx, m, prompts, app.SuiteOptions{Levers: levers, Bars: *bars, Seed: *seed, KeyBias: float32(*keyBias), RhythmBias: float32(*rhythmBias), Candidates: *candidates,
			Temperature: *temp, TopP: *topP, Form: *form, CorpusDir: *corpusDir, References: extra, Match: *match, ModelAlone: *alone}, nil)
		if err != nil {
			return err
		}
		rep.Suite = *suite
		if *rolls != "" {
			if err := app.WriteSuiteRolls(*rolls, rep, *corpusDir, *rollCount); err != nil {
				return err
			}
		}
		if *save != "" {
			data, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				return fmt.Errorf("eval-model: %w", err)
			}
			if err := app.WriteOutputBytes(*save, append(data, '\n')); err != nil {
				return fmt.Errorf("eval-model: save %s: %w", *save, err)
			}
		}
		if *jsonOut {
			if !*pieces {
				rep.Pieces = nil
			}
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(rep)
		}
		w := bufio.NewWriter(env.Stdout)
		defer w.Flush()
		writeSuiteText(w, rep, *pieces)
		if *rolls != "" {
			fmt.Fprintf(w, "\npiano rolls: %s\n", filepath.Join(*rolls, "rolls.png"))
		}
		return nil
	}
	Register(c)
}

// writeSuiteText prints the report.
func writeSuiteText(w io.Writer, rep *app.SuiteReport, pieces bool) {
	a := rep.Adherence
	pct := func(r app.Rate) string { return fmt.Sprintf("%5.1f%% (n=%d)", 100*float64(r.Rate), r.N) }
	fmt.Fprintf(w, "model %s, suite %s: %d prompts in %.1fs (%.0f tokens/s), temperature %g, top-p %g, key bias %g, candidates %d, levers %s\n",
		rep.Model, rep.Suite, rep.Prompts, rep.Seconds, rep.TokensPerSecond, rep.Temperature, rep.TopP, rep.KeyBias, rep.Candidates, rep.Levers)
	fmt.Fprintf(w, "\nadherence\n")
	fmt.Fprintf(w, "  TB     %s    TBT %s\n", pct(a.TB), pct(a.TBT))
	fmt.Fprintf(w, "  CK     %s    CKD %s", pct(a.CK), pct(a.CKD))
	if rep.ModelAlone != nil {
		fmt.Fprintf(w, "    model alone (key bias 0, 1 candidate): CK %s, CKD %s, notes in the requested scale %.3f",
			pct(rep.ModelAlone.CK), pct(rep.ModelAlone.CKD), float64(rep.ModelAlone.Scale))
	}
	fmt.Fprintf(w, "\n  meter  %s    length %s\n", pct(a.Meter), pct(a.Length))
	fmt.Fprintf(w, "  instruments F1 %.3f (precision %.3f, recall %.3f, n=%d; a family present when it plays in half the bars), %.3f when one note counts\n",
		float64(a.F1), float64(a.Precision), float64(a.Recall), a.InstrumentPieces, float64(a.F1Any))
	if a.PartsRequested > 0 {
		fmt.Fprintf(w, "  parts  %d of %d requested pitched instruments play in ≥ half the bars (%.1f%%), %d under 1 note per 2 bars; every part in %s of pieces\n",
			a.PartsReal, a.PartsRequested, 100*float64(a.PartShare), a.PartCameos, pct(a.PartsAll))
	}
	fmt.Fprintf(w, "  drums  %s (asked: drums in ≥ 90%% of bars; asked none: none); share of bars with drums %.3f over the %d pieces asking\n", pct(a.Drums), float64(a.DrumBars), a.DrumBarPieces)
	fmt.Fprintf(w, "  notes in the requested scale %.3f    ASA %.3f    valid MIDI %.1f%%\n", float64(a.Scale), float64(a.ASA), 100*rep.Valid)
	if e := rep.ExplicitAdherence; e != nil {
		fmt.Fprintf(w, "  what the prompts name alone (not what their words imply): TB %s  CK %s  meter %s  instruments F1 %.3f  drums %s\n",
			pct(e.TB), pct(e.CK), pct(e.Meter), float64(e.F1), pct(e.Drums))
	}
	fmt.Fprintf(w, "  pitch-class entropy %.3f vs corpora %.3f (%+.1f%%), groove consistency %.3f vs %.3f (%+.1f%%)\n",
		float64(rep.PitchClassEntropy.Suite), float64(rep.PitchClassEntropy.Corpus), 100*float64(rep.PitchClassEntropy.RelDiff),
		float64(rep.GrooveConsistency.Suite), float64(rep.GrooveConsistency.Corpus), 100*float64(rep.GrooveConsistency.RelDiff))

	fmt.Fprintf(w, "\nmusicality vs the matched real corpus (%s references; median over pieces, pile-up: share of pieces)\n", rep.ReferenceSource)
	fmt.Fprintf(w, "  %-11s %-20s %6s %9s %9s %7s\n", "corpus", "metric", "pieces", "generated", "real", "ratio")
	for _, r := range rep.Musicality {
		fmt.Fprintf(w, "  %-11s %-20s %6d %9s %9s %7s\n", r.Corpus, r.Metric, r.Pieces, f3(r.Generated), f3(r.Real), f3(r.Ratio))
	}
	fmt.Fprintf(w, "\ngeneration: %d pieces of 16 bars, %s s each on average (max %s) with the suite's decoding; one sample %s s\n",
		rep.Pieces16, f3(rep.Seconds16), f3(rep.Seconds16Max), f3(rep.Seconds16Single))

	fmt.Fprintf(w, "\nfloors\n")
	for _, f := range rep.FloorList {
		met := "NOT met"
		switch {
		case f.N == 0:
			met = "no data"
		case f.Met:
			met = "met"
		}
		fmt.Fprintf(w, "  %-20s %8s %-2s %-5g %-7s n=%-4d %s\n", f.Name, f3(f.Value), f.Op, f.Limit, met, f.N, f.What)
	}
	for _, k := range [][2]string{
		{"pitch_class_entropy", "suite mean within 10% of the corpora's"},
		{"groove_consistency", "suite mean within 10% of the corpora's"},
		{"valid", "every piece written as MIDI reads back with its notes"},
	} {
		met := "NOT met"
		if rep.Floors[k[0]] {
			met = "met"
		}
		fmt.Fprintf(w, "  %-20s %17s %-7s %6s %s\n", k[0], "", met, "", k[1])
	}
	if !pieces {
		return
	}
	fmt.Fprintf(w, "\npieces (npb: notes per beat, ×: over the corpus median; drums: share of bars; rep: bar / rhythm repetition; last: last bar over the others' mean)\n")
	fmt.Fprintf(w, "  %3s %-44s %-10s %5s %5s %5s %3s %5s %5s %5s %5s %3s %5s %5s\n", "#", "prompt", "corpus", "npb", "×", "drums", "prg", "rep", "rhy", "last", "scale", "CK", "ASA", "s")
	for i, p := range rep.Pieces {
		if !p.Valid {
			fmt.Fprintf(w, "  %3d %-44s invalid: %s\n", i+1, clip(p.Prompt, 44), p.Error)
			continue
		}
		pm := p.Musicality
		ck := "-"
		if p.Adherence.CK != nil {
			ck = map[bool]string{true: "yes", false: "no"}[*p.Adherence.CK]
		}
		fmt.Fprintf(w, "  %3d %-44s %-10s %5s %5s %5s %3d %5s %5s %5s %5s %3s %5s %5.2f\n", i+1, clip(p.Prompt, 44), p.Corpus,
			f2(pm.NotesPerBeat), f2(pm.NotesPerBeatRatio), f2(pm.DrumBars), pm.Programs, f2(pm.BarRepetition), f2(pm.RhythmRepetition),
			f2(pm.LastBarRatio), f2(pm.Scale), ck, f2(p.Adherence.ASA), p.Seconds)
	}
}

func f3(x app.Num) string {
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return "-"
	}
	return fmt.Sprintf("%.3f", float64(x))
}

func f2(x app.Num) string {
	if math.IsNaN(float64(x)) {
		return "-"
	}
	if math.IsInf(float64(x), 1) {
		return "inf"
	}
	return fmt.Sprintf("%.2f", float64(x))
}

// parseNamedDir reads NAME=DIR.
func parseNamedDir(s string) (app.NamedDir, error) {
	name, dir, ok := strings.Cut(s, "=")
	if !ok || name == "" || dir == "" {
		return app.NamedDir{}, fmt.Errorf("%w: --reference %q: want NAME=DIR", ErrUsage, s)
	}
	return app.NamedDir{Name: name, Dir: dir}, nil
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
