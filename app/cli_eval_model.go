package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/eval"
	"github.com/amtstudio/amt/engine/midi"
)

// DefaultSuite is the prompt suite of the default model.
const DefaultSuite = "testdata/prompts/suite.txt"

// Floors of issue 8.
const (
	floorTB, floorTBT, floorCK, floorMeter, floorF1 = 0.80, 0.95, 0.70, 0.95, 0.90
	floorMetricRel                                  = 0.10
)

// SuitePiece is one prompt's outcome.
type SuitePiece struct {
	Prompt    string             `json:"prompt"`
	Seed      uint64             `json:"seed"`
	Valid     bool               `json:"valid"`
	Error     string             `json:"error,omitempty"`
	Measured  MeasuredAttributes `json:"measured"`
	Adherence eval.Adherence     `json:"adherence"`
	Tokens    int                `json:"tokens"`
	Seconds   float64            `json:"seconds"`
}

// MetricVsCorpus compares a musical metric's mean over the suite with the
// corpora's mean.
type MetricVsCorpus struct {
	Suite    eval.Num `json:"suite_mean"`
	Corpus   eval.Num `json:"corpus_mean"`
	RelDiff  eval.Num `json:"rel_diff"` // (suite − corpus) / corpus
	Within10 bool     `json:"within_10_percent"`
}

// SuiteReport is what `amt eval-model --json` prints.
type SuiteReport struct {
	Model             string                `json:"model"`
	Suite             string                `json:"suite"`
	Prompts           int                   `json:"prompts"`
	Bars              int                   `json:"bars"`
	KeyBias           float32               `json:"key_bias"`
	Candidates        int                   `json:"candidates"`
	Temperature       float64               `json:"temperature"`
	TopP              float64               `json:"top_p"`
	Valid             float64               `json:"valid_rate"`
	Adherence         eval.AdherenceSummary `json:"adherence"`
	PitchClassEntropy MetricVsCorpus        `json:"pitch_class_entropy"`
	GrooveConsistency MetricVsCorpus        `json:"groove_consistency"`
	CorpusPieces      int                   `json:"corpus_pieces"`
	Seconds           float64               `json:"seconds"`
	TokensPerSecond   float64               `json:"tokens_per_second"`
	Floors            map[string]bool       `json:"floors_met"`
	Pieces            []SuitePiece          `json:"pieces,omitempty"`
}

// ReadSuite reads a prompt file: one prompt a line, # comments and blank
// lines skipped.
func ReadSuite(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("suite %s: no prompts", path)
	}
	return out, nil
}

// CorpusMeans measures every MIDI file of the corpora under dir and
// returns the mean pitch-class entropy and groove consistency (each over
// the pieces where it is defined) and the number of pieces.
func CorpusMeans(ctx context.Context, dir string) (pce, groove float64, n int, err error) {
	var sp, sg float64
	var np, ng int
	for _, name := range []string{corpus.POP909, corpus.Nottingham, corpus.OpenMSX} {
		files, err := corpus.List(filepath.Join(dir, name))
		if err != nil {
			return 0, 0, 0, err
		}
		for _, f := range files {
			if err := ctx.Err(); err != nil {
				return 0, 0, 0, err
			}
			s, err := midi.ReadFile(f)
			if err != nil {
				continue
			}
			m, err := eval.Measure(s)
			if err != nil {
				continue
			}
			n++
			if !math.IsNaN(m.PitchClassEntropy) {
				sp += m.PitchClassEntropy
				np++
			}
			if !math.IsNaN(m.GrooveConsistency) {
				sg += m.GrooveConsistency
				ng++
			}
		}
	}
	if np == 0 || ng == 0 {
		return 0, 0, 0, fmt.Errorf("no corpus pieces under %s", dir)
	}
	return sp / float64(np), sg / float64(ng), n, nil
}

// Corpus means measured by CorpusMeans on the 1,974 pieces of the three
// corpora (2026-11-22), used when the corpora are not on this machine.
const (
	knownCorpusPCE    = 2.7812
	knownCorpusGroove = 0.9411
)

// SuiteOptions control EvalSuite.
type SuiteOptions struct {
	Bars        int    // 0: each prompt's, else DefaultBars
	Seed        uint64 // prompt i samples with Seed+i
	KeyBias     float32
	Candidates  int     // PromptRequest.Candidates (0 or 1: one sample)
	Temperature float64 // 0: DefaultTemperature
	TopP        float64 // 0: DefaultTopP
	CorpusDir   string  // "": the stored corpus means
}

// EvalSuite generates one piece per prompt and scores the set.
func EvalSuite(ctx context.Context, m *Model, prompts []string, o SuiteOptions, progress func(i int)) (*SuiteReport, error) {
	bars, seed, keyBias, corpusDir := o.Bars, o.Seed, o.KeyBias, o.CorpusDir
	rep := &SuiteReport{Model: m.Dir, Prompts: len(prompts), Bars: bars, KeyBias: keyBias, Candidates: max(o.Candidates, 1), Temperature: o.Temperature, TopP: o.TopP, Floors: map[string]bool{}}
	start := time.Now()
	var ads []eval.Adherence
	var sp, sg float64
	var np, ng, valid, toks int
	var genSecs float64
	for i, p := range prompts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sd := seed + uint64(i)
		piece := SuitePiece{Prompt: p, Seed: sd}
		r, err := GenerateFromPrompt(ctx, m, PromptRequest{Prompt: p, Bars: bars, Seed: sd, KeyBias: keyBias, Candidates: o.Candidates, Temperature: o.Temperature, TopP: o.TopP})
		if err == nil {
			// Valid: the MIDI file written parses back with the same notes.
			var buf bytes.Buffer
			if err = r.Score.Write(&buf); err == nil {
				var back *midi.Score
				back, err = midi.Parse(fmt.Sprintf("suite-%03d.mid", i), buf.Bytes())
				if err == nil && (back.NoteCount() != r.Score.NoteCount() || back.NoteCount() == 0) {
					err = fmt.Errorf("%d notes written, %d read back", r.Score.NoteCount(), back.NoteCount())
				}
			}
		}
		if err != nil {
			piece.Error = err.Error()
		} else {
			piece.Valid = true
			valid++
			piece.Measured, piece.Adherence, piece.Tokens, piece.Seconds = r.Measured, r.Adherence, r.New, r.Seconds
			ads = append(ads, r.Adherence)
			toks += r.Sampled
			genSecs += r.Seconds
			if v := r.Metrics.PitchClassEntropy; !math.IsNaN(v) {
				sp += v
				np++
			}
			if v := r.Metrics.GrooveConsistency; !math.IsNaN(v) {
				sg += v
				ng++
			}
		}
		rep.Pieces = append(rep.Pieces, piece)
		if progress != nil {
			progress(i + 1)
		}
	}
	rep.Valid = float64(valid) / float64(len(prompts))
	rep.Adherence = eval.SummarizeAdherence(ads)
	if genSecs > 0 {
		rep.TokensPerSecond = float64(toks) / genSecs
	}
	cp, cg := float64(knownCorpusPCE), float64(knownCorpusGroove)
	if corpusDir != "" {
		var err error
		if cp, cg, rep.CorpusPieces, err = CorpusMeans(ctx, corpusDir); err != nil {
			return nil, err
		}
	}
	cmp := func(sum float64, n int, ref float64) MetricVsCorpus {
		out := MetricVsCorpus{Suite: eval.Num(math.NaN()), Corpus: eval.Num(ref), RelDiff: eval.Num(math.NaN())}
		if ref == 0 {
			out.Corpus = eval.Num(math.NaN())
		}
		if n > 0 {
			out.Suite = eval.Num(sum / float64(n))
			if ref != 0 {
				d := (sum/float64(n) - ref) / ref
				out.RelDiff, out.Within10 = eval.Num(d), math.Abs(d) <= floorMetricRel
			}
		}
		return out
	}
	rep.PitchClassEntropy = cmp(sp, np, cp)
	rep.GrooveConsistency = cmp(sg, ng, cg)
	a := rep.Adherence
	ge := func(x eval.Num, floor float64) bool { return !math.IsNaN(float64(x)) && float64(x) >= floor }
	rep.Floors["tb"] = ge(a.TB.Rate, floorTB)
	rep.Floors["tbt"] = ge(a.TBT.Rate, floorTBT)
	rep.Floors["ck"] = ge(a.CK.Rate, floorCK)
	rep.Floors["meter"] = ge(a.Meter.Rate, floorMeter)
	rep.Floors["instrument_f1"] = ge(a.F1, floorF1)
	rep.Floors["pitch_class_entropy"] = rep.PitchClassEntropy.Within10
	rep.Floors["groove_consistency"] = rep.GrooveConsistency.Within10
	rep.Floors["valid"] = valid == len(prompts)
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

func init() {
	c := &Command{
		Name:    "eval-model",
		Usage:   "eval-model [--model DIR] [--suite FILE] [--bars N] [--seed S] [--limit N] [--corpus DIR] [--json] [--pieces]",
		Summary: "run the prompt suite through a model (default: the embedded one) and score adherence, musical metrics vs the corpora, validity",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		model := fs.String("model", "", "model folder (default: the embedded model)")
		suite := fs.String("suite", DefaultSuite, "prompt file, one prompt a line")
		bars := fs.Int("bars", 0, "bars per piece (default: the prompt's, else 16)")
		seed := fs.Uint64("seed", 1, "seed of the first prompt (prompt i uses seed+i)")
		limit := fs.Int("limit", 0, "only the first N prompts")
		corpusDir := fs.String("corpus", "", "corpora folder for the reference means (default: ../shared/data when present)")
		keyBias := fs.Float64("key-bias", DefaultKeyBias, "logit penalty of pitches outside the requested key's scale (0: the model alone)")
		candidates := fs.Int("candidates", DefaultCandidates, "per prompt, sample up to N pieces and keep the one that meets the most requested attributes (1: one sample)")
		temp := fs.Float64("temperature", DefaultTemperature, "sampling temperature")
		topP := fs.Float64("top-p", DefaultTopP, "nucleus sampling mass")
		jsonOut := fs.Bool("json", false, "print a JSON object")
		pieces := fs.Bool("pieces", false, "with --json, include every piece")
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) > 0 {
			return fmt.Errorf("%w: unexpected arguments %v", ErrUsage, pos)
		}
		if err := FirstError(checkGenerate(*bars, 0, *temp, 0, *topP, max(*candidates, 1), *keyBias), IntIn("limit", *limit, 0, 1<<20)); err != nil {
			return err // app/limits.go
		}
		prompts, err := ReadSuite(*suite)
		if err != nil {
			return err
		}
		if *limit > 0 && *limit < len(prompts) {
			prompts = prompts[:*limit]
		}
		var m *Model
		if *model != "" {
			if m, err = LoadModel(*model); err != nil {
				return err
			}
			defer m.Close()
		} else if m, err = DefaultModel(); err != nil {
			return err
		}
		if *corpusDir == "" {
			*corpusDir = corpus.Dir()
		}
		rep, err := EvalSuite(ctx, m, prompts, SuiteOptions{Bars: *bars, Seed: *seed, KeyBias: float32(*keyBias), Candidates: *candidates, Temperature: *temp, TopP: *topP, CorpusDir: *corpusDir}, nil)
		if err != nil {
			return err
		}
		rep.Suite = *suite
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
		a := rep.Adherence
		pct := func(r eval.Rate) string { return fmt.Sprintf("%5.1f%% (n=%d)", 100*float64(r.Rate), r.N) }
		ok := func(k string) string {
			if rep.Floors[k] {
				return "met"
			}
			return "NOT met"
		}
		fmt.Fprintf(w, "model %s, suite %s: %d prompts in %.1fs (%.0f tokens/s), temperature %g, top-p %g, key bias %g\n", rep.Model, *suite, rep.Prompts, rep.Seconds, rep.TokensPerSecond, *temp, *topP, rep.KeyBias)
		fmt.Fprintf(w, "TB     %s  floor 80%%  %s\n", pct(a.TB), ok("tb"))
		fmt.Fprintf(w, "TBT    %s  floor 95%%  %s\n", pct(a.TBT), ok("tbt"))
		fmt.Fprintf(w, "CK     %s  floor 70%%  %s\n", pct(a.CK), ok("ck"))
		fmt.Fprintf(w, "CKD    %s\n", pct(a.CKD))
		fmt.Fprintf(w, "meter  %s  floor 95%%  %s\n", pct(a.Meter), ok("meter"))
		fmt.Fprintf(w, "instrument F1 %.3f (precision %.3f, recall %.3f, n=%d)  floor 0.9  %s\n", float64(a.F1), float64(a.Precision), float64(a.Recall), a.InstrumentPieces, ok("instrument_f1"))
		fmt.Fprintf(w, "drums  %s   length %s   ASA %.3f\n", pct(a.Drums), pct(a.Length), float64(a.ASA))
		fmt.Fprintf(w, "pitch-class entropy %.3f vs corpus %.3f (%+.1f%%)  %s\n", float64(rep.PitchClassEntropy.Suite), float64(rep.PitchClassEntropy.Corpus), 100*float64(rep.PitchClassEntropy.RelDiff), ok("pitch_class_entropy"))
		fmt.Fprintf(w, "groove consistency  %.3f vs corpus %.3f (%+.1f%%)  %s\n", float64(rep.GrooveConsistency.Suite), float64(rep.GrooveConsistency.Corpus), 100*float64(rep.GrooveConsistency.RelDiff), ok("groove_consistency"))
		fmt.Fprintf(w, "valid MIDI %.1f%%  %s\n", 100*rep.Valid, ok("valid"))
		return nil
	}
	Register(c)
}
