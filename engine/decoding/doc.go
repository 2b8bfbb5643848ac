// Package decoding steers the sampling of a piece: the plan of the piece
// and the levers that shape what the model writes, with their defaults in
// one list (levers.go). It answers "why did the tune start on an upbeat",
// "why does bar 5 repeat bar 1", "why is this chord no bigger than six
// notes". The model (engine/gpt) proposes each token; this package decides
// what may come next and how the logits lean.
//
// One piece is set up by NewPiece (piece.go) from the request, its key
// frame, its seed and the levers in force. What it builds:
//
//   - Bars (bars.go): the grammar of tokens (engine/token.Grammar) forced
//     to the request's prefix, exactly N bars in the first tempo and meter,
//     only the requested programs (or at most DefaultMaxInstruments), no
//     empty bars, EOS where the last bar would end; Refill and RefillBars
//     keep the prefix pinned when the sampler's window fills, in the form
//     of a training example (engine/train/condition).
//   - The plan (form.go): sections and which earlier bars a later one
//     restates (AABA, ABAB, AABB, verse-chorus, strains), restated while
//     sampling by Restater; a strain's second phrase opening as its first
//     (StrainOpening); the upbeat (pickup.go) and the parts' entries
//     (entries.go).
//   - The logit hooks: the key (KeyBias), the previous bar's rhythm
//     (RhythmBias), a register (register.go), a melodic top line
//     (line.go), a requested density (density.go), every requested part
//     held to its share of bars and the tune kept on its lead (parts.go),
//     combined by Hooks.
//
// The levers (levers.go: each with what it measured on the two-sample
// test of issue 24, docs/MODEL.md) are bits of Levers; DefaultLevers is
// what the window, `amt generate` and eval-model use: canonical (each
// program's chord in the encoder's order, at most ChordCap notes), vary
// (restated song sections vary their tune), strains (dance tunes repeat
// their strains, with the opening), line, pickup and parts (every
// requested instrument plays in most bars). Off by default:
// lengths, texture and dynamics (drawn from the model's own distribution),
// critic (candidate selection, app/compose_critic.go), build (game parts enter
// in turn) and lead (the other parts kept under the expected lead's line).
// The weights (RegisterWeight, DensityHoldWeight, VarySemitones,
// MinPickupBars, DefaultParts, LeadWeight) and the prompt path's sampling
// defaults (temperature, top-p, key and rhythm bias) are beside them.
//
// A piece's own draws (its upbeat, its strains' opening, its parts'
// entries) come from its seed (draws.go), so a request decodes the same
// way every time.
//
// It imports engine/token and engine/midi; never engine/train, app/, ui/
// or storage/. Training examples are engine/train/condition's, which
// imports nothing of this package.
package decoding
