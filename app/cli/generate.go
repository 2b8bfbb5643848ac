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
		Usage:   "generate [\"PROMPT\"] -o out.mid [--model DIR] [--wav out.wav] [--bars N] [--tokens N] [--seed S] [--temperature X] [--top-k K] [--top-p P] [--device cpu|cuda|auto] [--json]",
		Summary: "generate a MIDI file from a prompt with the embedded default model (or --model DIR); --model without a prompt samples every attribute",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		if isPromptForm(c, args) {
			return runPromptGenerate(ctx, env, c, args)
		}
		fs := NewFlags(env, c)
		model := fs.String("model", "", "model folder (config.json, model.safetensors, vocab.json)")
		out := fs.String("o", "", "output MIDI file")
		n := fs.Int("tokens", 1024, "new tokens at most")
		seed := fs.Uint64("seed", 1, "sampling seed (same seed, same output)")
		temp := fs.Float64("temperature", 1, "sampling temperature (0: greedy)")
		topK := fs.Int("top-k", 0, "sample among the K most likely tokens (0: all)")
		topP := fs.Float64("top-p", 0.95, "nucleus sampling mass (1: off)")
		jsonOut := fs.Bool("json", false, "print a JSON object")
		dev := fs.String("device", "cpu", deviceFlagHelp)
		exact := fs.Bool("exact", false, exactFlagHelp)
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) > 0 {
			return fmt.Errorf("%w: prompts are not accepted yet (model-only form); got %q", ErrUsage, pos[0])
		}
		if *model == "" || *out == "" {
			return fmt.Errorf("%w: --model and -o are required", ErrUsage)
		}
		if env, err = checkOutputs(env, *out); err != nil { // output.go
			return err
		}
		if err := checkGenerate(0, *n, *temp, *topK, *topP, 1, 0, 0); err != nil {
			return err
		}
		m, err := app.LoadModel(*model)
		if err != nil {
			return fmt.Errorf("generate: %w", err)
		}
		defer m.Close()
		if *exact {
			m.Exact = true
		}
		g, choice, err := m.OnDevice(*dev)
		if err != nil {
			return fmt.Errorf("generate: %w", err)
		}
		if g != m {
			defer g.Close()
			m = g
		}
		gen, err := app.GenerateScore(ctx, m, nil, app.SampleSettings{MaxTokens: *n, Temperature: *temp, TopK: *topK, TopP: *topP, Seed: *seed}, nil)
		if err != nil {
			return err
		}
		s, attrs, secs, toks := gen.Score, gen.Attrs, gen.Seconds, gen.New
		if err := app.WriteMIDI(*out, s); err != nil {
			return err
		}
		r := GenerateResult{Out: *out, Tokens: toks, Seconds: secs, TokensPerSecond: float64(toks) / secs,
			Notes: s.NoteCount(), Tracks: len(s.Tracks), Attributes: attrs, Seed: *seed, Device: choice.Reason}
		if *jsonOut {
			return json.NewEncoder(env.Stdout).Encode(r)
		}
		fmt.Fprintf(env.Stdout, "wrote %s: %d tokens in %.2fs on %s, %d notes on %d tracks\n", *out, r.Tokens, secs, r.Device, r.Notes, r.Tracks)
		return nil
	}
	Register(c)
}
