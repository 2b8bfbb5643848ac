package token

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/userfile"
)

// VocabVersion is the version of the vocabulary layout written by Save.
// LoadVocab also reads version 1 files (a model trained before version 2
// keeps working): a version 1 configuration has no genres and none of the
// version 2 meanings below.
//
// Version 2 (issue 13) adds the GENRE attribute and changes what three
// attributes mean, each behind a Config flag so a version 1 model is read
// with its own meanings: DENSITY is notes per quarter note (not per bar),
// LENGTH is the bars from the window's first bar to the end of the piece
// (not the whole piece's length), and a prefix always lists at least one
// INSTRUMENT.
const VocabVersion = 2

// vocabFormat names the JSON file kind.
const vocabFormat = "amt-vocab"

// Sentinel errors callers test with errors.Is.
var (
	// ErrVocab marks a vocabulary file that cannot be used.
	ErrVocab = errors.New("token: bad vocabulary")
	// ErrNotAllowed marks a token the grammar does not allow at that place.
	ErrNotAllowed = errors.New("token not allowed here")
	// ErrMismatch marks attributes that contradict the score being encoded
	// (tempo, meter, instruments or length), which would make the sequence
	// break its own grammar.
	ErrMismatch = errors.New("attributes contradict the score")
	// ErrTooLong marks a score whose encoding would not fit (more bars or
	// grid units than the vocabulary can address).
	ErrTooLong = errors.New("score too long to encode")
)

// Meter is a time signature Num/Den.
type Meter struct {
	Num int `json:"num"`
	Den int `json:"den"`
}

func (m Meter) String() string { return strconv.Itoa(m.Num) + "/" + strconv.Itoa(m.Den) }

// Config is the parameter set a vocabulary is built from. It is what Save
// writes (beside the token names) and LoadVocab rebuilds from.
type Config struct {
	// PositionsPerBeat is the timing grid per quarter note (12: triplets and
	// sixteenths are both exact).
	PositionsPerBeat int `json:"positions_per_beat"`
	// MaxBarPositions bounds a bar's length in grid units (Position tokens).
	MaxBarPositions int `json:"max_bar_positions"`
	// TempoEdges are the bpm boundaries of the tempo bins: bin 0 is below
	// TempoEdges[0], bin i is [TempoEdges[i-1], TempoEdges[i]), the last is
	// at or above the last edge. Used by TEMPO_BIN attributes and Tempo
	// body tokens alike.
	TempoEdges []float64 `json:"tempo_edges"`
	// Meters are the common meters with their own METER attribute token;
	// any other meter is METER_OTHER.
	Meters []Meter `json:"meters"`
	// BodyMeters are the meters a TimeSig body token can state; a score's
	// meter outside this list is encoded as the listed meter of the nearest
	// bar length (note onsets stay exact, only the signature changes).
	BodyMeters []Meter `json:"body_meters"`
	// DensityEdges are notes-per-bar bin boundaries (as TempoEdges).
	DensityEdges []float64 `json:"density_edges"`
	// LengthEdges are bar-count bin boundaries: bin i is
	// [LengthEdges[i], LengthEdges[i+1]), the last bin open-ended up to
	// MaxBars.
	LengthEdges []int `json:"length_edges"`
	MaxBars     int   `json:"max_bars"`
	Styles      int   `json:"styles"` // STYLE_0 … STYLE_{Styles-1}, plus STYLE_NONE
	// Durations are the duration bin values in grid units, ascending; a
	// duration is encoded as the nearest bin.
	Durations    []int `json:"durations"`
	VelocityBins int   `json:"velocity_bins"`

	// Version 2 (all absent in version 1 files).

	// Genres are the genre families with a GENRE attribute token each
	// (GENRE_pop …), in token order.
	Genres []string `json:"genres,omitempty"`
	// DensityPerBeat: DensityEdges are notes per quarter note; false (version
	// 1), notes per bar.
	DensityPerBeat bool `json:"density_per_beat,omitempty"`
	// LengthRemaining: LENGTH counts the bars from the sequence's first bar
	// to the end of the piece, so a window from the middle of a piece and
	// the last bars before EOS train every bin; false (version 1), the whole
	// piece's bars.
	LengthRemaining bool `json:"length_remaining,omitempty"`
	// InstrumentsRequired: the prefix lists at least one INSTRUMENT (drums
	// alone count), so the body's programs are always the declared ones.
	InstrumentsRequired bool `json:"instruments_required,omitempty"`
}

// GenreFamilies are the genre families of the default vocabulary, in token
// order. engine/text maps genre words and tune types onto them.
var GenreFamilies = []string{"pop", "rock", "ballad", "jazz", "blues", "latin", "funk", "reggae", "country",
	"folk", "waltz", "march", "polka", "classical", "game", "electronic", "gospel"}

// DefaultConfig is the configuration of DefaultVocab (version 2).
func DefaultConfig() Config {
	c := ConfigV1()
	c.Genres = append([]string(nil), GenreFamilies...)
	c.DensityPerBeat = true
	c.DensityEdges = []float64{0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24}
	c.LengthRemaining = true
	c.LengthEdges = []int{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384}
	c.InstrumentsRequired = true
	return c
}

// ConfigV1 is the configuration of the version 1 vocabulary (the default
// before issue 13): no genres, density per bar, LENGTH of the whole piece.
func ConfigV1() Config {
	c := Config{
		PositionsPerBeat: 12,
		MaxBarPositions:  192, // 16 quarter notes
		Meters: []Meter{{4, 4}, {3, 4}, {2, 4}, {6, 8}, {2, 2}, {12, 8}, {9, 8}, {5, 4}, {3, 8},
			{6, 4}, {7, 8}, {5, 8}, {3, 2}, {7, 4}, {1, 4}, {4, 2}},
		DensityEdges: []float64{1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 96},
		LengthEdges:  []int{1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384},
		MaxBars:      4096,
		Styles:       64,
		VelocityBins: 32,
	}
	// Tempo: 5 bpm bins from 40 to 160, 10 bpm to 210, then wider. Every
	// MidiCaps edge (40/60/70/90/110/140/160/210) is a bin boundary.
	c.TempoEdges = []float64{20, 30}
	for t := 40; t < 160; t += 5 {
		c.TempoEdges = append(c.TempoEdges, float64(t))
	}
	for t := 160; t <= 210; t += 10 {
		c.TempoEdges = append(c.TempoEdges, float64(t))
	}
	c.TempoEdges = append(c.TempoEdges, 230, 260, 300)
	// Body meters: every Num/Den with Den in 1,2,4,8,16 whose bar fits.
	for _, den := range []int{1, 2, 4, 8, 16} {
		for num := 1; num <= 16; num++ {
			if 4*c.PositionsPerBeat*num/den <= c.MaxBarPositions {
				c.BodyMeters = append(c.BodyMeters, Meter{num, den})
			}
		}
	}
	// Durations: exact up to 8 beats, then steps of 1/2, 1, 2, 4 beats up
	// to 64 beats.
	for d := 1; d <= 96; d++ {
		c.Durations = append(c.Durations, d)
	}
	for _, st := range []struct{ step, to int }{{6, 192}, {12, 384}, {24, 768}} {
		last := c.Durations[len(c.Durations)-1]
		for d := last + st.step; d <= st.to; d += st.step {
			c.Durations = append(c.Durations, d)
		}
	}
	return c
}

// Kind is the class of a token.
type Kind uint8

// Token kinds, in vocabulary order.
const (
	KindSpecial Kind = iota
	KindTempoAttr
	KindKeyAttr
	KindMeterAttr
	KindGenreAttr
	KindInstrumentAttr
	KindDensityAttr
	KindLengthAttr
	KindStyleAttr
	KindBar
	KindTimeSig
	KindPosition
	KindTempo
	KindProgram
	KindPitch
	KindVelocity
	KindDuration
	numKinds
)

var kindNames = [...]string{"special", "TEMPO_BIN", "KEY", "METER", "GENRE", "INSTRUMENT", "DENSITY", "LENGTH",
	"STYLE", "Bar", "TimeSig", "Position", "Tempo", "Program", "Pitch", "Velocity", "Duration"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// DrumProgram is the program index used for drums in INSTRUMENT and Program
// tokens (after the 128 General MIDI programs).
const DrumProgram = 128

// keyNames are the pitch-class names used in KEY tokens.
var keyNames = [12]string{"C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B"}

// Vocab is a token vocabulary: specials, attribute tokens and body tokens,
// each class a contiguous range of ids. It is immutable once built and safe
// for concurrent use.
type Vocab struct {
	cfg Config

	// Special ids.
	PAD, BOS, EOS, SEP, UNK uint16

	base  [numKinds]uint16 // first id of each kind
	count [numKinds]int    // number of ids of each kind
	// StyleNone is the STYLE_NONE token (the style slot before clustering).
	StyleNone uint16
	Bar       uint16

	names []string
	kinds []Kind
	index map[string]uint16

	// Lookup tables.
	durUnits   []int    // grid value of each duration bin
	durBin     []uint16 // grid units (capped) → duration bin
	bodyBarLen []int    // positions per bar of each body meter
	meterBody  []int    // body meter index of each common meter
	meterAttr  []int    // common-meter index of each body meter, -1 if none
}

// DefaultVocab returns the standard vocabulary (DefaultConfig).
func DefaultVocab() *Vocab {
	v, err := NewVocab(DefaultConfig())
	if err != nil {
		panic(err) // the default configuration is valid by construction
	}
	return v
}

// NewVocab builds a vocabulary from a configuration.
func NewVocab(c Config) (*Vocab, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	v := &Vocab{cfg: c, index: map[string]uint16{}}
	add := func(k Kind, name string) uint16 {
		id := uint16(len(v.names))
		if v.count[k] == 0 {
			v.base[k] = id
		}
		v.count[k]++
		v.names = append(v.names, name)
		v.kinds = append(v.kinds, k)
		v.index[name] = id
		return id
	}
	v.PAD = add(KindSpecial, "PAD")
	v.BOS = add(KindSpecial, "BOS")
	v.EOS = add(KindSpecial, "EOS")
	v.SEP = add(KindSpecial, "SEP")
	v.UNK = add(KindSpecial, "UNK")
	for i := 0; i <= len(c.TempoEdges); i++ {
		add(KindTempoAttr, "TEMPO_BIN_"+v.tempoLabel(i))
	}
	for i := 0; i < 24; i++ {
		add(KindKeyAttr, "KEY_"+keyLabel(i%12, i >= 12))
	}
	for _, m := range c.Meters {
		add(KindMeterAttr, "METER_"+m.String())
	}
	add(KindMeterAttr, "METER_OTHER")
	for _, g := range c.Genres {
		add(KindGenreAttr, "GENRE_"+g)
	}
	for p := 0; p < 128; p++ {
		add(KindInstrumentAttr, "INSTRUMENT_"+strconv.Itoa(p))
	}
	add(KindInstrumentAttr, "INSTRUMENT_DRUMS")
	for i := 0; i <= len(c.DensityEdges); i++ {
		add(KindDensityAttr, "DENSITY_"+binLabel(c.DensityEdges, i))
	}
	for i := range c.LengthEdges {
		hi := c.MaxBars + 1
		if i+1 < len(c.LengthEdges) {
			hi = c.LengthEdges[i+1]
		}
		add(KindLengthAttr, fmt.Sprintf("LENGTH_%d-%d", c.LengthEdges[i], hi-1))
	}
	for k := 0; k < c.Styles; k++ {
		add(KindStyleAttr, "STYLE_"+strconv.Itoa(k))
	}
	v.StyleNone = add(KindStyleAttr, "STYLE_NONE")
	v.Bar = add(KindBar, "Bar")
	for _, m := range c.BodyMeters {
		add(KindTimeSig, "TimeSig_"+m.String())
		v.bodyBarLen = append(v.bodyBarLen, 4*c.PositionsPerBeat*m.Num/m.Den)
	}
	for p := 0; p < c.MaxBarPositions; p++ {
		add(KindPosition, "Position_"+strconv.Itoa(p))
	}
	for i := 0; i <= len(c.TempoEdges); i++ {
		add(KindTempo, "Tempo_"+v.tempoLabel(i))
	}
	for p := 0; p < 128; p++ {
		add(KindProgram, "Program_"+strconv.Itoa(p))
	}
	add(KindProgram, "Program_DRUMS")
	for p := 0; p < 128; p++ {
		add(KindPitch, "Pitch_"+strconv.Itoa(p))
	}
	for b := 0; b < c.VelocityBins; b++ {
		add(KindVelocity, "Velocity_"+strconv.Itoa(b))
	}
	for _, d := range c.Durations {
		add(KindDuration, "Duration_"+strconv.Itoa(d))
	}
	if len(v.names) >= 65536 {
		return nil, fmt.Errorf("%w: %d tokens (must be < 65536)", ErrVocab, len(v.names))
	}
	// Duration lookup: nearest bin (ties to the shorter).
	v.durUnits = c.Durations
	maxD := c.Durations[len(c.Durations)-1]
	v.durBin = make([]uint16, maxD+1)
	j := 0
	for d := 0; d <= maxD; d++ {
		for j+1 < len(c.Durations) && abs(c.Durations[j+1]-d) < abs(c.Durations[j]-d) {
			j++
		}
		v.durBin[d] = uint16(j)
	}
	v.meterAttr = make([]int, len(c.BodyMeters))
	for i := range v.meterAttr {
		v.meterAttr[i] = -1
	}
	for i, m := range c.Meters {
		bi := v.bodyMeterIndex(m)
		v.meterBody = append(v.meterBody, bi)
		if v.meterAttr[bi] < 0 {
			v.meterAttr[bi] = i
		}
	}
	return v, nil
}

func (c *Config) validate() error {
	bad := func(why string) error { return fmt.Errorf("%w: %s", ErrVocab, why) }
	switch {
	case c.PositionsPerBeat < 1 || c.PositionsPerBeat > 96:
		return bad("positions_per_beat out of 1..96")
	case c.MaxBarPositions < c.PositionsPerBeat || c.MaxBarPositions > 4096:
		return bad("max_bar_positions out of range")
	case len(c.TempoEdges) == 0 || !sort.Float64sAreSorted(c.TempoEdges):
		return bad("tempo_edges must be ascending and non-empty")
	case len(c.DensityEdges) == 0 || !sort.Float64sAreSorted(c.DensityEdges):
		return bad("density_edges must be ascending and non-empty")
	case len(c.LengthEdges) == 0 || !sort.IntsAreSorted(c.LengthEdges) || c.LengthEdges[0] < 1:
		return bad("length_edges must be ascending, non-empty, from ≥ 1")
	case c.MaxBars < c.LengthEdges[len(c.LengthEdges)-1]:
		return bad("max_bars below the last length edge")
	case c.Styles < 0 || c.Styles > 1024:
		return bad("styles out of 0..1024")
	case len(c.Durations) == 0 || c.Durations[0] < 1 || !sort.IntsAreSorted(c.Durations):
		return bad("durations must be ascending from ≥ 1")
	case c.VelocityBins < 1 || c.VelocityBins > 128:
		return bad("velocity_bins out of 1..128")
	case len(c.BodyMeters) == 0:
		return bad("no body meters")
	case len(c.Genres) > 256:
		return bad("more than 256 genres")
	}
	seen := map[string]bool{}
	for _, g := range c.Genres {
		if g == "" || strings.ContainsAny(g, " \t\n") || seen[g] {
			return bad(fmt.Sprintf("genre %q is empty, has a space or repeats", g))
		}
		seen[g] = true
	}
	for _, m := range append(append([]Meter(nil), c.BodyMeters...), c.Meters...) {
		if m.Num < 1 || m.Den < 1 || m.Den&(m.Den-1) != 0 || (4*c.PositionsPerBeat*m.Num)%m.Den != 0 {
			return bad("meter " + m.String() + " is not whole grid units")
		}
		if n := 4 * c.PositionsPerBeat * m.Num / m.Den; n > c.MaxBarPositions {
			return bad("meter " + m.String() + " longer than max_bar_positions")
		}
	}
	return nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func keyLabel(tonic int, minor bool) string {
	if minor {
		return keyNames[tonic] + "m"
	}
	return keyNames[tonic]
}

func binLabel(edges []float64, i int) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch {
	case i == 0:
		return "<" + f(edges[0])
	case i == len(edges):
		return ">=" + f(edges[len(edges)-1])
	default:
		return f(edges[i-1]) + "-" + f(edges[i])
	}
}

func (v *Vocab) tempoLabel(i int) string { return binLabel(v.cfg.TempoEdges, i) }

// Version is the layout version the vocabulary is saved as: 1 when its
// configuration uses nothing of version 2 (so a version 1 model's
// vocabulary saves as it was read), else VocabVersion.
func (v *Vocab) Version() int {
	c := &v.cfg
	if len(c.Genres) == 0 && !c.DensityPerBeat && !c.LengthRemaining && !c.InstrumentsRequired {
		return 1
	}
	return VocabVersion
}

// Config returns a copy of the vocabulary's configuration.
func (v *Vocab) Config() Config { return v.cfg }

// Size is the number of tokens.
func (v *Vocab) Size() int { return len(v.names) }

// Name returns a token's name ("Pitch_60"), or "?<id>" for an id out of range.
func (v *Vocab) Name(tok uint16) string {
	if int(tok) < len(v.names) {
		return v.names[tok]
	}
	return "?" + strconv.Itoa(int(tok))
}

// Names returns the names of a token sequence.
func (v *Vocab) Names(toks []uint16) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = v.Name(t)
	}
	return out
}

// Lookup returns the id of a token name.
func (v *Vocab) Lookup(name string) (uint16, bool) {
	id, ok := v.index[name]
	return id, ok
}

// Kind returns the class of a token and its index within the class
// (e.g. Pitch_60 → KindPitch, 60). An id out of range is (KindSpecial, -1).
func (v *Vocab) Kind(tok uint16) (Kind, int) {
	if int(tok) >= len(v.kinds) {
		return KindSpecial, -1
	}
	k := v.kinds[tok]
	return k, int(tok - v.base[k])
}

// Token returns the id of the i-th token of a class; ok is false when i is
// out of range.
func (v *Vocab) Token(k Kind, i int) (uint16, bool) {
	if k >= numKinds || i < 0 || i >= v.count[k] {
		return 0, false
	}
	return v.base[k] + uint16(i), true
}

// Range returns the first id and the count of a token class.
func (v *Vocab) Range(k Kind) (first uint16, n int) { return v.base[k], v.count[k] }

func (v *Vocab) tok(k Kind, i int) uint16 { return v.base[k] + uint16(i) }

// TempoBin returns the tempo bin of a bpm value. A tempo within one part
// in a million below an edge counts as the edge: 90 bpm is stored in a MIDI
// file as 666,667 µs per beat, 89.99996 bpm.
func (v *Vocab) TempoBin(bpm float64) int {
	bpm *= 1 + 1e-6
	return sort.Search(len(v.cfg.TempoEdges), func(i int) bool { return v.cfg.TempoEdges[i] > bpm })
}

// TempoBPM returns the representative bpm of a tempo bin: the middle of
// its edges (the open-ended first and last bins use a point inside them).
func (v *Vocab) TempoBPM(bin int) float64 {
	e := v.cfg.TempoEdges
	switch {
	case bin <= 0:
		return e[0] * 0.9
	case bin >= len(e):
		return e[len(e)-1] * 1.1
	default:
		return (e[bin-1] + e[bin]) / 2
	}
}

// TempoBins is the number of tempo bins.
func (v *Vocab) TempoBins() int { return len(v.cfg.TempoEdges) + 1 }

// DensityBin returns the density bin of a density in the vocabulary's unit:
// notes per quarter note when Config.DensityPerBeat, else notes per bar.
func (v *Vocab) DensityBin(density float64) int {
	e := v.cfg.DensityEdges
	return sort.Search(len(e), func(i int) bool { return e[i] > density })
}

// DensityRange returns the densities bin spans in the vocabulary's unit:
// [lo, hi), hi +Inf for the open-ended last bin, lo 0 for the first.
func (v *Vocab) DensityRange(bin int) (lo, hi float64) {
	e := v.cfg.DensityEdges
	bin = max(0, min(bin, len(e)))
	lo, hi = 0, math.Inf(1)
	if bin > 0 {
		lo = e[bin-1]
	}
	if bin < len(e) {
		hi = e[bin]
	}
	return lo, hi
}

// DensityValue returns a representative density of a bin in the
// vocabulary's unit (the middle of its edges; the open-ended bins use a
// point inside them).
func (v *Vocab) DensityValue(bin int) float64 {
	e := v.cfg.DensityEdges
	switch {
	case bin <= 0:
		return e[0] / 2
	case bin >= len(e):
		return e[len(e)-1] * 1.25
	default:
		return (e[bin-1] + e[bin]) / 2
	}
}

// GenreIndex returns the index of a genre family among the vocabulary's
// GENRE tokens, or -1 (also for "" and for a version 1 vocabulary).
func (v *Vocab) GenreIndex(name string) int {
	for i, g := range v.cfg.Genres {
		if g == name {
			return i
		}
	}
	return -1
}

// Genres returns the genre families of the vocabulary (nil for version 1).
func (v *Vocab) Genres() []string { return append([]string(nil), v.cfg.Genres...) }

// LengthBin returns the LENGTH bin of a bar count (bars < 1 count as 1).
func (v *Vocab) LengthBin(bars int) int {
	e := v.cfg.LengthEdges
	i := sort.SearchInts(e, bars+1) - 1
	if i < 0 {
		i = 0
	}
	return i
}

// LengthRange returns the bar counts [lo, hi] of a LENGTH bin.
func (v *Vocab) LengthRange(bin int) (lo, hi int) {
	e := v.cfg.LengthEdges
	lo = e[bin]
	hi = v.cfg.MaxBars
	if bin+1 < len(e) {
		hi = e[bin+1] - 1
	}
	return lo, hi
}

// VelocityBin returns the velocity bin of a MIDI velocity 0–127.
func (v *Vocab) VelocityBin(vel int) int {
	if vel < 0 {
		vel = 0
	}
	if vel > 127 {
		vel = 127
	}
	return vel * v.cfg.VelocityBins / 128
}

// Velocity returns the representative MIDI velocity (1–127) of a bin: the
// middle of the velocities it holds.
func (v *Vocab) Velocity(bin int) int {
	n := v.cfg.VelocityBins
	lo := (bin*128 + n - 1) / n
	hi := ((bin+1)*128+n-1)/n - 1
	x := (lo + hi + 1) / 2
	if x < 1 {
		x = 1
	}
	if x > 127 {
		x = 127
	}
	return x
}

// DurationBin returns the duration bin nearest a duration in grid units.
func (v *Vocab) DurationBin(units int) int {
	if units < 0 {
		units = 0
	}
	if units >= len(v.durBin) {
		return len(v.durUnits) - 1
	}
	return int(v.durBin[units])
}

// DurationUnits returns the grid units of a duration bin.
func (v *Vocab) DurationUnits(bin int) int { return v.durUnits[bin] }

// bodyMeterIndex returns the body meter that represents m: the same meter
// if listed, else one of equal bar length (18/8 → 9/4), else the nearest bar
// length (ties to the shorter).
func (v *Vocab) bodyMeterIndex(m Meter) int {
	for i, b := range v.cfg.BodyMeters {
		if b == m {
			return i
		}
	}
	want := 4 * float64(v.cfg.PositionsPerBeat) * float64(m.Num) / float64(m.Den)
	best, bestD := 0, math.Inf(1)
	for i := range v.cfg.BodyMeters {
		d := math.Abs(float64(v.bodyBarLen[i]) - want)
		if d < bestD || (d == bestD && v.cfg.BodyMeters[i].Den == m.Den && v.cfg.BodyMeters[best].Den != m.Den) {
			best, bestD = i, d
		}
	}
	return best
}

// MeterToken returns the METER attribute index of a meter: its place among
// the common meters, or the OTHER index (len(Config().Meters)).
func (v *Vocab) MeterIndex(num, den int) int {
	for i, m := range v.cfg.Meters {
		if m.Num == num && m.Den == den {
			return i
		}
	}
	return len(v.cfg.Meters)
}

// KeyIndex returns the KEY attribute index (0–11 major, 12–23 minor).
func KeyIndex(tonic int, minor bool) int {
	i := ((tonic % 12) + 12) % 12
	if minor {
		i += 12
	}
	return i
}

// Positions returns the timing grid per quarter note.
func (v *Vocab) Positions() int { return v.cfg.PositionsPerBeat }

// vocabFile is the JSON layout of a saved vocabulary.
type vocabFile struct {
	Format  string   `json:"format"`
	Version int      `json:"version"`
	Size    int      `json:"size"`
	Config  Config   `json:"config"`
	Tokens  []string `json:"tokens"`
}

// MarshalJSON writes the versioned vocabulary file content.
func (v *Vocab) MarshalJSON() ([]byte, error) {
	return json.MarshalIndent(vocabFile{vocabFormat, v.Version(), len(v.names), v.cfg, v.names}, "", " ")
}

// ParseVocab reads a vocabulary from its JSON form. The token list must be
// exactly what the configuration builds.
func ParseVocab(data []byte) (*Vocab, error) {
	var f vocabFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrVocab, err)
	}
	if f.Format != vocabFormat {
		return nil, fmt.Errorf("%w: format %q, want %q", ErrVocab, f.Format, vocabFormat)
	}
	if f.Version < 1 || f.Version > VocabVersion {
		return nil, fmt.Errorf("%w: version %d, this build reads versions 1 to %d", ErrVocab, f.Version, VocabVersion)
	}
	if f.Version == 1 && (len(f.Config.Genres) > 0 || f.Config.DensityPerBeat || f.Config.LengthRemaining || f.Config.InstrumentsRequired) {
		return nil, fmt.Errorf("%w: a version 1 vocabulary with version 2 settings", ErrVocab)
	}
	v, err := NewVocab(f.Config)
	if err != nil {
		return nil, err
	}
	if len(f.Tokens) != len(v.names) || f.Size != len(v.names) {
		return nil, fmt.Errorf("%w: %d tokens listed (size %d), configuration builds %d", ErrVocab, len(f.Tokens), f.Size, len(v.names))
	}
	for i, n := range f.Tokens {
		if n != v.names[i] {
			return nil, fmt.Errorf("%w: token %d is %q, configuration builds %q", ErrVocab, i, n, v.names[i])
		}
	}
	return v, nil
}

// MaxVocabFile bounds a vocabulary file (ours are about 30 KB).
const MaxVocabFile = 64 << 20

// LoadVocab reads a vocabulary file written by Save.
func LoadVocab(path string) (*Vocab, error) {
	data, err := userfile.ReadRegular(context.Background(), path, MaxVocabFile)
	if err != nil {
		return nil, fmt.Errorf("token: load vocabulary: %w", err)
	}
	v, err := ParseVocab(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// Save writes the vocabulary as JSON, atomically (temp file, fsync, rename).
func (v *Vocab) Save(path string) error {
	data, err := v.MarshalJSON()
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if err := atomicfile.WriteFile(path, data); err != nil {
		return fmt.Errorf("token: save vocabulary %s: %w", path, err)
	}
	return nil
}
