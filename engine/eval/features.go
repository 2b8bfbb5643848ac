package eval

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/amtstudio/amt/engine/midi"
)

// Two-sample features (issue 24): plain musical features of the first N
// bars of a piece, measured the same way on real and generated music, so a
// classifier can be asked whether it tells one from the other
// (classify.go). Conventions:
//
//   - The bars are those of the meter map from tick 0 (4/4 before the first
//     meter event), N of them; notes starting at or after the end of bar N
//     are left out and notes sounding past it are cut there.
//   - Time is on the grid of GridPerBeat (12) steps a quarter note, a tick
//     on the nearest step (halves up), as the tokenizer puts it; a note
//     occupies the steps from its onset to its offset, at least one.
//   - A "voice" is one GM program: the tracks (channels) of one program are
//     merged, so a piano written on two channels is one piano. Drums are
//     apart: they count in the onset, silence and groove features only.
//   - The top line is the skyline of the pitched notes: at each pitched onset
//     the highest note starting there, unless a note started earlier and
//     still sounding is higher (the melody held over its accompaniment). The
//     bottom line is the same from below.
//   - A beat for "on the beat" is the meter's: a quarter note in x/4, a half
//     in x/2, a dotted quarter in 6/8, 9/8 and 12/8, an eighth in other x/8.
//
// A feature that is undefined for a piece (no top-line interval, no chord)
// is NaN; the classifiers fill it with the training median.

// Feature is one two-sample feature: its name (JSON, tables) and what it
// measures.
type Feature struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
}

// Indices of Features.
const (
	FDupShare = iota
	FMaxChord
	FMeanChord
	FTopSteps
	FTopLeaps
	FTopRepeats
	FTopInterval
	FTopZigzag
	FTopLegato
	FSilent16
	FPolyphony
	FLogNoteLen
	FNoteLenSpread
	FOnsetsPerBeat
	FNotesPerBeat
	FOnBeat
	FOffEighth
	FOffSixteenth
	FRhythmRepeat
	FExactRepeat
	FGroove
	FDensitySpread
	FVelMean
	FVelSpread
	FPitchRange
	FBassMedian
	FBassMotion
	FVoiceLeading
	FChordVocab
	FChordChange
	FPCEntropy
	FScaleFit
	FIOIEntropy
	FPhraseEnd
	FDrumOnsets
	NumFeatures
)

// Features are the two-sample features in vector order.
var Features = [NumFeatures]Feature{
	FDupShare:      {"dup_share", "share of pitched notes that repeat an earlier note's pitch at the same onset in the same program"},
	FMaxChord:      {"max_chord", "largest number of distinct pitches one program starts at one onset"},
	FMeanChord:     {"mean_chord", "mean distinct pitches per program per onset"},
	FTopSteps:      {"top_steps", "top-line intervals of 1–2 semitones (share)"},
	FTopLeaps:      {"top_leaps", "top-line intervals over 7 semitones (share)"},
	FTopRepeats:    {"top_repeats", "top-line repeated notes (share of intervals)"},
	FTopInterval:   {"top_interval", "mean absolute top-line interval, semitones"},
	FTopZigzag:     {"top_zigzag", "top line: share of consecutive moves that change direction"},
	FTopLegato:     {"top_legato", "top-line notes held until the next top-line onset (share)"},
	FSilent16:      {"silent_16ths", "16th-note grid points with nothing sounding (share)"},
	FPolyphony:     {"polyphony", "mean pitched notes sounding over the 16th points where one sounds"},
	FLogNoteLen:    {"log_note_len", "log of the mean pitched note length in beats"},
	FNoteLenSpread: {"note_len_spread", "standard deviation of log note lengths"},
	FOnsetsPerBeat: {"onsets_per_beat", "distinct onset steps (drums included) per quarter note"},
	FNotesPerBeat:  {"notes_per_beat", "pitched notes per quarter note"},
	FOnBeat:        {"on_beat", "pitched onsets on a beat of the meter (share)"},
	FOffEighth:     {"off_eighth", "pitched onsets on a 16th that is not an 8th (share)"},
	FOffSixteenth:  {"off_sixteenth", "pitched onsets off the 16th grid: triplets, swing (share)"},
	FRhythmRepeat:  {"rhythm_repeat", "bars after the first whose pitched onset positions equal an earlier bar's (share)"},
	FExactRepeat:   {"exact_repeat", "bars after the first that repeat an earlier bar exactly: program, position and pitch (share)"},
	FGroove:        {"groove", "mean Jaccard similarity of adjacent bars' onset positions (drums included)"},
	FDensitySpread: {"density_spread", "coefficient of variation of pitched notes per bar"},
	FVelMean:       {"vel_mean", "mean velocity of pitched notes"},
	FVelSpread:     {"vel_spread", "standard deviation of pitched velocities"},
	FPitchRange:    {"pitch_range", "highest minus lowest pitched note, semitones"},
	FBassMedian:    {"bass_median", "median pitch of the bottom line"},
	FBassMotion:    {"bass_motion", "mean absolute bottom-line interval, semitones"},
	FVoiceLeading:  {"voice_leading", "mean distance of a note to the nearest pitch sounding just before it (else of the previous onset), semitones"},
	FChordVocab:    {"chord_vocab", "distinct pitch-class sets over beats sounding 3+ classes, per such beat"},
	FChordChange:   {"chord_change", "consecutive beats (2+ classes each) whose pitch-class set changes (share)"},
	FPCEntropy:     {"pc_entropy", "pitch-class entropy of pitched notes, bits"},
	FScaleFit:      {"scale_fit", "largest share of pitched notes in one major or natural-minor scale"},
	FIOIEntropy:    {"ioi_entropy", "entropy of the steps between pitched onsets (up to a whole note), bits"},
	FPhraseEnd:     {"phrase_end", "log of mean note length in each 4th bar over the other bars' (phrase endings held)"},
	FDrumOnsets:    {"drum_onsets", "distinct drum onset steps per quarter note (0 without drums)"},
}

// FeatureIndex returns the index of the feature named name, or -1.
func FeatureIndex(name string) int {
	for i, f := range Features {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// fnote is a note on the grid: program (drums: -1), onset and offset step,
// pitch, velocity, length in beats.
type fnote struct {
	prog, on, off int
	pitch, vel    int
	beats         float64
	bar           int
}

// ExcerptBars returns the tick where bar n of s ends, through its meter map
// (4/4 before the first meter event), and the start of each of the n bars.
func ExcerptBars(s *midi.Score, n int) (starts []int64, end int64) {
	tpb := int64(s.TicksPerBeat)
	num, den, mi := 4, 4, 0
	pos := int64(0)
	for b := 0; b < n; b++ {
		for mi < len(s.Meters) && s.Meters[mi].Tick <= pos {
			if s.Meters[mi].Num > 0 && s.Meters[mi].Den > 0 {
				num, den = s.Meters[mi].Num, s.Meters[mi].Den
			}
			mi++
		}
		starts = append(starts, pos)
		next := pos + max(int64(num)*4*tpb/int64(den), 1)
		if mi < len(s.Meters) && s.Meters[mi].Tick > pos && s.Meters[mi].Tick < next {
			next = s.Meters[mi].Tick // a meter change cuts the bar short
		}
		pos = next
	}
	return starts, pos
}

// beatSteps is the beat of a meter in grid steps (see the conventions).
func beatSteps(num, den int) int {
	switch {
	case den == 8 && num%3 == 0 && num > 3:
		return 3 * GridPerBeat / 2
	case den <= 0:
		return GridPerBeat
	}
	return max(4*GridPerBeat/den, 1)
}

// PieceFeatures measures the two-sample features of the first bars bars of
// s. The error wraps ErrNoScore or ErrBadScore; a piece without pitched
// notes in those bars is an error too (nothing to compare).
func PieceFeatures(s *midi.Score, bars int) ([]float64, error) {
	if s == nil {
		return nil, ErrNoScore
	}
	if s.TicksPerBeat <= 0 {
		return nil, fmt.Errorf("%w: ticks per beat %d", ErrBadScore, s.TicksPerBeat)
	}
	if bars < 1 {
		return nil, fmt.Errorf("%w: %d bars", ErrBadScore, bars)
	}
	tpb := int64(s.TicksPerBeat)
	starts, end := ExcerptBars(s, bars)
	if step(end, tpb) > MaxSteps {
		return nil, ErrTooLong
	}
	barStep := make([]int, bars+1)
	for b, t := range starts {
		barStep[b] = int(step(t, tpb))
	}
	barStep[bars] = int(step(end, tpb))
	endStep := barStep[bars]
	// The beat of each bar, from the meter in force at its start.
	barBeat := make([]int, bars)
	num, den, mi := 4, 4, 0
	for b, t := range starts {
		for mi < len(s.Meters) && s.Meters[mi].Tick <= t {
			if s.Meters[mi].Num > 0 && s.Meters[mi].Den > 0 {
				num, den = s.Meters[mi].Num, s.Meters[mi].Den
			}
			mi++
		}
		barBeat[b] = beatSteps(num, den)
	}
	barOf := func(st int) int {
		return sort.Search(bars, func(i int) bool { return barStep[i+1] > st })
	}

	var pitched, drums []fnote
	for ti := range s.Tracks {
		tr := &s.Tracks[ti]
		for _, nt := range tr.Notes {
			if nt.Tick < 0 || nt.Tick >= end {
				continue
			}
			on := int(step(nt.Tick, tpb))
			offTick := min(nt.Tick+nt.Dur, end)
			off := max(int(step(offTick, tpb)), on+1)
			n := fnote{prog: -1, on: on, off: off, pitch: int(nt.Pitch), vel: int(nt.Velocity),
				beats: max(float64(offTick-nt.Tick)/float64(tpb), 1.0/48), bar: min(barOf(on), bars-1)}
			if tr.IsDrum {
				n.off = max(off, on+GridPerBeat/4) // a hit sounds at least a 16th
				drums = append(drums, n)
				continue
			}
			n.prog = tr.Program
			pitched = append(pitched, n)
		}
	}
	if len(pitched) == 0 {
		return nil, fmt.Errorf("%w: no pitched notes in the first %d bars", ErrBadScore, bars)
	}
	sort.Slice(pitched, func(i, j int) bool {
		a, b := &pitched[i], &pitched[j]
		if a.on != b.on {
			return a.on < b.on
		}
		if a.prog != b.prog {
			return a.prog < b.prog
		}
		return a.pitch < b.pitch
	})
	f := make([]float64, NumFeatures)
	nan := math.NaN()
	for i := range f {
		f[i] = nan
	}
	N := float64(len(pitched))
	beats := float64(end) / float64(tpb)

	// Duplicates and chords: groups of (onset, program), pitches sorted.
	dups, groups, distinct, maxChord := 0, 0, 0, 0
	for i := 0; i < len(pitched); {
		j, d := i, 0
		for ; j < len(pitched) && pitched[j].on == pitched[i].on && pitched[j].prog == pitched[i].prog; j++ {
			if j == i || pitched[j].pitch != pitched[j-1].pitch {
				d++
			} else {
				dups++
			}
		}
		groups++
		distinct += d
		maxChord = max(maxChord, d)
		i = j
	}
	f[FDupShare] = float64(dups) / N
	f[FMaxChord] = float64(maxChord)
	f[FMeanChord] = float64(distinct) / float64(groups)

	// Top and bottom lines (skylines), onsets.
	type lineNote struct{ on, off, pitch int }
	var top, bottom []lineNote
	var onsets []int // distinct pitched onset steps
	for i := 0; i < len(pitched); {
		j := i
		hi, lo := -1, 128
		hiOff, loOff := 0, 0
		for ; j < len(pitched) && pitched[j].on == pitched[i].on; j++ {
			p := pitched[j]
			if p.pitch > hi || (p.pitch == hi && p.off > hiOff) {
				hi, hiOff = p.pitch, p.off
			}
			if p.pitch < lo || (p.pitch == lo && p.off > loOff) {
				lo, loOff = p.pitch, p.off
			}
		}
		t := pitched[i].on
		onsets = append(onsets, t)
		above, below := false, false
		for k := 0; k < i; k++ { // earlier notes still sounding
			if q := pitched[k]; q.off > t {
				above = above || q.pitch > hi
				below = below || q.pitch < lo
			}
		}
		if !above {
			top = append(top, lineNote{t, hiOff, hi})
		}
		if !below {
			bottom = append(bottom, lineNote{t, loOff, lo})
		}
		i = j
	}
	if len(top) >= 2 {
		steps, leaps, reps, sum := 0, 0, 0, 0
		turns, moves, lastDir := 0, 0, 0
		legato := 0
		for i := 1; i < len(top); i++ {
			d := top[i].pitch - top[i-1].pitch
			a := abs(d)
			sum += a
			switch {
			case a == 0:
				reps++
			case a <= 2:
				steps++
			case a > 7:
				leaps++
			}
			if d != 0 {
				dir := 1
				if d < 0 {
					dir = -1
				}
				if lastDir != 0 {
					moves++
					if dir != lastDir {
						turns++
					}
				}
				lastDir = dir
			}
			if top[i-1].off+1 >= top[i].on {
				legato++
			}
		}
		n := float64(len(top) - 1)
		f[FTopSteps], f[FTopLeaps], f[FTopRepeats] = float64(steps)/n, float64(leaps)/n, float64(reps)/n
		f[FTopInterval] = float64(sum) / n
		f[FTopLegato] = float64(legato) / n
		if moves > 0 {
			f[FTopZigzag] = float64(turns) / float64(moves)
		}
	}
	if len(bottom) > 0 {
		ps := make([]float64, len(bottom))
		sum := 0
		for i, b := range bottom {
			ps[i] = float64(b.pitch)
			if i > 0 {
				sum += abs(b.pitch - bottom[i-1].pitch)
			}
		}
		f[FBassMedian] = Median(ps)
		if len(bottom) > 1 {
			f[FBassMotion] = float64(sum) / float64(len(bottom)-1)
		}
	}

	// Sounding notes on the grid: difference arrays over the steps.
	all := make([]int32, endStep+1)
	pit := make([]int32, endStep+1)
	for _, n := range pitched {
		all[n.on]++
		all[min(n.off, endStep)]--
		pit[n.on]++
		pit[min(n.off, endStep)]--
	}
	for _, n := range drums {
		all[n.on]++
		all[min(n.off, endStep)]--
	}
	for i := 1; i <= endStep; i++ {
		all[i] += all[i-1]
		pit[i] += pit[i-1]
	}
	points, silent, sounding, poly := 0, 0, 0, 0
	for b := 0; b < bars; b++ {
		for st := barStep[b]; st < barStep[b+1]; st += GridPerBeat / 4 {
			points++
			if all[st] == 0 {
				silent++
			}
			if pit[st] > 0 {
				sounding++
				poly += int(pit[st])
			}
		}
	}
	if points > 0 {
		f[FSilent16] = float64(silent) / float64(points)
	}
	if sounding > 0 {
		f[FPolyphony] = float64(poly) / float64(sounding)
	}

	// Note lengths, velocities, pitches.
	var lenSum, logSum, logSq, velSum, velSq float64
	lo, hi := 128, -1
	var pcs [12]float64
	for _, n := range pitched {
		lenSum += n.beats
		l := math.Log(n.beats)
		logSum += l
		logSq += l * l
		velSum += float64(n.vel)
		velSq += float64(n.vel) * float64(n.vel)
		lo, hi = min(lo, n.pitch), max(hi, n.pitch)
		pcs[n.pitch%12]++
	}
	f[FLogNoteLen] = math.Log(lenSum / N)
	f[FNoteLenSpread] = math.Sqrt(max(logSq/N-(logSum/N)*(logSum/N), 0))
	f[FVelMean] = velSum / N
	f[FVelSpread] = math.Sqrt(max(velSq/N-(velSum/N)*(velSum/N), 0))
	f[FPitchRange] = float64(hi - lo)
	ent := 0.0
	for _, c := range pcs {
		if c > 0 {
			p := c / N
			ent -= p * math.Log2(p)
		}
	}
	f[FPCEntropy] = ent
	best := 0.0
	for _, mask := range scaleMasks {
		in := 0.0
		for pc, c := range pcs {
			if mask&(1<<pc) != 0 {
				in += c
			}
		}
		best = max(best, in)
	}
	f[FScaleFit] = best / N

	// Onsets: rates, metric positions, IOIs.
	allOnsets := map[int]bool{}
	for _, t := range onsets {
		allOnsets[t] = true
	}
	drumOnsets := map[int]bool{}
	for _, n := range drums {
		allOnsets[n.on] = true
		drumOnsets[n.on] = true
	}
	f[FOnsetsPerBeat] = float64(len(allOnsets)) / beats
	f[FNotesPerBeat] = N / beats
	f[FDrumOnsets] = float64(len(drumOnsets)) / beats
	onBeat, offEighth, offSixteenth := 0, 0, 0
	var iois [GridPerBeat*4 + 1]float64
	nIOI := 0.0
	for i, t := range onsets {
		b := min(barOf(t), bars-1)
		pos := t - barStep[b]
		if pos%barBeat[b] == 0 {
			onBeat++
		}
		switch {
		case pos%(GridPerBeat/4) != 0:
			offSixteenth++
		case pos%(GridPerBeat/2) != 0:
			offEighth++
		}
		if i > 0 {
			iois[min(t-onsets[i-1], GridPerBeat*4)]++
			nIOI++
		}
	}
	no := float64(len(onsets))
	f[FOnBeat], f[FOffEighth], f[FOffSixteenth] = float64(onBeat)/no, float64(offEighth)/no, float64(offSixteenth)/no
	if nIOI > 0 {
		e := 0.0
		for _, c := range iois {
			if c > 0 {
				e -= c / nIOI * math.Log2(c/nIOI)
			}
		}
		f[FIOIEntropy] = e
	}

	// Bars: repeats, groove, density, phrase endings.
	rhythm := make([][]int, bars)
	exact := make([][]int, bars)
	onsetSets := make([]map[int]bool, bars)
	perBar := make([]float64, bars)
	var endLen, endN, restLen, restN float64
	for _, n := range pitched {
		b := n.bar
		pos := n.on - barStep[b]
		if len(rhythm[b]) == 0 || rhythm[b][len(rhythm[b])-1] != pos {
			rhythm[b] = append(rhythm[b], pos) // pitched sorted by onset
		}
		exact[b] = append(exact[b], n.prog, pos, n.pitch)
		perBar[b]++
		if b%4 == 3 {
			endLen += n.beats
			endN++
		} else {
			restLen += n.beats
			restN++
		}
	}
	for _, n := range append(slices.Clip(pitched), drums...) {
		if onsetSets[n.bar] == nil {
			onsetSets[n.bar] = map[int]bool{}
		}
		onsetSets[n.bar][n.on-barStep[n.bar]] = true
	}
	if bars > 1 {
		key := func(b int, xs []int) string {
			buf := binary.AppendUvarint(nil, uint64(barStep[b+1]-barStep[b]))
			for _, x := range xs {
				buf = binary.AppendVarint(buf, int64(x))
			}
			return string(buf)
		}
		seenR, seenE := map[string]bool{}, map[string]bool{}
		rr, er := 0, 0
		for b := 0; b < bars; b++ {
			if len(rhythm[b]) == 0 {
				continue
			}
			kr, ke := key(b, rhythm[b]), key(b, exact[b])
			if b > 0 && seenR[kr] {
				rr++
			}
			if b > 0 && seenE[ke] {
				er++
			}
			seenR[kr], seenE[ke] = true, true
		}
		f[FRhythmRepeat] = float64(rr) / float64(bars-1)
		f[FExactRepeat] = float64(er) / float64(bars-1)
		sum, pairs := 0.0, 0
		for b := 0; b+1 < bars; b++ {
			x, y := onsetSets[b], onsetSets[b+1]
			if len(x) == 0 && len(y) == 0 {
				continue
			}
			inter := 0
			for k := range x {
				if y[k] {
					inter++
				}
			}
			sum += float64(inter) / float64(len(x)+len(y)-inter)
			pairs++
		}
		if pairs > 0 {
			f[FGroove] = sum / float64(pairs)
		}
		st := Describe(perBar)
		if st.Mean > 0 {
			f[FDensitySpread] = float64(st.Std) / float64(st.Mean)
		}
	}
	if endN > 0 && restN > 0 {
		f[FPhraseEnd] = math.Log((endLen / endN) / (restLen / restN))
	}

	// Voice leading: each note against the pitches sounding just before
	// its onset (the previous onset's when nothing sounds there).
	vl, vn := 0.0, 0
	prevLo, prevHi := -1, -1 // index range of the previous onset in pitched
	for i := 0; i < len(pitched); {
		j := i
		for j < len(pitched) && pitched[j].on == pitched[i].on {
			j++
		}
		if prevLo >= 0 {
			t := pitched[i].on
			held := false
			for q := 0; q < i; q++ {
				held = held || pitched[q].off >= t
			}
			for k := i; k < j; k++ {
				d := 128
				for q := 0; q < i; q++ {
					if held && pitched[q].off >= t || !held && q >= prevLo && q < prevHi {
						d = min(d, abs(pitched[k].pitch-pitched[q].pitch))
					}
				}
				vl += float64(d)
				vn++
			}
		}
		prevLo, prevHi = i, j
		i = j
	}
	if vn > 0 {
		f[FVoiceLeading] = vl / float64(vn)
	}

	// Harmony per quarter-note beat: the pitch classes sounding in it.
	nb := (endStep + GridPerBeat - 1) / GridPerBeat
	sets := make([]uint16, nb)
	for _, n := range pitched {
		for b := n.on / GridPerBeat; b < nb && b*GridPerBeat < n.off; b++ {
			sets[b] |= 1 << (n.pitch % 12)
		}
	}
	vocab := map[uint16]bool{}
	rich, changes, pairs := 0, 0, 0
	for b, set := range sets {
		if bits.OnesCount16(set) >= 3 {
			rich++
			vocab[set] = true
		}
		if b > 0 && bits.OnesCount16(set) >= 2 && bits.OnesCount16(sets[b-1]) >= 2 {
			pairs++
			if set != sets[b-1] {
				changes++
			}
		}
	}
	if rich > 0 {
		f[FChordVocab] = float64(len(vocab)) / float64(rich)
	}
	if pairs > 0 {
		f[FChordChange] = float64(changes) / float64(pairs)
	}
	return f, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
