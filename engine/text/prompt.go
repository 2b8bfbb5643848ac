package text

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/amtstudio/amt/engine/token"
)

// Prompt is a user's request read for what it asks: the attributes to force
// (unset ones are left to the model) and the words that describe the music
// without being attributes.
type Prompt struct {
	Text  string           `json:"text"`
	Attrs token.Attributes `json:"attrs"`
	// Mode is "major" or "minor" when the prompt asks for a mode without a
	// tonic ("something in a minor key"); with a tonic it is in Attrs too.
	Mode        string   `json:"mode,omitempty"`
	Moods       []string `json:"moods,omitempty"`
	Genres      []string `json:"genres,omitempty"`
	Instruments []string `json:"instruments,omitempty"` // the phrases that named them
	// Seconds is a length asked in time ("90 seconds", "2 minutes"); Bars is
	// then derived from it with the prompt's tempo and meter (120 bpm and
	// 4/4 when not given).
	Seconds float64 `json:"seconds,omitempty"`
	// Density is "sparse" or "dense" when asked; the caller maps it to the
	// vocabulary's density bins.
	Density string `json:"density,omitempty"`
	// Problems name the numbers of tempo, meter and length the prompt gives
	// that could not be used: out of range, unknown, or two different ones
	// for one attribute (prompt_check.go). The attribute is then unset.
	Problems []string `json:"problems,omitempty"`
	// Words are the words understood beyond the attributes: moods,
	// dynamics, scenes and styles, ensembles, tempo words and limits, and
	// words read as known ones (meaning.go); Resolve draws what they imply.
	Words []Word `json:"words,omitempty"`
	// Ensemble is an ensemble the prompt names ("string quartet"); its
	// instruments are in Attrs.Programs.
	Ensemble string `json:"ensemble,omitempty"`
	// Dynamics is a level the prompt names ("soft" → "p", "fortissimo").
	Dynamics string `json:"dynamics,omitempty"`
	// Unused are the words that were not understood (function words and
	// the words for "music" aside; the letter and mode of a key no pattern
	// read, "H# minor", are listed), in the prompt's order.
	Unused []string `json:"unused,omitempty"`

	drumPhrase string // the words that asked for drums or none
}

// tempoTerms map tempo words to a bpm in the range TempoWord names.
var tempoTerms = map[string]float64{
	"grave": 40, "largo": 50, "lento": 52, "larghetto": 63, "adagio": 70, "adagietto": 74,
	"andante": 92, "andantino": 96, "moderato": 114, "allegretto": 116, "allegro": 140,
	"vivace": 160, "vivacissimo": 172, "presto": 184, "prestissimo": 208,
	"very slow": 50, "very slowly": 50, "slow": 70, "slowly": 70, "slower": 70, "unhurried": 72,
	"leisurely": 80, "medium tempo": 100, "mid tempo": 100, "moderate tempo": 100, "moderate": 100,
	"walking pace": 100, "brisk": 130, "quick": 140, "fast": 140, "quickly": 140, "rapid": 160, "up tempo": 140, "uptempo": 140,
	"very fast": 180, "very quick": 180, "frantic": 190, "breakneck": 200,
}

// meterTerms map dance and meter words to a meter.
var meterTerms = map[string][2]int{
	"waltz": {3, 4}, "waltzes": {3, 4}, "minuet": {3, 4}, "mazurka": {3, 4}, "polonaise": {3, 4},
	"sarabande": {3, 4}, "triple time": {3, 4}, "triple meter": {3, 4}, "in three": {3, 4},
	"jig": {6, 8}, "jigs": {6, 8}, "double jig": {6, 8}, "tarantella": {6, 8}, "compound time": {6, 8},
	"slip jig": {9, 8}, "reel": {4, 4}, "reels": {4, 4}, "hornpipe": {4, 4}, "strathspey": {4, 4},
	"common time": {4, 4}, "four on the floor": {4, 4},
	"cut time": {2, 2}, "alla breve": {2, 2}, "march": {2, 4}, "polka": {2, 4}, "duple time": {2, 4},
	"in five": {5, 4}, "in seven": {7, 8},
}

// moodWords are kept in Prompt.Moods.
var moodWords = strings.Fields(`happy sad melancholic melancholy joyful cheerful calm peaceful relaxing relaxed
	dreamy dark epic energetic upbeat uplifting romantic mysterious tense angry playful gentle nostalgic
	triumphant somber sombre hopeful lonely spooky eerie bright warm soft aggressive festive lively solemn
	heroic tender bittersweet chill groovy majestic whimsical haunting sentimental serene bouncy sweet
	mournful gloomy ominous suspenseful dramatic intense quiet loud powerful delicate light heavy cozy
	sleepy soothing tranquil wistful longing proud bold cheeky silly funny cute quirky grand`)

// genreTerms are kept in Prompt.Genres (multi-word ones first in matching).
var genreTerms = []string{
	"pop", "rock", "jazz", "blues", "classical", "baroque", "folk", "country", "waltz", "jig", "slip jig",
	"reel", "hornpipe", "march", "polka", "ballad", "lullaby", "hymn", "anthem", "carol", "christmas",
	"celtic", "irish", "scottish", "english folk", "latin", "bossa nova", "tango", "samba", "salsa",
	"reggae", "funk", "disco", "hip hop", "rap", "electronic", "edm", "techno", "house", "trance",
	"ambient", "soundtrack", "film score", "movie", "game music", "video game", "chiptune", "8 bit",
	"metal", "punk", "gospel", "soul", "r&b", "swing", "bebop", "ragtime", "boogie", "boogie woogie",
	"minuet", "mazurka", "nocturne", "sonata", "etude", "fugue", "prelude", "chorale", "lo fi", "lofi",
	"synthwave", "new age", "bluegrass", "c pop", "k pop", "j pop", "mandopop", "cantopop", "anime",
	"morris", "playford", "country dance", "dance", "marching band", "big band", "chamber music",
	"orchestral", "cinematic", "musical", "show tune", "cumbia", "flamenco", "klezmer", "gamelan",
	"shanty", "sea shanty", "strathspey", "tarantella", "ska", "grunge", "indie", "trap", "dubstep",
	"drum and bass", "jungle", "bossa", "cha cha", "rumba", "mambo", "zouk", "afrobeat", "highlife",
	"shuffle", "bolero", "beguine", "merengue", "calypso", "rocksteady", "dub", "western", "motown",
	"americana", "valse", "military", "spiritual", "synthpop", "power ballad", "love song", "rock and roll",
	"jazz waltz", "game",
}

// instrumentTerm is a phrase that asks for programs (and maybe drums).
type instrumentTerm struct {
	words    []string
	programs []int
	drums    bool
}

// instrumentSynonyms add common names, ensembles and families to the 128
// General MIDI names.
var instrumentSynonyms = map[string][]int{
	"piano": {0}, "grand piano": {0}, "acoustic piano": {0}, "upright piano": {1}, "bright piano": {1},
	"honky tonk": {3}, "electric piano": {4}, "rhodes": {4}, "wurlitzer": {5}, "keys": {4}, "keyboard": {0},
	"harpsichord": {6}, "clavinet": {7}, "clavichord": {7}, "celesta": {8}, "celeste": {8},
	"glockenspiel": {9}, "music box": {10}, "vibraphone": {11}, "vibes": {11}, "marimba": {12},
	"xylophone": {13}, "tubular bells": {14}, "chimes": {14}, "bells": {14}, "dulcimer": {15},
	"hammered dulcimer": {15}, "organ": {16}, "hammond": {16}, "hammond organ": {16}, "rock organ": {18},
	"church organ": {19}, "pipe organ": {19}, "accordion": {21}, "melodeon": {21}, "concertina": {21},
	"harmonica": {22}, "bandoneon": {23}, "guitar": {25}, "guitars": {25}, "acoustic guitar": {25},
	"steel guitar": {25}, "classical guitar": {24}, "nylon guitar": {24}, "spanish guitar": {24},
	"flamenco guitar": {24}, "electric guitar": {27}, "jazz guitar": {26}, "clean guitar": {27},
	"muted guitar": {28}, "overdriven guitar": {29}, "distorted guitar": {30}, "distortion guitar": {30},
	"bass": {33}, "bass guitar": {33}, "electric bass": {33}, "bassline": {33}, "acoustic bass": {32},
	"upright bass": {32}, "double bass": {32}, "string bass": {32}, "fretless bass": {35},
	"slap bass": {36}, "synth bass": {38}, "violin": {40}, "violins": {40}, "fiddle": {40},
	"fiddles": {40}, "viola": {41}, "violas": {41}, "cello": {42}, "cellos": {42}, "violoncello": {42},
	"contrabass": {43}, "tremolo strings": {44}, "pizzicato": {45}, "pizzicato strings": {45},
	"harp": {46}, "orchestral harp": {46}, "timpani": {47}, "kettle drums": {47},
	"strings": {48}, "string section": {48}, "string ensemble": {48}, "string orchestra": {48, 49},
	"orchestral strings": {48}, "synth strings": {50}, "choir": {52}, "chorus": {52}, "voices": {52},
	"vocals": {53}, "voice": {53}, "humming": {53}, "orchestra hit": {55}, "trumpet": {56},
	"trumpets": {56}, "cornet": {56}, "flugelhorn": {56}, "trombone": {57}, "trombones": {57},
	"tuba": {58}, "muted trumpet": {59}, "french horn": {60}, "horn": {60}, "horns": {60},
	"brass": {61}, "brass section": {61}, "synth brass": {62}, "sax": {65}, "saxophone": {65},
	"soprano sax": {64}, "alto sax": {65}, "tenor sax": {66}, "baritone sax": {67}, "oboe": {68},
	"soprano saxophone": {64}, "alto saxophone": {65}, "tenor saxophone": {66}, "baritone saxophone": {67},
	"bass clarinet": {71}, "alto flute": {73}, "bass flute": {73}, "tenor trombone": {57}, "bass trombone": {57},
	"english horn": {69}, "cor anglais": {69}, "bassoon": {70}, "clarinet": {71}, "clarinets": {71},
	"piccolo": {72}, "flute": {73}, "flutes": {73}, "recorder": {74}, "pan flute": {75},
	"pan pipes": {75}, "panpipes": {75}, "blown bottle": {76}, "shakuhachi": {77}, "whistle": {78},
	"tin whistle": {78}, "penny whistle": {78}, "ocarina": {79}, "synth": {80}, "synthesizer": {80},
	"synth lead": {80}, "lead synth": {80}, "square lead": {80}, "square wave": {80}, "sawtooth": {81},
	"saw lead": {81}, "calliope": {82}, "synth pad": {89}, "synth pads": {89}, "pad": {89}, "pads": {89}, "warm pad": {89},
	"sitar": {104}, "banjo": {105}, "shamisen": {106}, "koto": {107}, "kalimba": {108},
	"thumb piano": {108}, "bagpipe": {109}, "bagpipes": {109}, "pipes": {109}, "shehnai": {111},
	"steel drums": {114}, "steel drum": {114}, "steelpan": {114}, "woodblock": {115}, "taiko": {116},
	"erhu": {110}, "guzheng": {107}, "pipa": {105}, "mandolin": {105}, "ukulele": {24}, "lute": {24},
	"woodwinds": {73, 68, 71}, "woodwind": {73, 68, 71}, "winds": {73, 68, 71}, "reeds": {65, 71},
	"string band": {105, 40, 32},
	// Ensembles a user names ("string quartet", "big band") come from the
	// lexicon's named ensembles (lexicon.go).
}

// guitarTimbres are words before "guitar" that choose its program.
var guitarTimbres = map[string]int{
	"fuzzy": 30, "fuzz": 30, "fuzzed": 30, "distorted": 30, "distortion": 30, "heavy": 30, "shredding": 30,
	"screaming": 30, "metal": 30, "grungy": 30, "dirty": 29, "gritty": 29, "crunchy": 29, "crunch": 29,
	"overdriven": 29, "overdrive": 29, "driven": 29, "raunchy": 29, "saturated": 29, "rock": 29, "bluesy": 29,
	"clean": 27, "chiming": 27, "jangly": 27, "jangling": 27, "funky": 27, "twangy": 27, "twang": 27, "surf": 27,
	"jazzy": 26, "jazz": 26, "hollow": 26, "mellow": 26, "muted": 28, "palm": 28, "chicken": 28,
	"nylon": 24, "classical": 24, "spanish": 24, "flamenco": 24, "steel": 25, "folk": 25, "strummed": 25,
}

func isGuitar(ps []int) bool { return len(ps) == 1 && ps[0] >= 24 && ps[0] <= 31 }

// drumTerms ask for drums; some also name programs.
var drumTerms = map[string][]int{
	"drums": nil, "drum": nil, "drum kit": nil, "drumkit": nil, "drum set": nil, "percussion": nil,
	"beat": nil, "beats": nil, "drum machine": nil, "drum beat": nil, "groove": nil, "backbeat": nil,
}

var instrumentTerms = func() []instrumentTerm {
	seen := map[string]bool{}
	var out []instrumentTerm
	addTerm := func(phrase string, progs []int, drums bool) {
		phrase = normalizePrompt(phrase)
		if seen[phrase] {
			return
		}
		seen[phrase] = true
		out = append(out, instrumentTerm{words: strings.Fields(phrase), programs: progs, drums: drums})
	}
	for phrase, progs := range drumTerms {
		addTerm(phrase, progs, true)
	}
	for phrase, progs := range instrumentSynonyms {
		addTerm(phrase, progs, false)
	}
	for phrase, lp := range lex.phrases {
		if e := lex.ensembles[lp.name]; lp.kind == "ens" && e != nil && e.named {
			addTerm(phrase, e.options[0], e.drums > 0)
		}
	}
	for p, name := range gmNames {
		addTerm(name, []int{p}, false)
		if i := strings.IndexByte(name, '('); i > 0 { // "acoustic guitar (nylon)" → "nylon acoustic guitar" too
			inner := strings.Trim(name[i:], "()")
			addTerm(inner+" "+strings.TrimSpace(name[:i]), []int{p}, false)
		}
	}
	// Longest phrases first, then alphabetical for a stable order.
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].words) != len(out[j].words) {
			return len(out[i].words) > len(out[j].words)
		}
		return strings.Join(out[i].words, " ") < strings.Join(out[j].words, " ")
	})
	return out
}()

// normalizePrompt lower-cases, folds accents and the ♯/♭ signs, turns
// hyphens and most punctuation into spaces (keeping # / : . inside numbers
// and keys, and a minus sign that starts a number: "-120 bpm" is a
// negative tempo, not 120) and collapses spaces.
func normalizePrompt(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case (r == '-' || r == '−') && i+1 < len(rs) && unicode.IsDigit(rs[i+1]) &&
			(i == 0 || unicode.IsSpace(rs[i-1]) || strings.ContainsRune("(,;=", rs[i-1])):
			b.WriteByte('-')
		case r == ',' && thousands(rs, i):
			// "1,500 bars" is 1500, not 1 and 500.
		case r == '♯':
			b.WriteByte('#')
		case r == '♭':
			b.WriteByte('b')
		case r == '#' || r == '/' || r == ':' || r == '.' || r == '&':
			b.WriteRune(r)
		case isMark(r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(foldAccent(r)))
		default:
			b.WriteByte(' ')
		}
	}
	f := strings.Fields(b.String())
	for i, w := range f {
		// A full stop or colon ends a word unless it sits inside a number.
		w = strings.TrimRight(w, ".:")
		w = strings.TrimLeft(w, ".:/")
		f[i] = w
	}
	return strings.Join(strings.Fields(strings.Join(f, " ")), " ")
}

// thousands reports whether the comma at rs[i] separates thousands: a
// digit before it, exactly three after.
func thousands(rs []rune, i int) bool {
	if i == 0 || i+3 >= len(rs) || !unicode.IsDigit(rs[i-1]) {
		return false
	}
	for k := i + 1; k <= i+3; k++ {
		if !unicode.IsDigit(rs[k]) {
			return false
		}
	}
	return i+4 == len(rs) || !unicode.IsDigit(rs[i+4])
}

var numberWords = map[string]int{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
	"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
	"forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

// numbersToDigits rewrites number words as digits: "thirty two bars" →
// "32 bars", "a hundred and twenty bpm" → "120 bpm", "a minute" → "1 minute".
// "in three"/"in five" stay words (meters).
func numbersToDigits(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "a" && i+1 < len(words) && (words[i+1] == "minute" || words[i+1] == "hundred") && (i == 0 || words[i-1] != "half") {
			if words[i+1] == "minute" {
				out = append(out, "1")
				continue
			}
			w = "one"
		}
		v, ok := numberWords[w]
		if !ok || (i > 0 && words[i-1] == "in" && (i+1 == len(words) || !isUnit(words[i+1]))) {
			out = append(out, w)
			continue
		}
		j := i + 1
		if v >= 20 && v%10 == 0 && j < len(words) {
			if u, ok := numberWords[words[j]]; ok && u > 0 && u < 10 {
				v += u
				j++
			}
		}
		if j < len(words) && words[j] == "hundred" {
			v *= 100
			j++
			k := j
			if k < len(words) && words[k] == "and" {
				k++
			}
			if k < len(words) {
				if t, ok := numberWords[words[k]]; ok && t > 0 {
					v += t
					k++
					if t >= 20 && t%10 == 0 && k < len(words) {
						if u, ok := numberWords[words[k]]; ok && u > 0 && u < 10 {
							v += u
							k++
						}
					}
					j = k
				}
			}
		}
		out = append(out, strconv.Itoa(v))
		i = j - 1
	}
	return out
}

func isUnit(w string) bool {
	switch w {
	case "bars", "bar", "measures", "measure", "seconds", "second", "minutes", "minute", "bpm", "secs", "mins":
		return true
	}
	return false
}

// The patterns that read a number start it at the start of the text or
// after a character that is neither a word character nor a minus, so a
// negative number (normalizePrompt keeps its sign) is never read as its
// absolute value; checkNumbers reports it.
var (
	reBPM      = regexp.MustCompile(`(?:^|[^\w-])(\d{2,3}(?:\.\d+)?) ?(?:bpm|beats per minute|beats a minute|beats/min)\b`)
	reTempoNum = regexp.MustCompile(`\b(?:tempo|metronome|mm|q) (?:of |at |= |=)?(\d{2,3})\b`)
	reMeter    = regexp.MustCompile(`(?:^|[^\w-])(\d{1,2}) ?/ ?(1|2|4|8|16|32)\b`)
	reMeterSp  = regexp.MustCompile(`(?:^|[^\w-])(\d{1,2}) (2|4|8) (?:time|meter|metre)\b`)
	reBars     = regexp.MustCompile(`(?:^|[^\w-])(\d+) ?(?:bars?|measures?)\b`)
	reMinutes  = regexp.MustCompile(`(?:^|[^\w-])(\d{1,3}(?:\.\d+)?) ?(?:minutes?|mins?)\b`)
	reSeconds  = regexp.MustCompile(`(?:^|[^\w-])(\d{1,4}(?:\.\d+)?) ?(?:seconds?|secs?)\b`)
	reMinHalf  = regexp.MustCompile(`(?:^|[^\w-])(\d{1,3}) and a half (?:minutes?|mins?)\b`)
	reHalfMin  = regexp.MustCompile(`(?:^|[^\w-])(?:half a minute|30 secs?)\b`)
	reClock    = regexp.MustCompile(`(?:^|[^\w-])(\d{1,2}):([0-5]\d)\b`)
	// Keys. In the normalized text: an explicit mode or accidental word.
	reKeyMode = regexp.MustCompile(`\b([a-g])(#|b)?(?: (sharp|flat))? (major|minor|maj|min|dorian|mixolydian|aeolian|ionian|lydian|phrygian|locrian)\b`)
	reKeyAcc  = regexp.MustCompile(`\b([a-g]) (sharp|flat)\b`)
	// In the original text (case matters: "Am", "F#", "Bb", "in D").
	reKeyShort = regexp.MustCompile(`(?:^|[^A-Za-z0-9])([A-G])(#|b|♯|♭)?(m|min)?(?:$|[^A-Za-z0-9#♯♭])`)
	reKeyIn    = regexp.MustCompile(`\b(?:in|key of|key) ([A-Ga-g])(#|♯|♭|b)?(m)?(?:$|[^A-Za-z0-9#♯♭])`)
)

var letterPC = map[byte]int{'c': 0, 'd': 2, 'e': 4, 'f': 5, 'g': 7, 'a': 9, 'b': 11}

func tonicOf(letter, acc string) int {
	pc := letterPC[strings.ToLower(letter)[0]]
	switch acc {
	case "#", "♯", "sharp":
		pc++
	case "b", "♭", "flat":
		pc--
	}
	return (pc + 12) % 12
}

// ParsePrompt reads a prompt in English for the attributes it asks: tempo
// (words such as "slow", "allegro" or "90 bpm"), key ("in F# minor", "Bb
// major", "E flat", "Am"), meter ("6/8", "waltz" → 3/4, "jig" → 6/8, "reel"
// → 4/4, "cut time" → 2/2), instruments (General MIDI names, common names
// and families, ensembles such as "string quartet"), drums ("with drums",
// "no drums"), and length ("32 bars", "90 seconds", "2 minutes"). Mood and
// genre words are kept beside the attributes. What the prompt does not say
// stays unspecified.
func ParsePrompt(prompt string) Prompt {
	p := Prompt{Text: prompt, Attrs: token.Unspecified()}
	words := promptWords(prompt)
	norm := " " + strings.Join(words, " ") + " "
	consumed := make([]bool, len(words))
	// usedBy says what each word was used for ("" not yet): what is left
	// goes to readMeaning, and what it cannot read is Unused.
	usedBy := make([]string, len(words))
	offs := make([]int, len(words))
	for i, o := 0, 1; i < len(words); i++ {
		offs[i] = o
		o += len(words[i]) + 1
	}
	markSpan := func(loc []int, kind string) {
		if loc == nil {
			return
		}
		for i, o := range offs {
			if o < loc[1] && o+len(words[i]) > loc[0] && usedBy[i] == "" {
				usedBy[i] = kind
			}
		}
	}
	markAll := func(re *regexp.Regexp, kind string) {
		for _, loc := range re.FindAllStringIndex(norm, -1) {
			markSpan(loc, kind)
		}
	}

	// Tempo: a number beats words.
	if m := reBPM.FindStringSubmatch(norm); m != nil {
		p.Attrs.TempoBPM, _ = strconv.ParseFloat(m[1], 64)
	} else if m := reTempoNum.FindStringSubmatch(norm); m != nil {
		p.Attrs.TempoBPM, _ = strconv.ParseFloat(m[1], 64)
	} else if bpm, i, n, ok := matchTempoWord(words); ok {
		p.Attrs.TempoBPM = bpm
		for k := i; k < i+n; k++ {
			usedBy[k] = "tempo"
		}
		// The plain word beside a marking qualifies it ("moderate
		// Andante"): used, not a second tempo.
		for _, k := range []int{i - 1, i + n} {
			if k >= 0 && k < len(words) && usedBy[k] == "" && tempoMarkings[words[i]] {
				if _, plain := tempoTerms[words[k]]; plain && !tempoMarkings[words[k]] {
					usedBy[k] = "tempo"
				}
			}
		}
	}
	markAll(reBPM, "tempo")
	markAll(reTempoNum, "tempo")
	markAll(chkBPM, "tempo") // a tempo out of range is checkNumbers' to report, not unused

	// Meter: numbers beat dance words.
	if m := reMeter.FindStringSubmatch(norm); m != nil {
		p.Attrs.MeterNum, _ = strconv.Atoi(m[1])
		p.Attrs.MeterDen, _ = strconv.Atoi(m[2])
	} else if m := reMeterSp.FindStringSubmatch(norm); m != nil {
		p.Attrs.MeterNum, _ = strconv.Atoi(m[1])
		p.Attrs.MeterDen, _ = strconv.Atoi(m[2])
	} else if mt, i, n, ok := matchMeterWord(words); ok {
		p.Attrs.MeterNum, p.Attrs.MeterDen = mt[0], mt[1]
		for k := i; k < i+n; k++ {
			usedBy[k] = "meter"
		}
	}
	markAll(reMeter, "meter")
	markAll(reMeterSp, "meter")
	if p.Attrs.MeterNum <= 0 || p.Attrs.MeterNum > 32 {
		p.Attrs.MeterNum, p.Attrs.MeterDen = 0, 0
	}

	// Key.
	p.parseKey(prompt, norm)
	if p.Attrs.KeyTonic >= 0 || p.Mode != "" {
		for i, w := range words {
			if usedBy[i] == "" && reKeyWord.MatchString(w) {
				usedBy[i] = "key"
			}
		}
	}
	for _, re := range []*regexp.Regexp{reBars, reMinutes, reSeconds, reMinHalf, reHalfMin, reClock, chkBars, chkMins, chkSecs} {
		markAll(re, "length")
	}

	// Length.
	if m := reBars.FindStringSubmatch(norm); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil { // beyond int: checkNumbers reports it
			p.Attrs.Bars = n
		}
	}
	sec := 0.0
	if m := reClock.FindStringSubmatch(norm); m != nil {
		mm, _ := strconv.Atoi(m[1])
		ss, _ := strconv.Atoi(m[2])
		sec = float64(mm*60 + ss)
	} else {
		if m := reMinHalf.FindStringSubmatch(norm); m != nil {
			v, _ := strconv.ParseFloat(m[1], 64)
			sec += 60*v + 30
		} else if m := reMinutes.FindStringSubmatch(norm); m != nil {
			v, _ := strconv.ParseFloat(m[1], 64)
			sec += 60 * v
		}
		if m := reSeconds.FindStringSubmatch(norm); m != nil {
			v, _ := strconv.ParseFloat(m[1], 64)
			sec += v
		} else if reHalfMin.MatchString(norm) {
			sec += 30
		}
	}
	if sec > 0 {
		p.Seconds = sec
		if p.Attrs.Bars == 0 {
			bpm := p.Attrs.TempoBPM
			if bpm <= 0 {
				bpm = 120
			}
			beats := 4.0
			if p.Attrs.MeterNum > 0 {
				beats = float64(p.Attrs.MeterNum) * 4 / float64(p.Attrs.MeterDen)
			}
			p.Attrs.Bars = max(1, int(math.Round(sec*bpm/60/beats)))
		}
	}

	// Instruments and drums, longest phrase first; "no X"/"without X" drops X.
	progs := map[int]bool{}
	// Leftmost first, the longest term at each word ("synth lead, synth
	// bass": not "lead synth" across the comma), and never across a comma
	// ("synth, bass" is a synth and a bass, not a synth bass).
	breaks := listBreaks(prompt, len(words))
	for i := range words {
		for _, term := range instrumentTerms {
			if i+len(term.words) > len(words) || !matchAt(words, consumed, i, term.words) || spansBreak(breaks, i, len(term.words)) {
				continue
			}
			// A style named with an instrument's word is the style ("synth
			// pop", "string band" aside): leave the words to the lexicon.
			if n := len(term.words); i+n < len(words) {
				if lp, ok := lex.phrases[strings.Join(words[i:i+n+1], " ")]; ok && lp.kind == "scene" {
					continue
				}
			}
			for k := range term.words {
				consumed[i+k] = true
				usedBy[i+k] = "instrument"
				if term.drums {
					usedBy[i+k] = "drums"
				}
			}
			neg := i > 0 && (words[i-1] == "no" || words[i-1] == "without" || words[i-1] == "not" ||
				(i > 1 && words[i-2] == "no" && (words[i-1] == "real" || words[i-1] == "live")))
			if neg {
				for k := i - 1; k >= 0 && k >= i-2 && usedBy[k] == "" && (negators[words[k]] || words[k] == "real" || words[k] == "live"); k-- {
					usedBy[k] = "negation"
				}
			}
			phrase := strings.Join(term.words, " ")
			if term.drums {
				v := !neg
				p.Attrs.Drums = &v
				p.drumPhrase = phrase
			}
			if neg {
				continue
			}
			tprogs := term.programs
			// A guitar said with its sound: "fuzzy guitars", "distorted
			// guitar", "crunchy guitar" (the GM names cover only some).
			if i > 0 && isGuitar(tprogs) {
				if pr, ok := guitarTimbres[words[i-1]]; ok && usedBy[i-1] == "" {
					tprogs = []int{pr}
					usedBy[i-1] = "instrument"
					phrase = words[i-1] + " " + phrase
				}
			}
			for _, pr := range tprogs {
				progs[pr] = true
			}
			if len(term.programs) > 0 && indexOf(p.Instruments, phrase) < 0 {
				p.Instruments = append(p.Instruments, phrase)
			}
		}
	}
	if p.Attrs.Drums == nil && hasWord(words, "drumless", "unaccompanied", "a cappella", "acapella") {
		f := false
		p.Attrs.Drums = &f
	}
	if len(progs) > 0 {
		for pr := range progs {
			p.Attrs.Programs = append(p.Attrs.Programs, pr)
		}
		sort.Ints(p.Attrs.Programs)
	}

	// Moods, genres, density.
	for _, w := range words {
		if indexOf(moodWords, w) >= 0 && indexOf(p.Moods, w) < 0 {
			p.Moods = append(p.Moods, w)
		}
	}
	for _, g := range genreTerms {
		if strings.Contains(norm, " "+g+" ") && indexOf(p.Genres, g) < 0 {
			p.Genres = append(p.Genres, g)
		}
	}
	// Plural dance names count as the genre.
	for _, pl := range [][2]string{{"waltzes", "waltz"}, {"jigs", "jig"}, {"reels", "reel"}, {"marches", "march"}, {"polkas", "polka"}, {"hornpipes", "hornpipe"}} {
		if hasWord(words, pl[0]) && indexOf(p.Genres, pl[1]) < 0 {
			p.Genres = append(p.Genres, pl[1])
		}
	}
	// In the order the prompt says them (at one place, the longer first).
	sort.SliceStable(p.Genres, func(i, j int) bool {
		a, b := strings.Index(norm, " "+p.Genres[i]+" "), strings.Index(norm, " "+p.Genres[j]+" ")
		if a != b {
			return a < b
		}
		return len(p.Genres[i]) > len(p.Genres[j])
	})
	p.Attrs.Genre = PromptGenre(p.Genres)
	for _, g := range p.Genres {
		for _, loc := range regexp.MustCompile(`\b`+regexp.QuoteMeta(g)+`\b`).FindAllStringIndex(norm, -1) {
			markSpan(loc, "genre")
		}
	}
	switch {
	case hasWord(words, "sparse", "minimal", "minimalist", "simple", "few notes", "spacious"):
		p.Density = "sparse"
	case hasWord(words, "dense", "busy", "complex", "intricate", "virtuosic", "many notes"):
		p.Density = "dense"
	}
	for i, w := range words {
		switch w {
		case "sparse", "minimal", "minimalist", "simple", "spacious", "dense", "busy", "complex", "intricate", "virtuosic":
			if usedBy[i] == "" {
				usedBy[i] = "density"
			}
		case "drumless", "unaccompanied", "cappella", "acapella":
			if p.Attrs.Drums != nil && usedBy[i] == "" {
				usedBy[i] = "drums"
			}
		}
	}
	p.readMeaning(words, usedBy)
	p.checkNumbers(norm)
	return p
}

// reKeyWord matches the words of a key: a letter with an accidental or
// "m" ("f#m", "eb", "am"); mode words are stop words.
var reKeyWord = regexp.MustCompile(`^[a-g](#|b)?m?$|^(dorian|mixolydian|aeolian|ionian|lydian|phrygian|locrian)$`)

// parseKey finds a key: an explicit mode ("A minor", "Bb major"), an
// accidental word ("E flat"), a short symbol in the original text ("F#m",
// "Bb", "in D"), or a mode alone ("in a minor key").
func (p *Prompt) parseKey(orig, norm string) {
	set := func(tonic int, minor bool) {
		p.Attrs.KeyTonic, p.Attrs.KeyMinor = tonic, minor
		if minor {
			p.Mode = "minor"
		} else {
			p.Mode = "major"
		}
	}
	for _, m := range reKeyMode.FindAllStringSubmatchIndex(norm, -1) {
		letter, acc, accWord, mode := sub(norm, m, 1), sub(norm, m, 2), sub(norm, m, 3), sub(norm, m, 4)
		// Lower-case "a" is usually the article: "a minor key" asks for a
		// mode, "a major hit" for nothing. A capital A, or "in a minor",
		// is the key of A.
		if letter == "a" && acc == "" && accWord == "" {
			capital := regexp.MustCompile(`(?:^|[^A-Za-z])A (?i:` + mode + `)\b`).MatchString(orig)
			after := norm[m[1]:]
			before := norm[:m[0]]
			if !capital && (strings.HasPrefix(after, " key") || !(strings.HasSuffix(before, " in ") || strings.HasSuffix(before, " of "))) {
				continue
			}
		}
		if accWord != "" {
			acc = accWord
		}
		minor := mode == "minor" || mode == "min" || mode == "dorian" || mode == "aeolian" || mode == "phrygian" || mode == "locrian"
		set(tonicOf(letter, acc), minor)
		return
	}
	if m := reKeyAcc.FindStringSubmatch(norm); m != nil {
		set(tonicOf(m[1], m[2]), false)
		return
	}
	if m := reKeyIn.FindStringSubmatch(orig); m != nil && (m[1][0] < 'a' || m[2] != "" || m[3] != "") {
		set(tonicOf(m[1], m[2]), m[3] != "")
		return
	}
	for _, m := range reKeyShort.FindAllStringSubmatch(orig, -1) {
		// A bare capital letter is only a key with an accidental or "m"
		// ("A" alone is usually the article).
		if m[2] == "" && m[3] == "" {
			continue
		}
		set(tonicOf(m[1], m[2]), m[3] != "")
		return
	}
	switch {
	case strings.Contains(norm, " minor key ") || strings.Contains(norm, " in minor ") || strings.Contains(norm, " minor mode "):
		p.Mode = "minor"
	case strings.Contains(norm, " major key ") || strings.Contains(norm, " in major ") || strings.Contains(norm, " major mode "):
		p.Mode = "major"
	}
}

// reKeyLetter is a word written as a key's letter: one letter, maybe with
// a sharp or a flat ("h#", "x", "hb"); reKeySharp one with a sharp, which
// only keys are written with.
var (
	reKeyLetter = regexp.MustCompile(`^[a-z](#|b)?$`)
	reKeySharp  = regexp.MustCompile(`^[a-z]#m?$`)
)

// keyModes are the mode words of a key.
var keyModes = map[string]bool{"major": true, "minor": true, "dorian": true, "mixolydian": true, "aeolian": true,
	"ionian": true, "lydian": true, "phrygian": true, "locrian": true}

// unreadKey marks the words of a key no pattern read ("H# minor", "in X
// major": H is German for B, the model's keys are A–G): a letter with a
// sharp, and a mode word after a letter (the article "a" aside) with its
// letter, where the words are not used. readMeaning lists them as not
// used, short and stop words though they are, so such a key is shown back
// instead of dropped without a word (issue 37).
func unreadKey(words, usedBy []string) []bool {
	out := make([]bool, len(words))
	for i, w := range words {
		if usedBy[i] != "" {
			continue
		}
		if reKeySharp.MatchString(w) {
			out[i] = true
		}
		if keyModes[w] && i > 0 && usedBy[i-1] == "" && words[i-1] != "a" && reKeyLetter.MatchString(words[i-1]) {
			out[i-1], out[i] = true, true
		}
	}
	return out
}

func sub(s string, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return s[m[2*i]:m[2*i+1]]
}

// promptWords are the words ParsePrompt reads in s: normalized, numbers
// written in words turned to digits.
func promptWords(s string) []string { return numbersToDigits(strings.Fields(normalizePrompt(s))) }

// listBreaks says, for the n words ParsePrompt reads in prompt, whether a
// comma or semicolon stands before word i: the end of an item in a list.
// Nil when the prompt's segments do not add up to its words (a number
// written across a comma), and then no break is known.
func listBreaks(prompt string, n int) []bool {
	segs := strings.FieldsFunc(prompt, func(r rune) bool { return r == ',' || r == ';' })
	breaks := make([]bool, n)
	k := 0
	for i, seg := range segs {
		if i > 0 && k < n {
			breaks[k] = true
		}
		k += len(promptWords(seg))
	}
	if k != n {
		return nil
	}
	return breaks
}

// spansBreak reports whether words i … i+n-1 run across a list break.
func spansBreak(breaks []bool, i, n int) bool {
	for k := i + 1; k < i+n && k < len(breaks); k++ {
		if breaks[k] {
			return true
		}
	}
	return false
}

func matchAt(words []string, consumed []bool, i int, phrase []string) bool {
	for k, w := range phrase {
		if consumed[i+k] || words[i+k] != w {
			return false
		}
	}
	return true
}

func hasWord(words []string, any ...string) bool {
	for _, a := range any {
		if strings.Contains(a, " ") {
			if strings.Contains(" "+strings.Join(words, " ")+" ", " "+a+" ") {
				return true
			}
			continue
		}
		if indexOf(words, a) >= 0 {
			return true
		}
	}
	return false
}

// tempoMarkings are the Italian tempo words: where a prompt says one
// beside a plain word ("a moderate Andante tempo", "a slow Adagio": how
// MidiCaps captions write them), the marking is the tempo asked.
var tempoMarkings = map[string]bool{"grave": true, "largo": true, "lento": true, "larghetto": true, "adagio": true,
	"adagietto": true, "andante": true, "andantino": true, "moderato": true, "allegretto": true, "allegro": true,
	"vivace": true, "vivacissimo": true, "presto": true, "prestissimo": true}

// matchTempoWord finds the tempo phrase of words: an Italian marking
// first, else the longest tempo phrase; its bpm, where it starts and how
// many words it has.
func matchTempoWord(words []string) (float64, int, int, bool) {
	for i, w := range words {
		if tempoMarkings[w] && !(i > 0 && (words[i-1] == "not" || words[i-1] == "too")) && !negatedAt(words, i) {
			return tempoTerms[w], i, 1, true
		}
	}
	for n := 3; n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			if bpm, ok := tempoTerms[strings.Join(words[i:i+n], " ")]; ok {
				// "not too fast", "not slow": a negated word is no request
				// (readMeaning reads it as a limit).
				if i > 0 && (words[i-1] == "not" || words[i-1] == "too") || negatedAt(words, i) {
					continue
				}
				return bpm, i, n, true
			}
		}
	}
	return 0, 0, 0, false
}

// matchMeterWord finds the longest meter phrase in words, where it starts
// and how many words it has.
func matchMeterWord(words []string) ([2]int, int, int, bool) {
	for n := 4; n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			if mt, ok := meterTerms[strings.Join(words[i:i+n], " ")]; ok {
				return mt, i, n, true
			}
		}
	}
	return [2]int{}, 0, 0, false
}

// InstrumentName is how a prompt names program (0–127): the shortest
// phrase the parser reads as that program alone, preferring one inside
// its General MIDI name ("piano" for 0, "violin" rather than "fiddle" for
// 40, "bass" for 33), else the General MIDI name; "" outside 0–127. The phrase parses
// back to exactly [program] (TestInstrumentNameParsesBack).
func InstrumentName(program int) string {
	if program < 0 || program > 127 {
		return ""
	}
	best, bestIn := "", false
	for _, t := range instrumentTerms {
		if t.drums || len(t.programs) != 1 || t.programs[0] != program {
			continue
		}
		p := strings.Join(t.words, " ")
		in := strings.Contains(gmNames[program], p)
		switch {
		case best == "", in && !bestIn,
			in == bestIn && (len(p) < len(best) || len(p) == len(best) && p < best):
			best, bestIn = p, in
		}
	}
	if best == "" {
		best = gmNames[program]
	}
	return best
}
