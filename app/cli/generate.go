package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/token"
)

// GenerateResult is the JSON of `amt generate --json`.
type GenerateResult struct {
	Out             string           `json:"out"`
	WAV             string           `json:"wav,omitempty"`
	Tokens          int              `json:"tokens"`
	Seconds         float64          `json:"seconds"`
	TokensPerSecond float64          `json:"tokens_per_second"`
	Notes           int              `json:"notes"`
	Tracks          int              `json:"tracks"`
	Attributes      token.Attributes `json:"attributes"`
	Seed            uint64           `json:"seed"`
	Device          string           `json:"device"` // the backend that sampled and why
}

func init() {
	c := &Command{
		Name:    "generate",
		Usage:   "generate [\"PROMPT\"] -o out.mid [--model DIR] [--wav out.wav] [--bars N] [--tokens N] [--seed S] [--temperature X] [--top-k K] [--top-p P] [--candidates N] [--form F] [--levers L] [--key-bias X] [--rhythm-bias Y] [--continue FILE.mid | --regenerate A-B FILE.mid] [--device cpu|cuda|auto] [--exact] [--json]",
		Summary: "generate a MIDI file from a prompt with the embedded default model (or --model DIR); --model without a prompt samples every attribute",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		if isPromptForm(c, args) {
			return runPromptGenerate(ctx, env, c, args)
		}
		// The model-only form: --model DIR, no prompt, nothing asked of the
		// piece. It parses the prompt form's flags, so every flag --help
		// lists is accepted; those that ask something of the piece took
		// the prompt path above (isPromptForm).
		fs := NewFlags(env, c)
		f := definePromptFlags(fs)
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) > 0 { // isPromptForm sends a prompt to the prompt form
			return fmt.Errorf("%w: unexpected argument %q", ErrUsage, pos[0])
		}
		model, out, wav, n, seed, temp, topK, topP := *f.model, *f.out, *f.wav, *f.n, *f.seed, *f.temp, *f.topK, *f.topP
		if model == "" || out == "" {
			return fmt.Errorf("%w: --model and -o are required", ErrUsage)
		}
		if env, err = checkGenerateOutputs(env, out, wav, nil); err != nil {
			return err
		}
		if err := checkGenerate(0, n, temp, topK, topP, 1, 0, 0); err != nil {
			return err
		}
		m, err := app.LoadModel(model)
		if err != nil {
			return fmt.Errorf("generate: %w", err)
		}
		defer m.Close()
		if *f.exact {
			m.Exact = true
		}
		g, choice, err := m.OnDevice(*f.device)
		if err != nil {
			return fmt.Errorf("generate: %w", err)
		}
		if g != m {
			defer g.Close()
			m = g
		}
		// --tokens 0 is GenerateScore's 1024.
		gen, err := app.GenerateScore(ctx, m, nil, app.SampleSettings{MaxTokens: n, Temperature: temp, TopK: topK, TopP: topP, Seed: seed}, nil)
		if err != nil {
			return err
		}
		s, attrs, secs, toks := gen.Score, gen.Attrs, gen.Seconds, gen.New
		if err := app.WriteMIDI(out, s); err != nil {
			return err
		}
		if wav != "" {
			if _, err := app.RenderScore(ctx, s, app.RenderOptions{Output: wav}); err != nil {
				return fmt.Errorf("generate: render %s: %w", wav, err)
			}
		}
		r := GenerateResult{Out: out, WAV: wav, Tokens: toks, Seconds: secs, TokensPerSecond: float64(toks) / secs,
			Notes: s.NoteCount(), Tracks: len(s.Tracks), Attributes: attrs, Seed: seed, Device: choice.Reason}
		if *f.jsonOut {
			return json.NewEncoder(env.Stdout).Encode(r)
		}
		fmt.Fprintf(env.Stdout, "wrote %s: %d tokens in %.2fs on %s, %d notes on %d tracks\n", out, r.Tokens, secs, r.Device, r.Notes, r.Tracks)
		return nil
	}
	Register(c)
}

// checkGenerateOutputs checks the outputs of `amt generate` before any
// work (checkOutputs), --wav's name, and that neither output is the other
// or the MIDI file read (input: --continue's or --regenerate's; nil: none).
func checkGenerateOutputs(env *Env, out, wav string, input *app.FileArg) (*Env, error) {
	env, err := checkOutputs(env, out, wav) // output.go
	if err != nil {
		return env, err
	}
	if err := checkWAVName("--wav", wav); err != nil { // render.go
		return env, err
	}
	var ins []app.FileArg
	if input != nil {
		ins = append(ins, *input)
	}
	return env, app.CheckApart(ins, []app.FileArg{{Name: "-o", Path: out}, {Name: "--wav", Path: wav}})
}
