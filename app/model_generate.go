package app

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/amtstudio/amt/engine/eval"
	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/text"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train/condition"
)

// DefaultBars is the length of a generated piece when neither the prompt
// nor the caller names one.
const DefaultBars = 16

// PromptRequest is one prompt-driven generation (the path of `amt generate
// "PROMPT"`, the prompt suite and the Compose screen).
type PromptRequest struct {
	Prompt string
	// Attrs, when set, replaces the attributes read from the prompt.
	Attrs *token.Attributes
	// Bars, when > 0, overrides the prompt's length; else the prompt's, else
	// DefaultBars. The piece has exactly this many bars.
	Bars        int
	Seed        uint64
	Temperature float64 // 0: DefaultSampling's
	TopK        int
	TopP        float64 // 0: DefaultSampling's
	MaxTokens   int     // 0: enough for the bars
	// KeyBias lowers the logits of pitches outside the requested key's
	// scale by this much (condition.KeyBias); 0: the model alone.
	KeyBias float32
	// Candidates is how many pieces to sample at most (0 or 1: one); the
	// one that meets the most requested attributes (eval.Adhere) is kept,
	// the earliest on a tie, and sampling stops at the first that meets
	// them all. Candidate i samples with seed Seed + i·0x9E3779B97F4A7C15,
	// so the first is the single-sample piece and the result still depends
	// only on the request.
	Candidates int
	// Form is the form of the piece (condition.Forms; "" or "auto": by
	// genre and length, condition.PlanForm): later sections restate
	// earlier ones.
	Form string
	// OnToken (may be nil) sees the count of tokens sampled so far (over
	// all candidates).
	OnToken func(n int)
}

// Forms are the form names a request may give.
var Forms = condition.Forms

// Default sampling of the prompt path.
const (
	DefaultTemperature = 0.95
	DefaultTopP        = 0.95
	// DefaultKeyBias is the key-scale logit penalty of the prompt path
	// (PromptRequest.KeyBias) used by amt generate, eval-model and Compose.
	// DefaultCandidates is how many pieces it samples at most to find one
	// that meets every requested attribute (PromptRequest.Candidates). On
	// the 116-prompt suite with the 1,500-step model (docs/MODEL.md): the
	// model alone keeps the requested key in 19% of pieces, bias 1 alone in
	// about 40%, bias 1 with 4 candidates in 79%, with pitch-class entropy
	// 6% below the corpora (bias 1.5 with 4: 76%, −8.5%).
	DefaultKeyBias    = 1
	DefaultCandidates = 4
)

// PromptResult is a generated piece with what was asked and what it has.
type PromptResult struct {
	Score     *midi.Score
	Requested token.Attributes // forced (instruments mapped to trained programs)
	Decoded   token.Attributes // the sequence's prefix as sampled
	Measured  MeasuredAttributes
	Metrics   eval.Metrics
	Adherence eval.Adherence
	Tokens    []uint16
	New       int     // tokens sampled for this piece
	Sampled   int     // tokens sampled over all candidates tried
	Tried     int     // candidates sampled (PromptRequest.Candidates)
	Seconds   float64 // sampling time over all candidates
	Form      condition.Plan
	Restated  int // tokens restated by the form
}

// MeasuredAttributes are the attributes as measured from the generated
// score (what evaluation checks), in the shape of the request.
type MeasuredAttributes struct {
	TempoBPM float64 `json:"tempo_bpm"`
	Key      string  `json:"key"`
	KeyTonic int     `json:"key_tonic"`
	KeyMinor bool    `json:"key_minor"`
	MeterNum int     `json:"meter_num"`
	MeterDen int     `json:"meter_den"`
	Programs []int   `json:"programs"`
	Drums    bool    `json:"drums"`
	Bars     float64 `json:"bars"`
}

// RequestAttributes reads a prompt into the attributes to force: the
// parser's attributes, density words mapped to density bins, requested
// programs mapped onto programs the model was trained on, style left to
// the model, and the length (bars > 0 overrides; default DefaultBars).
func RequestAttributes(prompt string, v *token.Vocab, bars int) token.Attributes {
	p := text.ParsePrompt(prompt)
	a := p.Attrs
	if a.Density < 0 {
		sparse, dense := 3.0, 20.0 // notes per bar (vocabulary v1)
		if v.Config().DensityPerBeat {
			// notes per quarter note: Nottingham's median is 2.6, POP909's
			// 5.1, the arranged corpus's about 15 (drums included)
			sparse, dense = 1.25, 12
		}
		switch p.Density {
		case "sparse":
			a.Density = v.DensityBin(sparse)
		case "dense":
			a.Density = v.DensityBin(dense)
		}
	}
	return finishRequest(a, bars)
}

func finishRequest(a token.Attributes, bars int) token.Attributes {
	if a.Programs != nil {
		a.Programs = condition.NearestPrograms(a.Programs)
		if len(a.Programs) == 0 && (a.Drums == nil || !*a.Drums) {
			a.Programs = nil // an empty list names nothing: left to the model
		}
	}
	a.Style = -1
	if bars > 0 {
		a.Bars = bars
	}
	if a.Bars <= 0 {
		a.Bars = DefaultBars
	}
	return a
}

// GenerateFromPrompt samples a piece that follows the prompt: the
// attributes it names are forced in the prefix (the model samples or skips
// the others), the grammar allows only the requested programs, the piece
// has exactly the requested bars, and when the model's window fills the
// prefix stays pinned (condition.Refill). The caller serialises calls on
// one model.
func GenerateFromPrompt(ctx context.Context, m *Model, req PromptRequest) (*PromptResult, error) {
	if err := checkPromptRequest(req); err != nil { // app/limits.go
		return nil, err
	}
	n := max(req.Candidates, 1)
	var best *PromptResult
	tokens := 0
	onToken := req.OnToken
	var secs float64
	for i := range n {
		r := req
		r.Seed = req.Seed + uint64(i)*0x9E3779B97F4A7C15
		if onToken != nil {
			base := tokens
			r.OnToken = func(k int) { onToken(base + k) }
		}
		res, err := generateOne(ctx, m, r)
		if err != nil {
			return nil, err
		}
		tokens += res.New
		secs += res.Seconds
		if best == nil || res.Adherence.Met > best.Adherence.Met {
			best = res
		}
		best.Tried = i + 1
		if best.Adherence.Met == best.Adherence.Checked {
			break
		}
	}
	best.Seconds, best.Sampled = secs, tokens
	return best, nil
}

// generateOne samples one piece for GenerateFromPrompt.
func generateOne(ctx context.Context, m *Model, req PromptRequest) (*PromptResult, error) {
	v := m.Vocab
	var a token.Attributes
	if req.Attrs != nil {
		a = finishRequest(*req.Attrs, req.Bars)
	} else {
		a = RequestAttributes(req.Prompt, v, req.Bars)
	}
	g := v.NewGrammar()
	g.Force(a)
	c := condition.NewBars(v, g, a.Bars)
	if a.Programs != nil {
		c.Require(a.Programs, false) // drums come from INSTRUMENT_DRUMS, not a forced hit
	} else {
		c.MaxInstruments = condition.DefaultMaxInstruments
	}
	c.CommonMetersOnly()
	plan, err := condition.PlanForm(req.Form, a.Genre, a.Bars)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	form := condition.NewRestater(v, c, plan)
	temp, topP := req.Temperature, req.TopP
	if temp == 0 {
		temp = DefaultTemperature
	}
	if topP == 0 {
		topP = DefaultTopP
	}
	maxTok := req.MaxTokens
	if maxTok <= 0 {
		maxTok = min(max(1024, a.Bars*200), 32768)
	}
	s := m.Net.NewSampler(0)
	opts := gpt.SampleOptions{MaxTokens: maxTok, Temperature: temp, TopK: req.TopK, TopP: topP, Seed: req.Seed,
		EOS: int(v.EOS), Constraint: form, Force: form.Force, Adjust: c.Adjust,
		Refill: func(hist []uint16) []uint16 { return condition.RefillBars(v, hist, s.W/2, a.Bars) }}
	opts.Mask = condition.KeyBias(v, c, a.KeyTonic, a.KeyMinor, req.KeyBias)
	if req.OnToken != nil {
		n := 0
		opts.OnToken = func(uint16) error { n++; req.OnToken(n); return nil }
	}
	prompt := []uint16{v.BOS}
	start := time.Now()
	toks, err := s.Generate(ctx, prompt, opts)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	secs := time.Since(start).Seconds()
	all := append(append([]uint16(nil), prompt...), toks...)
	sc, dec, err := v.Decode(all)
	if err != nil {
		return nil, fmt.Errorf("generate: decode: %w", err)
	}
	clipToBars(sc, a.Bars)
	r := &PromptResult{Score: sc, Requested: a, Decoded: dec, Tokens: all, New: len(toks), Seconds: secs, Form: plan, Restated: form.Forced}
	mt, err := eval.Measure(sc)
	if err != nil {
		return nil, fmt.Errorf("generate: measure: %w", err)
	}
	r.Metrics = mt
	r.Adherence = eval.Adhere(a, &mt)
	r.Measured = MeasuredAttributes{TempoBPM: mt.TempoBPM, Key: mt.Key.String(), KeyTonic: mt.Key.Tonic, KeyMinor: mt.Key.Minor,
		MeterNum: mt.MeterNum, MeterDen: mt.MeterDen, Programs: append([]int{}, mt.Programs...), Drums: mt.HasDrums, Bars: mt.Bars}
	return r, nil
}

// PromptGenerateJSON is what `amt generate "PROMPT" --json` prints.
type PromptGenerateJSON struct {
	Prompt          string             `json:"prompt"`
	Model           string             `json:"model"`
	Out             string             `json:"out"`
	WAV             string             `json:"wav,omitempty"`
	Seed            uint64             `json:"seed"`
	Requested       token.Attributes   `json:"requested"`
	Measured        MeasuredAttributes `json:"measured"`
	Adherence       eval.Adherence     `json:"adherence"`
	Tokens          int                `json:"tokens"`
	Candidates      int                `json:"candidates"` // pieces sampled to find this one
	Form            string             `json:"form"`       // the form planned, e.g. "AABA (A A' B A, 4-bar sections)"
	Restated        int                `json:"restated_tokens"`
	Seconds         float64            `json:"seconds"`
	TokensPerSecond float64            `json:"tokens_per_second"`
	Notes           int                `json:"notes"`
	Tracks          int                `json:"tracks"`
}

// promptFlags are the flags of the prompt form of `amt generate`.
type promptFlags struct {
	model, out, wav *string
	seed            *uint64
	bars, topK, n   *int
	temp, topP      *float64
	jsonOut         *bool
	keyBias         *float64
	candidates      *int
	device          *string
	form            *string
	cont, regen     *string
}

func definePromptFlags(fs *flag.FlagSet) promptFlags {
	return promptFlags{
		model:      fs.String("model", "", "model folder (default: the embedded model)"),
		out:        fs.String("o", "", "output MIDI file"),
		wav:        fs.String("wav", "", "also render a WAV file"),
		seed:       fs.Uint64("seed", 1, "sampling seed (same seed, same output)"),
		bars:       fs.Int("bars", 0, "length in bars (default: the prompt's, else 16)"),
		temp:       fs.Float64("temperature", DefaultTemperature, "sampling temperature (0: greedy)"),
		topK:       fs.Int("top-k", 0, "sample among the K most likely tokens (0: all)"),
		topP:       fs.Float64("top-p", DefaultTopP, "nucleus sampling mass (1: off)"),
		n:          fs.Int("tokens", 0, "new tokens at most (default: enough for the bars)"),
		jsonOut:    fs.Bool("json", false, "print a JSON object"),
		keyBias:    fs.Float64("key-bias", DefaultKeyBias, "logit penalty of pitches outside the requested key's scale (0: the model alone)"),
		candidates: fs.Int("candidates", DefaultCandidates, "sample up to N pieces and keep the one that meets the most requested attributes (1: one sample)"),
		device:     fs.String("device", "cpu", DeviceFlagHelp),
		form:       fs.String("form", "auto", "form: auto (by genre and length), none, AABA, ABAB, AABB or verse-chorus"),
		cont:       fs.String("continue", "", "continue this MIDI file by --bars bars (default 8); the original is kept as it is"),
		regen:      fs.String("regenerate", "", "re-sample bars A-B of the MIDI file given as the argument, keeping the rest"),
	}
}

// isPromptForm reports whether `amt generate` arguments ask for the prompt
// form: a prompt, or no --model (the embedded model). Only `--model DIR`
// without a prompt is the model-only form.
func isPromptForm(c *Command, args []string) bool {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := definePromptFlags(fs)
	pos, err := ParseInterleaved(fs, args)
	if err != nil {
		return true // the prompt form reports the usage error
	}
	return len(pos) > 0 || *f.model == "" || *f.cont != "" || *f.regen != ""
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
	if err := checkGenerate(*bars, *n, *temp, *topK, *topP, *f.candidates, *f.keyBias); err != nil {
		return err
	}
	if !slices.Contains(Forms, *f.form) {
		return fmt.Errorf("%w: --form %q: one of %s", ErrUsage, *f.form, strings.Join(Forms, ", "))
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
		if from, to, err = ParseBarRange(*f.regen); err != nil {
			return fmt.Errorf("%w: --regenerate: %v", ErrUsage, err)
		}
	}
	if *f.cont != "" && *bars == 0 {
		*bars = 8
	}
	if *f.cont != "" && *bars > MaxContinueBars {
		return fmt.Errorf("%w: --bars %d: at most %d for --continue", ErrUsage, *bars, MaxContinueBars)
	}
	var src *midi.Score
	if edit {
		if src, err = midi.ReadFile(file); err != nil {
			return fmt.Errorf("generate: %w", err)
		}
	}
	prompt := ""
	if len(pos) == 1 {
		prompt = pos[0]
	}
	var m *Model
	if *model != "" {
		if m, err = LoadModel(*model); err != nil {
			return fmt.Errorf("generate: %w", err)
		}
		defer m.Close()
	} else if m, err = DefaultModel(); err != nil {
		return fmt.Errorf("generate: %w", err)
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
	var r *PromptResult
	ss := SampleSettings{Temperature: *temp, TopK: *topK, TopP: *topP, Seed: *seed}
	switch {
	case *f.cont != "":
		r, err = ContinueScore(ctx, m, src, file, *bars, ss, nil)
	case *f.regen != "":
		r, err = RegenerateScore(ctx, m, src, file, from, to, ss, *f.candidates, nil)
	default:
		r, err = GenerateFromPrompt(ctx, m, PromptRequest{Prompt: prompt, Bars: *bars, Seed: *seed, Temperature: *temp,
			TopK: *topK, TopP: *topP, MaxTokens: *n, KeyBias: float32(*f.keyBias), Candidates: *f.candidates, Form: *f.form})
	}
	if err != nil {
		return err
	}
	if err := midi.WriteFile(*out, r.Score); err != nil {
		return err
	}
	if want := r.Requested.Bars; want > 0 && r.Measured.Bars < float64(want)-0.5 { // the token budget ran out
		fmt.Fprintf(env.Stderr, "warning: the piece ends after %.0f of the %d bars asked: generation stopped at its token limit (--tokens)\n", r.Measured.Bars, want)
	}
	if *wav != "" {
		if _, err := RenderScore(ctx, r.Score, RenderOptions{Output: *wav}); err != nil {
			return fmt.Errorf("generate: render %s: %w", *wav, err)
		}
	}
	res := PromptGenerateJSON{Prompt: prompt, Model: m.Dir, Out: *out, WAV: *wav, Seed: *seed, Requested: r.Requested,
		Measured: r.Measured, Adherence: r.Adherence, Tokens: r.New, Candidates: r.Tried, Form: r.Form.String(), Restated: r.Restated, Seconds: r.Seconds, Notes: r.Score.NoteCount(), Tracks: len(r.Score.Tracks)}
	if r.Seconds > 0 {
		res.TokensPerSecond = float64(r.Sampled) / r.Seconds
	}
	if *jsonOut {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	fmt.Fprintf(env.Stdout, "wrote %s: %.0f bars, %d notes on %d tracks, %d tokens in %.2fs\n", *out, r.Measured.Bars, res.Notes, res.Tracks, res.Tokens, r.Seconds)
	fmt.Fprintf(env.Stdout, "measured: %.0f bpm, %s, %d/%d, programs %v, drums %v\n", r.Measured.TempoBPM, r.Measured.Key,
		r.Measured.MeterNum, r.Measured.MeterDen, r.Measured.Programs, r.Measured.Drums)
	return nil
}

// clipToBars ends a decoded score at the end of bar n: notes still sounding
// there are cut, so the piece is exactly n bars long (a generated last bar
// may hold notes longer than what is left of it).
func clipToBars(s *midi.Score, n int) {
	if n <= 0 || s.TicksPerBeat <= 0 {
		return
	}
	end := int64(0)
	num, den, mi := 4, 4, 0
	for b := 0; b < n; b++ {
		for mi < len(s.Meters) && s.Meters[mi].Tick <= end {
			if s.Meters[mi].Num > 0 && s.Meters[mi].Den > 0 {
				num, den = s.Meters[mi].Num, s.Meters[mi].Den
			}
			mi++
		}
		end += int64(s.TicksPerBeat) * 4 * int64(num) / int64(den)
	}
	for ti := range s.Tracks {
		notes := s.Tracks[ti].Notes[:0]
		for _, nt := range s.Tracks[ti].Notes {
			if nt.Tick >= end {
				continue
			}
			if nt.Tick+nt.Dur > end {
				nt.Dur = end - nt.Tick
			}
			notes = append(notes, nt)
		}
		s.Tracks[ti].Notes = notes
	}
	// A sequence cut by the token limit ends before bar n: its end stays
	// where the decoded bars end, so the length check sees the shortfall.
	s.EndTick = min(s.EndTick, end)
	s.ComputeSeconds()
}
