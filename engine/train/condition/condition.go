// Package condition makes the training examples of the conditioned music
// model (issue 8).
//
// A piece is 1,500–10,000 tokens and the context 256–1,024, so random
// windows of the token stream would almost never contain the attribute
// prefix and the model would never learn to follow it. Each example is
// instead
//
//	BOS [TEMPO_BIN] [KEY] [METER] [INSTRUMENT…] [DENSITY] [LENGTH] SEP
//	Bar TimeSig Tempo  …music of the piece from that bar on…  [EOS] [PAD…]
//
// a window of the body that starts on a bar line, with the bar header
// restating the meter and tempo in force there (the grammar's first-bar
// form), preceded by attributes that describe the window as it is after
// augmentation: tempo and meter as restated, the key estimated from the
// window's notes (as evaluation measures it), the programs the window
// plays, its notes per bar; LENGTH is the bars left. Augmentation is
// drawn per example: transposition to any of the 12 keys within the pitch
// range (drums untouched) or, under TonicFrame (the default model's
// second run), to C major / A minor by the window's own key, tempo scaling across the tempo bins, re-voicing
// of each pitched program onto another General MIDI program whose range
// holds the part, and attribute dropout (each attribute left out with some
// probability, instruments as a whole; STYLE always, since style groups are
// numbered per dataset and mean nothing across corpora). Issue 33's options
// (parts.go: every listed program a part, re-voicing that keeps roles) are
// off by default.
//
// Generation (the plan of a piece, the levers, the window refill that
// keeps the prefix pinned in the same form as these examples) lives in
// engine/decoding; the two share only engine/token's stream readers
// (Vocab.BarHeaders, Vocab.SepIndex).
//
// It imports engine/token, engine/midi and engine/train; never
// engine/decoding, app/, ui/ or storage/.
package condition

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
)

// Options of the example builder. Zero fields take the defaults of
// DefaultOptions where noted.
type Options struct {
	// StartProb is the share of examples whose window starts at the first
	// bar (the piece's opening); EndProb the share whose window reaches the
	// piece's end (EOS included), so endings are learned.
	StartProb, EndProb float64
	// TransposeProb: share of examples transposed (by −6…+5 semitones,
	// within 0–127).
	TransposeProb float64
	// TempoProb: share of examples tempo-scaled, by a factor drawn
	// log-uniformly from [TempoMin, TempoMax].
	TempoProb          float64
	TempoMin, TempoMax float64
	// RevoiceProb: share of examples re-voiced; in those, each pitched
	// program moves with probability RevoicePart.
	RevoiceProb, RevoicePart float64
	// SplitProb: share of re-voiced examples with one pitched program
	// that are first split into melody, harmony and bass parts.
	SplitProb float64
	// RevoiceRoles: re-voicing (and the split's parts) keep their role:
	// the part carrying the window's top line moves only to programs that
	// carry tunes, the bass to bass programs, the rest to programs that
	// accompany (roleFit, parts.go). Off by default (issue 33: prepared for
	// a new run).
	RevoiceRoles bool `json:",omitempty"`
	// RealParts: a pitched program playing in less than half the window's
	// complete bars or under 1 note per 2 bars leaves the window, so the
	// INSTRUMENT list names only parts (parts.go). Off by default.
	RealParts bool `json:",omitempty"`
	// DropProb: each attribute is left out with this probability;
	// DropAllProb: all of them (an unconditioned example).
	DropProb, DropAllProb float64
	// WindowKey labels KEY with the window's own Krumhansl–Schmuckler
	// estimate (after transposition, as evaluation measures a generated
	// piece) when the window holds at least WindowKeyNotes pitched notes,
	// else with the piece's key; false: always the piece's key.
	WindowKey      bool
	WindowKeyNotes int
	// TonicFrame transposes every example so that its key (the window's
	// estimate under WindowKey when it holds WindowKeyNotes pitched notes,
	// else the piece's key, else the window's estimate from any notes)
	// becomes C major or A minor, and labels KEY_C or KEY_Am: the model
	// learns one tonic per mode and the caller transposes what it writes
	// (gpt.KeyFrameTonic, app/compose_keyframe.go). TransposeProb is then unused.
	// Why: a model trained in all twelve keys learned from KEY the pitch
	// set of a piece's opening but not its tonic (docs/MODEL.md, keyprobe),
	// and kept the requested key in 9–14% of pieces by itself.
	TonicFrame bool
	// RichWeight is the extra sampling weight of a piece with drums or
	// three or more programs. It was 5 when such pieces were the 31 OpenMSX
	// tracks; with the arranged corpus (6,353 pieces, all with drums) 1
	// keeps the human-played piano and folk pieces at about a sixth of the
	// examples.
	RichWeight float64
	// SourceWeight multiplies the sampling weight of every piece of a
	// source (train.Split.PieceSource: the folder of its shard, e.g.
	// "arranged"); sources not named keep 1. Why: the arranged corpus is
	// 76% of the pieces and, with RichWeight, 86% of the examples; its
	// MMA accompaniment repeats bars exactly and comps in short stabs, so a
	// model can be asked to learn more from the human-played corpora
	// (docs/MODEL.md, "What the model sees"). Nil: every source 1.
	SourceWeight map[string]float64 `json:",omitempty"`
	// FlatVelocity names sources (as SourceWeight does) whose velocities
	// were not played: notation exports at one velocity a part (the
	// lieder, quartets, EWLD, Nottingham: 1 velocity bin a piece, entropy
	// 0) or a rule's accents (the Irish tunes' abc2midi 105/95/80, Mutopia's
	// dynamics marks: 2–3 bins), against 14–22 bins and 3.5–3.7 bits for
	// the players of POP909, piano-midi.de and the Groove drummers
	// (docs/DATA.md, "Notation and performance"). Their Velocity targets are
	// left out of the loss (target −1): the model still reads those tokens,
	// and learns what it writes there from played music only. Their
	// positions stay in the loss: on the vocabulary's 12-a-beat grid the
	// notation corpora sit off the sixteenth/triplet grid as often as
	// POP909 (5.0% against 5.3%), so their timing teaches no false
	// quantization the played corpora do not. Nil: every source's velocities
	// are learned (the shipped model's runs).
	FlatVelocity map[string]bool `json:",omitempty"`
}

// DefaultOptions are the settings of the default model's second run
// (scripts/make_model.sh): every example in the tonic frame, labelled by
// its window's own key. Its first run (every key, the piece's key as
// label) is these with TonicFrame and WindowKey false; TransposeProb is
// that run's.
func DefaultOptions() Options {
	return Options{StartProb: 0.2, EndProb: 0.15, TransposeProb: 0.9, TempoProb: 0.6, TempoMin: 0.5, TempoMax: 2,
		RevoiceProb: 0.6, RevoicePart: 0.5, SplitProb: 0.7, DropProb: 0.3, DropAllProb: 0.05, RichWeight: 1,
		WindowKey: true, WindowKeyNotes: 16, TonicFrame: true}
}

// Builder makes conditioned examples; it implements train.Examples.
type Builder struct {
	v   *token.Vocab
	o   Options
	pad uint16

	mu      sync.Mutex
	weights map[*train.Split][]float64 // cumulative piece weights
}

// New returns a builder over vocabulary v.
func New(v *token.Vocab, o Options) *Builder {
	return &Builder{v: v, o: o, pad: v.PAD, weights: map[*train.Split][]float64{}}
}

var _ train.Examples = (*Builder)(nil)

// ErrPiece marks a piece that cannot give an example (no SEP, no bar).
var ErrPiece = errors.New("condition: piece has no body")

// Fill writes batch k of split: B examples of T+1 tokens shifted into
// inputs and targets; padding positions have target −1. Row r is
// FillRow's row r: it depends on (split, k, seed, r, T) and not on B.
func (b *Builder) Fill(split *train.Split, k, seed uint64, B, T int, inputs, targets []int32) error {
	var toks []uint16
	for r := 0; r < B; r++ {
		var err error
		if toks, err = b.fillRow(split, k, seed, r, T, inputs[r*T:(r+1)*T], targets[r*T:(r+1)*T], toks); err != nil {
			return err
		}
	}
	return nil
}

// FillRow writes row r of batch k of split, the row Fill writes for any
// batch size above r, into in and tg (T each): an example is a function of
// (split, seed, k, r, T) alone, so a trainer may ask for any example by
// its number (engine/train/examples' stream: example i is row i mod B of
// batch i div B).
func (b *Builder) FillRow(split *train.Split, k, seed uint64, r, T int, in, tg []int32) error {
	_, err := b.fillRow(split, k, seed, r, T, in, tg, nil)
	return err
}

func (b *Builder) fillRow(split *train.Split, k, seed uint64, r, T int, in, tg []int32, toks []uint16) ([]uint16, error) {
	cum := b.cumWeights(split)
	if len(cum) == 0 {
		return toks, fmt.Errorf("%w: empty split", train.ErrNoData)
	}
	if !(cum[len(cum)-1] > 0) {
		return toks, fmt.Errorf("%w: every piece of the split has sampling weight 0 (SourceWeight %v)", train.ErrNoData, b.o.SourceWeight)
	}
	rng := rand.New(rand.NewPCG(seed^0x9e3779b97f4a7c15*(k+1), uint64(r)+0x632be59bd9b4e019*(k+1)))
	var ex []uint16
	flat := false
	for try := 0; ; try++ {
		i := pick(cum, rng.Float64()*cum[len(cum)-1])
		toks = split.AppendPiece(toks[:0], i)
		var err error
		ex, err = b.Example(toks, rng, T+1)
		if err == nil {
			flat = b.o.FlatVelocity[split.PieceSource(i)]
			break
		}
		if try >= 8 {
			return toks, fmt.Errorf("condition: batch %d: %w", k, err)
		}
	}
	for j := 0; j < T; j++ {
		in[j], tg[j] = int32(b.pad), -1
		if j < len(ex) {
			in[j] = int32(ex[j])
		}
		if j+1 < len(ex) {
			tg[j] = int32(ex[j+1])
			if flat {
				if kind, _ := b.v.Kind(ex[j+1]); kind == token.KindVelocity {
					tg[j] = -1 // FlatVelocity: no velocity is learned from this source
				}
			}
		}
	}
	return toks, nil
}

// SetFlatVelocity sets FlatVelocity from a --flat-velocity value:
// NAME[,NAME…] ("": none).
func (o *Options) SetFlatVelocity(s string) error {
	if strings.TrimSpace(s) == "" {
		o.FlatVelocity = nil
		return nil
	}
	fv := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		name := strings.TrimSpace(f)
		if name == "" || strings.ContainsAny(name, "=/") {
			return fmt.Errorf("condition: flat-velocity sources %q: %q is not a source name", s, f)
		}
		if fv[name] {
			return fmt.Errorf("condition: flat-velocity sources %q: %s named twice", s, name)
		}
		fv[name] = true
	}
	o.FlatVelocity = fv
	return nil
}

// ParseShares reads a --source-share value: NAME=SHARE[,NAME=SHARE…],
// shares in [0, 1] (a trailing % divides by 100) summing to at most 1.
func ParseShares(s string) (map[string]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string]float64{}
	sum := 0.0
	for _, f := range strings.Split(s, ",") {
		name, v, ok := strings.Cut(strings.TrimSpace(f), "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("condition: source share %q: want NAME=SHARE", f)
		}
		scale := 1.0
		if strings.HasSuffix(v, "%") {
			v, scale = strings.TrimSuffix(v, "%"), 0.01
		}
		x, err := strconv.ParseFloat(v, 64)
		x *= scale
		if err != nil || !(x >= 0 && x <= 1) {
			return nil, fmt.Errorf("condition: source share %q: %q is not a share in [0, 1]", f, v)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("condition: source shares %q: %s named twice", s, name)
		}
		out[name] = x
		sum += x
	}
	if sum > 1+1e-9 {
		return nil, fmt.Errorf("condition: source shares %q add up to %.4g, more than 1", s, sum)
	}
	return out, nil
}

// WeightsForShares returns the SourceWeight under which the sources come
// out in the wanted shares of the examples, given their natural shares
// (Shares with no SourceWeight): a named source s weighs want[s] /
// natural[s]; the sources not named share what is left (1 − the named
// shares) in their natural proportions. A named source the data lacks, a
// share left to no source, or sources left without a share are errors:
// the mixture would not be the one asked for.
func WeightsForShares(natural, want map[string]float64) (map[string]float64, error) {
	named, rest := 0.0, 0.0
	for name, x := range want {
		if !(natural[name] > 0) {
			if x == 0 {
				continue
			}
			return nil, fmt.Errorf("condition: source share %s=%g: the data has no such source (sources: %v)", name, x, sortedNames(natural))
		}
		named += x
	}
	var unnamed []string
	for name, p := range natural {
		if _, ok := want[name]; !ok && p > 0 {
			unnamed = append(unnamed, name)
			rest += p
		}
	}
	left := 1 - named
	switch {
	case len(unnamed) > 0 && left < 1e-9:
		slices.Sort(unnamed)
		return nil, fmt.Errorf("condition: source shares take the whole mixture, and %v have none: name them (=0 to leave them out)", unnamed)
	case len(unnamed) == 0 && left > 1e-6:
		return nil, fmt.Errorf("condition: source shares add up to %.4g: with every source named they must add up to 1", named)
	}
	w := map[string]float64{}
	for name, x := range want {
		if natural[name] > 0 {
			w[name] = x / natural[name]
		}
	}
	for _, name := range unnamed {
		w[name] = left / rest
	}
	return w, nil
}

func sortedNames(m map[string]float64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Shares is each source's expected share of the examples drawn from split:
// the sampling weights of its pieces (1, plus RichWeight for pieces with
// drums or three or more programs, times its SourceWeight) over the total.
// The data card's mixture is this over the training split.
func (b *Builder) Shares(split *train.Split) map[string]float64 {
	cum := b.cumWeights(split)
	out := map[string]float64{}
	if len(cum) == 0 || !(cum[len(cum)-1] > 0) {
		return out
	}
	prev := 0.0
	for i, c := range cum {
		out[split.PieceSource(i)] += c - prev
		prev = c
	}
	for k := range out {
		out[k] /= cum[len(cum)-1]
	}
	return out
}

// SetKeyLabels sets WindowKey from a --key-labels value: "window" (each
// window's estimated key) or "piece" (the piece's key).
func (o *Options) SetKeyLabels(s string) error {
	switch s {
	case "window":
		o.WindowKey = true
	case "piece":
		o.WindowKey = false
	default:
		return fmt.Errorf("condition: key labels %q: want window or piece", s)
	}
	return nil
}

// SetKeyFrame sets TonicFrame from a --key-frame value: "tonic" (every
// window moved to C major / A minor) or "absolute" (every key).
func (o *Options) SetKeyFrame(s string) error {
	switch s {
	case "tonic":
		o.TonicFrame = true
	case "absolute":
		o.TonicFrame = false
	default:
		return fmt.Errorf("condition: key frame %q: want absolute or tonic", s)
	}
	return nil
}

// SetStartProb sets StartProb from a --start-prob value (< 0: keep the
// current one), refusing one that leaves no room for the endings.
func (o *Options) SetStartProb(p float64) error {
	if p < 0 {
		return nil
	}
	if p+o.EndProb > 1 {
		return fmt.Errorf("condition: start probability %g: with the endings' %g it passes 1", p, o.EndProb)
	}
	o.StartProb = p
	return nil
}

// SetSourceWeights sets SourceWeight from a --source-weight value:
// NAME=W[,NAME=W…] with finite weights ≥ 0 ("": every source 1).
func (o *Options) SetSourceWeights(s string) error {
	if s == "" {
		o.SourceWeight = nil
		return nil
	}
	sw := map[string]float64{}
	for _, f := range strings.Split(s, ",") {
		name, w, ok := strings.Cut(strings.TrimSpace(f), "=")
		if !ok || name == "" {
			return fmt.Errorf("condition: source weight %q: want NAME=WEIGHT", f)
		}
		x, err := strconv.ParseFloat(w, 64)
		if err != nil || !(x >= 0) || math.IsInf(x, 0) {
			return fmt.Errorf("condition: source weight %q: %q is not a finite number ≥ 0", f, w)
		}
		if _, dup := sw[name]; dup {
			return fmt.Errorf("condition: source weights %q: %s named twice", s, name)
		}
		sw[name] = x
	}
	o.SourceWeight = sw
	return nil
}

func pick(cum []float64, u float64) int {
	lo, hi := 0, len(cum)-1
	for lo < hi {
		m := (lo + hi) / 2
		if cum[m] > u {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// cumWeights computes (once per split) the cumulative sampling weight of
// its pieces: 1 each, plus RichWeight for multi-instrument pieces, times
// the SourceWeight of the piece's source.
func (b *Builder) cumWeights(split *train.Split) []float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if w, ok := b.weights[split]; ok {
		return w
	}
	cum := make([]float64, split.Pieces())
	total := 0.0
	var toks []uint16
	for i := range cum {
		toks = split.AppendPiece(toks[:0], i)
		w := 1.0
		if Rich(b.v, toks) {
			w += b.o.RichWeight
		}
		if sw, ok := b.o.SourceWeight[split.PieceSource(i)]; ok {
			w *= sw
		}
		total += w
		cum[i] = total
	}
	b.weights[split] = cum
	return cum
}

// Rich reports whether an encoded piece lists drums or three or more
// programs in its prefix: the pieces RichWeight draws more often.
func Rich(v *token.Vocab, piece []uint16) bool {
	instrFirst, instrN := v.Range(token.KindInstrumentAttr)
	n := 0
	for _, t := range piece {
		if t == v.SEP {
			break
		}
		if t >= instrFirst && int(t-instrFirst) < instrN {
			if int(t-instrFirst) == token.DrumProgram {
				return true
			}
			n++
		}
	}
	return n >= 3
}

// Example builds one example of at most n tokens from an encoded piece
// (BOS … SEP body EOS), drawing the window and the augmentations from rng.
func (b *Builder) Example(piece []uint16, rng *rand.Rand, n int) ([]uint16, error) {
	ex, _, err := b.example(piece, rng, n)
	return ex, err
}

// exampleInfo is what example chose (for tests).
type exampleInfo struct {
	bar, bars int // first bar of the window (0-based) and the piece's bars
	shift     int // transposition in semitones
	// framed: TonicFrame moved the window to C major (minor false) or A
	// minor (minor true).
	framed, minor bool
}

// pieceFacts are the piece-level attributes of an encoded piece's prefix.
type pieceFacts struct {
	key, genre, length uint16 // tokens, 0 when absent
	instruments        int
}

func (b *Builder) facts(prefix []uint16) pieceFacts {
	var f pieceFacts
	for _, t := range prefix {
		switch k, _ := b.v.Kind(t); k {
		case token.KindKeyAttr:
			f.key = t
		case token.KindGenreAttr:
			f.genre = t
		case token.KindLengthAttr:
			f.length = t
		case token.KindInstrumentAttr:
			f.instruments++
		}
	}
	return f
}

func (b *Builder) example(piece []uint16, rng *rand.Rand, n int) ([]uint16, exampleInfo, error) {
	v := b.v
	var info exampleInfo
	sep := v.SepIndex(piece)
	if sep < 0 {
		return nil, info, ErrPiece
	}
	bars := v.BarHeaders(piece, sep+1)
	if len(bars) == 0 || bars[0].TimeSig == 0 || bars[0].Tempo == 0 {
		return nil, info, ErrPiece
	}
	f := b.facts(piece[:sep])
	// Room for the music beside the longest prefix this piece can have.
	budget := n - (9 + f.instruments)
	if budget < 8 {
		return nil, info, fmt.Errorf("condition: %d tokens leave no room for music", n)
	}
	// Window: bar j, header restated, content up to the budget. Openings
	// (StartProb) and endings (EndProb: the first bar from which the rest of
	// the piece, EOS included, fits) are drawn more often than their share
	// of a long piece's bars, so the model learns to begin and to end.
	j := 0
	switch u := rng.Float64(); {
	case u < b.o.StartProb:
	case u < b.o.StartProb+b.o.EndProb:
		j = len(bars) - 1
		for j > 0 && len(piece)-bars[j-1].Content+3 <= budget*7/8 {
			j--
		}
	default:
		j = rng.IntN(len(bars))
	}
	info.bar, info.bars = j, len(bars)
	bar := bars[j]
	body := make([]uint16, 0, budget)
	body = append(body, v.Bar, bar.TimeSig, bar.Tempo)
	end := min(len(piece), bar.Content+budget-3)
	body = append(body, piece[bar.Content:end]...)

	// Augment the body.
	tmp := make([]uint16, 0, len(body))
	var err error
	if b.o.TonicFrame {
		if k, ok := b.windowKey(body, f); ok {
			target := 0
			if k.Minor {
				target = 9
			}
			s := ((target-k.Tonic)%12 + 12) % 12 // 0…11; s−12 is the same move down
			if lo, hi, ok := v.PitchRange(body); ok {
				// The smaller move first; the other when it leaves the range.
				alt := s - 12
				if -alt < s {
					s, alt = alt, s
				}
				if lo+s < 0 || hi+s > 127 {
					s = alt
				}
				if tmp, err = v.Transpose(tmp[:0], body, s); err == nil {
					body, tmp = tmp, body
					info.shift, info.framed, info.minor = s, true, k.Minor
				}
			}
		}
	} else if rng.Float64() < b.o.TransposeProb {
		if lo, hi, ok := v.PitchRange(body); ok {
			var shifts []int
			for s := -6; s <= 5; s++ {
				if s != 0 && lo+s >= 0 && hi+s <= 127 {
					shifts = append(shifts, s)
				}
			}
			if len(shifts) > 0 {
				s := shifts[rng.IntN(len(shifts))]
				if tmp, err = v.Transpose(tmp[:0], body, s); err == nil {
					body, tmp = tmp, body
					info.shift = s
				}
			}
		}
	}
	if rng.Float64() < b.o.TempoProb && b.o.TempoMax > b.o.TempoMin && b.o.TempoMin > 0 {
		f := math.Exp(math.Log(b.o.TempoMin) + rng.Float64()*(math.Log(b.o.TempoMax)-math.Log(b.o.TempoMin)))
		if tmp, err = v.ScaleTempo(tmp[:0], body, f); err == nil {
			body, tmp = tmp, body
		}
	}
	if rng.Float64() < b.o.RevoiceProb {
		if rng.Float64() < b.o.SplitProb {
			if out, ok := splitVoices(v, body, rng, b.o.RevoiceRoles); ok {
				body = out
			}
		}
		if m := revoiceMap(v, body, rng, b.o.RevoicePart, b.o.RevoiceRoles); len(m) > 0 {
			if tmp, err = v.Revoice(tmp[:0], body, m); err == nil {
				body, tmp = tmp, body
			}
		}
	}

	if b.o.RealParts {
		if drop, any := cameos(v, body); any {
			body = dropPrograms(v, make([]uint16, 0, len(body)), body, drop)
		}
	}
	// Re-voicing adds Program tokens: cut the body to what fits beside
	// the longest prefix it can have, then measure it.
	var progs [token.DrumProgram + 1]bool
	k := 0
	for _, t := range body {
		if kind, x := v.Kind(t); kind == token.KindProgram && !progs[x] {
			progs[x] = true
			k++
		}
	}
	if room := n - (8 + k); len(body) > room {
		body = body[:room]
	}
	// Attributes of the window as it now is.
	prefix := b.windowPrefix(body, f, info, rng)
	ex := make([]uint16, 0, len(prefix)+len(body))
	ex = append(append(ex, prefix...), body...)
	return ex, info, nil
}

// windowPrefix measures the body and writes the prefix BOS … SEP with
// dropout applied. Tempo, meter, instruments and density describe the
// window; GENRE is the piece's; KEY is the window's own estimate under
// WindowKey (keyLabel), else the piece's key transposed with the window;
// LENGTH is the bars left from the window's first bar to the piece's end
// (the whole piece's length with a version 1 vocabulary).
//
// KEY history: version 1 labelled the window's estimate (the model alone
// kept the requested key in 19% of suite pieces); the shipped version 2
// model the piece's key, reasoning that a few bars estimate a key poorly,
// and keeps it in 7%. Measured on 600 training windows of 1,024 tokens per
// corpus, the piece's key is the window's own estimate in 71% of arranged
// windows (10% a fifth up), 75% of POP909's, 91% of Nottingham's and 60% of
// Freedoom's. A second run with WindowKey (2026-11-26, docs/MODEL.md) took
// the model alone to 14% and the suite's CK to 82%, but notes per beat
// under its floor. The shipped model's second run labels by the window's
// key in the tonic frame (TonicFrame: KEY_C or KEY_Am only), and keeps the
// requested key by itself in 46% of the suite's pieces.
func (b *Builder) windowPrefix(body []uint16, f pieceFacts, info exampleInfo, rng *rand.Rand) []uint16 {
	v := b.v
	cfg := v.Config()
	drop := func() bool { return rng.Float64() < b.o.DropProb }
	all := rng.Float64() < b.o.DropAllProb
	var progs [token.DrumProgram + 1]bool
	tempoTok, tsTok := uint16(0), uint16(0)
	// Density over the complete bars (a bar cut by the window's end would
	// understate it), unless the window holds no complete bar.
	notes, units := 0, int64(0)
	barNotes, barUnits, bars, full := 0, int64(0), 0, 0
	ended := false
	for _, t := range body {
		k, x := v.Kind(t)
		switch k {
		case token.KindProgram:
			progs[x] = true
		case token.KindDuration:
			barNotes++
		case token.KindBar:
			if bars > 0 {
				notes, units, full = notes+barNotes, units+barUnits, full+1
			}
			bars++
			barNotes = 0
		case token.KindTempo:
			if tempoTok == 0 {
				tempoTok = t
			}
		case token.KindTimeSig:
			if tsTok == 0 {
				tsTok = t
			}
			m := cfg.BodyMeters[x]
			barUnits = int64(4 * cfg.PositionsPerBeat * m.Num / m.Den)
		case token.KindSpecial:
			ended = ended || t == v.EOS
		}
	}
	if ended || units == 0 { // the last bar is complete, or the only one
		notes, units, full = notes+barNotes, units+barUnits, full+1
	}
	out := []uint16{v.BOS}
	instruments := func() {
		for p, ok := range progs {
			if ok {
				t, _ := v.Token(token.KindInstrumentAttr, p)
				out = append(out, t)
			}
		}
		if !slices.ContainsFunc(progs[:], func(b bool) bool { return b }) {
			t, _ := v.Token(token.KindInstrumentAttr, 0) // a window without notes
			out = append(out, t)
		}
	}
	if all {
		if cfg.InstrumentsRequired {
			instruments()
		}
		return append(out, v.SEP)
	}
	if tempoTok != 0 && !drop() {
		_, x := v.Kind(tempoTok)
		t, _ := v.Token(token.KindTempoAttr, x)
		out = append(out, t)
	}
	if !drop() {
		if t, ok := b.keyLabel(body, f, info); ok {
			out = append(out, t)
		}
	}
	if tsTok != 0 && !drop() {
		_, x := v.Kind(tsTok)
		m := cfg.BodyMeters[x]
		t, _ := v.Token(token.KindMeterAttr, v.MeterIndex(m.Num, m.Den))
		out = append(out, t)
	}
	if f.genre != 0 && !drop() {
		out = append(out, f.genre)
	}
	if cfg.InstrumentsRequired || !drop() {
		instruments()
	}
	if units > 0 && notes > 0 && !drop() {
		t, _ := v.Token(token.KindDensityAttr, v.DensityBin(v.Density(notes, full, units)))
		out = append(out, t)
	}
	if !drop() {
		switch {
		case cfg.LengthRemaining && info.bars > 0:
			t, _ := v.Token(token.KindLengthAttr, v.LengthBin(info.bars-info.bar))
			out = append(out, t)
		case !cfg.LengthRemaining && f.length != 0:
			out = append(out, f.length)
		}
	}
	return append(out, v.SEP)
}

// keyLabel is the KEY token of a window: its own estimate under WindowKey
// when it holds enough pitched notes, else the piece's key moved by the
// window's transposition; false when neither is known.
func (b *Builder) keyLabel(body []uint16, f pieceFacts, info exampleInfo) (uint16, bool) {
	v := b.v
	if b.o.TonicFrame {
		if !info.framed {
			return 0, false // no pitched notes: no key to name
		}
		if info.minor {
			return v.Token(token.KindKeyAttr, token.KeyIndex(9, true))
		}
		return v.Token(token.KindKeyAttr, token.KeyIndex(0, false))
	}
	if b.o.WindowKey {
		min := b.o.WindowKeyNotes
		if min <= 0 {
			min = 16
		}
		if k, n, ok := estimateKey(v, body); ok && n >= min {
			t, ok := v.Token(token.KindKeyAttr, token.KeyIndex(k.Tonic, k.Minor))
			return t, ok
		}
	}
	if f.key == 0 {
		return 0, false
	}
	_, x := v.Kind(f.key)
	t, ok := v.Token(token.KindKeyAttr, token.KeyIndex(x%12+info.shift+12, x >= 12))
	return t, ok
}

// windowKey is the key TonicFrame moves to C major or A minor: the
// window's own estimate under WindowKey when it holds enough pitched notes,
// else the piece's key, else the estimate from whatever notes it has; false
// when the window has no pitched note and the piece no key.
func (b *Builder) windowKey(body []uint16, f pieceFacts) (midi.Key, bool) {
	k, n, ok := estimateKey(b.v, body)
	min := b.o.WindowKeyNotes
	if min <= 0 {
		min = 16
	}
	switch {
	case ok && b.o.WindowKey && n >= min:
		return k, true
	case f.key != 0:
		_, x := b.v.Kind(f.key)
		return midi.Key{Tonic: x % 12, Minor: x >= 12}, true
	default:
		return k, ok
	}
}

// estimateKey decodes the body alone and estimates its key as evaluation
// does (Krumhansl–Schmuckler over the pitched notes).
// It also returns the number of pitched notes.
func estimateKey(v *token.Vocab, body []uint16) (midi.Key, int, bool) {
	// A prefix listing the body's programs (version 2 vocabularies require
	// the instruments).
	var progs [token.DrumProgram + 1]bool
	for _, t := range body {
		if k, x := v.Kind(t); k == token.KindProgram {
			progs[x] = true
		}
	}
	seq := make([]uint16, 0, len(body)+8)
	seq = append(seq, v.BOS)
	for p, ok := range progs {
		if ok {
			t, _ := v.Token(token.KindInstrumentAttr, p)
			seq = append(seq, t)
		}
	}
	seq = append(append(seq, v.SEP), body...)
	s, _, err := v.Decode(seq)
	if err != nil {
		return midi.Key{}, 0, false
	}
	n := 0
	for i := range s.Tracks {
		if !s.Tracks[i].IsDrum {
			n += len(s.Tracks[i].Notes)
		}
	}
	if n == 0 {
		return midi.Key{}, 0, false
	}
	return midi.EstimateKey(s), n, true
}

// revoiceMap draws new programs for the pitched programs of body: each
// moves with probability part onto a program whose range holds the part's
// notes (FitPrograms; under keepRoles one that plays its role, roleFit).
func revoiceMap(v *token.Vocab, body []uint16, rng *rand.Rand, part float64, keepRoles bool) map[int]int {
	var lo, hi [128]int
	var seen [128]bool
	prog := -1
	for _, t := range body {
		k, x := v.Kind(t)
		switch k {
		case token.KindProgram:
			prog = x
		case token.KindPitch:
			if prog >= 0 && prog < 128 {
				if !seen[prog] {
					seen[prog], lo[prog], hi[prog] = true, x, x
				}
				lo[prog], hi[prog] = min(lo[prog], x), max(hi[prog], x)
			}
		}
	}
	var role map[int]int
	if keepRoles {
		role = roles(v, body)
	}
	m := map[int]int{}
	for p := 0; p < 128; p++ {
		if !seen[p] || rng.Float64() >= part {
			continue
		}
		c := FitPrograms(lo[p], hi[p])
		if r, ok := role[p]; ok {
			c = roleFit(lo[p], hi[p], r)
		}
		if len(c) > 0 {
			m[p] = c[rng.IntN(len(c))]
		}
	}
	return m
}
