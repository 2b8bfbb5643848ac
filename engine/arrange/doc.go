// Package arrange builds the arranged corpus (issues 12 and 35,
// docs/DATA.md): real melodies and chords from POP909, the Nottingham folk
// tunes and the EWLD lead sheets, set over accompaniment grooves that MMA
// (Musical MIDI Accompaniment, Debian package mma) generates, with a human
// drummer's performance from the Groove MIDI Dataset in place of MMA's
// drums wherever one fits, so the model sees steady beats, bass lines,
// comping and played drums in many genres.
//
// The pure parts are testable without MMA: chord symbols (ParsePOP909,
// ParseABC, the MusicXML <harmony> of ParseMusicXML), the groove
// catalogue with each groove's meter, tempo range and genre family
// (Catalogue, Choose), the MMA source text of one arrangement (MMA), the
// ABC tune bodies and the lead sheets with repeats expanded
// (ParseABCBook, Tune.Expand, expandRepeats), merging the source's melody
// (and, in some variants, its piano part) into MMA's output bar for bar
// (Merge), and the human drums: the Groove MIDI files cut into bars of
// hits on General MIDI drums (ReadDrumLibrary, GMDrum), a performance and
// fills chosen per piece by style, meter, feel and tempo
// (DrumLibrary.Plan) and laid bar by bar under the piece's tempo map
// (DrumPlan.Lay); MeasureDrumFeel measures what drums sound like as
// played. Build runs mma over whole corpora, deterministically: MMA's
// random humanisation is seeded (RndSeed), Python's hash seed is fixed and
// every choice is a hash of the source and the groove, so the same inputs
// give byte-identical files.
//
// Alignment: MMA writes only the accompaniment, in its own 192 ticks per
// beat, one MMA bar per source bar (or two source bars per MMA bar for
// 2/4 tunes, two MMA bars per source bar for double-time grooves); Merge
// scales its ticks onto the source's grid, whose bar 0 starts at tick 0
// (a pickup becomes a bar of rests in the groove), and keeps the source's
// tempo map, meter and key. Human drums are placed the same way: a
// performance's hit keeps its offset from its bar line in beats (the
// drummer's timing against the click) and its velocity, so stretching it
// to the piece is a change of beats per minute, not of feel.
//
// It is part of the engine: it imports engine/midi, engine/token and
// engine/atomicfile and must never import app/, ui/ or storage/.
package arrange
