package arrange

import (
	"fmt"
	"strings"
)

// Quality is a chord's type: the intervals above its root.
type Quality int

// The chord qualities the corpora use (POP909's chord_midi.txt, the
// Nottingham ABC symbols and the lead sheets' MusicXML kinds).
const (
	Major Quality = iota
	Minor
	Dominant7
	Major7
	Minor7
	Diminished      // triad
	Diminished7     // fully diminished seventh
	HalfDiminished7 // m7b5
	Augmented
	Augmented7
	Sus2
	Sus4
	Dominant7Sus4
	Major6
	Minor6
	MinorMajor7
	Dominant7Flat9
	// Lead sheets' (MusicXML) chords besides.
	Dominant9
	Major9
	Minor9
	Dominant13
	Dominant7Sharp9
	Dominant7Flat5
	Power // root and fifth
	numQualities
)

// qualityInfo: intervals in semitones above the root, the MMA suffix (MMA's
// chord table, /usr/share/mma/MMA/chordtable.py: note that MMA's "dim" is a
// dim7, so the triad is "mb5") and a readable name.
var qualityInfo = [numQualities]struct {
	intervals []int
	mma       string
	name      string
}{
	Major:           {[]int{0, 4, 7}, "", "maj"},
	Minor:           {[]int{0, 3, 7}, "m", "min"},
	Dominant7:       {[]int{0, 4, 7, 10}, "7", "7"},
	Major7:          {[]int{0, 4, 7, 11}, "M7", "maj7"},
	Minor7:          {[]int{0, 3, 7, 10}, "m7", "min7"},
	Diminished:      {[]int{0, 3, 6}, "mb5", "dim"},
	Diminished7:     {[]int{0, 3, 6, 9}, "dim7", "dim7"},
	HalfDiminished7: {[]int{0, 3, 6, 10}, "m7b5", "hdim7"},
	Augmented:       {[]int{0, 4, 8}, "aug", "aug"},
	Augmented7:      {[]int{0, 4, 8, 10}, "aug7", "aug7"},
	Sus2:            {[]int{0, 2, 7}, "sus2", "sus2"},
	Sus4:            {[]int{0, 5, 7}, "sus4", "sus4"},
	Dominant7Sus4:   {[]int{0, 5, 7, 10}, "7sus", "7sus4"},
	Major6:          {[]int{0, 4, 7, 9}, "6", "maj6"},
	Minor6:          {[]int{0, 3, 7, 9}, "m6", "min6"},
	MinorMajor7:     {[]int{0, 3, 7, 11}, "mM7", "minmaj7"},
	Dominant7Flat9:  {[]int{0, 4, 7, 10, 13}, "7b9", "7b9"},
	Dominant9:       {[]int{0, 4, 7, 10, 14}, "9", "9"},
	Major9:          {[]int{0, 4, 7, 11, 14}, "M9", "maj9"},
	Minor9:          {[]int{0, 3, 7, 10, 14}, "m9", "min9"},
	Dominant13:      {[]int{0, 4, 7, 10, 14, 21}, "13", "13"},
	Dominant7Sharp9: {[]int{0, 4, 7, 10, 15}, "7#9", "7#9"},
	Dominant7Flat5:  {[]int{0, 4, 6, 10}, "7b5", "7b5"},
	Power:           {[]int{0, 7}, "5", "5"},
}

// Chord is a chord symbol: a root pitch class (0 = C … 11 = B), a quality
// and an optional bass note other than the root (Bass < 0: none). Spelling
// keeps the root's and bass's written accidental ('#', 'b' or 0) so MMA
// gets back the name the source wrote.
type Chord struct {
	Root    int
	Quality Quality
	Bass    int // pitch class of a slash bass, or -1
	rootAcc byte
	bassAcc byte
}

// PitchClasses returns the chord's pitch classes, root first, then the
// other chord tones in interval order, then a slash bass not already among
// them.
func (c Chord) PitchClasses() []int {
	iv := qualityInfo[c.Quality].intervals
	out := make([]int, 0, len(iv)+1)
	seen := 0
	for _, i := range iv {
		pc := (c.Root + i) % 12
		if seen&(1<<pc) == 0 {
			seen |= 1 << pc
			out = append(out, pc)
		}
	}
	if c.Bass >= 0 && seen&(1<<c.Bass) == 0 {
		out = append(out, c.Bass)
	}
	return out
}

// PitchClassSet returns the chord's pitch classes as a 12-bit set (bit pc).
func (c Chord) PitchClassSet() uint16 {
	var s uint16
	for _, pc := range c.PitchClasses() {
		s |= 1 << pc
	}
	return s
}

var sharpNames = [12]string{"C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"}
var flatNames = [12]string{"C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B"}

func noteName(pc int, acc byte) string {
	if acc == 'b' {
		return flatNames[pc]
	}
	if acc == '#' {
		return sharpNames[pc]
	}
	// An unspelled black key: flats, as lead sheets usually write them.
	return flatNames[pc]
}

// MMA returns the chord as an MMA chord name: "C", "F#m7", "Bbm7b5",
// "C/E".
func (c Chord) MMA() string {
	s := noteName(c.Root, c.rootAcc) + qualityInfo[c.Quality].mma
	if c.Bass >= 0 && c.Bass != c.Root {
		s += "/" + noteName(c.Bass, c.bassAcc)
	}
	return s
}

// String returns a readable name in POP909's style: "C:maj", "A:min7/G".
func (c Chord) String() string {
	s := noteName(c.Root, c.rootAcc) + ":" + qualityInfo[c.Quality].name
	if c.Bass >= 0 && c.Bass != c.Root {
		s += "/" + noteName(c.Bass, c.bassAcc)
	}
	return s
}

// Same reports whether two chords are the same root, quality and bass
// (spelling ignored).
func (c Chord) Same(o Chord) bool {
	return c.Root == o.Root && c.Quality == o.Quality && c.Bass == o.Bass
}

var letterPC = map[byte]int{'C': 0, 'D': 2, 'E': 4, 'F': 5, 'G': 7, 'A': 9, 'B': 11}

// parseNote reads a note letter (upper case) and accidentals from s and
// returns its pitch class, the first accidental written and the rest of s.
func parseNote(s string) (pc int, acc byte, rest string, ok bool) {
	if s == "" {
		return 0, 0, s, false
	}
	pc, ok = letterPC[s[0]]
	if !ok {
		return 0, 0, s, false
	}
	rest = s[1:]
	for rest != "" && (rest[0] == '#' || rest[0] == 'b') {
		if acc == 0 {
			acc = rest[0]
		}
		if rest[0] == '#' {
			pc++
		} else {
			pc--
		}
		rest = rest[1:]
	}
	return (pc%12 + 12) % 12, acc, rest, true
}

// pop909Qualities maps POP909's quality names (chord_midi.txt) to ours.
var pop909Qualities = map[string]Quality{
	"maj": Major, "min": Minor, "7": Dominant7, "maj7": Major7, "min7": Minor7,
	"dim": Diminished, "dim7": Diminished7, "hdim7": HalfDiminished7, "aug": Augmented,
	"sus2": Sus2, "sus4": Sus4, "sus4(b7)": Dominant7Sus4, "maj6": Major6, "min6": Minor6,
	"minmaj7": MinorMajor7,
}

// degreeSemitones maps a scale degree of a POP909 slash bass ("3", "b3",
// "5", "b7", "7", …) to semitones above the root.
var degreeSemitones = map[string]int{
	"1": 0, "b2": 1, "2": 2, "#2": 3, "b3": 3, "3": 4, "4": 5, "#4": 6, "b5": 6, "5": 7,
	"#5": 8, "b6": 8, "6": 9, "bb7": 9, "b7": 10, "7": 11,
}

// ParsePOP909 parses a chord label of POP909's chord_midi.txt: ROOT:QUALITY
// with an optional /DEGREE bass ("B:maj", "E:min7", "A:7", "C:maj/3",
// "F#:maj7/5", "Bb:sus4(b7)"). "N" (no chord) returns none = true.
func ParsePOP909(label string) (c Chord, none bool, err error) {
	s := strings.TrimSpace(label)
	if s == "N" || s == "X" {
		return Chord{}, true, nil
	}
	root, qual, ok := strings.Cut(s, ":")
	if !ok {
		return Chord{}, false, fmt.Errorf("arrange: chord %q: want ROOT:QUALITY or N", label)
	}
	pc, acc, rest, ok := parseNote(root)
	if !ok || rest != "" {
		return Chord{}, false, fmt.Errorf("arrange: chord %q: root %q is not a note name", label, root)
	}
	qual, deg, slash := strings.Cut(qual, "/")
	q, ok := pop909Qualities[qual]
	if !ok {
		return Chord{}, false, fmt.Errorf("arrange: chord %q: unknown quality %q", label, qual)
	}
	c = Chord{Root: pc, Quality: q, Bass: -1, rootAcc: acc}
	if slash {
		st, ok := degreeSemitones[deg]
		if !ok {
			return Chord{}, false, fmt.Errorf("arrange: chord %q: unknown bass degree %q", label, deg)
		}
		if st != 0 {
			c.Bass = (pc + st) % 12
			c.bassAcc = bassSpelling(acc, deg)
		}
	}
	return c, false, nil
}

// bassSpelling picks the accidental to spell a slash bass with: a flat
// degree or a flat root spells flats, otherwise sharps.
func bassSpelling(rootAcc byte, degree string) byte {
	if strings.HasPrefix(degree, "b") || rootAcc == 'b' {
		return 'b'
	}
	return '#'
}

// abcQualities maps the Nottingham ABC chord suffixes to ours (the cleaned
// database writes "d" for diminished and "a" for augmented).
var abcQualities = map[string]Quality{
	"": Major, "m": Minor, "min": Minor, "7": Dominant7, "m7": Minor7, "maj7": Major7, "M7": Major7,
	"d": Diminished, "dim": Diminished, "d7": Diminished7, "dim7": Diminished7, "a": Augmented,
	"aug": Augmented, "+": Augmented, "a7": Augmented7, "6": Major6, "m6": Minor6,
	"7b9": Dominant7Flat9, "sus4": Sus4, "sus": Sus4, "sus2": Sus2, "7sus4": Dominant7Sus4,
	"m7b5": HalfDiminished7,
}

// ParseABC parses an ABC chord symbol as the Nottingham database writes
// them: "G", "D7", "Em", "F#m", "Bbd" (diminished), "Ea" (augmented),
// "A/c+" (bass C#: a lower-case letter, + for sharp) or "G/b" and "A/C#".
// Inner spaces are ignored ("D m"). An empty symbol or one that is not a
// chord (an annotation) returns an error.
func ParseABC(sym string) (Chord, error) {
	s := strings.ReplaceAll(strings.TrimSpace(sym), " ", "")
	pc, acc, rest, ok := parseNote(s)
	if !ok {
		return Chord{}, fmt.Errorf("arrange: ABC chord %q: no root letter A–G", sym)
	}
	qual, bass, slash := strings.Cut(rest, "/")
	q, ok := abcQualities[qual]
	if !ok {
		return Chord{}, fmt.Errorf("arrange: ABC chord %q: unknown chord type %q", sym, qual)
	}
	c := Chord{Root: pc, Quality: q, Bass: -1, rootAcc: acc}
	if slash {
		if bass == "" {
			return Chord{}, fmt.Errorf("arrange: ABC chord %q: empty bass after /", sym)
		}
		b := strings.ToUpper(bass[:1]) + bass[1:]
		// Nottingham: "c+" is C sharp, "bb" is B flat; also plain "C#".
		b = strings.ReplaceAll(b, "+", "#")
		bpc, bacc, brest, ok := parseNote(b)
		if !ok || brest != "" {
			return Chord{}, fmt.Errorf("arrange: ABC chord %q: bass %q is not a note name", sym, bass)
		}
		if bpc != pc {
			c.Bass, c.bassAcc = bpc, bacc
		}
	}
	return c, nil
}
