// Package token owns the vocabulary, the conversion Score ⇄ tokens
// (REMI-style with programs, after an attribute prefix), and the decoding
// grammar that keeps sampled sequences valid.
//
// It imports engine/midi and never app/, ui/ or storage/.
package token
