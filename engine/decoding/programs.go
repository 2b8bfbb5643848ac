package decoding

import "github.com/amtstudio/amt/engine/midi"

// Trained reports whether the model sees program p in training (every
// program with a range; the sound effects and the orchestra hit never).
func Trained(p int) bool { _, _, ok := midi.ProgramRange(p); return ok }

// nearest maps the programs never trained on to the closest one that is:
// the orchestra hit to the string ensemble, the sound effects to what
// plays them best.
var nearest = map[int]int{55: 48, 120: 30, 121: 73, 122: 89, 123: 73, 124: 80, 125: 89, 126: 61, 127: 118}

// NearestPrograms maps a requested program list onto trained programs
// (sorted, unique): a program the corpora and the re-voicing never give is
// replaced by the nearest one that is.
func NearestPrograms(ps []int) []int {
	var seen [128]bool
	out := []int{}
	for _, p := range ps {
		if p < 0 || p > 127 {
			continue
		}
		if !Trained(p) {
			p = nearest[p]
		}
		if !seen[p] {
			seen[p] = true
		}
	}
	for p, ok := range seen {
		if ok {
			out = append(out, p)
		}
	}
	return out
}
