package eval

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/amtstudio/amt/engine/midi"
)

// GridPerBeat is the number of time steps per quarter note on which the
// grid-based metrics (groove, polyphony, distinct onsets) are measured: 12
// holds sixteenths (3 steps) and eighth-note triplets (4 steps) exactly. A
// tick is put on the nearest step (halves round up).
const GridPerBeat = 12

// MaxSteps bounds the grid of one piece (2^22 steps, about 58 hours at
// 100 bpm); a longer piece is refused with ErrTooLong rather than allocating
// without bound.
const MaxSteps = 1 << 22

// Sentinel errors of Measure.
var (
	ErrNoScore  = errors.New("eval: no score")
	ErrBadScore = errors.New("eval: bad score")
	ErrTooLong  = errors.New("eval: piece too long")
)

// Metrics are the measurements of one piece. A metric that is undefined for
// the piece (no pitched notes, fewer than two bars, no drums, …) is NaN; JSON
// writes it as null.
type Metrics struct {
	Notes        int // all notes, drums included
	PitchedNotes int // notes of non-drum tracks
	DrumNotes    int

	// PitchClassEntropy is the Shannon entropy in bits of the histogram of
	// the 12 pitch classes over pitched notes (each note counts once): 0 for
	// one pitch class, log2(12) ≈ 3.585 for all twelve equally.
	PitchClassEntropy float64
	// ScaleConsistency is the largest share of pitched notes that lie in one
	// scale, over the 24 major and natural-minor scales.
	ScaleConsistency float64
	// GrooveConsistency is 1 − the mean, over pairs of adjacent bars, of the
	// Hamming distance between their onset vectors divided by the bar's
	// length in steps. An onset vector has one entry per GridPerBeat step of
	// the bar, set where any note (drums included) starts. Bars follow the
	// meter map (4/4 before the first meter event) from tick 0 to the bar of
	// the last onset; two bars of different lengths are compared over the
	// longer one. Undefined with fewer than two bars.
	GrooveConsistency float64
	// Polyphony is the mean number of pitched notes sounding over the grid
	// steps where at least one sounds (a note occupies the steps from its
	// onset to its offset, at least one step).
	Polyphony float64
	// PolyphonyRate is the share of grid steps, from step 0 to the last
	// pitched offset, where two or more pitched notes sound.
	PolyphonyRate float64
	// EmptyBeatRate is the share of quarter-note beats, from beat 0 to the
	// beat of the last note end, in which no note (drums included) sounds.
	EmptyBeatRate float64
	// PitchRange is the highest minus the lowest pitched note, in semitones.
	PitchRange float64
	// NotesPerSecond is Notes over the time in seconds from 0 to the end of
	// the last note.
	NotesPerSecond float64
	// MeanIOI is the mean inter-onset interval in seconds between distinct
	// onsets (onsets on the same grid step count once, drums included):
	// (time of last onset − time of first onset) / (distinct onsets − 1).
	MeanIOI float64
	// DrumPatternRate is the share of drum notes whose onset lies within
	// 1/48 of a beat of the sixteenth-note grid or of the eighth-triplet grid.
	DrumPatternRate float64

	// Musicality (musicality.go: beats are quarter notes, bars those of
	// the meter map through the bar of the last onset).
	//
	// NotesPerBeat is Notes (drums included) over the beats of the bars.
	NotesPerBeat float64
	// OnsetsPerBeat is the number of distinct grid steps holding a note
	// onset (drums included) over the beats of the bars.
	OnsetsPerBeat float64
	// DrumBarShare is the share of bars holding at least one drum onset;
	// undefined (NaN) without drum notes, like DrumPatternRate.
	DrumBarShare float64
	// PitchedBarShare is the share of bars holding at least one pitched
	// note; undefined (NaN) without pitched notes. With drums it tells a
	// band from a drum solo with a few pitched notes.
	PitchedBarShare float64
	// BarRepetition is the share of the bars after the first whose
	// pitch+rhythm content equals an earlier bar's: the bar holds pitched
	// notes and an earlier bar of the same length holds the same multiset
	// of (grid step in the bar, pitch minus the bar's lowest pitch, length
	// in grid steps cut at the bar's end). Pitches relative to the lowest
	// make it transposition-invariant (a phrase restated a step higher
	// counts); durations keep articulation (held vs detached) apart.
	// Drums are left out. Bars are compared by a 64-bit multiset hash (a
	// sum of mixed entries), so a false match is a hash collision.
	// Undefined with fewer than two bars or no pitched notes.
	BarRepetition float64
	// RhythmRepetition is the same share for the onset pattern alone: the
	// set of grid steps where pitched notes start in the bar.
	RhythmRepetition float64
	// LastBarRatio is the notes (drums included) of the last bar over the
	// mean notes of the other bars (+Inf when they are all empty);
	// LastBarPileUp is LastBarRatio > PileUpFactor (2): the last bar over
	// twice as full as the others, the symptom of a generator cramming
	// notes into the bars it has left. Undefined (NaN, false) with fewer
	// than two bars. A cluster of 10 or more pitched notes on one onset of
	// the last bar is deliberately not a criterion: 13% of OpenMSX and 6%
	// of Freedoom pieces end on one (a final chord across the band), while the
	// factor of 2 flags 0–3% of real pieces in every corpus.
	LastBarRatio  float64
	LastBarPileUp bool
	// MeasuredBars is the number of bars the musicality metrics counted
	// (0 without notes).
	MeasuredBars int
	// Parts are the pitched programs' parts, by program: notes, bars
	// played, top-line onsets held (parts.go); TopOnsets counts the top
	// line's onsets.
	Parts     []Part
	TopOnsets int
	// PitchClasses counts the pitched notes of each pitch class (0 = C);
	// ScaleShare reads it.
	PitchClasses [12]int32

	// As measured by midi.Analyze: Key is estimated from the notes
	// (Krumhansl–Schmuckler), not read from a key signature.
	TempoBPM        float64 // initial tempo
	Key             midiKey // estimated
	MeterNum        int
	MeterDen        int
	Bars            float64
	DurationSeconds float64
	Programs        []int // GM programs of the pitched tracks
	HasDrums        bool
}

// Metric names one numeric metric of Metrics, for set statistics.
type Metric int

// The numeric metrics compared between sets, in report order.
const (
	PitchClassEntropy Metric = iota
	ScaleConsistency
	GrooveConsistency
	Polyphony
	PolyphonyRate
	EmptyBeatRate
	PitchRange
	NotesPerSecond
	MeanIOI
	DrumPatternRate
	TempoBPM
	NotesPerBeat
	OnsetsPerBeat
	DrumBarShare
	ProgramCount
	BarRepetition
	RhythmRepetition
	LastBarPileUp
	ScaleShareEstimated
	NumMetrics int = iota
)

var metricNames = [NumMetrics]string{
	"pitch_class_entropy", "scale_consistency", "groove_consistency",
	"polyphony", "polyphony_rate", "empty_beat_rate", "pitch_range",
	"notes_per_second", "mean_ioi", "drum_pattern_rate", "tempo_bpm",
	"notes_per_beat", "onsets_per_beat", "drum_bar_share", "programs",
	"bar_repetition", "rhythm_repetition", "last_bar_pile_up", "scale_share",
}

// String returns the metric's JSON name, e.g. "pitch_class_entropy".
func (k Metric) String() string {
	if k < 0 || int(k) >= NumMetrics {
		return fmt.Sprintf("metric(%d)", int(k))
	}
	return metricNames[k]
}

// Value returns one numeric metric (NaN where undefined). ProgramCount
// is the number of pitched programs playing (NaN without notes);
// LastBarPileUp is 1 or 0 (so a set's mean is the share of pieces that pile
// up); ScaleShareEstimated is ScaleShare of the key estimated from the
// notes (the set statistics have no requested key).
func (m *Metrics) Value(k Metric) float64 {
	switch k {
	case NotesPerBeat:
		return m.NotesPerBeat
	case OnsetsPerBeat:
		return m.OnsetsPerBeat
	case DrumBarShare:
		return m.DrumBarShare
	case ProgramCount:
		if m.Notes == 0 {
			return math.NaN()
		}
		return float64(len(m.Programs))
	case BarRepetition:
		return m.BarRepetition
	case RhythmRepetition:
		return m.RhythmRepetition
	case LastBarPileUp:
		switch {
		case math.IsNaN(m.LastBarRatio):
			return math.NaN()
		case m.LastBarPileUp:
			return 1
		}
		return 0
	case ScaleShareEstimated:
		return m.ScaleShare(m.Key.Tonic, m.Key.Minor)
	case PitchClassEntropy:
		return m.PitchClassEntropy
	case ScaleConsistency:
		return m.ScaleConsistency
	case GrooveConsistency:
		return m.GrooveConsistency
	case Polyphony:
		return m.Polyphony
	case PolyphonyRate:
		return m.PolyphonyRate
	case EmptyBeatRate:
		return m.EmptyBeatRate
	case PitchRange:
		return m.PitchRange
	case NotesPerSecond:
		return m.NotesPerSecond
	case MeanIOI:
		return m.MeanIOI
	case DrumPatternRate:
		return m.DrumPatternRate
	case TempoBPM:
		return m.TempoBPM
	}
	return math.NaN()
}

// scaleMasks[k] has bit pc set for the pitch classes of scale k: k < 12 the
// major scale on tonic k, k ≥ 12 the natural minor on tonic k−12.
var scaleMasks = func() (m [24]uint16) {
	major := []int{0, 2, 4, 5, 7, 9, 11}
	minor := []int{0, 2, 3, 5, 7, 8, 10}
	for t := 0; t < 12; t++ {
		for _, iv := range major {
			m[t] |= 1 << ((t + iv) % 12)
		}
		for _, iv := range minor {
			m[12+t] |= 1 << ((t + iv) % 12)
		}
	}
	return m
}()

// Evaluator measures pieces, reusing its buffers from one piece to the next.
// It is not safe for concurrent use; use one per goroutine (or Measure,
// which pools them).
type Evaluator struct {
	diff      []int32  // pitched-note polyphony deltas per grid step
	onsets    []uint64 // bitset of grid steps holding an onset
	beats     []int32  // sounding-note deltas per beat
	barStart  []int64  // tick where each bar starts (one more: the end)
	barSlots  []int32  // steps per bar
	barOnsets []uint64 // per bar, words of onset bits
	// Musicality, per bar: pitched onset bits, notes, pitched notes, drum
	// notes, lowest pitch, content hash; signatures being compared.
	barPitched []uint64
	barNotes   []int32
	barPitchN  []int32
	barDrums   []int32
	barLow     []int32
	barHash    []uint64
	sigs       []uint64
	rsigs      []uint64
	items      []barItem
	set        []uint64
	// Parts: the pitched notes on the grid, bucketed by onset step (the
	// top line, parts.go).
	line         []lineItem
	start, order []int32
}

var pool = sync.Pool{New: func() any { return new(Evaluator) }}

// Measure measures one piece with a pooled Evaluator. It is safe for
// concurrent use.
func Measure(s *midi.Score) (Metrics, error) {
	e := pool.Get().(*Evaluator)
	m, err := e.Measure(s)
	pool.Put(e)
	return m, err
}

// step puts a tick on the nearest grid step (halves round up).
func step(tick int64, tpb int64) int64 {
	return (tick*GridPerBeat + tpb/2) / tpb
}

// Measure measures one piece. The error wraps ErrNoScore, ErrBadScore (no
// time division) or ErrTooLong; a score without notes is not an error: its
// note-based metrics are NaN.
func (e *Evaluator) Measure(s *midi.Score) (Metrics, error) {
	nan := math.NaN()
	m := Metrics{
		PitchClassEntropy: nan, ScaleConsistency: nan, GrooveConsistency: nan,
		Polyphony: nan, PolyphonyRate: nan, EmptyBeatRate: nan, PitchRange: nan,
		NotesPerSecond: nan, MeanIOI: nan, DrumPatternRate: nan, TempoBPM: nan,
		NotesPerBeat: nan, OnsetsPerBeat: nan, DrumBarShare: nan, PitchedBarShare: nan, BarRepetition: nan,
		RhythmRepetition: nan, LastBarRatio: nan,
	}
	if s == nil {
		return m, ErrNoScore
	}
	if s.TicksPerBeat <= 0 {
		return m, fmt.Errorf("%w: ticks per beat %d", ErrBadScore, s.TicksPerBeat)
	}
	fillFacts(&m, s)
	tpb := int64(s.TicksPerBeat)

	// Pass 1: counts, pitch classes, extremes, drum pattern.
	var pc [12]int
	minP, maxP := 128, -1
	firstOn, lastOn := int64(math.MaxInt64), int64(-1)
	lastEnd := int64(0)   // tick of the last note end (a note lasts ≥ 1 tick)
	lastStep := int64(-1) // last pitched offset step
	inPattern := 0
	for ti := range s.Tracks {
		tr := &s.Tracks[ti]
		for ni := range tr.Notes {
			n := &tr.Notes[ni]
			if n.Tick < 0 || n.Dur < 0 {
				return m, fmt.Errorf("%w: track %d note %d at tick %d has negative time", ErrBadScore, ti, ni, n.Tick)
			}
			m.Notes++
			firstOn = min(firstOn, n.Tick)
			lastOn = max(lastOn, n.Tick)
			lastEnd = max(lastEnd, n.Tick+max(n.Dur, 1))
			if tr.IsDrum {
				m.DrumNotes++
				if onDrumGrid(n.Tick, tpb) {
					inPattern++
				}
				continue
			}
			m.PitchedNotes++
			p := int(n.Pitch)
			pc[p%12]++
			minP, maxP = min(minP, p), max(maxP, p)
			on := step(n.Tick, tpb)
			lastStep = max(lastStep, max(step(n.Tick+n.Dur, tpb), on+1))
		}
	}
	if m.Notes == 0 {
		return m, nil
	}
	if m.DrumNotes > 0 {
		m.DrumPatternRate = float64(inPattern) / float64(m.DrumNotes)
	}
	for i, c := range pc {
		m.PitchClasses[i] = int32(c)
	}
	if m.PitchedNotes > 0 {
		m.PitchRange = float64(maxP - minP)
		h := 0.0
		var mask uint16
		for i, c := range pc {
			if c > 0 {
				p := float64(c) / float64(m.PitchedNotes)
				h -= p * math.Log2(p)
				mask |= 1 << i
			}
		}
		m.PitchClassEntropy = h
		best := 0
		for _, sm := range scaleMasks {
			in := 0
			for i := 0; i < 12; i++ {
				if sm&(1<<i) != 0 {
					in += pc[i]
				}
			}
			best = max(best, in)
		}
		m.ScaleConsistency = float64(best) / float64(m.PitchedNotes)
	}
	if sec := s.TickToSeconds(lastEnd); sec > 0 {
		m.NotesPerSecond = float64(m.Notes) / sec
	}

	endStep := max(step(lastOn, tpb)+1, lastStep)
	if endStep > MaxSteps || lastEnd/tpb+1 > MaxSteps {
		return m, fmt.Errorf("%w: %d grid steps (at most %d)", ErrTooLong, endStep, MaxSteps)
	}

	e.measureGrid(&m, s, endStep, lastStep, firstOn, lastOn)
	e.measureBeats(&m, s, lastEnd)
	e.measureBars(&m, s, lastOn)
	return m, nil
}

// onDrumGrid reports whether tick lies within 1/48 beat of the sixteenth
// grid (k/4 beat) or the eighth-triplet grid (k/3 beat).
func onDrumGrid(tick, tpb int64) bool {
	// Work in units of 1/48 beat scaled by tpb to stay in integers:
	// r48 = 48·(tick mod tpb); a grid point k/4 is at 12k·tpb, k/3 at 16k·tpb;
	// tolerance 1/48 beat is tpb in these units.
	r48 := 48 * (tick % tpb)
	for k := int64(0); k <= 4; k++ {
		if d := r48 - 12*k*tpb; d <= tpb && d >= -tpb {
			return true
		}
	}
	for k := int64(0); k <= 3; k++ {
		if d := r48 - 16*k*tpb; d <= tpb && d >= -tpb {
			return true
		}
	}
	return false
}

// measureGrid computes polyphony, polyphony rate and the mean inter-onset
// interval on the GridPerBeat grid.
func (e *Evaluator) measureGrid(m *Metrics, s *midi.Score, endStep, lastStep, firstOn, lastOn int64) {
	tpb := int64(s.TicksPerBeat)
	n := int(endStep) + 1
	e.diff = grow32(e.diff, n)
	words := (n + 63) / 64
	e.onsets = grow64(e.onsets, words)
	var noteSteps int64
	for ti := range s.Tracks {
		tr := &s.Tracks[ti]
		for ni := range tr.Notes {
			nt := &tr.Notes[ni]
			on := step(nt.Tick, tpb)
			e.onsets[on>>6] |= 1 << (on & 63)
			if tr.IsDrum {
				continue
			}
			off := max(step(nt.Tick+nt.Dur, tpb), on+1)
			e.diff[on]++
			e.diff[off]--
			noteSteps += off - on
		}
	}
	if m.PitchedNotes > 0 && lastStep > 0 {
		active, multi := 0, 0
		c := int32(0)
		for i := int64(0); i < lastStep; i++ {
			c += e.diff[i]
			if c >= 1 {
				active++
				if c >= 2 {
					multi++
				}
			}
		}
		m.Polyphony = float64(noteSteps) / float64(active)
		m.PolyphonyRate = float64(multi) / float64(lastStep)
	}
	distinct := 0
	for _, w := range e.onsets[:words] {
		distinct += bits.OnesCount64(w)
	}
	if distinct >= 2 {
		m.MeanIOI = (s.TickToSeconds(lastOn) - s.TickToSeconds(firstOn)) / float64(distinct-1)
	}
}

// measureBeats computes the empty-beat rate: beats are quarter notes from
// beat 0 to the beat holding the last note end (exclusive end tick).
func (e *Evaluator) measureBeats(m *Metrics, s *midi.Score, lastEnd int64) {
	tpb := int64(s.TicksPerBeat)
	nb := int((lastEnd + tpb - 1) / tpb)
	if nb == 0 {
		return
	}
	e.beats = grow32(e.beats, nb+1)
	for ti := range s.Tracks {
		for _, nt := range s.Tracks[ti].Notes {
			b0 := nt.Tick / tpb
			b1 := (nt.Tick + max(nt.Dur, 1) - 1) / tpb
			e.beats[b0]++
			e.beats[b1+1]--
		}
	}
	empty := 0
	c := int32(0)
	for i := 0; i < nb; i++ {
		c += e.beats[i]
		if c == 0 {
			empty++
		}
	}
	m.EmptyBeatRate = float64(empty) / float64(nb)
}

// grow32 returns a zeroed slice of length n, reusing buf's storage.
func grow32(buf []int32, n int) []int32 {
	if cap(buf) < n {
		return make([]int32, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

func grow64(buf []uint64, n int) []uint64 {
	if cap(buf) < n {
		return make([]uint64, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}
