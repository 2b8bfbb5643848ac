// Package token owns the vocabulary, the conversion Score ⇄ tokens
// (REMI-style with programs, after an attribute prefix), and the decoding
// grammar that keeps sampled sequences valid.
//
// A sequence is
//
//	BOS [TEMPO_BIN] [KEY] [METER] [INSTRUMENT…] [DENSITY] [LENGTH] [STYLE] SEP
//	Bar TimeSig Tempo  Position Program Pitch Velocity Duration  Pitch …  Position …  Bar …  EOS
//
// Attributes (the prefix) are measured from the score at ingestion
// (Measure), so they are exact labels; at generation the prompt's
// attributes are forced and the rest are left to the model (Prefix omits
// them; Grammar.Force lets the model state them explicitly). The body uses
// a grid of 12 positions per quarter note (triplets and sixteenths exact),
// positions per bar follow the TimeSig, 32 velocity bins, durations exact
// up to 8 beats and coarser beyond, tempo changes on the grid, drums as a
// program of their own whose pitch is the drum sound. Tokens are uint16;
// the default vocabulary has about a thousand.
//
// The prefix constrains the body (first Tempo = TEMPO_BIN, first TimeSig =
// METER, Programs ⊆ INSTRUMENTs, bar count within LENGTH), so what the
// prompt forces is what the decoded score has. Token-level augmentations
// (Transpose, ScaleTempo, Revoice, DropAttributes) keep sequences
// grammatical.
//
// It imports engine/midi and never app/, ui/ or storage/.
package token
