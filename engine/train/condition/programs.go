package condition

import "github.com/amtstudio/amt/engine/midi"

// rangeSlack is how far (semitones) a part may pass a program's range and
// still fit it.
const rangeSlack = 2

// FitPrograms returns the programs whose range (midi.ProgramRange) holds
// the pitches lo…hi: the re-voicing's targets for a part.
func FitPrograms(lo, hi int) []int {
	var out []int
	for p := range 128 {
		if plo, phi, ok := midi.ProgramRange(p); ok && lo >= plo-rangeSlack && hi <= phi+rangeSlack {
			out = append(out, p)
		}
	}
	return out
}
