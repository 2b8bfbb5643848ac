// Package eval owns the evaluation of music: per-piece musical metrics
// measured from a midi.Score (pitch-class entropy, scale and groove
// consistency, polyphony, empty beats, pitch range, note rate, inter-onset
// interval, drum patterns, key and tempo as measured), musicality per piece
// (notes and onsets per beat, share of bars with drums, programs, bar and
// rhythm repetition, last-bar pile-up, share of notes in a scale:
// musicality.go), set statistics (mean ± std, median) against
// a reference set (mean ± std and the intra/inter-set distance method of
// mgeval: kernel density estimates, overlap area and KL divergence), and
// prompt adherence of a piece to requested token.Attributes (the MidiCaps
// TB/TBT/CK/CKD scores, meter, instruments, drums as the share of bars
// with drums, length and their mean, ASA).
//
// Definitions (the grid and every convention) are written next to each
// metric in metrics.go and adherence.go; tests check each on scores built by
// hand with the arithmetic in comments.
//
// eval is part of the engine: it must never import app/, ui/ or storage/.
package eval
