package app

import (
	"fmt"

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
	s, err := readMIDI(Stopping(), path)
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
