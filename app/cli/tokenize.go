package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/token"
)

func init() {
	c := &Command{
		Name:    "tokenize",
		Usage:   "tokenize FILE.mid [--json] [--tokens] [--vocab vocab.json]",
		Summary: "encode a MIDI file as tokens: count, attribute prefix, round-trip note match",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		asJSON := fs.Bool("json", false, "print one JSON object")
		withTokens := fs.Bool("tokens", false, "also print every token")
		vocabPath := fs.String("vocab", "", "vocabulary file (default: the built-in vocabulary)")
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return fmt.Errorf("%w: want one MIDI file, got %d arguments", ErrUsage, len(pos))
		}
		v := token.DefaultVocab()
		if *vocabPath != "" {
			if v, err = app.LoadVocab(*vocabPath); err != nil {
				return err
			}
		}
		r, err := app.Tokenize(pos[0], v, *withTokens)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(env.Stdout)
			return enc.Encode(r)
		}
		fmt.Fprintf(env.Stdout, "file:       %s\n", Safe(r.File))
		fmt.Fprintf(env.Stdout, "tokens:     %d (%d notes, %d bars, vocabulary %d)\n", r.Tokens, r.Notes, r.Bars, r.VocabSize)
		fmt.Fprintf(env.Stdout, "prefix:     %s\n", strings.Join(r.Prefix, " "))
		fmt.Fprintf(env.Stdout, "round trip: %.2f%% of notes (%.2f%% with exact durations)\n",
			100*r.RoundTripNoteMatch, 100*r.RoundTripExact)
		if r.Sequence != nil {
			fmt.Fprintln(env.Stdout, strings.Join(r.Sequence, " "))
		}
		return nil
	}
	Register(c)
}
