package condition

// programRange is the usual written range (MIDI pitches, inclusive) of each
// General MIDI program, by the instrument it names; 0,0 marks the sound
// effects (120–127) and the orchestra hit (55), which are never re-voicing
// targets.
var programRange = func() [128][2]int {
	var r [128][2]int
	set := func(from, to, lo, hi int) {
		for p := from; p <= to; p++ {
			r[p] = [2]int{lo, hi}
		}
	}
	set(0, 7, 21, 108) // pianos
	set(8, 8, 60, 108) // celesta
	set(9, 9, 67, 108) // glockenspiel
	set(10, 10, 60, 96)
	set(11, 11, 53, 89)  // vibraphone
	set(12, 12, 45, 96)  // marimba
	set(13, 13, 65, 108) // xylophone
	set(14, 14, 60, 79)  // tubular bells
	set(15, 15, 48, 96)  // dulcimer
	set(16, 20, 24, 96)  // organs
	set(21, 21, 53, 89)  // accordion
	set(22, 22, 60, 84)  // harmonica
	set(23, 23, 48, 89)  // bandoneon
	set(24, 31, 40, 86)  // guitars
	set(32, 39, 28, 67)  // basses
	set(40, 40, 55, 103) // violin
	set(41, 41, 48, 91)  // viola
	set(42, 42, 36, 76)  // cello
	set(43, 43, 28, 60)  // contrabass
	set(44, 45, 28, 96)  // tremolo, pizzicato strings
	set(46, 46, 23, 103) // harp
	set(47, 47, 36, 57)  // timpani
	set(48, 51, 28, 96)  // string ensembles
	set(52, 54, 43, 81)  // choir, voice
	set(56, 56, 54, 84)  // trumpet
	set(57, 57, 34, 72)  // trombone
	set(58, 58, 28, 58)  // tuba
	set(59, 59, 54, 82)  // muted trumpet
	set(60, 60, 34, 77)  // french horn
	set(61, 61, 34, 84)  // brass section
	set(62, 63, 36, 96)  // synth brass
	set(64, 64, 56, 87)  // soprano sax
	set(65, 65, 49, 81)  // alto sax
	set(66, 66, 44, 76)  // tenor sax
	set(67, 67, 36, 69)  // baritone sax
	set(68, 68, 58, 91)  // oboe
	set(69, 69, 52, 81)  // english horn
	set(70, 70, 34, 75)  // bassoon
	set(71, 71, 50, 94)  // clarinet
	set(72, 72, 74, 108) // piccolo
	set(73, 79, 60, 96)  // flutes, recorder, pipes, whistle, ocarina
	set(80, 103, 36, 96) // synth leads, pads, effects
	set(104, 104, 48, 77)
	set(105, 105, 48, 84) // banjo
	set(106, 106, 50, 79)
	set(107, 107, 55, 91) // koto
	set(108, 108, 60, 84) // kalimba
	set(109, 109, 55, 77) // bagpipe
	set(110, 110, 55, 96) // fiddle
	set(111, 111, 60, 84) // shanai
	set(112, 112, 72, 96)
	set(113, 113, 60, 84)
	set(114, 114, 52, 76) // steel drums
	set(115, 115, 60, 84)
	set(116, 118, 36, 60) // taiko, toms, synth drum
	return r
}()

// rangeSlack is how far (semitones) a part may pass a program's range and
// still fit it.
const rangeSlack = 2

// FitPrograms returns the programs whose range holds the pitches lo…hi.
func FitPrograms(lo, hi int) []int {
	var out []int
	for p, r := range programRange {
		if r[1] > 0 && lo >= r[0]-rangeSlack && hi <= r[1]+rangeSlack {
			out = append(out, p)
		}
	}
	return out
}

// Trained reports whether the model sees program p in training (every
// program with a range; the sound effects and the orchestra hit never).
func Trained(p int) bool { return p >= 0 && p < 128 && programRange[p][1] > 0 }

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
