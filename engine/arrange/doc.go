// Package arrange builds the arranged corpus (issue 12, docs/DATA.md):
// real melodies and chords from POP909 and the Nottingham folk tunes, set
// over accompaniment grooves that MMA (Musical MIDI Accompaniment, Debian
// package mma) generates, so the model sees steady beats, bass lines and
// comping in many genres.
//
// The pure parts are testable without MMA: chord symbols (ParsePOP909,
// ParseABC), the groove catalogue with each groove's meter, tempo range and
// genre family (Catalogue, Choose), the MMA source text of one arrangement
// (Plan.MMA), the ABC tune bodies with repeats expanded (ParseABCBook,
// Tune.Expand), and merging the source's melody (and, in some variants, its
// piano part) into MMA's output bar for bar (Merge). Build runs mma over
// whole corpora, deterministically: MMA's random humanisation is seeded
// (RndSeed) and Python's hash seed is fixed, so the same inputs give
// byte-identical files.
//
// Alignment: MMA writes only the accompaniment, in its own 192 ticks per
// beat, one MMA bar per source bar (or two source bars per MMA bar for
// 2/4 tunes, two MMA bars per source bar for double-time grooves); Merge
// scales its ticks onto the source's grid, whose bar 0 starts at tick 0
// (a pickup becomes a bar of rests in the groove), and keeps the source's
// tempo map, meter and key.
//
// It is part of the engine: it imports engine/midi and engine/atomicfile and
// must never import app/, ui/ or storage/.
package arrange
