package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// TokenizeResult is what `amt tokenize` reports for one file.
type TokenizeResult struct {
	File       string           `json:"file"`
	Tokens     int              `json:"tokens"`
	Notes      int              `json:"notes"`
	Bars       int              `json:"bars"`
	Prefix     []string         `json:"prefix"` // BOS … SEP as token names
	Attributes token.Attributes `json:"attributes"`
	// RoundTripNoteMatch is the share of notes that come back from
	// Score → tokens → Score with the same grid onset, duration bin, pitch,
	// program and velocity bin; RoundTripExact also requires the same grid
	// duration.
	RoundTripNoteMatch float64  `json:"roundtrip_note_match"`
	RoundTripExact     float64  `json:"roundtrip_exact"`
	VocabSize          int      `json:"vocab_size"`
	Sequence           []string `json:"sequence,omitempty"` // all tokens, with --tokens
}

// Tokenize reads a MIDI file, prepares it as ingestion does (meter
// inference and re-barring, midi.Prepare), measures its attributes,
// encodes it with v and checks the round trip.
func Tokenize(path string, v *token.Vocab, withTokens bool) (*TokenizeResult, error) {
	s, err := midi.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a := v.Measure(s, midi.Prepare(s)) // re-barred when the declared meter gives way
	rt, toks, err := v.CheckRoundTrip(s, a)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sep := 0
	for sep < len(toks) && toks[sep] != v.SEP {
		sep++
	}
	r := &TokenizeResult{File: path, Tokens: len(toks), Notes: rt.Notes, Bars: a.Bars,
		Prefix: v.Names(toks[:min(sep+1, len(toks))]), Attributes: a, RoundTripNoteMatch: rt.Rate(),
		RoundTripExact: 1, VocabSize: v.Size()}
	if rt.Notes > 0 {
		r.RoundTripExact = float64(rt.Exact) / float64(rt.Notes)
	}
	if withTokens {
		r.Sequence = v.Names(toks)
	}
	return r, nil
}

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
			if v, err = token.LoadVocab(*vocabPath); err != nil {
				return err
			}
		}
		r, err := Tokenize(pos[0], v, *withTokens)
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
