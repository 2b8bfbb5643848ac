package text

import (
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strings"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// From words to a request (ARCHITECTURE §10, issue 25). ParsePrompt reads
// the attributes a prompt names (explicit) and the words that imply more:
// moods, scenes and uses, styles, ensembles, dynamics (Word). Resolve turns
// the implications into defaults for one seed: a tempo, mode, density,
// dynamics, instrument set, drums, genre or meter the prompt does not name
// is drawn from what its words imply — a range sampled by the seed, never a
// constant — and each carries its source ("tempo 62–76 bpm from
// 'lullaby'"). Explicit words beat implied ones. Among implications, what
// the music is chooses its instruments, drums and genre (a named ensemble,
// then an ensemble or style word, then a scene: "an 8-bit boss battle" is
// chiptune), and where it is used chooses its tempo, mood and dynamics (a
// scene's range, then a style's, then an ensemble's; moods that are said
// narrow it, and a faster mood moves a style's range: "upbeat pop").
//
// Dynamics reach the notes by velocity shaping, not by a model attribute:
// the vocabulary has no DYNAMICS token and a model trained with one cannot
// be made on a CPU in time, so the caller moves the generated piece's
// velocities to the level's target mean, scaling their spread only when
// the extremes would pass 1 or 127, so every accent the model wrote keeps
// its place and its order (ShapeVelocities). A DYNAMICS attribute would let
// the model phrase softly or loudly (fewer notes, other voicings); shaping
// cannot, which is why moods also set density and tempo.

// Word is a word or phrase of the prompt with what it was understood as.
type Word struct {
	Text string `json:"text"` // as in the prompt (normalized)
	// As is the known word it was read as when it is not one itself: a
	// word form ("lullabies" → "lullaby") or a WordNet synonym or hypernym
	// ("doleful" → "melancholy"); "" when Text is known.
	As      string `json:"as,omitempty"`
	Kind    string `json:"kind"` // mood, dynamics, tempo, scene, ensemble, instrument, genre, tempo-limit, solo
	Name    string `json:"name"` // canonical: mood, level, scene, ensemble, bpm, …
	Negated bool   `json:"negated,omitempty"`
}

// quoted is how a word is cited as a source: 'lullaby' or 'doleful' (≈ melancholy).
func (w Word) quoted() string {
	if w.As != "" {
		return "'" + w.Text + "' (≈ " + w.As + ")"
	}
	return "'" + w.Text + "'"
}

// negators turn the phrase after them (or after one of negIntensifiers) off.
var negators = map[string]bool{"not": true, "no": true, "without": true, "never": true, "nothing": true, "non": true,
	"less": true, "nor": true, "neither": true, "isnt": true, "dont": true, "avoid": true, "minus": true, "sans": true}
var negIntensifiers = map[string]bool{"too": true, "very": true, "so": true, "overly": true, "that": true, "really": true,
	"particularly": true, "any": true, "a": true, "much": true, "at": true, "all": true, "the": true, "of": true, "overtly": true}

func negatedAt(words []string, i int) bool {
	if i > 0 && negators[words[i-1]] {
		return true
	}
	if i > 1 && negators[words[i-2]] && negIntensifiers[words[i-1]] {
		return true
	}
	return i > 2 && negators[words[i-3]] && negIntensifiers[words[i-2]] && negIntensifiers[words[i-1]]
}

// stopWords are neither used nor reported as unused: function words and
// the words every prompt has for "music".
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but of for to in on at by with from into onto over under as is are was
		were be been being that this these those it its it's i me my we our you your he she they them their his her
		some something anything any very really quite rather more most less little bit lot lots much many few like
		feel feeling feels felt vibe vibes style styled kind sort type mood moods tone tones music musical song songs
		piece pieces tune tunes track tracks composition compositions melody melodies theme themes sound sounds
		sounding played playing plays play featuring features feature featured using uses use used make makes made
		give gives want wanted need please would could should can will just also too so then than there here about
		around through while during where when what which who whose how all both each every one two three four five six
		seven eight nine ten bars bar measures measure bpm tempo key time signature meter metre major minor set
		creates create creating created evokes evoke evoking evoked atmosphere element elements section sections part
		parts line lines instrument instruments instrumentation arrangement arranged performed perform performing
		written write composed compose accompaniment accompanied backing lead leads main primarily mainly mostly
		throughout overall whole entire including includes include along together plus only solely purely
		between within without not no never nothing non at to do does did doing done get getting go going
		sharp flat maj min seconds second minutes minute long short length duration loop loops version
		beat beats note notes chord chords progression progressions rhythm rhythms rhythmic harmony harmonies
		ending end start starts begins opening intro outro verse chorus bridge suitable perfect great good nice
		best new old real full scene scenes cue cues class act jam background foreground moment setting vibe`) {
		m[w] = true
	}
	return m
}()

// wordForms are the forms of a word to look up: itself, then its regular
// stems (WordNet's morphy rules for nouns, verbs and adjectives, and -ly).
func wordForms(w string) []string {
	out := []string{w}
	add := func(s string) {
		if len(s) >= 3 {
			out = append(out, s)
		}
	}
	suf := func(s string) bool { return strings.HasSuffix(w, s) }
	switch {
	case suf("ies"):
		add(w[:len(w)-3] + "y")
	case suf("ses"), suf("xes"), suf("zes"), suf("ches"), suf("shes"):
		add(w[:len(w)-2])
	case suf("es"):
		add(w[:len(w)-1])
		add(w[:len(w)-2])
	case suf("ss"):
	case suf("s"):
		add(w[:len(w)-1])
	}
	switch {
	case suf("ing"):
		add(w[:len(w)-3])
		add(w[:len(w)-3] + "e")
	case suf("ed"):
		add(w[:len(w)-2])
		add(w[:len(w)-1])
	case suf("ily"):
		add(w[:len(w)-3] + "y")
	case suf("ly"):
		add(w[:len(w)-2])
		add(w[:len(w)-2] + "le")
	case suf("est"):
		add(w[:len(w)-3])
		add(w[:len(w)-2])
	case suf("er"):
		add(w[:len(w)-2])
		add(w[:len(w)-1])
	case suf("ness"):
		add(w[:len(w)-4])
	}
	return out
}

// readMeaning reads, after the attributes, the words that imply: tempo
// limits ("not too fast") and feels ("half-time"), then the lexicon's
// phrases (moods, dynamics, tempo words, ensembles, scenes and styles),
// longest first, then each word left through its word forms and the
// WordNet table to a known word; what is still left is Unused.
func (p *Prompt) readMeaning(words []string, usedBy []string) {
	mark := func(i, n int, kind string) {
		for k := i; k < i+n; k++ {
			if usedBy[k] == "" || usedBy[k] == "genre" || usedBy[k] == "meter" {
				usedBy[k] = kind
			}
		}
	}
	// Tempo limits and feels.
	fast := map[string]bool{"fast": true, "quick": true, "rushed": true, "hurried": true, "frantic": true, "speedy": true, "rapid": true, "upbeat": true, "uptempo": true}
	slow := map[string]bool{"slow": true, "sluggish": true, "dragging": true, "plodding": true}
	for i, w := range words {
		switch {
		case (fast[w] || slow[w]) && negatedAt(words, i):
			name := "max"
			if slow[w] {
				name = "min"
			}
			p.Words = append(p.Words, Word{Text: negText(words, i), Kind: "tempo-limit", Name: name, Negated: true})
			mark(i, 1, "tempo-limit")
			for k := i - 1; k >= 0 && k >= i-3 && (negators[words[k]] || negIntensifiers[words[k]]); k-- {
				mark(k, 1, "tempo-limit")
			}
		case (w == "half" || w == "double") && i+1 < len(words) && (words[i+1] == "time" || words[i+1] == "tempo" || words[i+1] == "speed"):
			p.Words = append(p.Words, Word{Text: w + " " + words[i+1], Kind: "tempo-feel", Name: w})
			mark(i, 2, "tempo-feel")
		case w == "halftime" || w == "doubletime":
			p.Words = append(p.Words, Word{Text: w, Kind: "tempo-feel", Name: strings.TrimSuffix(w, "time")})
			mark(i, 1, "tempo-feel")
		case w == "solo" || w == "unaccompanied" || w == "alone" && i > 0 && usedBy[i-1] == "instrument":
			// Name "alone": the instruments play by themselves ("solo
			// piano", "unaccompanied"); "a saxophone solo" may have a band.
			name := ""
			if w != "solo" || i+1 < len(words) && usedBy[i+1] == "instrument" {
				name = "alone"
			}
			p.Words = append(p.Words, Word{Text: w, Kind: "solo", Name: name})
			mark(i, 1, "solo")
		}
	}
	// Lexicon phrases, longest first.
	for n := lex.maxWords; n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			phrase := strings.Join(words[i:i+n], " ")
			lp, ok := lex.phrases[phrase]
			if !ok || !p.free(usedBy[i:i+n], lp.kind) {
				continue
			}
			neg := negatedAt(words, i)
			if n > 1 {
				p.dropCoveredGenres(phrase, lp)
			}
			p.understand(Word{Text: phrase, Kind: lexKind(lp.kind), Name: lp.name, Negated: neg}, usedBy[i:i+n])
			mark(i, n, lexKind(lp.kind))
		}
	}
	// Words left: two-word WordNet entries ("hillbilly music"), then each
	// word's forms, then WordNet.
	for i := 0; i+1 < len(words); i++ {
		if usedBy[i] != "" || usedBy[i+1] != "" || stopWords[words[i]] {
			continue
		}
		pair := words[i] + " " + words[i+1]
		if k, ok := wordnetLookup(pair); ok && isKnownWord(k) && p.useKnown(pair, k, negatedAt(words, i)) {
			mark(i, 2, "synonym")
		}
	}
	unread := unreadKey(words, usedBy)
	for i, w := range words {
		if usedBy[i] != "" || isNumber(w) {
			continue
		}
		if unread[i] {
			if indexOf(p.Unused, w) < 0 {
				p.Unused = append(p.Unused, w)
			}
			continue
		}
		if stopWords[w] || len(w) < 3 {
			continue
		}
		if known, ok := knownAs(w); ok {
			neg := negatedAt(words, i)
			if p.useKnown(w, known, neg) {
				mark(i, 1, "synonym")
				continue
			}
		}
		if indexOf(p.Unused, w) < 0 {
			p.Unused = append(p.Unused, w)
		}
	}
	// Negators of what was understood are used; others stay unreported.
	for i, w := range words {
		if usedBy[i] == "" && negators[w] && i+1 < len(words) && usedBy[i+1] != "" {
			usedBy[i] = "negation"
		}
	}
	for _, w := range p.Words {
		if w.Kind == "mood" && !w.Negated && indexOf(p.Moods, w.Text) < 0 {
			p.Moods = append(p.Moods, w.Text)
		}
	}
	// An ensemble named by what is also one instrument's name ("string
	// ensemble", "choir") among other named instruments is that instrument
	// of a list, as captions list a piece's instruments ("piano, alto
	// saxophone, string ensemble and electric bass"), not the ensemble.
	for i, w := range p.Words {
		if w.Kind != "ensemble-named" || w.Name != p.Ensemble {
			continue
		}
		if progs, ok := instrumentSynonyms[w.Text]; ok && len(progs) == 1 && len(p.Instruments) > 1 {
			p.Ensemble = ""
			p.Words[i].Kind = "instrument"
		}
	}
}

// dropCoveredGenres removes the genre words inside a longer phrase that is
// not of their genre: the "house" of "haunted house" or "house party" is no
// house music, but the "jazz" of "jazz club" is jazz.
func (p *Prompt) dropCoveredGenres(phrase string, lp lexPhrase) {
	fams := map[string]bool{GenreFamily(lp.name): true}
	switch lp.kind {
	case "scene":
		sc := lex.scenes[lp.name]
		fams[GenreFamily(sc.genre)] = true
		if sc.ens != "" {
			fams[GenreFamily(lex.ensembles[sc.ens].genre)] = true
		}
	case "ens":
		fams[GenreFamily(lex.ensembles[lp.name].genre)] = true
	default:
		return
	}
	var keep []string
	for _, g := range p.Genres {
		if strings.Contains(" "+phrase+" ", " "+g+" ") && g != phrase && !fams[GenreFamily(g)] {
			continue
		}
		keep = append(keep, g)
	}
	if len(keep) != len(p.Genres) {
		p.Genres = keep
		p.Attrs.Genre = PromptGenre(keep)
	}
}

func negText(words []string, i int) string {
	k := i
	for k > 0 && k > i-3 && (negators[words[k-1]] || negIntensifiers[words[k-1]]) {
		k--
	}
	return strings.Join(words[k:i+1], " ")
}

func lexKind(k string) string {
	switch k {
	case "reg":
		return "register"
	case "dyn":
		return "dynamics"
	case "ens":
		return "ensemble"
	}
	return k
}

// free reports whether a lexicon phrase of kind may take words already
// used: genre and meter words are scenes too ("rock", "waltz"), and an
// ensemble's name is also an instrument term ("string quartet").
func (p *Prompt) free(used []string, kind string) bool {
	for _, u := range used {
		switch {
		case u == "" || u == "genre" || u == "meter":
		case kind == "ens" && (u == "instrument" || u == "drums"):
		default:
			return false
		}
	}
	return true
}

// understand records a lexicon word and what it asks directly.
func (p *Prompt) understand(w Word, used []string) {
	switch w.Kind {
	case "dynamics":
		if !w.Negated && p.Dynamics == "" {
			p.Dynamics = w.Name
		}
	case "tempo":
		if !w.Negated && p.Attrs.TempoBPM == 0 {
			fmt.Sscanf(w.Name, "%g", &p.Attrs.TempoBPM)
		}
	case "ensemble":
		// Named through the instrument terms: explicit.
		for _, u := range used {
			if u == "instrument" || u == "drums" {
				if !w.Negated && p.Ensemble == "" {
					p.Ensemble = w.Name
				}
				w.Kind = "ensemble-named"
				break
			}
		}
	}
	p.Words = append(p.Words, w)
}

// useKnown applies a word read as a known one (a word form or WordNet);
// false when the known word has no use here.
func (p *Prompt) useKnown(text, known string, neg bool) bool {
	as := known
	if as == text {
		as = ""
	}
	if lp, ok := lex.phrases[known]; ok {
		p.understand(Word{Text: text, As: as, Kind: lexKind(lp.kind), Name: lp.name, Negated: neg}, []string{""})
		return true
	}
	if t := findInstrumentTerm(known); t != nil {
		if t.drums {
			v := !neg
			if p.Attrs.Drums == nil {
				p.Attrs.Drums = &v
			}
		}
		if !neg && len(t.programs) > 0 {
			p.Attrs.Programs = mergePrograms(p.Attrs.Programs, t.programs)
			p.Instruments = append(p.Instruments, text)
		}
		p.Words = append(p.Words, Word{Text: text, As: as, Kind: "instrument", Name: known, Negated: neg})
		return true
	}
	for _, g := range genreTerms {
		if g == known {
			if !neg && indexOf(p.Genres, g) < 0 {
				p.Genres = append(p.Genres, g)
				if p.Attrs.Genre == "" {
					p.Attrs.Genre = GenreFamily(g)
				}
			}
			p.Words = append(p.Words, Word{Text: text, As: as, Kind: "genre", Name: g, Negated: neg})
			return true
		}
	}
	if mt, ok := meterTerms[known]; ok {
		if !neg && p.Attrs.MeterNum == 0 {
			p.Attrs.MeterNum, p.Attrs.MeterDen = mt[0], mt[1]
		}
		p.Words = append(p.Words, Word{Text: text, As: as, Kind: "meter", Name: known, Negated: neg})
		return true
	}
	if bpm, ok := tempoTerms[known]; ok {
		if !neg && p.Attrs.TempoBPM == 0 {
			p.Attrs.TempoBPM = bpm
		}
		p.Words = append(p.Words, Word{Text: text, As: as, Kind: "tempo", Name: fmt.Sprint(bpm), Negated: neg})
		return true
	}
	return false
}

// knownAs finds the known word a word stands for: one of its forms that
// the parser knows, or the WordNet table's word for it or for a form.
func knownAs(w string) (string, bool) {
	forms := wordForms(w)
	for _, f := range forms[1:] {
		if isKnownWord(f) {
			return f, true
		}
	}
	for _, f := range forms {
		if k, ok := wordnetLookup(f); ok && isKnownWord(k) {
			return k, true
		}
	}
	return "", false
}

func isKnownWord(w string) bool {
	if _, ok := lex.phrases[w]; ok {
		return true
	}
	if findInstrumentTerm(w) != nil {
		return true
	}
	if _, ok := tempoTerms[w]; ok {
		return true
	}
	if _, ok := meterTerms[w]; ok {
		return true
	}
	return indexOf(genreTerms, w) >= 0
}

var instrumentByPhrase = func() map[string]*instrumentTerm {
	m := map[string]*instrumentTerm{}
	for i := range instrumentTerms {
		m[strings.Join(instrumentTerms[i].words, " ")] = &instrumentTerms[i]
	}
	return m
}()

func findInstrumentTerm(w string) *instrumentTerm { return instrumentByPhrase[w] }

func mergePrograms(a, b []int) []int {
	out := append([]int{}, a...)
	for _, p := range b {
		if !containsInt(out, p) {
			out = append(out, p)
		}
	}
	sort.Ints(out)
	return out
}

func containsInt(xs []int, v int) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

func isNumber(w string) bool {
	w = strings.TrimPrefix(w, "-") // normalizePrompt keeps a minus that starts a number
	for _, r := range w {
		if (r < '0' || r > '9') && r != '.' && r != '/' && r != ':' {
			return false
		}
	}
	return w != ""
}

// Choices are the user's edits of what the words imply (the Compose
// screen's mood, ensemble and dynamics chips): "" keeps the prompt's,
// "none" drops it, a name replaces it (Moods, Ensembles, DynamicsLevels).
type Choices struct {
	Mood     string `json:"mood,omitempty"`
	Ensemble string `json:"ensemble,omitempty"`
	Dynamics string `json:"dynamics,omitempty"`
	Density  string `json:"density,omitempty"` // DensityLevels
}

// Item is one understood attribute of a request, explicit or implied, as
// shown to the user.
type Item struct {
	Attr     string   `json:"attr"`            // tempo key meter genre instruments drums mood ensemble dynamics density length
	Value    string   `json:"value"`           // "68 bpm", "D minor", "p (velocity 52)"
	Range    string   `json:"range,omitempty"` // what an implied value was drawn from: "62–76 bpm"
	From     []string `json:"from,omitempty"`  // the words: "'lullaby'", "'doleful' (≈ melancholy)"
	Implied  bool     `json:"implied"`         // a default from the words, not asked for
	Explicit bool     `json:"-"`
}

// String writes the item as the screen and the command line show it:
// "tempo 68 bpm (62–76 bpm from 'lullaby')".
func (it Item) String() string {
	s := it.Attr + " " + it.Value
	var why []string
	if it.Range != "" {
		why = append(why, it.Range)
	}
	if len(it.From) > 0 {
		why = append(why, "from "+strings.Join(it.From, ", "))
	}
	if it.Implied && len(why) == 0 {
		why = append(why, "implied")
	}
	if len(why) > 0 {
		s += " (" + strings.Join(why, " ") + ")"
	}
	return s
}

// Resolution is a prompt's request for one seed: the attributes to force
// (explicit and implied), what they came from, and what is shaped after
// sampling (dynamics).
type Resolution struct {
	Attrs token.Attributes `json:"attrs"`
	// Density is the texture asked ("sparse", "moderate", "dense"; ""
	// none) and NotesPerBeat the density drawn in its range (notes per
	// quarter note, drums included), 0 when none or when the words say
	// "sparse" or "dense" themselves (the caller maps those to its
	// vocabulary's extremes and NotesPerBeat to its bins).
	Density      string  `json:"density,omitempty"`
	NotesPerBeat float64 `json:"notes_per_beat,omitempty"`
	// Dynamics is the level ("pp" … "ff", "" none) and Velocity the
	// target mean velocity drawn in its range (0 none).
	Dynamics string  `json:"dynamics,omitempty"`
	Velocity float64 `json:"velocity,omitempty"`
	// Mood is the moods understood (canonical names, "" none), Valence
	// and Arousal their mean (−1…1; 0 without a mood).
	Mood     string   `json:"mood,omitempty"`
	Valence  float64  `json:"valence,omitempty"`
	Arousal  float64  `json:"arousal,omitempty"`
	Ensemble string   `json:"ensemble,omitempty"`
	Scenes   []string `json:"scenes,omitempty"`
	Items    []Item   `json:"items"`
	Unused   []string `json:"unused,omitempty"`
	// Register is "low" or "high" ("" none) and RegisterRange its pitches
	// (MIDI, as heard), where the pitched parts are pulled.
	Register      string `json:"register,omitempty"`
	RegisterRange [2]int `json:"register_range,omitempty"`
	// SeedMix is a hash of what the words mean (moods, scenes, ensemble,
	// dynamics, register, and the words that said them; 0 when they mean
	// nothing): the prompt path samples with the seed mixed with it, so
	// two prompts that mean different things never give the same piece
	// for a seed even where their attributes fall in the same bins ("sad"
	// and "melancholy" both ask for a slow minor piece, "a lullaby" and "a
	// bedtime story" are one scene).
	SeedMix uint64 `json:"-"`
}

// draw is a number in [0, 1) from the seed and a name: every implied value
// has its own stream, so adding one does not move the others.
func draw(seed uint64, name string) float64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	z := seed ^ h.Sum64()
	z += 0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

type source struct {
	lo, hi float64
	from   []string
}

// arousalTempo is the tempo range a mood's arousal implies: centred on
// 100·1.8^a bpm below 0 (56 at −1, 75 at −0.5) and 100·1.65^a above (128 at
// +0.5, 165 at +1), ±10%: calm and sad music is slow, and slower than
// excited music is fast.
func arousalTempo(a float64) (float64, float64) {
	base := 1.65
	if a < 0 {
		base = 1.8
	}
	c := 100 * math.Pow(base, a)
	return math.Round(c * 0.9), math.Round(c * 1.1)
}

// meet narrows base by other: their overlap (at least 6 bpm wide) when
// they overlap, else the 8 bpm of base nearest other.
func meet(base, other [2]float64) [2]float64 {
	lo, hi := math.Max(base[0], other[0]), math.Min(base[1], other[1])
	if hi-lo >= 6 {
		return [2]float64{lo, hi}
	}
	if hi >= lo { // a thin overlap: 6 bpm about it, inside base
		c := (lo + hi) / 2
		return [2]float64{math.Max(base[0], c-3), math.Min(base[1], c+3)}
	}
	w := math.Min(8, base[1]-base[0])
	if other[1] < base[0] {
		return [2]float64{base[0], base[0] + w}
	}
	return [2]float64{base[1] - w, base[1]}
}

// Resolve draws the prompt's implied defaults for seed, with the user's
// choices (ch) over the words'. Explicit attributes stay as ParsePrompt
// read them.
func (p Prompt) Resolve(seed uint64, ch Choices) Resolution {
	r := Resolution{Attrs: p.Attrs, Unused: p.Unused}
	a := &r.Attrs
	a.Programs = append([]int(nil), p.Attrs.Programs...)
	if p.Attrs.Drums != nil {
		d := *p.Attrs.Drums
		a.Drums = &d
	}

	// What the words say, in kinds.
	type moodHit struct {
		def    *moodDef
		weight float64
		from   string
		genre  bool // a genre's or a form's mood ("rock" energetic, "carol" festive), which sets no texture
	}
	var moods []moodHit
	var scenes, styles []*sceneDef
	sceneFrom := map[*sceneDef]string{}
	var styleEns []string
	styleEnsFrom := map[string]string{}
	var tempoMax, tempoMin, tempoScale float64
	var tempoLimitFrom, tempoFeelFrom, soloFrom, aloneFrom string
	tempoScale = 1
	for _, w := range p.Words {
		if w.Negated && w.Kind != "tempo-limit" {
			continue
		}
		switch w.Kind {
		case "mood":
			moods = append(moods, moodHit{lex.moods[w.Name], 1, w.quoted(), false})
		case "scene":
			sc := lex.scenes[w.Name]
			if sceneFrom[sc] != "" {
				continue
			}
			sceneFrom[sc] = w.quoted()
			if isStyle(w.Name) {
				styles = append(styles, sc)
			} else {
				scenes = append(scenes, sc)
			}
		case "ensemble":
			if indexOf(styleEns, w.Name) < 0 {
				styleEns = append(styleEns, w.Name)
				styleEnsFrom[w.Name] = w.quoted()
			}
		case "tempo-limit":
			if w.Name == "max" {
				tempoMax, tempoLimitFrom = 112, w.quoted()
			} else {
				tempoMin, tempoLimitFrom = 84, w.quoted()
			}
		case "tempo-feel":
			tempoFeelFrom = w.quoted()
			if w.Name == "half" {
				tempoScale = 0.5
			} else {
				tempoScale = 2
			}
		case "solo":
			soloFrom = w.quoted()
			if w.Name == "alone" {
				aloneFrom = w.quoted()
			}
		}
	}
	for i, sc := range append(append([]*sceneDef{}, scenes...), styles...) {
		// The first scene speaks loudest ("a funeral procession" is a
		// funeral first).
		weight := 0.7
		if i > 0 || isStyle(sc.name) {
			weight = 0.45
		}
		for _, m := range sc.moods {
			moods = append(moods, moodHit{lex.moods[m], weight, sceneFrom[sc], GenreFamily(sc.name) != "" || indexOf(genreTerms, sc.name) >= 0})
		}
	}
	switch {
	case ch.Mood == "none":
		moods = nil
	case ch.Mood != "":
		if m := lex.moods[normalizePrompt(ch.Mood)]; m != nil {
			moods = []moodHit{{m, 1, "your choice", false}}
		}
	}

	// Mood: the mean valence and arousal.
	var moodNames, moodFrom []string
	if len(moods) > 0 {
		var sv, sa, sw float64
		for _, m := range moods {
			sv += m.weight * m.def.v
			sa += m.weight * m.def.a
			sw += m.weight
			if indexOf(moodNames, m.def.name) < 0 {
				moodNames = append(moodNames, m.def.name)
			}
			if indexOf(moodFrom, m.from) < 0 {
				moodFrom = append(moodFrom, m.from)
			}
		}
		r.Valence, r.Arousal = round2(sv/sw), round2(sa/sw)
		r.Mood = strings.Join(moodNames, ", ")
		r.Items = append(r.Items, Item{Attr: "mood", Value: fmt.Sprintf("%s (valence %+.2f, arousal %+.2f)", r.Mood, r.Valence, r.Arousal),
			From: moodFrom, Implied: moodFrom[0] == "your choice"})
	}
	hasMood := len(moods) > 0
	saidMood := false
	var saidMoodFrom []string
	for _, m := range moods {
		if m.weight == 1 {
			saidMood = true
			saidMoodFrom = append(saidMoodFrom, m.from)
		}
	}
	for _, sc := range scenes {
		r.Scenes = append(r.Scenes, sc.name)
	}
	for _, sc := range styles {
		r.Scenes = append(r.Scenes, sc.name)
	}
	ordered := append(append([]*sceneDef{}, scenes...), styles...)

	// Ensemble and instruments: what the music is (a named ensemble, an
	// ensemble or style word) before where it is used (a scene).
	var ens *ensembleDef
	ensFrom, ensLevel := "", 0 // level 1 named, 2 an ensemble word, 3 a style, 4 a scene
	switch {
	case p.Ensemble != "":
		ens, ensFrom, ensLevel = lex.ensembles[p.Ensemble], "'"+p.Ensemble+"'", 1
	case len(styleEns) > 0:
		ens, ensFrom, ensLevel = lex.ensembles[styleEns[0]], styleEnsFrom[styleEns[0]], 2
	default:
		for lvl, list := range [][]*sceneDef{styles, scenes} {
			for _, sc := range list {
				if sc.ens != "" && ens == nil {
					ens, ensFrom, ensLevel = lex.ensembles[sc.ens], sceneFrom[sc], 3+lvl
				}
			}
		}
	}
	switch {
	case ch.Ensemble == "none":
		if p.Ensemble == "" {
			ens = nil
		}
	case ch.Ensemble != "":
		if e := lex.ensembles[normalizePrompt(ch.Ensemble)]; e != nil {
			ens, ensFrom, ensLevel = e, "your choice", 2
		}
	}
	explicitProgs := len(p.Attrs.Programs) > 0
	switch {
	case explicitProgs:
		// A plain "guitar" in a style with an electric one is that one
		// ("grunge with guitars" is not an acoustic guitar).
		if ens != nil && p.Ensemble == "" && containsInt(a.Programs, 25) && p.saidPlainGuitar() {
			for _, pr := range ens.options[0] {
				if pr >= 26 && pr <= 30 {
					a.Programs = mergePrograms(removeInt(a.Programs, 25), []int{pr})
					break
				}
			}
		}
		r.Items = append(r.Items, Item{Attr: "instruments", Value: programList(a.Programs), From: quoteAll(p.Instruments), Explicit: true})
	case ens != nil:
		i := int(draw(seed, "instruments") * float64(len(ens.options)))
		a.Programs = append([]int(nil), ens.options[i]...)
		sort.Ints(a.Programs)
		rng := ens.name
		if len(ens.options) > 1 {
			rng = fmt.Sprintf("one of %d sets of %s", len(ens.options), ens.name)
		}
		r.Items = append(r.Items, Item{Attr: "instruments", Value: programList(a.Programs), Range: rng, From: []string{ensFrom}, Implied: true})
	}
	if ens != nil && (!explicitProgs || p.Ensemble != "") {
		r.Ensemble = ens.name
		r.Items = append(r.Items, Item{Attr: "ensemble", Value: ens.name, From: []string{ensFrom}, Implied: p.Ensemble == "" || ensFrom == "your choice"})
	}

	// Drums: as the ensemble or style has them, else as the scene.
	if p.Attrs.Drums != nil {
		r.Items = append(r.Items, Item{Attr: "drums", Value: yesNo(*a.Drums), From: p.drumWords(), Explicit: true})
	} else {
		var d int
		from := ""
		if ens != nil && ensLevel <= 2 && ens.drums != 0 {
			d, from = ens.drums, ensFrom
		}
		// "Solo", "unaccompanied": the instruments named play alone, in
		// any style ("a pop song for solo piano" has no drum kit).
		if d == 0 && aloneFrom != "" && explicitProgs {
			d, from = -1, aloneFrom
		}
		for _, list := range [][]*sceneDef{styles, scenes} {
			for _, sc := range list {
				if d == 0 && sc.drums != 0 {
					d, from = sc.drums, sceneFrom[sc]
				}
			}
		}
		if d == 0 && ens != nil && ens.drums != 0 && !explicitProgs {
			d, from = ens.drums, ensFrom
		}
		if d == 0 && soloFrom != "" {
			d, from = -1, soloFrom
		}
		// A mood said with strong arousal: calm music has no drum kit,
		// raging music has one.
		if d == 0 && saidMood && !explicitProgs {
			switch {
			case r.Arousal <= -0.5:
				d, from = -1, strings.Join(saidMoodFrom, ", ")
			case r.Arousal >= 0.85:
				d, from = 1, strings.Join(saidMoodFrom, ", ")
			}
		}
		if d == 0 && explicitProgs && len(p.Instruments) > 0 {
			// Instruments named without drums or a style that has them:
			// a listener expects those instruments, not a drum kit.
			d, from = -1, strings.Join(quoteAll(p.Instruments), ", ")+" (no drums named)"
		}
		if d != 0 {
			v := d > 0
			a.Drums = &v
			r.Items = append(r.Items, Item{Attr: "drums", Value: yesNo(v), From: []string{from}, Implied: true})
		}
	}
	drumsOn := a.Drums != nil && *a.Drums

	// Genre.
	if p.Attrs.Genre != "" {
		r.Items = append(r.Items, Item{Attr: "genre", Value: p.Attrs.Genre, From: quoteAll(p.Genres), Explicit: true})
	} else {
		g, from := "", ""
		if ens != nil && ensLevel <= 3 && GenreFamily(ens.genre) != "" {
			g, from = GenreFamily(ens.genre), ensFrom
		}
		for _, list := range [][]*sceneDef{styles, scenes} {
			for _, sc := range list {
				if f := GenreFamily(sc.genre); g == "" && f != "" {
					g, from = f, sceneFrom[sc]
				}
			}
		}
		if g == "" && ens != nil && GenreFamily(ens.genre) != "" {
			g, from = GenreFamily(ens.genre), ensFrom
		}
		if g != "" {
			a.Genre = g
			r.Items = append(r.Items, Item{Attr: "genre", Value: g, From: []string{from}, Implied: true})
		}
	}

	// Meter: a scene's own ("a pirate shanty" 6/8), else the style's
	// (meters.go: "bossa nova" 4/4), of a scene, a genre word or the
	// ensemble's genre; else the model draws it.
	if p.Attrs.MeterNum > 0 {
		r.Items = append(r.Items, Item{Attr: "meter", Value: fmt.Sprintf("%d/%d", a.MeterNum, a.MeterDen), Explicit: true})
	} else {
		var m [2]int
		var from string
		for _, sc := range ordered {
			if m = sc.meter; m[0] == 0 {
				m = styleMeter(sc.name)
			}
			if m[0] > 0 {
				from = sceneFrom[sc]
				break
			}
		}
		for _, g := range p.Genres {
			if m[0] == 0 {
				m, from = styleMeter(g), "'"+g+"'"
			}
		}
		if m[0] == 0 && ens != nil && ens.genre != "" {
			m, from = styleMeter(ens.genre), ensFrom
		}
		if m[0] > 0 {
			a.MeterNum, a.MeterDen = m[0], m[1]
			r.Items = append(r.Items, Item{Attr: "meter", Value: fmt.Sprintf("%d/%d", a.MeterNum, a.MeterDen), From: []string{from}, Implied: true})
		}
	}

	// Tempo: a scene's range, else a style's (a genre's own, measured in
	// the corpora where they hold it), else an ensemble's, else the moods';
	// the moods narrow whichever it is.
	if p.Attrs.TempoBPM > 0 {
		r.Items = append(r.Items, Item{Attr: "tempo", Value: fmt.Sprintf("%g bpm", a.TempoBPM), Explicit: true})
	} else {
		// Every scene and style with a range has its say: the first one's
		// range, narrowed by each next ("chillhop for late night": the
		// night's 66–92 within chillhop's 70–90).
		var rng [2]float64
		var from []string
		styleRange := true // the range is a style's (or an ensemble's, a genre's), not a scene's
		for _, sc := range ordered {
			t := sceneTempo(sc)
			switch {
			case t[0] == 0:
			case rng[0] == 0:
				rng, from = t, []string{sceneFrom[sc]}
				styleRange = isStyle(sc.name)
			default:
				if n := meet(rng, t); n != rng {
					rng, from = n, append(from, sceneFrom[sc])
				}
			}
		}
		if rng[0] == 0 && ens != nil && ens.tempo[0] > 0 {
			rng, from = ens.tempo, []string{ensFrom}
		}
		if rng[0] == 0 && p.Attrs.Genre != "" {
			if t, ok := genreTempo(p.Genres, p.Attrs.Genre); ok {
				rng, from = t, []string{"genre " + p.Attrs.Genre + " (corpora)"}
			}
		}
		// The moods narrow a range only when they are said (a scene's own
		// moods are in its range already).
		// A style's range gives way to a faster mood ("upbeat pop" is
		// upbeat, whatever pop's quartiles), a scene's does not ("an
		// upbeat lullaby" is still a lullaby).
		if hasMood && (rng[0] == 0 || saidMood) {
			lo, hi := arousalTempo(r.Arousal)
			switch {
			case rng[0] == 0:
				rng, from = [2]float64{lo, hi}, moodFrom
			case styleRange && lo > rng[1]:
				rng, from = [2]float64{lo, math.Min(hi, lo+8)}, append(from, saidMoodFrom...)
			default:
				if n := meet(rng, [2]float64{lo, hi}); n != rng {
					rng, from = n, append(from, saidMoodFrom...)
				}
			}
		}
		if rng[0] > 0 && tempoScale != 1 {
			rng = [2]float64{math.Round(rng[0] * tempoScale), math.Round(rng[1] * tempoScale)}
			from = append(from, tempoFeelFrom)
		} else if rng[0] == 0 && tempoScale != 1 {
			if tempoScale < 1 {
				rng = [2]float64{64, 84}
			} else {
				rng = [2]float64{150, 180}
			}
			from = []string{tempoFeelFrom}
		}
		if tempoMax > 0 || tempoMin > 0 {
			if rng[0] == 0 {
				rng = [2]float64{math.Max(tempoMin, 76), 112}
				if tempoMin > 0 {
					rng = [2]float64{tempoMin, 120}
				}
			}
			if tempoMax > 0 && rng[1] > tempoMax {
				rng = [2]float64{math.Min(rng[0], tempoMax-16), tempoMax}
			}
			if tempoMin > 0 && rng[0] < tempoMin {
				rng = [2]float64{tempoMin, math.Max(rng[1], tempoMin+16)}
			}
			from = append(from, tempoLimitFrom)
		}
		if rng[0] > 0 {
			rng[0], rng[1] = math.Max(rng[0], PromptMinBPM), math.Min(rng[1], PromptMaxBPM)
			a.TempoBPM = math.Round(rng[0] + draw(seed, "tempo")*(rng[1]-rng[0]))
			r.Items = append(r.Items, Item{Attr: "tempo", Value: fmt.Sprintf("%g bpm", a.TempoBPM),
				Range: fmt.Sprintf("%g–%g bpm", rng[0], rng[1]), From: dedupe(from), Implied: true})
		}
	}

	// Key: an explicit key, a mode asked without a tonic, or a mode the
	// moods and scenes imply (votes, then the valence); the tonic is drawn.
	switch {
	case p.Attrs.KeyTonic >= 0:
		r.Items = append(r.Items, Item{Attr: "key", Value: midi.Key{Tonic: a.KeyTonic, Minor: a.KeyMinor}.String(), Explicit: true})
	default:
		mode, from := p.Mode, []string(nil)
		if mode == "" {
			var major, minor float64
			var fMaj, fMin []string
			// Each mood votes: by its own mode, else by its valence when
			// it leans clearly ("relaxing" is not minor).
			for _, m := range moods {
				mode := m.def.mode
				switch {
				case mode != "":
				case m.def.v >= 0.3:
					mode = "major"
				case m.def.v <= -0.3:
					mode = "minor"
				}
				switch mode {
				case "major":
					major += m.weight
					fMaj = append(fMaj, m.from)
				case "minor":
					minor += m.weight
					fMin = append(fMin, m.from)
				}
			}
			for _, sc := range ordered {
				switch sc.mode {
				case "major":
					major += 1.5
					fMaj = append(fMaj, sceneFrom[sc])
				case "minor":
					minor += 1.5
					fMin = append(fMin, sceneFrom[sc])
				}
			}
			switch {
			case minor > major:
				mode, from = "minor", fMin
			case major > minor:
				mode, from = "major", fMaj
			case hasMood && r.Valence <= -0.2:
				mode, from = "minor", moodFrom
			case hasMood && r.Valence >= 0.2:
				mode, from = "major", moodFrom
			}
		}
		if mode != "" {
			a.KeyMinor = mode == "minor"
			a.KeyTonic = int(draw(seed, "tonic") * 12)
			it := Item{Attr: "key", Value: midi.Key{Tonic: a.KeyTonic, Minor: a.KeyMinor}.String(), Range: mode + ", tonic drawn",
				From: dedupe(from), Implied: true}
			if p.Mode != "" {
				it.From = []string{"'" + p.Mode + "'"} // the mode asked, the tonic drawn
			}
			r.Items = append(r.Items, it)
		}
	}

	// Density (issue 33: the words set the texture as they set the tempo):
	// explicit words; else a scene's own ("minimalism"); else the arousal
	// of the moods said; else the ensemble's texture ("drone", "epic
	// orchestra"); else the arousal of the scenes' moods ("a rainy
	// evening", "a battle"). The mood of a genre or a form sets none: a
	// rock song is not dense by name, nor a jig, nor a festive carol (a
	// lullaby is sparse by its scene's own texture).
	dens, densFrom := p.Density, []string(nil)
	if dens == "" {
		for _, sc := range ordered {
			if sc.density != "" {
				dens, densFrom = sc.density, []string{sceneFrom[sc]}
				break
			}
		}
		// The texture the moods kept by keep imply by their weighted
		// arousal ("" for a middling one).
		texture := func(keep func(moodHit) bool) (string, []string) {
			var sa, sw float64
			var from []string
			for _, m := range moods {
				if keep(m) {
					sa, sw = sa+m.weight*m.def.a, sw+m.weight
					if indexOf(from, m.from) < 0 {
						from = append(from, m.from)
					}
				}
			}
			switch {
			case sw > 0 && sa/sw <= calmArousal:
				return "sparse", from
			case sw > 0 && sa/sw >= excitedArousal:
				return "dense", from
			}
			return "", nil
		}
		if dens == "" {
			dens, densFrom = texture(func(m moodHit) bool { return m.weight == 1 })
		}
		if dens == "" && ens != nil && ens.density != "" {
			dens, densFrom = ens.density, []string{ensFrom}
		}
		if dens == "" {
			dens, densFrom = texture(func(m moodHit) bool { return !m.genre })
		}
	}
	densImplied := p.Density == ""
	switch {
	case ch.Density == "none":
		dens = ""
	case ch.Density != "":
		if _, _, ok := DensityRange(ch.Density, drumsOn); ok {
			dens, densFrom, densImplied = ch.Density, []string{"your choice"}, true
		}
	}
	switch {
	case dens == "":
	case densImplied:
		lo, hi, _ := DensityRange(dens, drumsOn)
		if len(a.Programs) == 1 && !drumsOn && lineInstrument(a.Programs[0]) {
			// An instrument of one line alone: at its busiest running
			// sixteenths ("a lively jig for fiddle" is not 8 notes a beat).
			lo, hi = min(lo, soloMost-1.5), min(hi, soloMost)
		}
		r.Density = dens
		r.NotesPerBeat = round2(lo + draw(seed, "density")*(hi-lo))
		r.Items = append(r.Items, Item{Attr: "density", Value: fmt.Sprintf("%s, %.1f notes a beat", dens, r.NotesPerBeat),
			Range: fmt.Sprintf("%g–%g", lo, hi), From: dedupe(densFrom), Implied: densFrom[0] != "your choice"})
	default:
		r.Density = dens
		r.Items = append(r.Items, Item{Attr: "density", Value: dens, Explicit: true})
	}

	// Dynamics: explicit words, a scene's, a mood's own, or the arousal.
	level, dynFrom, implied := p.Dynamics, []string(nil), false
	if level != "" {
		dynFrom = p.dynamicsWords()
	} else {
		implied = true
		for _, sc := range ordered {
			if sc.dyn != "" {
				level, dynFrom = sc.dyn, []string{sceneFrom[sc]}
				break
			}
		}
		if level == "" {
			for _, m := range moods {
				if m.def.dyn != "" {
					level, dynFrom = m.def.dyn, []string{m.from}
					break
				}
			}
		}
		// The arousal of mood words said (a dance's or a scene's mood
		// sets no dynamics: a jig is not loud by name, as it is not dense).
		if level == "" && saidMood {
			switch {
			case r.Arousal <= -0.55:
				level = "p"
			case r.Arousal <= -0.3:
				level = "mp"
			case r.Arousal >= 0.8:
				level = "ff"
			case r.Arousal >= 0.5:
				level = "f"
			}
			dynFrom = saidMoodFrom
		}
	}
	switch {
	case ch.Dynamics == "none":
		level = ""
	case ch.Dynamics != "":
		if _, _, ok := dynRange(ch.Dynamics); ok {
			level, dynFrom, implied = ch.Dynamics, []string{"your choice"}, false
		}
	}
	if level != "" {
		lo, hi, _ := dynRange(level)
		r.Dynamics = level
		r.Velocity = math.Round(lo + draw(seed, "dynamics")*(hi-lo))
		r.Items = append(r.Items, Item{Attr: "dynamics", Value: fmt.Sprintf("%s (velocity %g)", level, r.Velocity),
			Range: fmt.Sprintf("%g–%g", lo, hi), From: dedupe(dynFrom), Implied: implied})
	}
	// Register: words that ask for one, else a mood's.
	reg, regFrom, regImplied := "", "", false
	for _, w := range p.Words {
		if w.Kind == "register" && !w.Negated && reg == "" {
			reg, regFrom = w.Name, w.quoted()
		}
	}
	if reg == "" {
		for _, m := range moods {
			if m.def.reg != "" && m.weight == 1 {
				reg, regFrom, regImplied = m.def.reg, m.from, true
				break
			}
		}
	}
	if reg != "" {
		r.Register, r.RegisterRange = reg, registers[reg]
		r.Items = append(r.Items, Item{Attr: "register", Value: reg, Range: fmt.Sprintf("pitches %d–%d", r.RegisterRange[0], r.RegisterRange[1]),
			From: []string{regFrom}, Implied: regImplied})
	}
	if a.Bars > 0 {
		r.Items = append(r.Items, Item{Attr: "length", Value: fmt.Sprintf("%d bars", a.Bars), Explicit: true})
	}
	// The words that carry meaning go into the mix too, as said (sorted,
	// negation kept): two phrases of one scene ("a lullaby", "a bedtime
	// story"; "a thunderstorm", "a stormy sea") or a word that adds
	// nothing the scene has not ("a pounding techno beat") resolve alike
	// but are different prompts, and gave one piece for a seed (ten such
	// pairs in the free-text suite). Word order and function words still
	// do not count: "sad piano piece" is "a piano piece, sad".
	var said []string
	for _, w := range p.Words {
		switch w.Kind {
		case "mood", "scene", "ensemble", "dynamics", "register", "tempo-limit", "tempo-feel", "solo":
			t := w.Text
			if w.Negated {
				t = "not " + t
			}
			if indexOf(said, t) < 0 {
				said = append(said, t)
			}
		}
	}
	sort.Strings(said)
	if r.Mood != "" || len(r.Scenes) > 0 || r.Ensemble != "" || r.Dynamics != "" || r.Register != "" || len(said) > 0 {
		h := fnv.New64a()
		fmt.Fprintf(h, "%s|%s|%s|%s|%s|%s", r.Mood, strings.Join(r.Scenes, ","), r.Ensemble, r.Dynamics, r.Register, strings.Join(said, ","))
		r.SeedMix = h.Sum64()
	}
	sort.SliceStable(r.Items, func(i, j int) bool { return itemOrder(r.Items[i].Attr) < itemOrder(r.Items[j].Attr) })
	return r
}

var itemAttrs = []string{"tempo", "key", "meter", "genre", "instruments", "ensemble", "drums", "mood", "dynamics", "density", "register", "length"}

func itemOrder(attr string) int {
	for i, a := range itemAttrs {
		if a == attr {
			return i
		}
	}
	return len(itemAttrs)
}

// densityLevels are the textures words imply or a user chooses, with the
// notes per beat (drums included) each asks without and with drums. Calm
// words ask for fewer notes than Nottingham's tunes have (2.6 a beat,
// melody and chords), excited ones for more than POP909's piano (5.3); a
// piece with drums keeps its beat (the drum corpora's median is 9.9; on
// the suite of 2026-11-27 a lo-fi piece asked for 3–5 notes a beat with
// drums had drums in 3 of 16 bars). The words "sparse" and "dense"
// themselves ask for the extremes (app's densityWords).
var densityLevels = []struct {
	name             string
	lo, hi, dlo, dhi float64
}{
	{"sparse", 1.5, 2.25, 5, 7},
	{"moderate", 3, 5, 7, 10},
	{"dense", 6, 9, 10, 14},
}

// soloMost is the most notes a beat a texture asks of an instrument of
// one line alone, without drums: running sixteenths.
const soloMost = 4.5

// lineInstrument reports whether a General MIDI program plays one line at
// a time: basses, solo strings, brass, reeds, pipes and synth leads (not
// keyboards, guitars, the harp, string and choir ensembles or pads).
func lineInstrument(p int) bool {
	return p >= 32 && p <= 45 || p >= 56 && p <= 87
}

// DensityLevels are the textures a front end offers, sparsest first.
func DensityLevels() []string {
	out := make([]string, len(densityLevels))
	for i, d := range densityLevels {
		out[i] = d.name
	}
	return out
}

// DensityRange is the notes per beat (drums included) a texture level
// asks, with or without drums; ok is false for an unknown level.
func DensityRange(level string, drums bool) (lo, hi float64, ok bool) {
	for _, d := range densityLevels {
		if d.name == level {
			if drums {
				return d.dlo, d.dhi, true
			}
			return d.lo, d.hi, true
		}
	}
	return 0, 0, false
}

// Arousal thresholds of the texture: moods at or below calmArousal ask
// for a sparse texture ("sad", "melancholy", "wistful" −0.4; "lonely"
// −0.5; "calm" −0.7), at or above excitedArousal a dense one ("joyful"
// 0.65, "festive" 0.75, "epic" 0.85, "energetic" 0.9; a party anthem's
// festive and proud 0.67; "upbeat" 0.6 and "tense" 0.6 are not dense by
// name).
const (
	calmArousal    = -0.35
	excitedArousal = 0.65
)

// isStyle reports whether a scene is a style: a genre word, but not one
// that names a use ("lullaby", "hymn", "march" are where music is used,
// and keep their tempo whatever the mood).
func isStyle(name string) bool {
	switch name {
	case "lullaby", "hymn", "chorale", "carol", "christmas", "anthem", "march", "military":
		return false
	}
	return GenreFamily(name) != "" || indexOf(genreTerms, name) >= 0
}

// sceneTempo is a scene's tempo range (a genre the corpora hold uses their
// range).
func sceneTempo(sc *sceneDef) [2]float64 {
	if t, ok := corpusTempo[sc.name]; ok && t.N >= 50 && sc.name != "folk" {
		return [2]float64{t.P25, t.P75}
	}
	return sc.tempo
}

// genreTempo is a genre's tempo range when no scene gives one: the
// corpora's (pop, game) or the scene entry of the genre word.
func genreTempo(words []string, family string) ([2]float64, bool) {
	for _, w := range append(append([]string{}, words...), family) {
		if t, ok := corpusTempo[w]; ok && t.N >= 50 && w != "folk" {
			return [2]float64{t.P25, t.P75}, true
		}
		if sc := lex.scenes[w]; sc != nil && sc.tempo[0] > 0 {
			return sc.tempo, true
		}
	}
	return [2]float64{}, false
}

func (p *Prompt) drumWords() []string {
	if p.drumPhrase != "" {
		return []string{"'" + p.drumPhrase + "'"}
	}
	var out []string
	for _, w := range p.Words {
		if w.Kind == "instrument" && findInstrumentTerm(w.Name) != nil && findInstrumentTerm(w.Name).drums {
			out = append(out, w.quoted())
		}
	}
	return out
}

func (p *Prompt) dynamicsWords() []string {
	for _, w := range p.Words {
		if w.Kind == "dynamics" && !w.Negated {
			return []string{w.quoted()}
		}
	}
	return nil
}

// saidPlainGuitar reports whether the prompt names a guitar without its
// kind ("guitar", "guitars").
func (p *Prompt) saidPlainGuitar() bool {
	return indexOf(p.Instruments, "guitar") >= 0 || indexOf(p.Instruments, "guitars") >= 0
}

func removeInt(xs []int, v int) []int {
	var out []int
	for _, x := range xs {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

func programList(ps []int) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = midi.ProgramName(p)
	}
	return strings.Join(names, ", ")
}

func quoteAll(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = "'" + w + "'"
	}
	return out
}

func dedupe(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x != "" && indexOf(out, x) < 0 {
			out = append(out, x)
		}
	}
	return out
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// ShapeVelocities moves a score's velocities so their mean is target,
// keeping every accent: each velocity shifts by the same amount, and the
// spread about the mean is scaled down only as far as needed to keep the
// softest at 1 and the loudest at 127, so the order of all velocities and
// their relative differences stay as the model wrote them. It returns the
// shift applied (the mean before minus target, negated); target ≤ 0 or an
// empty score leave it unchanged.
func ShapeVelocities(s *midi.Score, target float64) float64 {
	if s == nil || target <= 0 {
		return 0
	}
	var sum float64
	n := 0
	lo, hi := 127.0, 0.0
	for _, t := range s.Tracks {
		for _, nt := range t.Notes {
			v := float64(nt.Velocity)
			sum += v
			n++
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if n == 0 {
		return 0
	}
	mean := sum / float64(n)
	scale := 1.0
	if hi > mean && target+(hi-mean) > 127 {
		scale = math.Min(scale, (127-target)/(hi-mean))
	}
	if lo < mean && target-(mean-lo) < 1 {
		scale = math.Min(scale, (target-1)/(mean-lo))
	}
	for ti := range s.Tracks {
		for ni := range s.Tracks[ti].Notes {
			nt := &s.Tracks[ti].Notes[ni]
			v := math.Round(target + (float64(nt.Velocity)-mean)*scale)
			nt.Velocity = uint8(math.Max(1, math.Min(127, v)))
		}
	}
	return target - mean
}
