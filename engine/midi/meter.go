package midi

import (
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync"
)

// MeterGuess is what InferMeter finds: the meter of the music, where its bar
// lines fall, and whether it replaces the declared meter map.
type MeterGuess struct {
	// Num/Den is the inferred meter of most bars.
	Num int `json:"num"`
	Den int `json:"den"`
	// Phase is the tick of the first inferred bar line: a downbeat in
	// [0, one bar). Offset is the sub-beat offset of the notes' grid from
	// the file's tick grid (in ticks, less than an eighth note); Phase
	// includes it.
	Phase  int64 `json:"phase"`
	Offset int64 `json:"offset"`
	// Bars is the inferred meter map in the file's ticks: the first change
	// at Phase, then one change per irregular bar (a bar cut short where
	// the music turns, e.g. a 2/4 bar in a 4/4 song) and one back.
	Bars []MeterChange `json:"bars"`
	// Irregular counts the short bars in Bars.
	Irregular int `json:"irregular"`
	// Confidence in [0, 1]: how much better the inferred bar lines fit the
	// notes than the second-best meter (0: no evidence, 1: unambiguous).
	Confidence float64 `json:"confidence"`
	// Declared is the declared meter at tick 0 ("" when the file has no
	// time signature).
	Declared string `json:"declared"`
	// Replace is true when the declared meter map should give way to Bars
	// (see Rebar); Reason says why in a few words either way.
	Replace bool   `json:"replace"`
	Reason  string `json:"reason"`
}

// String is the inferred meter as "4/4".
func (g MeterGuess) String() string { return strconv.Itoa(g.Num) + "/" + strconv.Itoa(g.Den) }

// BarTicks is the length of one bar of Num/Den in ticks at tpb ticks per
// quarter note; ok is false when it is not a whole number of ticks.
func BarTicks(num, den, tpb int) (ticks int64, ok bool) {
	if num <= 0 || den <= 0 || tpb <= 0 {
		return 0, false
	}
	n := int64(num) * 4 * int64(tpb)
	return n / int64(den), n%int64(den) == 0
}

// meterShape is a candidate meter: bar length in eighth-note cells, cells
// per beat (2 simple, 3 compound), the metrical level of each cell and the
// prior added per bar.
type meterShape struct {
	num, den int
	cells    int // eighth notes per bar
	beat     int // cells per beat
	prior    float64
	level    []uint8 // lvBar, lvHalf, lvBeat or lvOff per cell of the bar
}

// Metrical levels of a cell in its bar.
const (
	lvBar   = iota // the bar line
	lvHalf         // the middle of a bar of an even number of beats
	lvBeat         // the other beats
	lvOff          // eighths between beats (the reference: weight 0)
	nLevels = lvOff
)

// The per-cell features (see buildGrid).
const (
	fOnset   = iota // pitched onsets on the cell
	fLow            // octaves below the piece's median pitch of the deepest onset
	fLength         // log2(1+length in eighths) of the longest onset
	fAccent         // velocity above the piece's mean of the loudest onset (relative)
	fChange         // pitch-class change, half-note windows (cosine distance)
	fChange8        // the same, whole-note windows
	fChord          // best triad differs, half-note windows
	fChord2         // best triad differs, quarter-note windows
	fKick           // bass drum
	fSnare          // snare
	fRest           // onset after at least a quarter note of silence
	nFeatures
)

// meterWeights weigh the features at each metrical level: the emission of
// cell c at a position of level l is Σ_f Level[f][l]·feature_f[c] (each
// feature scaled to mean 1 over the piece; off-beat eighths emit 0). The
// best path maximizes the sum of emissions plus the meter's prior per bar,
// less Irregular per short bar (Select while choosing the meter).
type meterWeights struct {
	Level     [nFeatures][nLevels]float64
	Irregular float64
	Select    float64
	Repeat    float64                       // weight of the bar-period repetition while choosing the meter
	Prior     [len(candidateMeters)]float64 // per bar, in candidateMeters order
}

// weights are the tuned weights (see TestMeterTune in meter_corpus_test.go).
var weights = meterWeights{
	Level: [nFeatures][nLevels]float64{
		fOnset:   {0.173, 0.0333, 0.0533},
		fLow:     {0.147, 0.0417, 0.0217},
		fLength:  {0.12, 0.025, 0.005},
		fAccent:  {0.0167, 0.0167, 0.087},
		fChange:  {0.283, 0.0383, 0.0583},
		fChange8: {0.0667, 0.0167, 0.0367},
		fChord:   {0.103, 0.0783, 0.00833},
		fChord2:  {0.133, 0.0333, 0.0133},
		fKick:    {0.133, 0.0333, 0.0333},
		fSnare:   {-0.0667, -0.0167, -0.0167},
		fRest:    {0, 0, 0},
	},
	Irregular: 2.5, Select: 4, Repeat: 0.4,
	Prior: [len(candidateMeters)]float64{0, -0.15, 0, 0.5},
}

// shapeOf lays out the levels of num/den.
func shapeOf(num, den int, prior float64) meterShape {
	cells := num * 8 / den
	beat := 2
	beats := cells / 2
	if den == 8 && num%3 == 0 && num > 3 {
		beat, beats = 3, num/3
	}
	lv := make([]uint8, cells)
	for k := range lv {
		lv[k] = lvOff
		if k%beat == 0 {
			lv[k] = lvBeat
		}
	}
	if beats%2 == 0 && beats >= 2 {
		lv[cells/2] = lvHalf
	}
	lv[0] = lvBar
	return meterShape{num: num, den: den, cells: cells, beat: beat, prior: prior, level: lv}
}

// candidateMeters are the meters inference chooses from. Duple multiples
// (2/4 against 4/4, 6/4 against 3/4, 12/8 against 6/8) cannot be told apart
// from the notes alone; the longer common bar is chosen for 2/4 and the
// shorter for 6/4 and 12/8.
var candidateMeters = [...][2]int{{4, 4}, {3, 4}, {6, 8}, {9, 8}}

func shapesFor(w *meterWeights) []meterShape {
	out := make([]meterShape, len(candidateMeters))
	for i, c := range candidateMeters {
		out[i] = shapeOf(c[0], c[1], w.Prior[i])
	}
	return out
}

var shapes = sync.OnceValue(func() []meterShape { return shapesFor(&weights) })

// maxCells bounds the grid: inference gives up (keeps the declared meter)
// on a piece longer than this many eighth notes (about 9 hours at 120 bpm),
// so its memory stays bounded whatever the file says.
const maxCells = 1 << 17

// grid is the per-cell evidence of one piece: cell c is the eighth note
// whose centre is at half-tick o2 + c·tpb.
type grid struct {
	tpb   int
	o2    int64 // offset in half ticks (even)
	n     int
	first int64                  // tick of the first note
	em    [nLevels + 1][]float64 // emission per level and cell; lvOff is all zero
}

var gridPool = sync.Pool{New: func() any { return new(gridBuf) }}

type gridBuf struct {
	feat  [nFeatures][]float64
	cov   [4][]uint16 // pitch classes sounding on each cell, and ORed over 2, 4 and 8 cells
	back  []uint8
	em    [nLevels + 1][]float64
	resid []int32
	pcs   []uint16 // pitch classes of the notes starting on each cell
	label []int16  // best triad of the window starting at a cell; -2 unknown
	fit   []float32
}

func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// InferMeter finds the meter and the bar lines of s from its notes and
// decides whether they replace the declared meter map (the trust rule). See
// the package documentation. It does not change s.
func InferMeter(s *Score) MeterGuess { return inferMeter(s, shapes(), &weights) }

func inferMeter(s *Score, candidates []meterShape, w *meterWeights) MeterGuess {
	g := MeterGuess{Num: 4, Den: 4}
	declNum, declDen := 0, 0
	for _, mc := range s.Meters {
		if mc.Tick > 0 {
			break
		}
		declNum, declDen = mc.Num, mc.Den
	}
	if declNum > 0 {
		g.Declared = strconv.Itoa(declNum) + "/" + strconv.Itoa(declDen)
	}
	buf := gridPool.Get().(*gridBuf)
	defer gridPool.Put(buf)
	gr, why := buildGrid(s, buf)
	if why == "" {
		gr.em = emissions(buf, gr.n, w)
	}
	if why != "" {
		g.Reason = why
		if declNum > 0 {
			g.Num, g.Den = declNum, declDen
		}
		return g
	}
	sh, starts, conf := place(gr, buf, candidates, w, s.TicksPerBeat)
	g.Num, g.Den, g.Confidence = sh.num, sh.den, conf
	g.Offset = gr.o2 / 2
	g.Bars, g.Irregular = barsOf(gr, sh, starts)
	if len(g.Bars) > 0 {
		g.Phase = g.Bars[0].Tick
	}
	g.Replace, g.Reason = decide(s, gr, buf, declNum, declDen, g)
	if g.Replace && declNum > 1 && fromNotation(s) {
		keepDeclared(s, gr.tick(gr.n), &g)
	}
	return g
}

// fromNotation reports whether s reads as exported from a score rather than
// played: at least 90% of its notes in tracks whose velocities take at most
// four values (one per dynamic marking or accent rule). A player's velocities
// take dozens (POP909, piano-midi.de, the Groove drummers: a median of 14 to
// 22 velocity bins a piece against 1 to 3 for the lieder, quartets, Mutopia,
// EWLD and Nottingham; docs/DATA.md). A score's declared meter is its
// composer's; a sequencer's (POP909's 2/4 and 1/4) is not.
func fromNotation(s *Score) bool {
	flat, all := 0, 0
	for ti := range s.Tracks {
		notes := s.Tracks[ti].Notes
		var seen [128]bool
		distinct := 0
		for i := range notes {
			if v := notes[i].Velocity & 127; !seen[v] {
				seen[v] = true
				distinct++
			}
		}
		all += len(notes)
		if distinct <= 4 {
			flat += len(notes)
		}
	}
	return all > 0 && flat*10 >= all*9
}

// keepDeclared is the trust rule's second look at a declared meter map the
// notes contradicted, in a file from notation (fromNotation). Exporters
// from notation drop the pickup bar: the
// meter events say 6/8 from tick 0, the score has an eighth before its
// first bar line. In the OpenScore Lieder, 154 of the 222 contradicted
// files were the declared meter a pickup later, and the words agree: the
// weak syllables (articles, pronouns, prepositions) sit on 52% of the
// declared downbeats and on 17% of the inferred ones (docs/METER.md). So
// the score's meter stays and only its phase moves:
//
//   - a map with changes after tick 0, each on the bar lines of the meter
//     before it, is the score's own: the first change gives the pickup
//     (its distance from the first meter's bar lines) and the map is kept;
//   - a single meter is kept with the inferred phase (modulo its bar) when,
//     laid there, its bar lines agree with the inferred ones (≥ 80% either
//     way: the same bars, or twice or half as long, as 2/4 and 12/8 are to
//     the 4/4 and 6/8 the notes alone can tell).
//
// Otherwise (3/4 declared over music in 4/4) the inferred map stands.
func keepDeclared(s *Score, end int64, g *MeterGuess) {
	tpb := s.TicksPerBeat
	var decl []MeterChange // one change per tick, the last one there
	for _, m := range s.Meters {
		if n := len(decl); n > 0 && decl[n-1].Tick == m.Tick {
			decl[n-1] = m
		} else {
			decl = append(decl, m)
		}
	}
	if len(decl) == 0 || decl[0].Tick != 0 {
		return
	}
	bars := make([]int64, len(decl))
	for i, m := range decl {
		l, ok := BarTicks(m.Num, m.Den, tpb)
		if !ok || l <= 0 || m.Num < 2 || m.Num > 16 || m.Den > 16 {
			return
		}
		bars[i] = l
	}
	moved := slices.Clone(decl)
	if len(decl) > 1 {
		for i := 2; i < len(decl); i++ {
			if (decl[i].Tick-decl[i-1].Tick)%bars[i-1] != 0 {
				return // changes off the map's own bar lines: no score's map
			}
		}
		moved[0].Tick = decl[1].Tick % bars[0]
	} else {
		moved[0].Tick = g.Phase % bars[0]
		inf := barLines(g.Bars, tpb, end)
		mv := barLines(moved, tpb, end)
		tol := int64(tpb / 4)
		if len(inf) == 0 || len(mv) == 0 || (float64(coincide(inf, mv, tol)) < agreeShare*float64(len(inf)) &&
			float64(coincide(mv, inf, tol)) < agreeShare*float64(len(mv))) {
			return
		}
	}
	if moved[0].Tick == 0 {
		g.Replace = false
		g.Reason = "declared meter map kept: its changes fall on its own bar lines"
		if len(decl) == 1 {
			g.Reason = "declared meter kept: its bar lines agree with the notes'"
		}
		return
	}
	g.Bars, g.Phase = moved, moved[0].Tick
	g.Reason = "declared " + g.Declared + " kept after a pickup of " + strconv.FormatInt(moved[0].Tick, 10) + " ticks"
}

// place chooses the meter whose best path scores highest (irregular bars
// cost w.Select there, so that a wrong meter cannot pass for a right one
// through short bars), then traces its path with irregular bars at
// w.Irregular. It returns the meter, the cells where bars start and the
// confidence.
func place(gr *grid, buf *gridBuf, candidates []meterShape, w *meterWeights, tpb int) (meterShape, []int, float64) {
	best, second := -math.MaxFloat64, -math.MaxFloat64
	var bestShape meterShape
	var rep [17]float64 // by bar length; NaN until computed
	for i := range rep {
		rep[i] = math.NaN()
	}
	for _, sh := range candidates {
		if _, ok := BarTicks(sh.num, sh.den, tpb); !ok {
			continue
		}
		if math.IsNaN(rep[sh.cells]) {
			rep[sh.cells] = repetition(buf, gr.n, sh.cells)
		}
		sc := windowScore(gr, sh, w.Select) + w.Repeat*rep[sh.cells]
		if sc > best {
			best, second = sc, best
			bestShape = sh
		} else if sc > second {
			second = sc
		}
	}
	var starts []int
	pathScore(gr, bestShape, buf, w.Irregular, true, &starts)
	conf := 0.0
	if best > 0 {
		conf = max(0, min(1, (best-max(second, 0))/best))
	}
	return bestShape, starts, conf
}

// selectWindow is the window of windowScore, in cells.
const selectWindow = 48

// windowScore is a cheap stand-in for the best path's score per cell while
// choosing the meter: the piece is cut into windows of selectWindow cells,
// each window takes one phase (its bars regular), and a change of phase
// between windows costs change. Linear in the cells, like the path, but
// with O(cells + windows·bar²) work instead of O(cells·bar).
func windowScore(gr *grid, sh meterShape, change float64) float64 {
	L := sh.cells
	var prev, cur [16]float64
	var res [nLevels + 1][16]float64
	first := true
	for w0 := 0; w0 < gr.n; w0 += selectWindow {
		w1 := min(w0+selectWindow, gr.n)
		res = [nLevels + 1][16]float64{}
		e0, e1, e2 := gr.em[0][w0:w1], gr.em[1][w0:w1], gr.em[2][w0:w1]
		r := w0 % L
		for i := range e0 {
			res[0][r] += e0[i]
			res[1][r] += e1[i]
			res[2][r] += e2[i]
			if r++; r == L {
				r = 0
			}
		}
		bestPrev := math.Inf(-1)
		for p := 0; p < L; p++ {
			bestPrev = max(bestPrev, prev[p])
		}
		for p := 0; p < L; p++ {
			// phase p: residue r is position (r-p) mod L of the bar
			sc := 0.0
			for r := 0; r < L; r++ {
				k := r - p
				if k < 0 {
					k += L
				}
				if l := sh.level[k]; l < lvOff {
					sc += res[l][r]
				}
			}
			if first {
				cur[p] = sc
			} else {
				cur[p] = sc + max(prev[p], bestPrev-change)
			}
		}
		prev, first = cur, false
	}
	best := math.Inf(-1)
	for p := 0; p < L; p++ {
		best = max(best, prev[p])
	}
	bars := float64(gr.n) / float64(L)
	return (best + bars*sh.prior) / float64(gr.n)
}

// The trust rule (see the package documentation): a plausible declared
// meter map on the notes' grid is kept when its bar lines agree with the
// inferred ones (at least agreeShare of the inferred bar lines lie on
// declared ones, or of the declared on inferred ones: the same bars, or
// bars twice or half as long). Otherwise it gives way when the notes
// contradict it: when its bar lines fit the notes no better than the same
// meter laid at random would, relative to the inferred bar lines (see
// contradiction), by more than contradictShare; in a piece without chords
// (fewer than chordedShare of its pitched notes start with another of their
// track: a tune alone, a drum groove) only when the evidence is more than a
// few notes' worth besides: the declared bar lines collect at least
// contradictLoss less emission per cell than the inferred ones. Without
// that floor such pieces, whose bar lines the notes mark faintly, gave way
// on a ratio of two small numbers (issue 33; TestMeterMelodyTrust): of
// Nottingham's 1,034 tunes without their chord track, their declared meter
// right, 172 were re-barred (20 with the floor), of EWLD's 494 lead-sheet
// melodies 85 (53), of the Groove MIDI Dataset's 574 drum performances
// 234 (171, most of them off the grid). Pieces with chords stay as they
// were: Nottingham with its chords 5 (4), a beat late 992 (991), the
// lieder 217 (213). The price: the tunes alone a beat late are caught in
// 240 of 1,034 (545: a tune alone says little), OpenMSX's game music a
// beat late in 12 of 25 (14). The floor lies above the 90th percentile of
// that loss for the tunes' right bar lines where the two disagree (0.10)
// and below the 10th for the chorded tunes a beat late (0.18).
const (
	agreeShare      = 0.8
	contradictShare = 0.6
	contradictLoss  = 0.15
	chordedShare    = 0.1
	repeatMargin    = 0.2
)

// decide applies the trust rule.
func decide(s *Score, gr *grid, buf *gridBuf, num, den int, g MeterGuess) (bool, string) {
	switch {
	case num == 0:
		return true, "no time signature"
	case num == 1:
		return true, "declared " + g.Declared + " has one-beat bars"
	}
	if _, ok := BarTicks(num, den, s.TicksPerBeat); !ok || num > 16 || den > 16 {
		return true, "declared " + g.Declared + " is not a usable meter"
	}
	if g.Offset != 0 {
		return true, "notes are " + strconv.FormatInt(g.Offset, 10) + " ticks off the declared grid"
	}
	z, loss, dr, agree := contradiction(s, gr, buf, g)
	switch {
	case agree:
		return false, "declared meter agrees with the notes"
	case dr > repeatMargin:
		return true, "the notes repeat every " + g.String() + " bar, not every " + g.Declared + " bar"
	case z > contradictShare && (loss >= contradictLoss || chordShare(s) >= chordedShare):
		return true, "declared " + g.Declared + " bar lines contradict the notes"
	}
	return false, "declared meter kept (the notes do not clearly contradict it)"
}

// chordShare is the share of the pitched notes of s that start together
// with another note of their track (the notes of a track are in onset
// order).
func chordShare(s *Score) float64 {
	n, c := 0, 0
	for ti := range s.Tracks {
		t := &s.Tracks[ti]
		if t.IsDrum {
			continue
		}
		for i := range t.Notes {
			n++
			if i > 0 && t.Notes[i].Tick == t.Notes[i-1].Tick || i+1 < len(t.Notes) && t.Notes[i+1].Tick == t.Notes[i].Tick {
				c++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(c) / float64(n)
}

// contradiction compares the declared meter map of s with the inferred bar
// lines of g: agree when they coincide (see the trust rule); else z is
// (S_inferred − S_declared) / (S_inferred − S_random), where S is the
// emission a map collects per cell and S_random what the declared meter
// collects on average over all its phases: 0 when the declared bar lines
// fit the notes as well as the inferred ones, 1 when they fit no better
// than bar lines laid at random; loss is S_inferred − S_declared. z and
// loss are NaN when a map cannot be scored.
func contradiction(s *Score, gr *grid, buf *gridBuf, g MeterGuess) (z, loss, dr float64, agree bool) {
	end := gr.tick(gr.n)
	inf := barLines(g.Bars, s.TicksPerBeat, end)
	decl := barLines(s.Meters, s.TicksPerBeat, end)
	if first := gr.first; first > 0 {
		inf, decl = from(inf, first), from(decl, first)
	}
	tol := int64(s.TicksPerBeat / 4)
	if len(inf) == 0 || float64(coincide(inf, decl, tol)) >= agreeShare*float64(len(inf)) ||
		float64(coincide(decl, inf, tol)) >= agreeShare*float64(len(decl)) {
		return 0, 0, 0, true
	}
	m := s.Meters[0]
	if ld := m.Num * 8 / m.Den; m.Num*8%m.Den == 0 && ld >= 1 && ld != g.Num*8/g.Den {
		dr = repetition(buf, gr.n, g.Num*8/g.Den) - repetition(buf, gr.n, ld)
	}
	si, ok1 := mapScore(gr, g.Bars, s.TicksPerBeat)
	sd, ok2 := mapScore(gr, s.Meters, s.TicksPerBeat)
	if !ok1 || !ok2 || m.Num*8%m.Den != 0 || m.Num*8/m.Den > 16 || m.Num*8/m.Den < 1 {
		return math.NaN(), math.NaN(), dr, false
	}
	sr := randomScore(gr, shapeOf(m.Num, m.Den, 0))
	if si <= sr {
		return math.NaN(), si - sd, dr, false
	}
	return (si - sd) / (si - sr), si - sd, dr, false
}

// randomScore is the emission per cell that bars of sh collect on average
// over all their phases.
func randomScore(gr *grid, sh meterShape) float64 {
	var count [nLevels + 1]float64
	for _, l := range sh.level {
		count[l]++
	}
	sum := 0.0
	for l := range nLevels {
		if count[l] == 0 {
			continue
		}
		t := 0.0
		for _, x := range gr.em[l][:gr.n] {
			t += x
		}
		sum += t * count[l] / float64(sh.cells)
	}
	return sum / float64(gr.n)
}

// from returns the ticks of xs at or after t (xs sorted).
func from(xs []int64, t int64) []int64 {
	i, _ := slices.BinarySearch(xs, t)
	return xs[i:]
}

// coincide counts the ticks of a that lie within tol of some tick of b
// (both sorted).
func coincide(a, b []int64, tol int64) int {
	n, j := 0, 0
	for _, x := range a {
		for j < len(b) && b[j] < x-tol {
			j++
		}
		if j < len(b) && b[j] <= x+tol {
			n++
		}
	}
	return n
}

// barLines lists the bar lines of a meter map from its first change up to
// end (exclusive). A change takes effect at the first bar line at or after
// it, as the tokenizer reads a meter map; meters whose bar is not a whole
// number of ticks are skipped.
func barLines(meters []MeterChange, tpb int, end int64) []int64 {
	if len(meters) == 0 {
		return nil
	}
	var out []int64
	var bar int64
	t, mi := max(meters[0].Tick, 0), 0
	for t < end {
		for mi < len(meters) && meters[mi].Tick <= t {
			if l, ok := BarTicks(meters[mi].Num, meters[mi].Den, tpb); ok {
				bar = l
			}
			mi++
		}
		if bar <= 0 {
			if mi == len(meters) {
				break
			}
			t = meters[mi].Tick // no usable meter yet: wait for the next
			continue
		}
		out = append(out, t)
		t += bar
	}
	return out
}

// mapScore is the emission a meter map collects over the grid, per cell
// (priors and penalties left out); ok is false when a bar of the map does
// not fall on whole cells.
func mapScore(gr *grid, meters []MeterChange, tpb int) (float64, bool) {
	end := gr.tick(gr.n)
	lines := barLines(meters, tpb, end)
	if len(lines) == 0 {
		return 0, false
	}
	sum := 0.0
	mi := 0
	for i, t := range lines {
		for mi+1 < len(meters) && meters[mi+1].Tick <= t {
			mi++
		}
		m := meters[mi]
		if m.Num*8%m.Den != 0 || m.Num*8/m.Den > 16 {
			return 0, false
		}
		sh := shapeOf(m.Num, m.Den, 0)
		c0, ok := gr.cell(t)
		if !ok {
			return 0, false
		}
		stop := end
		if i+1 < len(lines) {
			stop = lines[i+1]
		}
		for k := 0; k < sh.cells; k++ {
			c := c0 + k
			if c < 0 || c >= gr.n || gr.tick(c) >= stop {
				break
			}
			if l := sh.level[k]; l < lvOff {
				sum += gr.em[l][c]
			}
		}
	}
	return sum / float64(gr.n), true
}

// barsOf turns bar starts (cells) into a meter map in ticks.
func barsOf(gr *grid, sh meterShape, starts []int) ([]MeterChange, int) {
	if len(starts) == 0 {
		return nil, 0
	}
	tick := gr.tick
	var out []MeterChange
	irregular := 0
	for i, c := range starts {
		num, den := sh.num, sh.den
		if i+1 < len(starts) {
			if l := starts[i+1] - c; l != sh.cells {
				irregular++
				num, den = shortMeter(sh, l)
			}
		}
		if n := len(out); n > 0 && out[n-1].Num == num && out[n-1].Den == den {
			continue
		}
		out = append(out, MeterChange{Tick: tick(c), Num: num, Den: den})
	}
	return out, irregular
}

// shortMeter names a bar of l cells cut from sh: l/2 quarters in simple
// meters, l eighths in compound ones.
func shortMeter(sh meterShape, l int) (int, int) {
	if sh.den == 8 || l%2 == 1 {
		return l, 8
	}
	return l / 2, 4
}

// buildGrid measures the per-cell evidence; why is non-empty when there is
// none to measure.
func buildGrid(s *Score, buf *gridBuf) (*grid, string) {
	tpb := s.TicksPerBeat
	if tpb <= 1 {
		return nil, "no beat grid"
	}
	T := int64(tpb) // an eighth note in half ticks
	dv := newDivider(T)
	// One pass: the note count, the last onset, the pitch classes and
	// velocities of pitched notes, and the onsets' residues on the eighth
	// grid (half ticks; searched for an offset only when tpb is even, so
	// that every offset is a whole tick).
	search := tpb%2 == 0
	counts := buf.resid[:0]
	if search {
		counts = slices.Grow(counts, tpb)[:tpb]
		clear(counts)
	}
	buf.resid = counts
	// The residues of at most about 1024 notes, evenly spaced, are enough.
	stride := max(1, s.NoteCount()/1024)
	notes, pitched := 0, 0
	var last int64
	first := int64(math.MaxInt64)
	var pitchHist [128]int
	var velSum int
	for ti := range s.Tracks {
		t := &s.Tracks[ti]
		for i := range t.Notes {
			n := &t.Notes[i]
			if n.Tick < 0 {
				continue
			}
			notes++
			last = max(last, n.Tick)
			first = min(first, n.Tick)
			if search && notes%stride == 0 {
				x := 2 * n.Tick
				counts[x-dv.floor(x)*T]++
			}
			if !t.IsDrum {
				pitched++
				pitchHist[n.Pitch&127]++
				velSum += int(n.Velocity)
			}
		}
	}
	if notes < 8 {
		return nil, "too few notes"
	}
	// Offset of the eighth-note grid: the busiest of 24 residue bins,
	// smoothed, at its most common exact residue; the file's own grid (0)
	// wins when it holds at least half as many.
	var o2 int64
	if search {
		var bins [24]int32
		for r, c := range counts {
			bins[r*24/tpb] += c
		}
		w := func(b int) int32 { return bins[(b+23)%24] + 2*bins[b] + bins[(b+1)%24] }
		bestBin, bestW := 0, int32(-1)
		for b := range 24 {
			if x := w(b); x > bestW {
				bestBin, bestW = b, x
			}
		}
		if 2*w(0) < bestW {
			lo, hi := bestBin*tpb/24, (bestBin+1)*tpb/24
			bestC := int32(-1)
			for r := lo; r < hi; r++ {
				if counts[r] > bestC {
					o2, bestC = int64(r), counts[r]
				}
			}
		}
	}
	ncell := int(dv.floor(2*last-o2)) + 2
	if ncell > maxCells {
		return nil, "too long to infer"
	}
	if ncell < 16 {
		return nil, "too short"
	}
	median := 60
	if pitched > 0 {
		acc := 0
		for p, c := range pitchHist {
			acc += c
			if 2*acc >= pitched {
				median = p
				break
			}
		}
	}
	meanVel := 64.0
	if pitched > 0 {
		meanVel = float64(velSum) / float64(pitched)
	}
	b := buf
	for f := range b.feat {
		b.feat[f] = grow(b.feat[f], ncell)
	}
	for i := range b.cov {
		b.cov[i] = grow(b.cov[i], ncell)
	}
	b.pcs = grow(b.pcs, ncell)
	F := &b.feat
	onF, lowF, lenF, accF := F[fOnset][:ncell], F[fLow][:ncell], F[fLength][:ncell], F[fAccent][:ncell]
	cov, pcs := b.cov[0][:ncell], b.pcs[:ncell]
	invVel, lenScale := 1/meanVel, 8*dv.inv
	for ti := range s.Tracks {
		t := &s.Tracks[ti]
		for i := range t.Notes {
			n := &t.Notes[i]
			if n.Tick < 0 {
				continue
			}
			x := 2*n.Tick - o2
			c := max(dv.floor(x+T/2), 0)
			dev := x - c*T
			if dev < 0 {
				dev = -dev
			}
			on := dev*6 <= T // within a twelfth of a beat of the cell centre
			if t.IsDrum {
				if !on {
					continue
				}
				switch n.Pitch {
				case 35, 36:
					F[fKick][c]++
				case 38, 40:
					F[fSnare][c]++
				}
				continue
			}
			// sounding pitch classes: every cell whose centre the note
			// covers (up to a whole note), at least its onset cell.
			bit := uint16(1) << (n.Pitch % 12)
			end := min(int64(float64(x+2*n.Dur+T/2)*dv.inv), c+8, int64(ncell)) // near enough
			cov[c] |= bit
			for k := c + 1; k < end; k++ {
				cov[k] |= bit
			}
			if !on {
				continue
			}
			onF[c]++
			pcs[c] |= bit
			// the deepest, longest and loudest note starting on the cell
			lowF[c] = max(lowF[c], float64(median-int(n.Pitch))*(1.0/12))
			lenF[c] = max(lenF[c], log2Len[min(max(int(float64(n.Dur)*lenScale), 0), len(log2Len)-1)])
			accF[c] = max(accF[c], (float64(n.Velocity)-meanVel)*invVel)
		}
	}
	// windows of 2, 4 and 8 cells starting at each cell
	for i, w := 1, 1; i < len(b.cov); i, w = i+1, 2*w {
		prev, cur := b.cov[i-1], b.cov[i]
		for c := range ncell {
			cur[c] = prev[c]
			if c+w < ncell {
				cur[c] |= prev[c+w]
			}
		}
	}
	// harmonic change where notes start: the pitch classes of the half
	// note (and of the whole note) before against those after, and the
	// best triads of the half notes and of the quarter notes.
	on := F[fOnset]
	tt := triads()
	silent := 0 // cells without sound before c
	for c := range ncell {
		if on[c] > 0 {
			F[fChange][c] = maskChange(b.cov[2], c, 4)
			F[fChange8][c] = maskChange(b.cov[3], c, 8)
			F[fChord][c] = chordChange(tt, b.cov[2], c, 4)
			F[fChord2][c] = chordChange(tt, b.cov[1], c, 2)
			if silent >= 2 {
				F[fRest][c] = 1
			}
		}
		if b.cov[0][c] == 0 {
			silent++
		} else {
			silent = 0
		}
	}
	return &grid{tpb: tpb, o2: o2, n: ncell, first: first}, ""
}

// emissions combines the features of buf (each scaled to mean 1 over the
// cells) into one emission per level and cell.
func emissions(buf *gridBuf, ncell int, w *meterWeights) [nLevels + 1][]float64 {
	for l := range buf.em {
		buf.em[l] = grow(buf.em[l], ncell) // lvOff stays zero
	}
	// the weights of the features in use, scaled by their means
	var feats [nFeatures][]float64
	var wt [nFeatures][nLevels]float64
	nf := 0
	for f := range nFeatures {
		if w.Level[f] == ([nLevels]float64{}) {
			continue
		}
		sum := 0.0
		for _, x := range buf.feat[f][:ncell] {
			sum += x
		}
		if sum <= 0 {
			continue
		}
		scale := float64(ncell) / sum
		feats[nf] = buf.feat[f][:ncell]
		for l := range nLevels {
			wt[nf][l] = w.Level[f][l] * scale
		}
		nf++
	}
	e0, e1, e2 := buf.em[0][:ncell], buf.em[1][:ncell], buf.em[2][:ncell]
	for c := range ncell {
		var a, b, d float64
		for i := range nf {
			x := feats[i][c]
			a += wt[i][0] * x
			b += wt[i][1] * x
			d += wt[i][2] * x
		}
		e0[c], e1[c], e2[c] = a, b, d
	}
	return buf.em
}

// pathScore runs the bar-line path search for one meter: a Viterbi pass
// over the cells whose state is the position in the bar; a bar ends after
// its last cell or, at a penalty, early on a beat boundary. The score of a
// path is the sum of template·salience over its cells plus the meter's
// prior per bar; it is returned per cell. With trace, starts receives the
// cells where the best path's bars begin.
func pathScore(gr *grid, sh meterShape, buf *gridBuf, irregular float64, trace bool, starts *[]int) float64 {
	L := sh.cells
	n := gr.n
	var cur [16]float64
	buf.back = grow(buf.back, n)
	back := buf.back
	var em [16][]float64 // the emission row of each position of the bar
	for k := 0; k < L; k++ {
		em[k] = gr.em[sh.level[k]][:n]
	}
	// Any phase may start the piece.
	for k := 0; k < L; k++ {
		cur[k] = em[k][0]
	}
	for c := 1; c < n; c++ {
		// state 0 at c: from L-1 (a full bar) or from an early end.
		b0, from := cur[L-1]+sh.prior, L-1
		for k := sh.beat - 1; k < L-1; k += sh.beat {
			if v := cur[k] - irregular + sh.prior; v > b0 {
				b0, from = v, k
			}
		}
		for k := L - 1; k > 0; k-- {
			cur[k] = cur[k-1] + em[k][c]
		}
		cur[0] = b0 + em[0][c]
		back[c] = uint8(from)
	}
	best, bk := cur[0], 0
	for k := 1; k < L; k++ {
		if cur[k] > best {
			best, bk = cur[k], k
		}
	}
	if trace {
		var st []int
		c := n - 1 - bk // start of the last bar
		for c > 0 {
			st = append(st, c)
			c -= int(back[c]) + 1
		}
		if c == 0 {
			st = append(st, c)
		}
		// A start before cell 0 is a partial bar that opens the piece:
		// the first bar line is the next start.
		slices.Reverse(st)
		*starts = st
	}
	return best / float64(n)
}

// repetition measures how much the music repeats with a period of l cells:
// the correlation of the centred onset and pitch-class sequences with
// themselves l cells later, in [-1, 1].
func repetition(buf *gridBuf, n, l int) float64 {
	if n <= l {
		return 0
	}
	on := buf.feat[fOnset]
	mean := 0.0
	for _, x := range on {
		mean += x
	}
	mean /= float64(n)
	var num, den float64
	for c := 0; c+l < n; c++ {
		a, b := on[c]-mean, on[c+l]-mean
		num += a * b
		den += a * a
	}
	r := 0.0
	if den > 0 {
		r = num / den
	}
	// pitch classes starting on the cell against l cells later (Jaccard)
	pcs := buf.pcs
	var sim float64
	var cnt int
	for c := 0; c+l < n; c++ {
		a, b := pcs[c], pcs[c+l]
		if a == 0 || b == 0 {
			continue
		}
		sim += jaccard[bits.OnesCount16(a&b)][bits.OnesCount16(a|b)]
		cnt++
	}
	if cnt > 0 {
		r += sim / float64(cnt)
	}
	return r / 2
}

// log2Len[i] is log2(1 + i/4): the length feature of a note of i quarter
// eighths (up to two whole notes).
var log2Len = func() (t [65]float64) {
	for i := range t {
		t[i] = math.Log2(1 + float64(i)/4)
	}
	return t
}()

// maskChange is the harmonic change at cell c between the win cells before
// and the win cells after (m holds the pitch classes of the win cells
// starting at each cell): 1 − Jaccard similarity, 1 after silence.
func maskChange(m []uint16, c, win int) float64 {
	after := m[c]
	if after == 0 {
		return 0
	}
	if c < win || m[c-win] == 0 {
		return 1
	}
	before := m[c-win]
	return 1 - float64(bits.OnesCount16(before&after))/float64(bits.OnesCount16(before|after))
}

// chordChange is the fit of the best triad of the win cells after c when it
// differs from the best triad of the win cells before, else 0.
func chordChange(tt *[4096]triadFit, m []uint16, c, win int) float64 {
	if c < win {
		return 0
	}
	a, b := tt[m[c-win]], tt[m[c]]
	if a.label < 0 || b.label < 0 || a.label == b.label {
		return 0
	}
	return float64(b.fit) / 3
}

// triadFit is the best major or minor triad of a set of pitch classes:
// label 0–11 major roots, 12–23 minor, -1 none; fit the number of its
// notes in the set (2 or 3). Only triads whose root is in the set count.
type triadFit struct {
	label int8
	fit   uint8
}

var triads = sync.OnceValue(func() *[4096]triadFit {
	var t [4096]triadFit
	for m := range t {
		best := triadFit{label: -1}
		for r := 0; r < 12; r++ {
			if m&(1<<r) == 0 {
				continue
			}
			for q, third := range [2]int{4, 3} {
				tm := 1<<r | 1<<((r+third)%12) | 1<<((r+7)%12)
				if f := uint8(bits.OnesCount16(uint16(m & tm))); f >= 2 && f > best.fit {
					best = triadFit{label: int8(12*q + r), fit: f}
				}
			}
		}
		t[m] = best
	}
	return &t
})

// tick is the tick of cell c's centre (rounded down).
func (gr *grid) tick(c int) int64 { return (gr.o2 + int64(c)*int64(gr.tpb)) / 2 }

// cell is the cell whose centre is at tick t; ok is false when t is not on
// a cell centre.
func (gr *grid) cell(t int64) (int, bool) {
	x := 2*t - gr.o2
	c := x / int64(gr.tpb)
	return int(c), x >= 0 && c*int64(gr.tpb) == x
}

// divider divides by a fixed positive d through its reciprocal, correcting
// the rounding: floor(a/d) for |a| < 2^50 (the float64 quotient is then
// within one of the true one).
type divider struct {
	d   int64
	inv float64
}

func newDivider(d int64) divider { return divider{d, 1 / float64(d)} }

func (v divider) floor(a int64) int64 {
	q := int64(float64(a) * v.inv) // truncated: at most one off either way
	r := a - q*v.d
	if r < 0 {
		q--
		r += v.d
	}
	if r >= v.d {
		q++
	}
	return q
}

// Rebar moves the bar lines of s onto g's when g.Replace is set (else it
// does nothing and returns 0): Meters becomes g.Bars and, when the first
// inferred downbeat is not at tick 0, every event (notes, tempo, meter and
// key changes, EndTick) moves later by shift = (first bar − Phase) mod first
// bar, so that the notes before the first downbeat fill a first bar that
// starts with a rest. Changes at tick 0 (the initial tempo and key) stay at
// 0. Note seconds are recomputed. It returns shift.
func Rebar(s *Score, g MeterGuess) (shift int64) {
	if !g.Replace || len(g.Bars) == 0 {
		return 0
	}
	bar, ok := BarTicks(g.Bars[0].Num, g.Bars[0].Den, s.TicksPerBeat)
	if !ok || bar <= 0 {
		return 0
	}
	shift = ((bar-g.Bars[0].Tick)%bar + bar) % bar
	meters := make([]MeterChange, len(g.Bars))
	for i, m := range g.Bars {
		m.Tick += shift
		meters[i] = m
	}
	meters[0].Tick = 0 // the pickup bar has the first bar's meter
	s.Meters = meters
	if shift == 0 {
		return 0
	}
	for ti := range s.Tracks {
		notes := s.Tracks[ti].Notes
		for i := range notes {
			notes[i].Tick += shift
		}
	}
	for i := range s.Tempos {
		if s.Tempos[i].Tick > 0 {
			s.Tempos[i].Tick += shift
		}
	}
	for i := range s.Keys {
		if s.Keys[i].Tick > 0 {
			s.Keys[i].Tick += shift
		}
	}
	s.EndTick += shift
	s.ComputeSeconds()
	return shift
}

// jaccard[i][u] is i/u (0 for u = 0): the Jaccard similarity of two sets of
// pitch classes with i in common and u in all.
var jaccard = func() (t [13][13]float64) {
	for i := range t {
		for u := 1; u < 13; u++ {
			t[i][u] = float64(i) / float64(u)
		}
	}
	return t
}()

// BarLines returns the first n bar lines of s (ticks), as the tokenizer
// counts bars: from the first meter change (4/4 from tick 0 when there is
// none), a change taking effect at the first bar line at or after it, and
// the last meter going on past the end of the music.
func BarLines(s *Score, n int) []int64 {
	meters := s.Meters
	if len(meters) == 0 {
		meters = []MeterChange{{Tick: 0, Num: 4, Den: 4}}
	}
	end := s.EndTick + 1
	for {
		out := barLines(meters, s.TicksPerBeat, end)
		if len(out) >= n || len(out) == 0 {
			return out[:min(n, len(out))]
		}
		// Past the end: the last bar's length, as many times as needed.
		last := out[len(out)-1]
		l := last - out[max(len(out)-2, 0)]
		if len(out) == 1 {
			if bl, ok := BarTicks(meters[len(meters)-1].Num, meters[len(meters)-1].Den, s.TicksPerBeat); ok {
				l = bl
			}
		}
		if l <= 0 {
			return out
		}
		end = last + int64(n-len(out)+1)*l
	}
}
