package arrange

import (
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/amtstudio/amt/engine/token"
)

// Families are the genre families of the GENRE attribute, in token order;
// every groove belongs to one.
var Families = token.GenreFamilies

// Groove is one accompaniment style of the catalogue, fitted to one meter
// class at one tempo ratio.
type Groove struct {
	Tag    string // short lower-case name used in file names and tags: "bossanova", "casio-pop"
	Name   string // MMA groove name: "BossaNova"
	File   string // MMA library file without .mma ("stdlib/bossanova"); "" for a groove of our own (Define)
	Define string // MMA text that defines the groove Name (our own grooves)
	Set    string // MMA lines run before the groove loads (library variables)
	Family string
	// Meter is the meter class the groove fits (see Source.Class): "4/4",
	// "12/8", "3/4", "6/8".
	Meter string
	// Time is the groove's beats per MMA bar (its TIME); R is the number of
	// MMA beats per quarter note of the source. One MMA bar lasts Time/R
	// quarter notes: one source bar, half of one (double-time grooves, R
	// 2 in 4/4) or two (a 4/4 groove under a 2/4 tune).
	Time, R float64
	// MinBPM, MaxBPM: the groove's natural tempo range in MMA beats per
	// minute; a source fits when its tempo × R lies inside.
	MinBPM, MaxBPM float64
	// Corpora limits the groove to some corpora ("pop909", "nottingham");
	// empty: all.
	Corpora []string
}

// Spec returns the MMA groove reference: "stdlib/bossanova:BossaNova", or
// the bare name of a groove of our own.
func (g Groove) Spec() string {
	if g.File == "" {
		return g.Name
	}
	return g.File + ":" + g.Name
}

// TempoFor returns the MMA tempo for a source tempo in quarter notes per
// minute.
func (g Groove) TempoFor(bpm float64) float64 { return bpm * g.R }

func (g Groove) forCorpus(c string) bool {
	if len(g.Corpora) == 0 {
		return true
	}
	for _, x := range g.Corpora {
		if x == c {
			return true
		}
	}
	return false
}

// Fits reports whether the groove fits the source: same meter class, its
// tempo inside the groove's range, MMA bars that line up with the source's
// bars (one MMA bar per 1, 2 or ½ source bars), and the source's corpus.
func (g Groove) Fits(s *Source) bool {
	if g.Meter != s.Class() || !g.forCorpus(s.Corpus) {
		return false
	}
	t := g.TempoFor(s.BPM())
	if t < g.MinBPM || t > g.MaxBPM {
		return false
	}
	mmaBar := g.Time / g.R
	ratio := mmaBar / s.BarQuarters()
	for _, r := range []float64{0.5, 1, 2} {
		if math.Abs(ratio-r) < 1e-9 {
			return true
		}
	}
	return false
}

// The lead sheets (EWLD) take the grooves of both corpora; their genre
// tags choose among them (Source.Families).
var (
	popOnly   = []string{"pop909", "ewld"}
	notOnly   = []string{"nottingham", "ewld"}
	bothCorps []string
)

// lib builds a catalogue entry for a library groove.
func lib(tag, file, name, family, meter string, time, r, lo, hi float64, corpora []string) Groove {
	return Groove{Tag: tag, Name: name, File: file, Family: family, Meter: meter, Time: time, R: r,
		MinBPM: lo, MaxBPM: hi, Corpora: corpora}
}

// double is a double-time entry (two MMA bars per 4/4 source bar): its tag
// gets a "2x" suffix only in Catalogue's uniqueness check, not in files
// (one piece never gets both).
func double(g Groove) Groove { g.R = 2; return g }

// straightJazz sets the PUSH0 swing variable of Bob van der Poel's jazz
// grooves to 0.5: even eighths under POP909's straight melodies.
const straightJazz = "Set Push0 0.5"

// catalogue is every groove the corpus uses. Tempo ranges come from the
// grooves' own documentation where it gives one ("double the tempo",
// "good tempos are 120 to 150") and from common practice otherwise;
// each groove was rendered and checked for drums in every bar
// (TestCatalogueGroovesPlay).
var catalogue = []Groove{
	// pop
	lib("8beat", "stdlib/8beat", "8Beat", "pop", "4/4", 4, 1, 66, 140, bothCorps),
	lib("softrock", "stdlib/softrock", "SoftRock", "pop", "4/4", 4, 1, 80, 140, bothCorps),
	lib("slowbroadway", "stdlib/slowbroadway", "SlowBroadway", "pop", "4/4", 4, 1, 70, 125, bothCorps),
	double(lib("broadway", "stdlib/broadway", "Broadway", "pop", "4/4", 4, 1, 150, 240, popOnly)),
	lib("casio-pop", "casio/pop", "Pop", "pop", "4/4", 4, 1, 78, 130, popOnly),
	lib("casio-8beatpop1", "casio/8beatpop1", "8BeatPop1", "pop", "4/4", 4, 1, 70, 130, popOnly),
	lib("casio-8beatpop3", "casio/8beatpop3", "8BeatPop3", "pop", "4/4", 4, 1, 70, 130, popOnly),
	lib("casio-60spop", "casio/60spop", "60sPop", "pop", "4/4", 4, 1, 88, 150, bothCorps),
	lib("casio-80spop", "casio/80spop", "80sPop", "pop", "4/4", 4, 1, 88, 140, popOnly),
	lib("casio-worldpop", "casio/worldpop", "WorldPop", "pop", "4/4", 4, 1, 78, 130, popOnly),
	lib("casio-soulpop", "casio/soulpop", "SoulPop", "pop", "4/4", 4, 1, 68, 120, popOnly),
	lib("casio-16beat1", "casio/16beat1", "16Beat1", "pop", "4/4", 4, 1, 58, 110, popOnly),
	lib("casio-16beat2", "casio/16beat2", "16Beat2", "pop", "4/4", 4, 1, 58, 110, popOnly),
	lib("casio-slow16beat", "casio/slow16beat", "Slow16Beat", "pop", "4/4", 4, 1, 48, 90, popOnly),
	lib("casio-16shuffle1", "casio/16shuffle1", "16Shuffle1", "pop", "12/8", 4, 1, 55, 110, popOnly),
	lib("casio-popshuffle1", "casio/popshuffle1", "PopShuffle1", "pop", "12/8", 4, 1, 75, 130, popOnly),
	lib("casio-popwaltz", "casio/popwaltz", "PopWaltz", "waltz", "3/4", 3, 1, 70, 150, bothCorps),

	// rock
	lib("50srock", "stdlib/50srock", "50sRock", "rock", "4/4", 4, 1, 90, 180, bothCorps),
	lib("60srock", "stdlib/60srock", "60sRock", "rock", "4/4", 4, 1, 96, 160, bothCorps),
	lib("basicrock", "stdlib/basicrock", "BasicRock", "rock", "4/4", 4, 1, 88, 150, bothCorps),
	lib("folkrock", "stdlib/folkrock", "FolkRock", "rock", "4/4", 4, 1, 88, 150, bothCorps),
	lib("jazzrock", "stdlib/jazzrock", "JazzRock", "rock", "4/4", 4, 1, 96, 160, bothCorps),
	lib("twist", "stdlib/twist", "Twist", "rock", "4/4", 4, 1, 116, 180, bothCorps),
	double(lib("twist", "stdlib/twist", "Twist", "rock", "4/4", 4, 1, 116, 180, popOnly)),
	lib("bubblerock", "stdlib/bubblerock", "BubbleRock", "rock", "4/4", 4, 1, 96, 150, bothCorps),
	lib("casio-rock1", "casio/rock1", "Rock1", "rock", "4/4", 4, 1, 78, 140, popOnly),
	lib("casio-poprock1", "casio/poprock1", "PopRock1", "rock", "4/4", 4, 1, 78, 140, popOnly),
	lib("casio-poprock2", "casio/poprock2", "PopRock2", "rock", "4/4", 4, 1, 78, 140, popOnly),
	lib("rock-128", "stdlib/rock-128", "Rock128", "rock", "12/8", 4, 1, 40, 100, popOnly),
	lib("casio-shufflerock", "casio/shufflerock", "ShuffleRock", "rock", "12/8", 4, 1, 75, 140, popOnly),
	lib("rockwaltz", "stdlib/rockwaltz", "RockWaltz", "waltz", "3/4", 3, 1, 70, 150, bothCorps),

	// ballad
	lib("ballad", "stdlib/ballad", "Ballad", "ballad", "4/4", 4, 1, 48, 100, bothCorps),
	lib("popballad", "stdlib/popballad", "PopBallad", "ballad", "4/4", 4, 1, 48, 100, popOnly),
	lib("rockballad", "stdlib/rockballad", "RockBallad", "ballad", "4/4", 4, 1, 55, 110, popOnly),
	lib("guitarballad", "stdlib/guitarballad", "GuitarBallad", "ballad", "4/4", 4, 1, 48, 100, popOnly),
	lib("pianoballad", "stdlib/pianoballad", "PianoBallad", "ballad", "4/4", 4, 1, 48, 100, popOnly),
	lib("rb-ballad", "stdlib/rb-ballad", "R&B-Ballad", "ballad", "4/4", 4, 1, 55, 100, popOnly),
	lib("casio-popballad", "casio/popballad", "PopBallad", "ballad", "4/4", 4, 1, 48, 100, popOnly),
	lib("casio-oldieballad", "casio/oldieballad", "OldieBallad", "ballad", "4/4", 4, 1, 48, 100, popOnly),
	lib("casio-8beatballad1", "casio/8beatballad1", "8BeatBallad1", "ballad", "4/4", 4, 1, 48, 100, popOnly),
	lib("casio-16beatballad1", "casio/16beatballad1", "16BeatBallad1", "ballad", "4/4", 4, 1, 45, 95, popOnly),
	lib("ballad128", "stdlib/ballad128", "Ballad128", "ballad", "12/8", 4, 1, 38, 100, popOnly),
	lib("ballad68", "stdlib/ballad68", "Ballad68", "ballad", "12/8", 4, 1, 38, 100, popOnly),
	lib("ballad68", "stdlib/ballad68", "Ballad68", "ballad", "6/8", 4, 2.0/3, 50, 120, bothCorps),

	// jazz
	{Tag: "nitejazz", Name: "NiteJazz", File: "stdlib/nitejazz", Set: straightJazz, Family: "jazz", Meter: "4/4",
		Time: 4, R: 1, MinBPM: 55, MaxBPM: 130, Corpora: popOnly},
	{Tag: "mellowjazz", Name: "MellowJazz", File: "stdlib/mellowjazz", Set: straightJazz, Family: "jazz", Meter: "4/4",
		Time: 4, R: 1, MinBPM: 60, MaxBPM: 140, Corpora: popOnly},
	{Tag: "evansish", Name: "Evansish", File: "stdlib/evansish", Set: straightJazz, Family: "jazz", Meter: "4/4",
		Time: 4, R: 1, MinBPM: 55, MaxBPM: 130, Corpora: popOnly},
	lib("swing", "stdlib/swing", "Swing", "jazz", "12/8", 4, 1, 80, 200, popOnly),
	lib("slowjazz", "stdlib/slowjazz", "SlowJazz", "jazz", "12/8", 4, 1, 45, 100, popOnly),
	lib("easyswing", "stdlib/easyswing", "EasySwing", "jazz", "12/8", 4, 1, 70, 160, popOnly),
	lib("casio-slowswing", "casio/slowswing", "SlowSwing", "jazz", "12/8", 4, 1, 55, 110, popOnly),
	lib("68swing", "stdlib/68swing", "68Swing", "jazz", "6/8", 6, 2, 120, 330, bothCorps),
	lib("jazzwaltz", "stdlib/jazzwaltz", "JazzWaltz", "jazz", "3/4", 3, 1, 90, 200, bothCorps),
	lib("modernjazzwaltz", "stdlib/modernjazzwaltz", "ModernJazzWaltz", "jazz", "3/4", 3, 1, 90, 180, bothCorps),
	lib("dixie", "stdlib/dixie", "Dixie", "jazz", "4/4", 4, 1, 100, 200, notOnly),

	// blues
	lib("blues128", "stdlib/blues128", "Blues128", "blues", "12/8", 4, 1, 38, 100, popOnly),
	lib("slowblues", "stdlib/slowblues", "SlowBlues", "blues", "12/8", 4, 1, 45, 100, popOnly),
	lib("blues", "stdlib/blues", "Blues", "blues", "12/8", 4, 1, 80, 140, popOnly),
	lib("shuffleboggie", "stdlib/shuffleboggie", "ShuffleBoggie", "blues", "12/8", 4, 1, 85, 150, popOnly),
	lib("blues68", "stdlib/blues68", "Blues68", "blues", "6/8", 6, 2, 100, 300, bothCorps),

	// latin
	lib("bossanova", "stdlib/bossanova", "BossaNova", "latin", "4/4", 4, 1, 90, 160, bothCorps),
	double(lib("bossanova", "stdlib/bossanova", "BossaNova", "latin", "4/4", 4, 1, 100, 160, popOnly)),
	lib("rhumba", "stdlib/rhumba", "Rhumba", "latin", "4/4", 4, 1, 88, 150, bothCorps),
	lib("chacha", "stdlib/chacha", "ChaCha", "latin", "4/4", 4, 1, 88, 130, bothCorps),
	lib("beguine", "stdlib/beguine", "Beguine", "latin", "4/4", 4, 1, 88, 150, bothCorps),
	lib("bolero", "stdlib/bolero", "Bolero", "latin", "4/4", 4, 1, 78, 120, bothCorps),
	lib("slowbolero", "stdlib/slowbolero", "SlowBolero", "latin", "4/4", 4, 1, 55, 100, popOnly),
	double(lib("mambo", "stdlib/mambo", "Mambo", "latin", "4/4", 4, 1, 140, 220, popOnly)),
	double(lib("salsa", "stdlib/salsa", "Salsa", "latin", "4/4", 4, 1, 150, 230, popOnly)),
	double(lib("samba", "stdlib/samba", "Samba", "latin", "4/4", 4, 1, 150, 240, popOnly)),
	double(lib("merengue", "stdlib/merengue", "Merengue", "latin", "4/4", 4, 1, 180, 280, popOnly)),
	lib("son", "stdlib/son", "Son", "latin", "4/4", 4, 1, 88, 160, bothCorps),
	lib("tango", "stdlib/tango", "Tango", "latin", "4/4", 4, 1, 100, 135, bothCorps),
	lib("lighttango", "stdlib/lighttango", "LightTango", "latin", "4/4", 4, 1, 100, 135, bothCorps),
	lib("calypso", "stdlib/calypso", "Calypso", "latin", "4/4", 4, 1, 96, 160, bothCorps),
	lib("jazzrhumba", "stdlib/jazzrhumba", "JazzRhumba", "latin", "4/4", 4, 1, 96, 160, popOnly),
	lib("lfusion", "stdlib/lfusion", "LFusion", "latin", "4/4", 4, 1, 88, 140, popOnly),
	lib("casio-latinfusion", "casio/latinfusion", "LatinFusion", "latin", "4/4", 4, 1, 88, 130, popOnly),
	lib("afro-cuban", "stdlib/afro-cuban", "Afro-Cuban", "latin", "6/8", 3, 1, 80, 180, bothCorps),
	lib("latinwaltz", "stdlib/latinwaltz", "LatinWaltz", "waltz", "3/4", 3, 1, 80, 160, bothCorps),

	// funk, disco, R&B, soul
	lib("bvfunk", "stdlib/bvfunk", "BVFunk", "funk", "4/4", 4, 1, 78, 120, popOnly),
	lib("dsoul", "stdlib/dsoul", "DSoul", "funk", "4/4", 4, 1, 96, 130, popOnly),
	lib("rb", "stdlib/rb", "R&B", "funk", "4/4", 4, 1, 66, 120, popOnly),
	lib("boneym", "stdlib/boneym", "BoneyM", "funk", "4/4", 4, 1, 96, 140, popOnly),
	lib("casio-funk1", "casio/funk1", "Funk1", "funk", "4/4", 4, 1, 78, 115, popOnly),
	lib("casio-funk2", "casio/funk2", "Funk2", "funk", "4/4", 4, 1, 78, 115, popOnly),
	lib("casio-discosoul", "casio/discosoul", "DiscoSoul", "funk", "4/4", 4, 1, 96, 130, popOnly),
	lib("casio-soul", "casio/soul", "Soul", "funk", "4/4", 4, 1, 66, 110, popOnly),
	lib("casio-r+b", "casio/r+b", "R&B", "funk", "4/4", 4, 1, 66, 110, popOnly),
	lib("casio-modernrb", "casio/modernrb", "ModernR&B", "funk", "4/4", 4, 1, 58, 100, popOnly),
	lib("casio-mellowrb", "casio/mellowrb", "MellowRB", "funk", "4/4", 4, 1, 55, 95, popOnly),

	// reggae, ska
	double(lib("ska", "stdlib/ska", "Ska", "reggae", "4/4", 4, 1, 130, 240, popOnly)),
	{Tag: "amt-reggae", Name: "AMTReggae", Define: reggaeGroove, Family: "reggae", Meter: "4/4",
		Time: 4, R: 1, MinBPM: 55, MaxBPM: 105, Corpora: popOnly},

	// country
	lib("countryswing", "stdlib/countryswing", "CountrySwing", "country", "4/4", 4, 1, 96, 170, bothCorps),
	lib("slowcountry", "stdlib/slowcountry", "SlowCountry", "country", "4/4", 4, 1, 52, 100, popOnly),
	lib("bluegrass", "stdlib/bluegrass", "Bluegrass", "country", "4/4", 4, 1, 90, 200, bothCorps),
	lib("westernswing", "stdlib/westernswing", "WesternSwing", "country", "4/4", 4, 1, 96, 170, notOnly),
	lib("hillcountry", "stdlib/hillcountry", "HillCountry", "country", "4/4", 4, 1, 96, 170, bothCorps),
	lib("zydeco", "stdlib/zydeco", "Zydeco", "country", "4/4", 4, 1, 96, 170, bothCorps),
	lib("countryblues", "stdlib/countryblues", "CountryBlues", "country", "4/4", 4, 1, 78, 130, bothCorps),
	lib("countrywaltz", "stdlib/countrywaltz", "CountryWaltz", "country", "3/4", 3, 1, 70, 160, bothCorps),

	// folk (grooves of our own for the Nottingham tunes; BlueFolk)
	{Tag: "amt-reel", Name: "AMTReel", Define: reelGroove, Family: "folk", Meter: "4/4",
		Time: 4, R: 1, MinBPM: 80, MaxBPM: 200, Corpora: notOnly},
	{Tag: "amt-jig", Name: "AMTJig", Define: jigGroove, Family: "folk", Meter: "6/8",
		Time: 6, R: 2, MinBPM: 150, MaxBPM: 360, Corpora: notOnly},
	lib("bluefolk", "stdlib/bluefolk", "BlueFolk", "folk", "4/4", 4, 1, 60, 125, bothCorps),

	// waltz
	lib("waltz", "stdlib/waltz", "Waltz", "waltz", "3/4", 3, 1, 70, 200, bothCorps),
	lib("vienesewaltz", "stdlib/vienesewaltz", "VieneseWaltz", "waltz", "3/4", 3, 1, 120, 200, bothCorps),
	lib("frenchwaltz", "stdlib/frenchwaltz", "FrenchWaltz", "waltz", "3/4", 3, 1, 90, 180, bothCorps),
	lib("broadwaywaltz", "stdlib/broadwaywaltz", "BroadwayWaltz", "waltz", "3/4", 3, 1, 90, 180, bothCorps),

	// march
	lib("march", "stdlib/march", "March", "march", "4/4", 4, 1, 88, 140, notOnly),
	lib("dixiemarch", "stdlib/dixiemarch", "DixieMarch", "march", "4/4", 4, 1, 88, 150, notOnly),
	double(lib("bwmarch", "stdlib/bwmarch", "BWMarch", "march", "4/4", 4, 1, 160, 240, notOnly)),
	lib("casio-march1", "casio/march1", "March1", "march", "4/4", 4, 1, 88, 140, notOnly),
	lib("68march", "stdlib/68march", "68March", "march", "6/8", 2, 2.0/3, 60, 130, notOnly),

	// polka
	lib("polka", "stdlib/polka", "Polka", "polka", "4/4", 4, 1, 100, 260, notOnly),
	lib("casio-polka", "casio/polka", "Polka", "polka", "4/4", 4, 1, 100, 160, notOnly),
	lib("casio-poppolka", "casio/poppolka", "PopPolka", "polka", "4/4", 4, 1, 100, 160, notOnly),

	// gospel
	lib("spiritual", "stdlib/spiritual", "Spiritual", "gospel", "4/4", 4, 1, 96, 180, bothCorps),
	double(lib("spiritual", "stdlib/spiritual", "Spiritual", "gospel", "4/4", 4, 1, 110, 180, popOnly)),
	lib("spiritualplus", "stdlib/spiritual", "SpiritualPlus", "gospel", "4/4", 4, 1, 96, 180, bothCorps),

	// electronic
	lib("trance", "stdlib/trance", "Trance", "electronic", "4/4", 4, 1, 115, 150, popOnly),
	double(lib("trance", "stdlib/trance", "Trance", "electronic", "4/4", 4, 1, 115, 150, popOnly)),
	double(lib("casio-techno", "casio/techno", "Techno", "electronic", "4/4", 4, 1, 115, 150, popOnly)),
	double(lib("casio-house", "casio/house", "House", "electronic", "4/4", 4, 1, 112, 132, popOnly)),
	lib("casio-triphop", "casio/triphop", "TripHop", "electronic", "4/4", 4, 1, 58, 100, popOnly),
	lib("casio-ambient2", "casio/ambient2", "Ambient2", "electronic", "4/4", 4, 1, 58, 110, popOnly),
}

// Catalogue returns a copy of the groove catalogue.
func Catalogue() []Groove { return append([]Groove(nil), catalogue...) }

// FamiliesFor lists the families allowed for a corpus (in Families order).
func FamiliesFor(corpus string) []string {
	seen := map[string]bool{}
	for _, g := range catalogue {
		if g.forCorpus(corpus) {
			seen[g.Family] = true
		}
	}
	var out []string
	for _, f := range Families {
		if seen[f] {
			out = append(out, f)
		}
	}
	return out
}

// hash64 is FNV-1a of the parts joined by "|".
func hash64(parts ...string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strings.Join(parts, "|")))
	return h.Sum64()
}

// Variant is one arrangement of a source.
type Variant struct {
	Groove    Groove
	KeepPiano bool   // keep the source's piano part; the groove keeps only bass and drums
	Seed      uint64 // MMA's RndSeed and the lead-instrument choice
	// Drums, when set, is the human drumming that replaces MMA's drums.
	Drums *DrumPlan
}

// Name returns the output file stem: "001-bossanova", "001-bossanova-piano".
func (v Variant) Name(s *Source) string {
	n := s.Name + "-" + v.Groove.Tag
	if v.KeepPiano {
		n += "-piano"
	}
	return n
}

// Choose picks up to n grooves for a source, deterministically (a hash of
// the source id and the groove): the grooves that fit it (of the source's
// Families when one of those fits) are ordered by
// hash, then taken so that the families differ as long as unused families
// remain, and a groove is never taken twice (in either tempo ratio). When
// the source has a piano part, the variant at position hash%n keeps it.
func Choose(s *Source, n int) []Variant {
	var fit []Groove
	for _, g := range catalogue {
		if g.Fits(s) && (s.Families == nil || slices.Contains(s.Families, g.Family)) {
			fit = append(fit, g)
		}
	}
	if len(fit) == 0 && s.Families != nil {
		// No groove of the tagged families at the source's tempo: any
		// family rather than none.
		for _, g := range catalogue {
			if g.Fits(s) {
				fit = append(fit, g)
			}
		}
	}
	key := func(g Groove) uint64 { return hash64(s.ID, g.Tag, g.Name) }
	sort.SliceStable(fit, func(i, j int) bool { return key(fit[i]) < key(fit[j]) })
	var out []Variant
	usedFam := map[string]bool{}
	usedTag := map[string]bool{}
	for pass := 0; pass < 2 && len(out) < n; pass++ {
		for _, g := range fit {
			if len(out) == n {
				break
			}
			if usedTag[g.Tag] || (pass == 0 && usedFam[g.Family]) {
				continue
			}
			usedTag[g.Tag] = true
			usedFam[g.Family] = true
			out = append(out, Variant{Groove: g, Seed: key(g)})
		}
	}
	if len(out) > 0 && hasTrack(s, "Piano") {
		out[hash64(s.ID, "piano")%uint64(len(out))].KeepPiano = true
	}
	return out
}

func hasTrack(s *Source, name string) bool {
	for _, t := range s.Score.Tracks {
		if t.Name == name && len(t.Notes) > 0 {
			return true
		}
	}
	return false
}

// leads lists, per family, General MIDI programs for the melody; Merge takes
// the first (in the variant's hash order) that the groove does not play.
var leads = map[string][]int{
	"pop":        {0, 4, 73, 54, 65, 11, 80},
	"rock":       {29, 30, 27, 81, 0},
	"ballad":     {0, 73, 40, 71, 68, 48},
	"jazz":       {65, 66, 56, 26, 11, 0},
	"blues":      {66, 22, 29, 56, 0},
	"latin":      {73, 65, 56, 24, 11, 0},
	"funk":       {66, 4, 62, 27, 16},
	"reggae":     {16, 56, 4, 65},
	"country":    {110, 25, 22, 105, 0},
	"folk":       {110, 73, 21, 72, 71},
	"waltz":      {40, 21, 0, 73, 71},
	"march":      {56, 72, 71, 60},
	"polka":      {21, 71, 56},
	"gospel":     {19, 16, 52, 0},
	"electronic": {80, 81, 85, 90},
}

// leadProgram picks the melody's program for a variant: the family's lead
// list rotated by the seed, the first program the accompaniment does not
// use (the first of the rotation if all are used).
func leadProgram(family string, seed uint64, used map[int]bool) int {
	l := leads[family]
	if len(l) == 0 {
		l = []int{0}
	}
	off := int(seed % uint64(len(l)))
	for i := range l {
		p := l[(off+i)%len(l)]
		if !used[p] {
			return p
		}
	}
	return l[off]
}
