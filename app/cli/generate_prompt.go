package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// PromptGenerateJSON is what `amt generate "PROMPT" --json` prints.
type PromptGenerateJSON struct {
	Prompt          string                 `json:"prompt"`
	Model           string                 `json:"model"`
	Out             string                 `json:"out"`
	WAV             string                 `json:"wav,omitempty"`
	Seed            uint64                 `json:"seed"`
	Requested       token.Attributes       `json:"requested"`
	Measured        app.MeasuredAttributes `json:"measured"`
	Adherence       app.Adherence          `json:"adherence"`
	Tokens          int                    `json:"tokens"`
	Candidates      int                    `json:"candidates"` // pieces sampled to find this one
	Form            string                 `json:"form"`       // the form planned, e.g. "AABA (A A' B A, 4-bar sections)"
	Restated        int                    `json:"restated_tokens"`
	Levers          string                 `json:"levers,omitempty"` // the decoding levers in force on the prompt path (app.Levers)
	Seconds         float64                `json:"seconds"`
	TokensPerSecond float64                `json:"tokens_per_second"`
	Notes           int                    `json:"notes"`
	Tracks          int                    `json:"tracks"`
	// Understood is what the prompt was read as: every attribute with its
	// value and source (implied ones drawn for the seed), mood, ensemble,
	// dynamics, and the words not used (app.Understand).
	Understood *app.Understanding `json:"understood,omitempty"`
}

// promptFlags are the flags of the prompt form of `amt generate`.
type promptFlags struct {
	model, out, wav *string
	seed            *uint64
	bars, topK, n   *int
	temp, topP      *float64
	jsonOut         *bool
	keyBias         *float64
	rhythmBias      *float64
	candidates      *int
	device          *string
	form            *string
	cont, regen     *string
	exact           *bool
	levers          *string
}

func definePromptFlags(fs *flag.FlagSet) promptFlags {
	return promptFlags{
		model:      fs.String("model", "", "model folder (default: the embedded model); without a prompt the model alone samples every attribute, the length included, unless --bars, --form, --candidates, --levers, --key-bias or --rhythm-bias asks for more (the prompt path with an empty prompt)"),
		out:        fs.String("o", "", "output MIDI file"),
		wav:        fs.String("wav", "", "also render a WAV file"),
		seed:       fs.Uint64("seed", 1, "sampling seed (same seed, same output)"),
		bars:       fs.Int("bars", 0, "length in bars (default: the prompt's, else 16)"),
		temp:       fs.Float64("temperature", app.DefaultTemperature, "sampling temperature (0: greedy)"),
		topK:       fs.Int("top-k", 0, "sample among the K most likely tokens (0: all)"),
		topP:       fs.Float64("top-p", app.DefaultTopP, "nucleus sampling mass (1: off)"),
		n:          fs.Int("tokens", 0, "new tokens at most (default: enough for the bars; 1024 for --model without a prompt)"),
		jsonOut:    fs.Bool("json", false, "print a JSON object"),
		keyBias:    fs.Float64("key-bias", app.DefaultKeyBias, "logit penalty of pitches outside the requested key's scale (0: the model alone)"),
		rhythmBias: fs.Float64("rhythm-bias", app.DefaultRhythmBias, "logit bonus of the positions where the previous bar started pitched notes (0: none)"),
		candidates: fs.Int("candidates", app.DefaultCandidates, "sample up to N pieces and keep the one that meets the most requested attributes (1: one sample)"),
		device:     fs.String("device", "cpu", deviceFlagHelp),
		form:       fs.String("form", "auto", "form: auto (by genre and length), none, AABA, ABAB, AABB, verse-chorus or strains"),
		cont:       fs.String("continue", "", "continue this MIDI file by --bars bars (default 8); the original is kept as it is"),
		regen:      fs.String("regenerate", "", "re-sample bars A-B of the MIDI file given as the argument, keeping the rest"),
		exact:      fs.Bool("exact", false, exactFlagHelp),
		levers:     fs.String("levers", "default", "decoding levers of issue 24 (docs/MODEL.md, \"The two-sample test\"): default ("+app.DefaultLevers.String()+"), none, or a list of "+strings.Join(app.LeverNames(), ", ")),
	}
}

// pieceFlags are the flags that ask something of the piece beyond the
// sampling: given to `--model DIR` without a prompt, they take the prompt
// path with an empty prompt, which honours them.
var pieceFlags = []string{"bars", "form", "candidates", "levers", "key-bias", "rhythm-bias"}

// isPromptForm reports whether `amt generate` arguments ask for the prompt
// form: a prompt, no --model (the embedded model), --continue or
// --regenerate, or one of pieceFlags. Only `--model DIR` without a prompt
// and without those is the model-only form (the model alone samples every
// attribute, the length included). Both forms parse the same flags.
func isPromptForm(c *Command, args []string) bool {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := definePromptFlags(fs)
	pos, err := ParseInterleaved(fs, args)
	if err != nil {
		return true // the prompt form reports the usage error
	}
	piece := false
	fs.Visit(func(fl *flag.Flag) { piece = piece || slices.Contains(pieceFlags, fl.Name) })
	return len(pos) > 0 || *f.model == "" || *f.cont != "" || *f.regen != "" || piece
}

// runPromptGenerate is `amt generate "PROMPT" -o out.mid [--wav out.wav]
// [--seed S] [--bars N] [--json]`, with the embedded model unless --model.
func runPromptGenerate(ctx context.Context, env *Env, c *Command, args []string) error {
	fs := NewFlags(env, c)
	f := definePromptFlags(fs)
	model, out, wav, seed, bars, temp, topK, topP, n, jsonOut := f.model, f.out, f.wav, f.seed, f.bars, f.temp, f.topK, f.topP, f.n, f.jsonOut
	pos, err := ParseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return fmt.Errorf("%w: one prompt (quoted), got %d arguments", ErrUsage, len(pos))
	}
	if *out == "" {
		return fmt.Errorf("%w: -o out.mid is required", ErrUsage)
	}
	var input *app.FileArg // the MIDI file read: --continue's or --regenerate's
	switch {
	case *f.cont != "":
		input = &app.FileArg{Name: "--continue", Path: *f.cont}
	case *f.regen != "" && len(pos) == 1:
		input = &app.FileArg{Name: "--regenerate's file", Path: pos[0]}
	}
	if env, err = checkGenerateOutputs(env, *out, *wav, input); err != nil { // generate.go
		return err
	}
	if err := checkGenerate(*bars, *n, *temp, *topK, *topP, *f.candidates, *f.keyBias, *f.rhythmBias); err != nil {
		return err
	}
	if !slices.Contains(app.Forms, *f.form) {
		return fmt.Errorf("%w: --form %q: one of %s", ErrUsage, *f.form, strings.Join(app.Forms, ", "))
	}
	edit, file := *f.cont != "" || *f.regen != "", *f.cont
	var from, to int
	switch {
	case *f.cont != "" && *f.regen != "":
		return fmt.Errorf("%w: --continue and --regenerate: one at a time", ErrUsage)
	case *f.cont != "" && len(pos) > 0:
		return fmt.Errorf("%w: --continue FILE.mid takes no prompt", ErrUsage)
	case *f.regen != "":
		if len(pos) != 1 {
			return fmt.Errorf("%w: --regenerate A-B FILE.mid: want the MIDI file as the argument", ErrUsage)
		}
		file = pos[0]
		if from, to, err = app.ParseBarRange(*f.regen); err != nil {
			return fmt.Errorf("%w: --regenerate: %v", ErrUsage, err)
		}
	}
	if *f.cont != "" && *bars == 0 {
		*bars = 8
	}
	if *f.cont != "" && *bars > app.MaxContinueBars {
		return fmt.Errorf("%w: --bars %d: at most %d for --continue", ErrUsage, *bars, app.MaxContinueBars)
	}
	var src *midi.Score
	if edit {
		if src, err = app.ReadMIDI(file); err != nil {
			return fmt.Errorf("generate: %w", err)
		}
	}
	prompt := ""
	if len(pos) == 1 {
		prompt = pos[0]
	}
	var m *app.Model
	if *model != "" {
		if m, err = app.LoadModel(*model); err != nil {
			return fmt.Errorf("generate: %w", err)
		}
		defer m.Close()
	} else if m, err = app.DefaultModel(); err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	if *f.exact {
		m.Exact = true
	}
	if g, _, err := m.OnDevice(*f.device); err != nil { // --device (app/device.go)
		return fmt.Errorf("generate: %w", err)
	} else if g != m {
		defer g.Close()
		m = g
	}
	if *temp == 0 {
		*temp = 1e-9 // greedy through the nucleus; 0 means default in PromptRequest
	}
	levers, err := app.ParseLevers(*f.levers)
	if err != nil {
		return err
	}
	var r *app.PromptResult
	ss := app.SampleSettings{Temperature: *temp, TopK: *topK, TopP: *topP, Seed: *seed}
	switch {
	case *f.cont != "":
		r, err = app.ContinueScore(ctx, m, src, file, *bars, ss, nil)
	case *f.regen != "":
		r, err = app.RegenerateScore(ctx, m, src, file, from, to, ss, *f.candidates, nil)
	default:
		r, err = app.GenerateFromPrompt(ctx, m, app.PromptRequest{Prompt: prompt, Bars: *bars, Seed: *seed, Temperature: *temp,
			TopK: *topK, TopP: *topP, MaxTokens: *n, KeyBias: float32(*f.keyBias), RhythmBias: float32(*f.rhythmBias), Candidates: *f.candidates, Form: *f.form, Levers: levers})
	}
	if err != nil {
		return err
	}
	if err := app.WriteMIDI(*out, r.Score); err != nil {
		return err
	}
	if want := r.Requested.Bars; want > 0 && r.Measured.Bars < float64(want)-0.5 { // the token budget ran out
		fmt.Fprintf(env.Stderr, "warning: the piece ends after %.0f of the %d bars asked: generation stopped at its token limit (--tokens)\n", r.Measured.Bars, want)
	}
	if *wav != "" {
		if _, err := app.RenderScore(ctx, r.Score, app.RenderOptions{Output: *wav}); err != nil {
			return fmt.Errorf("generate: render %s: %w", *wav, err)
		}
	}
	res := PromptGenerateJSON{Prompt: prompt, Model: m.Dir, Out: *out, WAV: *wav, Seed: *seed, Requested: r.Requested,
		Measured: r.Measured, Adherence: r.Adherence, Tokens: r.New, Candidates: r.Tried, Form: r.Form.String(), Restated: r.Restated, Seconds: r.Seconds, Notes: r.Score.NoteCount(), Tracks: len(r.Score.Tracks), Understood: r.Understood}
	if r.Levers != 0 {
		res.Levers = r.Levers.String()
	}
	if r.Seconds > 0 {
		res.TokensPerSecond = float64(r.Sampled) / r.Seconds
	}
	if *jsonOut {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	if r.Understood != nil && prompt != "" {
		fmt.Fprintf(env.Stdout, "understood from the prompt (for seed %d):\n", *seed)
		for _, l := range r.Understood.Summary() {
			fmt.Fprintf(env.Stdout, "  %s\n", l)
		}
	}
	fmt.Fprintf(env.Stdout, "wrote %s: %.0f bars, %d notes on %d tracks, %d tokens in %.2fs\n", *out, r.Measured.Bars, res.Notes, res.Tracks, res.Tokens, r.Seconds)
	fmt.Fprintf(env.Stdout, "measured: %.0f bpm, %s, %d/%d, programs %v, drums %v\n", r.Measured.TempoBPM, r.Measured.Key,
		r.Measured.MeterNum, r.Measured.MeterDen, r.Measured.Programs, r.Measured.Drums)
	return nil
}

// checkGenerate checks the flags of `amt generate` (both forms).
func checkGenerate(bars, tokens int, temp float64, topK int, topP float64, candidates int, keyBias, rhythmBias float64) error {
	return app.FirstError(
		app.IntIn("bars", bars, 0, app.MaxGenerateBars),
		app.IntIn("tokens", tokens, 0, app.MaxGenerateTokens),
		app.CheckSampling(temp, topK, topP),
		app.IntIn("candidates", candidates, 1, app.MaxCandidates),
		app.FloatIn("key-bias", keyBias, 0, app.MaxKeyBias),
		app.FloatIn("rhythm-bias", rhythmBias, 0, app.MaxKeyBias))
}
