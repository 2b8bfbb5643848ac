package arrange

import (
	"math"
	"slices"

	"github.com/amtstudio/amt/engine/midi"
)

// DrumFeel is what a piece's drums sound like as played: measured on the
// drum tracks alone, so MMA's patterns, the human performances laid under
// the arranged pieces and the game and band music's drums compare on the
// same terms.
type DrumFeel struct {
	Hits int // drum notes
	Bars int // bars from the first bar with a drum note to the last
	// VelSpread is the standard deviation of the hits' velocities.
	VelSpread float64
	// OnsetDevMS is the mean distance of a hit from the nearest 16th or
	// triplet eighth of its beat, in milliseconds at the tempo in force:
	// 0 for drums on the grid.
	OnsetDevMS float64
	// HitsPerBar is Hits over Bars.
	HitsPerBar float64
	// BarChange is the mean, over adjacent bars, of one minus the Jaccard
	// similarity of their sets of (drum, position): a hit's position is
	// the nearest 16th or triplet eighth (feelGrid), so a drummer's timing
	// does not count as a change of pattern. 0 when every bar repeats the
	// one before.
	BarChange float64
}

// feelGrid are the positions in a beat a hit is measured from: the 16ths
// and the triplet eighths.
var feelGrid = []float64{0, 0.25, 1.0 / 3, 0.5, 2.0 / 3, 0.75, 1}

// MeasureDrumFeel measures the drum tracks of sc (ok false without drum
// notes). Bars are the tokenizer's (midi.BarLines).
func MeasureDrumFeel(sc *midi.Score) (DrumFeel, bool) {
	var f DrumFeel
	var hits []midi.Note
	for _, t := range sc.Tracks {
		if t.IsDrum {
			hits = append(hits, t.Notes...)
		}
	}
	if len(hits) == 0 || sc.TicksPerBeat <= 0 {
		return f, false
	}
	slices.SortStableFunc(hits, func(a, b midi.Note) int {
		if a.Tick != b.Tick {
			if a.Tick < b.Tick {
				return -1
			}
			return 1
		}
		return int(a.Pitch) - int(b.Pitch)
	})
	ppq := float64(sc.TicksPerBeat)
	f.Hits = len(hits)
	mean := 0.0
	for _, h := range hits {
		mean += float64(h.Velocity)
	}
	mean /= float64(len(hits))
	dev, ms := 0.0, 0.0
	for _, h := range hits {
		d := float64(h.Velocity) - mean
		dev += d * d
		beats := float64(h.Tick) / ppq
		frac := beats - math.Floor(beats)
		best := 1.0
		for _, g := range feelGrid {
			best = min(best, math.Abs(frac-g))
		}
		ms += best * float64(sc.TempoAt(h.Tick)) / 1000
	}
	f.VelSpread = math.Sqrt(dev / float64(len(hits)))
	f.OnsetDevMS = ms / float64(len(hits))

	last := hits[len(hits)-1].Tick
	n := int(last/max(1, int64(ppq)/2)) + 2 // bars are at least half a beat
	lines := midi.BarLines(sc, n)
	if len(lines) == 0 {
		return f, false
	}
	barOf := func(t int64) int {
		i, found := slices.BinarySearch(lines, t)
		if !found {
			i--
		}
		return max(i, 0)
	}
	first, lastBar := barOf(hits[0].Tick), barOf(last)
	f.Bars = lastBar - first + 1
	f.HitsPerBar = float64(f.Hits) / float64(f.Bars)
	type key struct {
		pitch uint8
		step  int64
	}
	sets := make([]map[key]bool, f.Bars)
	for i := range sets {
		sets[i] = map[key]bool{}
	}
	for _, h := range hits {
		b := barOf(h.Tick)
		sets[b-first][key{h.Pitch, feelStep(float64(h.Tick-lines[b]) / ppq)}] = true
	}
	change, pairs := 0.0, 0
	for i := 1; i < len(sets); i++ {
		a, b := sets[i-1], sets[i]
		if len(a) == 0 && len(b) == 0 {
			continue
		}
		inter := 0
		for k := range a {
			if b[k] {
				inter++
			}
		}
		union := len(a) + len(b) - inter
		change += 1 - float64(inter)/float64(union)
		pairs++
	}
	if pairs > 0 {
		f.BarChange = change / float64(pairs)
	}
	return f, true
}

// feelStep numbers the nearest point of feelGrid to a position in beats
// from the bar line: 6 a beat (0, ¼, ⅓, ½, ⅔, ¾), the beat's end counting
// as the next beat's start.
func feelStep(beats float64) int64 {
	whole := math.Floor(beats)
	frac := beats - whole
	best, bestD := 0, math.Inf(1)
	for i, g := range feelGrid {
		if d := math.Abs(frac - g); d < bestD {
			best, bestD = i, d
		}
	}
	if best == len(feelGrid)-1 {
		return (int64(whole) + 1) * 6
	}
	return int64(whole)*6 + int64(best)
}
