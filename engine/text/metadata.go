package text

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/amtstudio/amt/engine/midi"
)

// What a corpus's metadata says beyond title and composer: the era or
// style, the kind of piece, the instruments, the composer's dates
// (issue 35: lieder, quartets, Mutopia, piano-midi.de, Groove, OpenEWLD and
// the Irish tunes each have a metadata.csv). This file turns those columns
// into a genre family (Family), an era (EraOf), a composer's name as people
// say it (composerName) and, where the metadata says which program carries
// the voices, the voices' program (Revoice).

// metadataFamily maps words that metadata columns use and prompts do not
// (or use otherwise: "romantic" is a mood in a prompt, an era in Mutopia's
// style column) to a genre family. GenreFamily's table is tried after it.
var metadataFamily = map[string]string{
	// eras and forms of art music
	"art song": "classical", "lied": "classical", "lieder": "classical", "melodie": "classical",
	"string quartet": "classical", "quartet": "classical", "romantic": "classical", "romanticism": "classical",
	"romantique": "classical", "classique": "classical", "renaissance": "classical", "medieval": "classical",
	"modern classical": "classical", "neo classical": "classical", "neo romantic": "classical",
	"avant garde": "classical", "avantgarde": "classical", "symphonic": "classical", "motet": "classical",
	"madrigal": "classical", "opera": "classical", "operetta": "classical", "technique": "classical",
	"classical piano": "classical",
	// Groove MIDI's style families and OpenEWLD's Discogs styles
	"afrocuban": "latin", "afro cuban": "latin", "brazilian": "latin", "baiao": "latin", "mpb": "latin",
	"neworleans": "jazz", "new orleans": "jazz", "dixieland": "jazz", "bop": "jazz", "hard bop": "jazz",
	"post bop": "jazz", "cool jazz": "jazz", "soul jazz": "jazz", "gypsy jazz": "jazz",
	"hiphop": "funk", "rhythm and blues": "funk",
	"doo wop": "pop", "easy listening": "pop", "vocal": "pop", "rockabilly": "rock",
	"marches": "march", "religious": "gospel", "hymn": "gospel",
	"irish traditional dance music": "folk", "traditional": "folk", "slide": "folk", "set dance": "folk",
	"barndance": "folk", "chanson": "folk", "pop rock": "rock",
}

// phraseOf normalizes a metadata value to words: lower case, "&" as "and",
// punctuation as spaces ("funk/purdieshuffle" → "funk purdieshuffle",
// "Folk, World, & Country" → "folk world and country").
func phraseOf(s string) string {
	s = strings.ToLower(strings.ReplaceAll(s, "&", " and "))
	s = strings.Map(func(r rune) rune {
		switch r {
		case '/', '(', ')', ',', ';', '-', '_', '.', ':', '"', '\'', '[', ']':
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// familyOfValue is the genre family one metadata value names: the value or
// its longest part in metadataFamily or GenreFamily's table, "" when none.
func familyOfValue(v string) string {
	ws := strings.Fields(phraseOf(v))
	for n := len(ws); n >= 1; n-- {
		for i := 0; i+n <= len(ws); i++ {
			p := strings.Join(ws[i:i+n], " ")
			if f, ok := metadataFamily[p]; ok {
				return f
			}
			if f := GenreFamily(p); f != "" {
				return f
			}
		}
	}
	return ""
}

// Family is the genre family (token.GenreFamilies) the piece's metadata
// names, most specific first: the kind of piece (a reel; a drum beat names
// none), the style or era (Mutopia's "Baroque", OpenEWLD's "Big Band",
// Groove's "funk/purdieshuffle"), the genre, then the tags; "" when none
// names one.
func (p PieceInfo) Family() string {
	for _, v := range append([]string{p.TuneType, p.Style, p.Genre}, p.Tags...) {
		if f := familyOfValue(v); f != "" {
			return f
		}
	}
	return ""
}

// EraOf names the era of music written by a composer of these dates
// (years; died 0 when unknown), from the middle of the working life
// (born + 35, or halfway to the death when that comes first): Renaissance
// before 1600, Baroque before 1750, Classical before 1810 (Beethoven, born
// 1770, is Classical; Schubert, born 1797, Romantic), Romantic before 1910,
// else 20th century; "" without a birth year. A guess from dates,
// used only where the metadata names no era (the lieder, the quartets).
func EraOf(born, died int) string {
	if born <= 0 {
		return ""
	}
	mid := born + 35
	if died > born && born+(died-born)/2 < mid {
		mid = born + (died-born)/2
	}
	switch {
	case mid < 1600:
		return "Renaissance"
	case mid < 1750:
		return "Baroque"
	case mid < 1810:
		return "Classical"
	case mid < 1910:
		return "Romantic"
	}
	return "20th century"
}

var (
	// Mutopia's composer ids: surname then initials ("BachJS", "SchubertF").
	composerID = regexp.MustCompile(`^((?:[A-Z][a-zà-ÿ]+)+)([A-Z]{1,3})$`)
	// A name followed by dates: "Johann Sebastian Bach (1685-1750)".
	nameDates = regexp.MustCompile(`^(.*?)\s*\((?:c\.\s*)?(\d{3,4})\s*[-–]\s*(?:c\.\s*)?(\d{3,4})\)\s*(?:\(.*\))?$`)
)

// MetadataVersion names the rules by which metadata reaches captions,
// attributes and programs (this file, table.go, Caption); ingestion's cache
// of tokens and embeddings keys on it, so a change that changes them must
// change it.
const MetadataVersion = "meta2"

// composerName returns a composer as people write the name, and the
// dates when the value carries them: "BachJS" → "J. S. Bach",
// "W. A. Mozart (1756-1791)" → "W. A. Mozart", "1756–1791",
// "Arne, Thomas" → "Thomas Arne".
func composerName(v string) (name, years string) {
	v = strings.TrimSpace(v)
	if m := nameDates.FindStringSubmatch(v); m != nil && m[1] != "" {
		return strings.TrimSpace(m[1]), m[2] + "–" + m[3]
	}
	if last, first, ok := strings.Cut(v, ", "); ok && !strings.ContainsAny(v, "0123456789()&/;") &&
		!strings.Contains(first, ",") && len(strings.Fields(last)) <= 2 && first != "" {
		return first + " " + last, ""
	}
	if m := composerID.FindStringSubmatch(v); m != nil {
		var in []string
		for _, r := range m[2] {
			in = append(in, string(r)+".")
		}
		return strings.Join(in, " ") + " " + m[1], ""
	}
	return v, ""
}

// year reads the leading year of a date or year field ("1851", "1861-12-05").
func year(s string) int {
	s = strings.TrimSpace(s)
	if len(s) < 4 {
		return 0
	}
	y, err := strconv.Atoi(s[:4])
	if err != nil || y < 1000 || y > 2100 {
		return 0
	}
	return y
}

// voiceWords name a sung part in a track name (the lieder's "Singstimme",
// "Chant", "Soprano I.", "Baritone"…).
var voiceWords = []string{"voice", "vocal", "voce", "voix", "stimme", "gesang", "singstimme", "chant", "canto",
	"soprano", "sopran", "mezzo", "alto", "contralto", "tenor", "ténor", "tenore", "baritone", "bariton",
	"basso", "bass", "singer", "dessus", "knabe"}

// instrumentWords name an instrument: a track so named is not a voice even
// on the voices' program (the lieder's flute, viola and cello obbligatos).
var instrumentWords = []string{"flute", "flöte", "oboe", "clarinet", "klarinette", "horn", "violin", "viola",
	"bratsche", "cello", "violoncello", "guitar", "gitarre", "guitare", "harp", "harfe", "piano", "klavier",
	"organ", "orgel", "harpsichord", "cembalo", "trumpet", "bassoon", "fagott"}

func namesAny(name string, words []string) bool {
	for _, w := range strings.Fields(phraseOf(name)) {
		for _, x := range words {
			if w == x || (len(x) >= 5 && strings.HasPrefix(w, x)) {
				return true
			}
		}
	}
	return false
}

// voiceProgram is the General MIDI program a sung part gets: Voice Oohs,
// what a prompt's "voice" asks for (prompt.go).
const voiceProgram = 53

// programRe finds "voice (program 68)" in an instruments column.
var programRe = regexp.MustCompile(`(?i)\b(?:voice|voices|vocals?)\s*\(\s*program\s+(\d{1,3})\s*\)`)

// VoicePrograms reads the programs an instruments description says carry
// the voices ("voice (program 68), piano (program 0)": [68]).
func VoicePrograms(instruments string) []int {
	var out []int
	for _, m := range programRe.FindAllStringSubmatch(instruments, -1) {
		if p, err := strconv.Atoi(m[1]); err == nil && p >= 0 && p < 128 {
			out = append(out, p)
		}
	}
	return out
}

// Revoice moves the sung parts of s onto the voice program when the
// metadata says which program carries them (VoicePrograms of
// p.Instruments): the OpenScore Lieder export their voices on program 68
// (an oboe to General MIDI) and on 69–74 and 56–58 by the part's range,
// with real flute, viola and cello obbligatos beside them. A pitched track
// is a voice when its name names one (voiceWords), or when it is unnamed on
// a voice program; a name that names an instrument keeps its program, and
// so do the choir programs 52–54. It returns the number of tracks moved;
// s is changed in place.
func (p PieceInfo) Revoice(s *midi.Score) int {
	progs := VoicePrograms(p.Instruments)
	if len(progs) == 0 || s == nil {
		return 0
	}
	onVoiceProgram := func(x int) bool {
		for _, v := range progs {
			if v == x {
				return true
			}
		}
		return false
	}
	n := 0
	for i := range s.Tracks {
		t := &s.Tracks[i]
		if t.IsDrum || len(t.Notes) == 0 || (t.Program >= 52 && t.Program <= 54) || namesAny(t.Name, instrumentWords) {
			continue
		}
		named := namesAny(t.Name, voiceWords)
		unnamed := cleanTitle(t.Name) == "" || genericName(t.Name)
		if named || (unnamed && onVoiceProgram(t.Program)) {
			t.Program = voiceProgram
			n++
		}
	}
	return n
}
