package app

import (
	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/internal/splitmix"
)

// Key frames (docs/MODEL.md, "Key frame"). A model whose config.json says
// amt_key_frame "tonic" (gpt.KeyFrameTonic) was trained on music moved to C
// major or A minor: its KEY token names the mode, and the app moves what it
// writes to the requested tonic. Every path that samples goes through
// here: the prompt path (generateOne), GenerateScore, continuation and
// regeneration (the user's music is moved into the frame, the result back
// out). A model without the key is absolute (every key, KEY names tonic
// and mode) and nothing is moved.
//
// Why: the absolute model learned from KEY the pitch set of a piece's
// opening but not its tonic, and kept the requested key in 9% of the
// suite's pieces by itself (14% after a longer run); a tonic frame gives
// each mode one tonic to learn, twelve times the examples per key.

// tonicFrame reports whether m writes in the tonic frame.
func (m *Model) tonicFrame() bool { return m.Net.Config.KeyFrame == gpt.KeyFrameTonic }

// frameTonic is the tonic a mode is written in under the tonic frame.
func frameTonic(minor bool) int {
	if minor {
		return 9 // A minor
	}
	return 0 // C major
}

// frameShift is the move from the frame to tonic, in −6…5 semitones.
func frameShift(tonic int, minor bool) int {
	s := ((tonic-frameTonic(minor))%12 + 12) % 12
	if s > 5 {
		s -= 12
	}
	return s
}

// toFrame returns the attributes the model is asked for and the shift that
// moves what it writes to the request: a requested key becomes its mode's
// frame key; with no key requested the model picks the mode and the tonic
// is drawn from seed (any of the twelve, as an absolute model would). An
// absolute model gets a unchanged and shift 0.
func (m *Model) toFrame(a token.Attributes, seed uint64) (token.Attributes, int) {
	if !m.tonicFrame() {
		return a, 0
	}
	if a.KeyTonic < 0 {
		// splitmix-style mixing so neighbouring seeds draw unrelated tonics
		return a, int(splitmix.Mix64(seed+0x9E3779B97F4A7C15)%12) - 6
	}
	s := frameShift(a.KeyTonic, a.KeyMinor)
	a.KeyTonic = frameTonic(a.KeyMinor)
	return a, s
}

// moveTokens transposes a token sequence by shift semitones (pitched notes
// and KEY; drums stay), folding any pitch that would leave 0–127 back by
// octaves. Shift 0 returns toks itself.
func moveTokens(v *token.Vocab, toks []uint16, shift int) []uint16 {
	if shift == 0 {
		return toks
	}
	out, _ := v.TransposeFold(make([]uint16, 0, len(toks)), toks, shift)
	return out
}

// primeShift is the move from the frame to the key of music the user gives
// (its measured key): the music is moved by −shift into the frame, what the
// model writes by +shift out of it. 0 for an absolute model or music
// without a measured key.
func (m *Model) primeShift(a token.Attributes) int {
	if !m.tonicFrame() || a.KeyTonic < 0 {
		return 0
	}
	return frameShift(a.KeyTonic, a.KeyMinor)
}
