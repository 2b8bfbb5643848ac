package midi

// gmFamilies are the 16 General MIDI instrument families, 8 programs each.
var gmFamilies = [16]string{
	"Piano", "Chromatic Percussion", "Organ", "Guitar", "Bass", "Strings", "Ensemble", "Brass",
	"Reed", "Pipe", "Synth Lead", "Synth Pad", "Synth Effects", "Ethnic", "Percussive", "Sound Effects",
}

// gmNames are the General MIDI Level 1 program names.
var gmNames = [128]string{
	"Acoustic Grand Piano", "Bright Acoustic Piano", "Electric Grand Piano", "Honky-tonk Piano",
	"Electric Piano 1", "Electric Piano 2", "Harpsichord", "Clavinet",
	"Celesta", "Glockenspiel", "Music Box", "Vibraphone", "Marimba", "Xylophone", "Tubular Bells", "Dulcimer",
	"Drawbar Organ", "Percussive Organ", "Rock Organ", "Church Organ", "Reed Organ", "Accordion", "Harmonica", "Tango Accordion",
	"Acoustic Guitar (nylon)", "Acoustic Guitar (steel)", "Electric Guitar (jazz)", "Electric Guitar (clean)",
	"Electric Guitar (muted)", "Overdriven Guitar", "Distortion Guitar", "Guitar Harmonics",
	"Acoustic Bass", "Electric Bass (finger)", "Electric Bass (pick)", "Fretless Bass",
	"Slap Bass 1", "Slap Bass 2", "Synth Bass 1", "Synth Bass 2",
	"Violin", "Viola", "Cello", "Contrabass", "Tremolo Strings", "Pizzicato Strings", "Orchestral Harp", "Timpani",
	"String Ensemble 1", "String Ensemble 2", "Synth Strings 1", "Synth Strings 2",
	"Choir Aahs", "Voice Oohs", "Synth Voice", "Orchestra Hit",
	"Trumpet", "Trombone", "Tuba", "Muted Trumpet", "French Horn", "Brass Section", "Synth Brass 1", "Synth Brass 2",
	"Soprano Sax", "Alto Sax", "Tenor Sax", "Baritone Sax", "Oboe", "English Horn", "Bassoon", "Clarinet",
	"Piccolo", "Flute", "Recorder", "Pan Flute", "Blown Bottle", "Shakuhachi", "Whistle", "Ocarina",
	"Lead 1 (square)", "Lead 2 (sawtooth)", "Lead 3 (calliope)", "Lead 4 (chiff)",
	"Lead 5 (charang)", "Lead 6 (voice)", "Lead 7 (fifths)", "Lead 8 (bass + lead)",
	"Pad 1 (new age)", "Pad 2 (warm)", "Pad 3 (polysynth)", "Pad 4 (choir)",
	"Pad 5 (bowed)", "Pad 6 (metallic)", "Pad 7 (halo)", "Pad 8 (sweep)",
	"FX 1 (rain)", "FX 2 (soundtrack)", "FX 3 (crystal)", "FX 4 (atmosphere)",
	"FX 5 (brightness)", "FX 6 (goblins)", "FX 7 (echoes)", "FX 8 (sci-fi)",
	"Sitar", "Banjo", "Shamisen", "Koto", "Kalimba", "Bagpipe", "Fiddle", "Shanai",
	"Tinkle Bell", "Agogo", "Steel Drums", "Woodblock", "Taiko Drum", "Melodic Tom", "Synth Drum", "Reverse Cymbal",
	"Guitar Fret Noise", "Breath Noise", "Seashore", "Bird Tweet", "Telephone Ring", "Helicopter", "Applause", "Gunshot",
}

// GMFamilies returns the 16 General MIDI family names in program order.
func GMFamilies() []string { return append([]string(nil), gmFamilies[:]...) }

// GMFamily returns the General MIDI family of a program 0–127 ("Piano",
// "Strings", …), or "" for a program outside 0–127.
func GMFamily(program int) string {
	if program < 0 || program > 127 {
		return ""
	}
	return gmFamilies[program/8]
}

// ProgramName returns the General MIDI name of a program 0–127
// ("Acoustic Grand Piano"), or "" outside 0–127.
func ProgramName(program int) string {
	if program < 0 || program > 127 {
		return ""
	}
	return gmNames[program]
}

// programRanges is the usual written range (MIDI pitches, inclusive) of each
// General MIDI program, by the instrument it names; 0,0 marks the sound
// effects (120–127) and the orchestra hit (55), which are never re-voicing
// targets.
var programRanges = func() [128][2]int {
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

// ProgramRange is the usual written range (MIDI pitches, inclusive) of
// General MIDI program p, by the instrument it names; ok is false for the
// sound effects (120–127), the orchestra hit (55) and numbers outside
// 0–127, which have none.
func ProgramRange(p int) (lo, hi int, ok bool) {
	if p < 0 || p > 127 || programRanges[p][1] == 0 {
		return 0, 0, false
	}
	return programRanges[p][0], programRanges[p][1], true
}

// TuneRank orders programs by how often a listener expects them to carry
// the tune of an ensemble, 0 first: synth leads, reeds and pipes, the
// trumpet, the harmonica, the violin and fiddle, voices (0); the other
// brass, the viola, mallets, steel drums, accordions and plucked world
// strings (1); guitars and organs (2); pianos, the harp, string ensembles
// and pads (3); basses, the cello, contrabass, tuba, bassoon, timpani and
// the rest (4). Generation hands the tune to the first (decoding.Lead);
// training's re-voicing may keep a part's role by it.
func TuneRank(p int) int {
	switch {
	case p >= 80 && p <= 87, p >= 64 && p <= 69, p >= 71 && p <= 79, p == 56, p == 59, p == 22, p == 40, p == 110, p >= 52 && p <= 54:
		return 0
	case p == 57, p == 60, p == 61, p == 114, p >= 8 && p <= 15, p == 21, p == 23, p >= 104 && p <= 109, p == 41:
		return 1
	case p >= 24 && p <= 31, p >= 16 && p <= 20:
		return 2
	case p >= 0 && p <= 7, p == 46, p >= 48 && p <= 51, p >= 88 && p <= 95:
		return 3
	}
	return 4
}
