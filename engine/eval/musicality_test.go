package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

func drumTrack(ticks ...int64) midi.Track {
	var ns []midi.Note
	for _, t := range ticks {
		ns = append(ns, note(t, 3, 36))
	}
	return midi.Track{Name: "drums", Channel: 9, IsDrum: true, Notes: ns}
}

// Four 4/4 bars at tpb 12 (one tick = one grid step, 48 steps a bar):
//
//	bar 0  C4 E4 G4 at steps 0, 12, 24 (lengths 12, 12, 24)
//	bar 1  the same a tone higher (D4 F#4 A4): a repeat of bar 0
//	bar 2  the same rhythm on C4 D4 E4: a rhythm repeat only
//	bar 3  bar 0 with E4 cut to 6 steps: a rhythm repeat only
//
// plus drum hits at ticks 0 (bar 0), 48 (bar 1) and 150 (bar 3, step 6).
func TestMusicalityByHand(t *testing.T) {
	s := score(12,
		piano(
			note(0, 12, 60), note(12, 12, 64), note(24, 24, 67),
			note(48, 12, 62), note(60, 12, 66), note(72, 24, 69),
			note(96, 12, 60), note(108, 12, 62), note(120, 24, 64),
			note(144, 12, 60), note(156, 6, 64), note(168, 24, 67),
		),
		drumTrack(0, 48, 150),
	)
	m := mustMeasure(t, s)
	if m.MeasuredBars != 4 {
		t.Fatalf("bars %d, want 4", m.MeasuredBars)
	}
	// 12 pitched + 3 drum notes over 4 bars × 4 beats.
	near(t, "notes_per_beat", m.NotesPerBeat, 15.0/16)
	// Distinct onset steps: {0,12,24} in bars 0–2 (the drum at 48 falls on
	// bar 1's step 0), {0,6,12,24} in bar 3: 13 over 16 beats.
	near(t, "onsets_per_beat", m.OnsetsPerBeat, 13.0/16)
	// Drums in bars 0, 1 and 3 of 4.
	near(t, "drum_bar_share", m.DrumBarShare, 0.75)
	near(t, "pitched_bar_share", m.PitchedBarShare, 1)
	// Of the 3 bars after the first, bar 1 repeats bar 0 (transposed).
	near(t, "bar_repetition", m.BarRepetition, 1.0/3)
	// Bars 1, 2, 3 all start notes at {0, 12, 24}.
	near(t, "rhythm_repetition", m.RhythmRepetition, 1)
	// Last bar 3 + 1 notes; the others 4, 4, 3: mean 11/3, ratio 12/11.
	near(t, "last_bar_ratio", m.LastBarRatio, 12.0/11)
	if m.LastBarPileUp {
		t.Error("pile-up reported for a last bar 12/11 as full as the others")
	}
	near(t, "value programs", m.Value(ProgramCount), 1)
	near(t, "value pile-up", m.Value(LastBarPileUp), 0)

	// Without the drums the content measures are unchanged (drums never
	// count in them) and the drum share is undefined.
	s.Tracks = s.Tracks[:1]
	m = mustMeasure(t, s)
	near(t, "bar_repetition without drums", m.BarRepetition, 1.0/3)
	near(t, "rhythm_repetition without drums", m.RhythmRepetition, 1)
	near(t, "drum_bar_share without drums", m.DrumBarShare, math.NaN())
	near(t, "notes_per_beat without drums", m.NotesPerBeat, 12.0/16)

	// Drums in all four bars, pitched notes in bars 0 and 2 only: a half;
	// drums alone: undefined.
	s.Tracks = []midi.Track{piano(note(0, 12, 60), note(100, 12, 62)), drumTrack(0, 48, 96, 144)}
	m = mustMeasure(t, s)
	near(t, "pitched_bar_share, two of four bars", m.PitchedBarShare, 0.5)
	near(t, "drum_bar_share, all bars", m.DrumBarShare, 1)
	s.Tracks = s.Tracks[1:]
	m = mustMeasure(t, s)
	near(t, "pitched_bar_share of drums alone", m.PitchedBarShare, math.NaN())
}

// Eighth notes fill two bars of 6/8 and two bars of 2/4: 12 and 8 notes,
// 6 and 4 bars' worth of beats (a 6/8 bar is 3 quarter notes, a 2/4 bar 2),
// so both are 2 notes per beat although one has 6 notes a bar, the other 4.
func TestNotesPerBeatAcrossMeters(t *testing.T) {
	for _, c := range []struct {
		num, den, notes int
	}{{6, 8, 12}, {2, 4, 8}, {4, 4, 16}} {
		var ns []midi.Note
		for i := 0; i < c.notes; i++ {
			ns = append(ns, note(int64(240*i), 240, 60))
		}
		s := score(480, piano(ns...))
		s.Meters = []midi.MeterChange{{Tick: 0, Num: c.num, Den: c.den}}
		m := mustMeasure(t, s)
		name := fmt.Sprintf("%d/%d", c.num, c.den)
		if m.MeasuredBars != 2 {
			t.Errorf("%s: %d bars, want 2", name, m.MeasuredBars)
		}
		near(t, name+" notes_per_beat", m.NotesPerBeat, 2)
		near(t, name+" onsets_per_beat", m.OnsetsPerBeat, 2)
		// Every bar the same single pitch on every eighth: a repeat.
		near(t, name+" bar_repetition", m.BarRepetition, 1)
	}
}

// The last bar over twice as full as the mean of the others piles up;
// exactly twice does not.
func TestLastBarPileUp(t *testing.T) {
	build := func(last int) *midi.Score {
		var ns []midi.Note
		for b := 0; b < 3; b++ {
			ns = append(ns, note(int64(48*b), 12, 60), note(int64(48*b+24), 12, 64))
		}
		for i := 0; i < last; i++ {
			ns = append(ns, note(144, 48, uint8(60+i)))
		}
		return score(12, piano(ns...))
	}
	m := mustMeasure(t, build(5)) // 5 / 2 = 2.5
	near(t, "ratio 5", m.LastBarRatio, 2.5)
	if !m.LastBarPileUp || m.Value(LastBarPileUp) != 1 {
		t.Error("5 notes against a mean of 2: no pile-up reported")
	}
	m = mustMeasure(t, build(4)) // 4 / 2 = 2: not over twice
	near(t, "ratio 4", m.LastBarRatio, 2)
	if m.LastBarPileUp {
		t.Error("exactly twice reported as a pile-up")
	}
	// Only the last bar has notes after an empty first bar: the others'
	// mean is 0, the ratio +Inf.
	m = mustMeasure(t, score(12, piano(note(60, 12, 60))))
	if !math.IsInf(m.LastBarRatio, 1) || !m.LastBarPileUp {
		t.Errorf("ratio %v pile-up %v, want +Inf true", m.LastBarRatio, m.LastBarPileUp)
	}
	// One bar: nothing to compare with.
	m = mustMeasure(t, score(12, piano(note(0, 12, 60), note(12, 12, 62))))
	near(t, "one bar ratio", m.LastBarRatio, math.NaN())
	near(t, "one bar repetition", m.BarRepetition, math.NaN())
	near(t, "one bar rhythm", m.RhythmRepetition, math.NaN())
	near(t, "one bar value", m.Value(LastBarPileUp), math.NaN())
	if m.LastBarPileUp {
		t.Error("one bar piles up")
	}
}

// Same content in bars of different lengths is not a repeat; an empty bar
// counts in the denominator but never repeats.
//
//	bar 0  4/4, C4 at step 0   (ticks 0–48)
//	bar 1  3/4, C4 at step 0   (48–84): not bar 0 (shorter bar)
//	bar 2  3/4, empty          (84–120)
//	bar 3  3/4, C4 at step 0   (120–156): repeats bar 1
func TestRepetitionBarLengthAndEmptyBars(t *testing.T) {
	s := score(12, piano(note(0, 12, 60), note(48, 12, 60), note(120, 12, 60)))
	s.Meters = []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}, {Tick: 48, Num: 3, Den: 4}}
	m := mustMeasure(t, s)
	if m.MeasuredBars != 4 {
		t.Fatalf("bars %d, want 4", m.MeasuredBars)
	}
	near(t, "bar_repetition", m.BarRepetition, 1.0/3)
	near(t, "rhythm_repetition", m.RhythmRepetition, 1.0/3)
	// 3 notes over 4 + 3·3 = 13 beats.
	near(t, "notes_per_beat", m.NotesPerBeat, 3.0/13)
}

// The scale share counts pitch classes in major (7) or minor with the
// raised seventh (8).
func TestScaleShare(t *testing.T) {
	// C D E F G A B C#.
	var ns []midi.Note
	for i, p := range []uint8{60, 62, 64, 65, 67, 69, 71, 61} {
		ns = append(ns, note(int64(12*i), 12, p))
	}
	m := mustMeasure(t, score(12, piano(ns...)))
	near(t, "C major", m.ScaleShare(0, false), 7.0/8)
	near(t, "A minor", m.ScaleShare(9, true), 7.0/8)  // A B C D E F G (G#): C# out
	near(t, "D major", m.ScaleShare(2, false), 6.0/8) // D E F# G A B C#: C and F out
	near(t, "bad tonic", m.ScaleShare(12, false), math.NaN())
	// C and G#: half in C major; both in A minor (G# is its leading tone),
	// though A natural minor alone would hold only C.
	m = mustMeasure(t, score(12, piano(note(0, 12, 60), note(12, 12, 68))))
	near(t, "C major, G#", m.ScaleShare(0, false), 0.5)
	near(t, "A minor, G#", m.ScaleShare(9, true), 1)
	near(t, "F# major", m.ScaleShare(6, false), 0.5) // G# in, C out
	m = mustMeasure(t, score(12, drumTrack(0, 12)))
	near(t, "drums only", m.ScaleShare(0, false), math.NaN())
}

// bruteMusicality recomputes the bar-based musicality metrics the plain
// way: bars by walking the meter map, contents as sorted strings, repeats
// by a map lookup.
func bruteMusicality(s *midi.Score) (bars int, drumShare, barRep, rhythmRep, ratio float64) {
	tpb := int64(s.TicksPerBeat)
	lastOn := int64(-1)
	for _, tr := range s.Tracks {
		for _, n := range tr.Notes {
			lastOn = max(lastOn, n.Tick)
		}
	}
	nan := math.NaN()
	if lastOn < 0 {
		return 0, nan, nan, nan, nan
	}
	var starts []int64
	num, den := 4, 4
	pos := int64(0)
	for pos <= lastOn {
		next := int64(-1)
		for _, mc := range s.Meters {
			if mc.Tick <= pos && mc.Num > 0 && mc.Den > 0 {
				num, den = mc.Num, mc.Den
			}
		}
		end := pos + max(int64(num)*4*tpb/int64(den), 1)
		for _, mc := range s.Meters {
			if mc.Tick > pos && mc.Tick < end && (next < 0 || mc.Tick < next) {
				next = mc.Tick
			}
		}
		if next > 0 {
			end = next
		}
		starts = append(starts, pos)
		pos = end
	}
	starts = append(starts, pos)
	nb := len(starts) - 1
	type item struct{ slot, rel, dur int64 }
	content := make([][]item, nb)
	low := make([]int64, nb)
	count := make([]int, nb)
	drum := make([]bool, nb)
	total := 0
	for i := range low {
		low[i] = 999
	}
	barOf := func(tick int64) int {
		for b := 0; b < nb; b++ {
			if tick >= starts[b] && tick < starts[b+1] {
				return b
			}
		}
		panic("no bar")
	}
	for _, tr := range s.Tracks {
		for _, n := range tr.Notes {
			b := barOf(n.Tick)
			count[b]++
			total++
			if tr.IsDrum {
				drum[b] = true
			} else {
				low[b] = min(low[b], int64(n.Pitch))
			}
		}
	}
	for _, tr := range s.Tracks {
		if tr.IsDrum {
			continue
		}
		for _, n := range tr.Notes {
			b := barOf(n.Tick)
			slots := (starts[b+1]-starts[b])*GridPerBeat*2/tpb + 1
			slots = max(slots, 2) / 2
			slot := min(step(n.Tick-starts[b], tpb), slots-1)
			off := min(step(min(n.Tick+n.Dur, starts[b+1])-starts[b], tpb), slots)
			content[b] = append(content[b], item{slot, int64(n.Pitch) - low[b], max(off-slot, 0)})
		}
	}
	seen, seenR := map[string]bool{}, map[string]bool{}
	rep, rrep, withDrums := 0, 0, 0
	hasDrums := false
	for b := 0; b < nb; b++ {
		if drum[b] {
			withDrums++
			hasDrums = true
		}
		if len(content[b]) == 0 {
			continue
		}
		c := content[b]
		sort.Slice(c, func(i, j int) bool {
			if c[i].slot != c[j].slot {
				return c[i].slot < c[j].slot
			}
			if c[i].rel != c[j].rel {
				return c[i].rel < c[j].rel
			}
			return c[i].dur < c[j].dur
		})
		var k, r strings.Builder
		fmt.Fprintf(&k, "%d|", starts[b+1]-starts[b])
		fmt.Fprintf(&r, "%d|", starts[b+1]-starts[b])
		lastSlot := int64(-1)
		for _, x := range c {
			fmt.Fprintf(&k, "%d,%d,%d;", x.slot, x.rel, x.dur)
			if x.slot != lastSlot {
				fmt.Fprintf(&r, "%d;", x.slot)
				lastSlot = x.slot
			}
		}
		if seen[k.String()] {
			rep++
		}
		if seenR[r.String()] {
			rrep++
		}
		seen[k.String()], seenR[r.String()] = true, true
	}
	drumShare = nan
	if hasDrums {
		drumShare = float64(withDrums) / float64(nb)
	}
	barRep, rhythmRep, ratio = nan, nan, nan
	if nb >= 2 {
		ratio = float64(count[nb-1]) / (float64(total-count[nb-1]) / float64(nb-1))
		if len(seen) > 0 || rep > 0 {
			barRep = float64(rep) / float64(nb-1)
			rhythmRep = float64(rrep) / float64(nb-1)
		}
	}
	return nb, drumShare, barRep, rhythmRep, ratio
}

// Random scores (odd resolutions, meter changes off the bar lines, drums,
// repeated bars planted by copying) give the brute-force values.
func TestMusicalityMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for it := 0; it < 400; it++ {
		tpb := []int{1, 7, 12, 96, 480}[r.IntN(5)]
		bar := int64(4 * tpb)
		var tracks []midi.Track
		for k := r.IntN(4); k >= 0; k-- {
			tr := midi.Track{Program: r.IntN(128), IsDrum: r.IntN(4) == 0}
			for n := r.IntN(30); n > 0; n-- {
				tr.Notes = append(tr.Notes, note(int64(r.IntN(tpb*24)), int64(r.IntN(tpb*3)), uint8(20+r.IntN(90))))
			}
			// Plant repeats: copy the first bar's notes, transposed,
			// into later bars.
			var first []midi.Note
			for _, n := range tr.Notes {
				if n.Tick < bar {
					first = append(first, n)
				}
			}
			for c := r.IntN(4); c > 0; c-- {
				at, up := int64(1+r.IntN(7))*bar, uint8(r.IntN(5))
				for _, n := range first {
					n.Tick += at
					n.Pitch += up
					tr.Notes = append(tr.Notes, n)
				}
			}
			tracks = append(tracks, tr)
		}
		s := score(tpb, tracks...)
		if r.IntN(3) == 0 {
			for k := 1 + r.IntN(2); k > 0; k-- {
				s.Meters = append(s.Meters, midi.MeterChange{Tick: int64(r.IntN(tpb * 32)), Num: 1 + r.IntN(7), Den: 1 << r.IntN(4)})
			}
			sort.Slice(s.Meters, func(i, j int) bool { return s.Meters[i].Tick < s.Meters[j].Tick })
		}
		m, err := Measure(s)
		if err != nil {
			t.Fatal(err)
		}
		checkRanges(t, "random", &m)
		nb, ds, br, rr, ratio := bruteMusicality(s)
		what := fmt.Sprintf("trial %d", it)
		if m.MeasuredBars != nb {
			t.Fatalf("%s: bars %d, brute force %d", what, m.MeasuredBars, nb)
		}
		near(t, what+" drum_bar_share", m.DrumBarShare, ds)
		if m.PitchedNotes > 0 {
			near(t, what+" bar_repetition", m.BarRepetition, br)
			near(t, what+" rhythm_repetition", m.RhythmRepetition, rr)
		}
		if !math.IsInf(ratio, 1) {
			near(t, what+" last_bar_ratio", m.LastBarRatio, ratio)
		} else if !math.IsInf(m.LastBarRatio, 1) {
			t.Errorf("%s: last bar ratio %v, want +Inf", what, m.LastBarRatio)
		}
	}
}
