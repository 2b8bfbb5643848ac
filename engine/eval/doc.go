// Package eval owns the evaluation of music:
//
//   - per-piece musical metrics measured from a midi.Score (pitch-class
//     entropy, scale and groove consistency, polyphony, empty beats, pitch
//     range, note rate, inter-onset interval, drum patterns, key and tempo
//     as measured: metrics.go);
//   - per-piece musicality (issue 13: musicality.go): notes and onsets per
//     beat (a beat is a quarter note), the share of bars with drums, the
//     number of pitched programs, bar repetition (pitch + rhythm,
//     transposition-invariant), rhythm repetition, last-bar pile-up, and
//     the share of notes in a key's scale;
//   - set statistics (mean ± std and median per metric) and the
//     intra/inter-set distance comparison of mgeval (kernel density
//     estimates, overlap area and KL divergence: set.go);
//   - prompt adherence of a piece to requested token.Attributes (the
//     MidiCaps TB/TBT/CK/CKD scores, meter, instruments, drums as the share
//     of bars with drums, length and their mean, ASA: adherence.go);
//   - copying: the longest run of bars a piece repeats from one indexed
//     training piece, pitched onsets on the grid at any one transposition
//     (copying.go, issue 34).
//
// Definitions (the grid, the bars, every convention) are written next to
// each metric; tests check each on scores built by hand with the arithmetic
// in comments, the bar-based ones also against a brute-force recount on
// random scores, and the corpus tests measure the real corpora (POP909,
// Nottingham, OpenMSX, Freedoom) and hold the figures issue 13 quotes
// (TestMusicalityReferences says where and why a definition departs from
// them).
//
// Reference figures of the musicality metrics (whole pieces, median; the
// pile-up as the share of pieces; from TestMusicalityReferences):
//
//	                   notes/beat onsets/beat drums/bars programs bar rep rhythm rep pile-up
//	POP909 (909)          5.25       2.52         –         1      0.35     0.88      1.5%
//	Nottingham (1,034)    2.64       1.48         –         1      0.56     0.81      0%
//	OpenMSX (31)         10.55       2.45       0.99        4      0.38     0.79      0%
//	Freedoom (66)         9.77       3.14       0.98        6      0.35     0.85      3.0%
//
// POP909's files declare 2/4: in 4/4 bars its mean bar repetition is 0.21
// (2/4: 0.32), the 0.23. Over 16-bar excerpts (the length of a
// generated piece) repetition is lower: POP909 0.02 (2/4 bars; its repeats
// are whole sections more than 16 bars apart), Nottingham 0.45, OpenMSX and
// Freedoom 0.27–0.30.
//
// eval is part of the engine: it must never import app/, ui/ or storage/.
package eval
