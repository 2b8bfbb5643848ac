package text

import "strings"

// The style's own meter (issue 33): a style a listener hears in one meter
// is asked in it when the prompt names no meter. Without this the model
// drew the meter from its genre family's mix of the corpora, and "bossa
// nova on a sunny afternoon" came out in 6/8, "heavy metal with distorted
// guitars" in 3/4: 15 of the 66 pieces of duple styles of the meter suite
// (testdata/prompts/meters.txt, seeds 1–3, 2026-11-28) in 3/4, 6/8 or 9/8. Styles heard in more than one meter (ballad, folk, country,
// gospel, hymn, lullaby, classical, electronic, game music; "gavotte" beside
// "minuet", "bolero" beside "cha cha") are left to the draw. Dance names that are meters ("waltz", "jig",
// "march", "polka") are explicit (meterTerms) and need no entry.
//
// Each meter's source is in docs/MODEL.md ("The style's own meter"): the
// Groove MIDI Dataset's time signatures by style (rock 334 of 341 in 4/4,
// funk 160 of 160, hip hop 95, punk 58, reggae 20, soul 63, pop 27, samba
// and bossa 26, jazz 99 of 101), the Nottingham tunes' ABC meters, the
// Irish tunes' declared meters by tune type, OpenEWLD's lead-sheet meters
// by style, and for the club styles (house, techno, EDM, dubstep, drum and
// bass, synthwave, trap) their four-on-the-floor or two-step beat in 4/4.
// Duple styles written in 2/4 or 2/2 as often as in 4/4 (samba, bossa
// nova, tango, ragtime) are asked in 4/4: the same bar lines at the beat
// inference and the model know best (docs/METER.md: 4/4 stands for duple
// time).

// styleMeters maps a style to its meter: a scene's name (lexicon.go), a
// genre word of the parser (genreTerms) or an ensemble's genre.
var styleMeters = map[string][2]int{
	// rock and its kin
	"rock": {4, 4}, "garage rock": {4, 4}, "indie": {4, 4}, "grunge": {4, 4}, "rock and roll": {4, 4},
	"metal": {4, 4}, "punk": {4, 4}, "emo": {4, 4}, "shoegaze": {4, 4},
	// pop and dance
	"pop": {4, 4}, "synthpop": {4, 4}, "disco": {4, 4}, "funk": {4, 4}, "soul": {4, 4},
	// hip hop and its beats
	"hip hop": {4, 4}, "rap": {4, 4}, "trap": {4, 4}, "trip hop": {4, 4}, "lofi": {4, 4},
	// reggae and its kin
	"reggae": {4, 4}, "ska": {4, 4}, "reggaeton": {4, 4}, "dancehall": {4, 4},
	// club music and synths
	"edm": {4, 4}, "house": {4, 4}, "techno": {4, 4}, "dubstep": {4, 4}, "drum and bass": {4, 4},
	"synthwave": {4, 4}, "chiptune": {4, 4}, "8 bit": {4, 4},
	// jazz
	"jazz": {4, 4}, "cool jazz": {4, 4}, "swing": {4, 4}, "bebop": {4, 4}, "big band": {4, 4},
	"ragtime": {4, 4},
	// latin
	"latin": {4, 4}, "samba": {4, 4}, "bossa nova": {4, 4}, "bossa": {4, 4}, "tango": {4, 4},
	"salsa": {4, 4},
	// a marching band's genre ("march" itself is a meter word)
	"march": {2, 4},
}

// styleMeter returns the meter a listener expects of a style (a scene's
// name, a genre word or an ensemble's genre), [0 0] when it has none.
func styleMeter(style string) [2]int {
	return styleMeters[strings.Join(strings.Fields(strings.ToLower(style)), " ")]
}
