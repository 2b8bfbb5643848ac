package eval

import (
	"math"
	"math/bits"
	"sort"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/internal/splitmix"
)

// Musicality metrics (issue 13): what makes generated music sound like a
// tune rather than notes in the right key. They are measured on the piece's
// bars and beats, defined once here:
//
//   - A beat is a quarter note (TicksPerBeat ticks), whatever the meter: 6/8
//     has three beats a bar, 2/2 four. So notes per beat mean the same in
//     2/4, 4/4 and 6/8 (notes per bar did not).
//   - The bars are those of the meter map (4/4 before the first meter
//     event; a meter change cuts a bar short), from tick 0 through the bar
//     holding the last note onset (of any track): a real file's end-of-track
//     marker a little past the last bar line adds no empty bar, and a
//     generated piece cut to N bars has its N bars when its last bar holds a
//     note. A note belongs to the bar holding its onset; its position in the
//     bar is its grid step (GridPerBeat per beat, nearest step) from the bar
//     line.
//
// Drums (notes of drum tracks) count in the note and onset rates, the drum
// share and the last-bar pile-up, but not in the two repetition measures
// nor the scale share: a drum loop repeats every bar whatever the tune does
// (drums are judged by DrumBarShare and groove), and drum keys are not
// pitches.

// minorScale: the pitch classes of minor as the key bias of generation
// (engine/train/condition) uses them: natural minor plus the raised seventh
// of harmonic minor (8 classes). Major is scaleMasks[0] (7 classes).
const minorScale = 1<<0 | 1<<2 | 1<<3 | 1<<5 | 1<<7 | 1<<8 | 1<<10 | 1<<11

// PileUpFactor is the last-bar pile-up threshold: a piece piles up at its
// end when its last bar holds more than PileUpFactor times the mean notes
// of its other bars.
const PileUpFactor = 2

// ScaleShare is the share of pitched notes whose pitch class lies in the
// scale of the key tonic (0 = C … 11 = B) and mode: the major scale (7
// classes), or for minor the natural minor plus its raised seventh (8
// classes: harmonic minor's leading tone counts, as in the key bias of
// generation). NaN without pitched notes or for a tonic outside 0–11.
func (m *Metrics) ScaleShare(tonic int, minor bool) float64 {
	if m.PitchedNotes == 0 || tonic < 0 || tonic > 11 {
		return math.NaN()
	}
	mask := uint16(scaleMasks[0])
	if minor {
		mask = minorScale
	}
	mask = (mask<<tonic | mask>>(12-tonic)) & 0xfff
	in := 0
	for pc, c := range m.PitchClasses {
		if mask&(1<<pc) != 0 {
			in += int(c)
		}
	}
	return float64(in) / float64(m.PitchedNotes)
}

// measureBars builds the bars from the meter map up to the bar of lastOn,
// places every note in its bar, and computes the groove consistency and the
// musicality metrics.
func (e *Evaluator) measureBars(m *Metrics, s *midi.Score, lastOn int64) {
	tpb := int64(s.TicksPerBeat)
	e.barStart = e.barStart[:0]
	e.barSlots = e.barSlots[:0]
	num, den := 4, 4
	mi := 0
	maxSlots := int32(1)
	uniform := true
	pos := int64(0)
	for pos <= lastOn {
		for mi < len(s.Meters) && s.Meters[mi].Tick <= pos {
			if s.Meters[mi].Num > 0 && s.Meters[mi].Den > 0 {
				if len(e.barStart) > 0 && (s.Meters[mi].Num != num || s.Meters[mi].Den != den) {
					uniform = false
				}
				num, den = s.Meters[mi].Num, s.Meters[mi].Den
			}
			mi++
		}
		barLen := max(int64(num)*4*tpb/int64(den), 1)
		next := pos + barLen
		if mi < len(s.Meters) && s.Meters[mi].Tick < next {
			next = s.Meters[mi].Tick // a meter change cuts the bar short
			uniform = false
		}
		slots := int32(max((next-pos)*GridPerBeat*2/tpb+1, 2) / 2) // round, ≥ 1
		e.barStart = append(e.barStart, pos)
		e.barSlots = append(e.barSlots, slots)
		maxSlots = max(maxSlots, slots)
		pos = next
	}
	nbars := len(e.barStart)
	e.barStart = append(e.barStart, pos) // the end of the last bar
	m.MeasuredBars = nbars
	beats := float64(pos) / float64(tpb)
	m.NotesPerBeat = float64(m.Notes) / beats

	w := int((maxSlots + 63) / 64)
	e.barOnsets = grow64(e.barOnsets, nbars*w)
	e.barPitched = grow64(e.barPitched, nbars*w)
	e.barNotes = grow32(e.barNotes, nbars)
	e.barPitchN = grow32(e.barPitchN, nbars)
	e.barDrums = grow32(e.barDrums, nbars)
	e.barLow = grow32(e.barLow, nbars)
	e.barHash = grow64(e.barHash, nbars)
	for b := range e.barLow {
		e.barLow[b] = 128
	}
	barLen0 := int64(0)
	if uniform {
		barLen0 = e.barStart[1] - e.barStart[0]
	}
	barOf := func(tick int64) int {
		if uniform {
			return int(tick / barLen0)
		}
		return sort.Search(nbars, func(i int) bool { return e.barStart[i] > tick }) - 1
	}
	// Pass 1: onsets, counts, drums, each bar's lowest pitch; pitched
	// notes' bar, step and length kept for pass 2.
	e.items = e.items[:0]
	pt := e.startParts(nbars)
	for ti := range s.Tracks {
		tr := &s.Tracks[ti]
		k := pt.part(m, tr)
		for ni := range tr.Notes {
			nt := &tr.Notes[ni]
			b := barOf(nt.Tick)
			start := e.barStart[b]
			slots := int64(e.barSlots[b])
			slot := min(step(nt.Tick-start, tpb), slots-1)
			bit := uint64(1) << (slot & 63)
			e.barOnsets[b*w+int(slot>>6)] |= bit
			e.barNotes[b]++
			if tr.IsDrum {
				e.barDrums[b]++
				continue
			}
			e.barPitched[b*w+int(slot>>6)] |= bit
			e.barPitchN[b]++
			if k >= 0 {
				pt.note(e, k, b, nt, tpb, tr.Program)
			}
			e.barLow[b] = min(e.barLow[b], int32(nt.Pitch))
			off := min(step(min(nt.Tick+nt.Dur, e.barStart[b+1])-start, tpb), slots)
			e.items = append(e.items, barItem{bar: int32(b), key: uint64(slot)<<40 | uint64(max(off-slot, 0))<<16, pitch: int32(nt.Pitch)})
		}
	}
	e.measureParts(m, pt)
	// Pass 2: each bar's pitch+rhythm content as a multiset hash of
	// (grid step in the bar, length in steps up to the bar's end, pitch
	// above the bar's lowest).
	for _, it := range e.items { // a sum of mixed entries: a multiset hash
		e.barHash[it.bar] += splitmix.Mix64(it.key | uint64(it.pitch-e.barLow[it.bar]))
	}

	// Onsets per beat: distinct grid steps holding an onset (drums
	// included): the bar bitsets hold them, a step at most once.
	onsets := 0
	for _, x := range e.barOnsets[:nbars*w] {
		onsets += bits.OnesCount64(x)
	}
	m.OnsetsPerBeat = float64(onsets) / beats

	if m.DrumNotes > 0 {
		k := 0
		for _, c := range e.barDrums {
			if c > 0 {
				k++
			}
		}
		m.DrumBarShare = float64(k) / float64(nbars)
	}
	if m.Notes > m.DrumNotes {
		k := 0
		for _, c := range e.barPitchN[:nbars] {
			if c > 0 {
				k++
			}
		}
		m.PitchedBarShare = float64(k) / float64(nbars)
	}

	if nbars < 2 {
		return
	}
	// Last-bar pile-up.
	last := float64(e.barNotes[nbars-1])
	meanOther := float64(m.Notes-int(e.barNotes[nbars-1])) / float64(nbars-1)
	m.LastBarRatio = last / meanOther // ≥ 1 note in the last bar: +Inf when the others are empty
	m.LastBarPileUp = last > PileUpFactor*meanOther

	// Groove: adjacent bars' onset vectors (drums included).
	sum := 0.0
	for b := 0; b+1 < nbars; b++ {
		d := 0
		for j := 0; j < w; j++ {
			d += bits.OnesCount64(e.barOnsets[b*w+j] ^ e.barOnsets[(b+1)*w+j])
		}
		sum += float64(d) / float64(max(e.barSlots[b], e.barSlots[b+1]))
	}
	m.GrooveConsistency = 1 - sum/float64(nbars-1)

	if m.PitchedNotes == 0 {
		return
	}
	// Repetition: a bar holding pitched notes repeats when an earlier bar
	// has the same signature. Within a group of equal signatures the
	// earliest bar is the original and every other one a repeat, so the
	// repeats are the non-empty bars minus the distinct signatures.
	e.sigs = e.sigs[:0]
	e.rsigs = e.rsigs[:0]
	for b := 0; b < nbars; b++ {
		if e.barPitchN[b] == 0 {
			continue
		}
		length := uint64(e.barStart[b+1] - e.barStart[b])
		e.sigs = append(e.sigs, e.barHash[b]^splitmix.Mix64(length<<24|uint64(e.barPitchN[b])))
		r := splitmix.Mix64(length)
		for j := 0; j < w; j++ {
			r = splitmix.Mix64(r ^ e.barPitched[b*w+j])
		}
		e.rsigs = append(e.rsigs, r)
	}
	m.BarRepetition = float64(len(e.sigs)-e.distinct(e.sigs)) / float64(nbars-1)
	m.RhythmRepetition = float64(len(e.rsigs)-e.distinct(e.rsigs)) / float64(nbars-1)
}

// barItem is a pitched note placed in its bar: key packs its grid step in
// the bar (bits 40+) and its length in steps (bits 16–39).
type barItem struct {
	bar   int32
	pitch int32
	key   uint64
}

// distinct returns how many distinct values xs holds, with an
// open-addressing set in e.set (reused).
func (e *Evaluator) distinct(xs []uint64) int {
	size := 16
	for size < 2*len(xs) {
		size <<= 1
	}
	e.set = grow64(e.set, size)
	mask := uint64(size - 1)
	n := 0
	for _, x := range xs {
		x |= 1 // 0 marks an empty slot; the low bit is given up
		for i := splitmix.Mix64(x) & mask; ; i = (i + 1) & mask {
			switch e.set[i] {
			case 0:
				e.set[i] = x
				n++
			case x:
			default:
				continue
			}
			break
		}
	}
	return n
}
