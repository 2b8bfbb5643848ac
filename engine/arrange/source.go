package arrange

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/amtstudio/amt/engine/midi"
)

// ErrSkip marks a source that cannot be arranged faithfully (irregular
// beats, a meter no groove fits, chords that do not line up with the MIDI);
// Build counts these by reason instead of failing.
var ErrSkip = errors.New("skipped")

func skipf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrSkip, fmt.Sprintf(format, args...))
}

// ChordAt is a chord in force from Tick on (None: no chord, the groove
// rests but its drums play).
type ChordAt struct {
	Tick  int64
	Chord Chord
	None  bool
}

// Source is one piece ready to arrange: its melody (and, for POP909, its
// bridge and piano parts) on a grid whose bar 0 starts at tick 0, with its
// chords, tempo map, meter and key.
type Source struct {
	ID     string // corpus/name: "pop909/001", "nottingham/jigs12"
	Corpus string // "pop909", "nottingham"
	Name   string // file stem of the outputs: "001", "jigs12"
	Title  string
	Artist string
	Kind   string   // Nottingham tune type ("jig", "reel", "waltz", …); "" for POP909
	Tags   []string // more words for the sidecar's tags (a lead sheet's genre and styles)
	// Score holds the source's parts in output ticks (TicksPerBeat of the
	// source), its tempo map (shifted like the notes), and its key
	// signatures (if any); Meters holds the one meter of the piece at 0.
	// Tracks are named "Melody", "Bridge", "Piano".
	Score    *midi.Score
	Num, Den int   // meter
	Triplet  bool  // a 4/4 or 3/4 whose beats divide in three (POP909's 3 quavers per beat)
	BarTicks int64 // ticks per bar
	Bars     int   // bars in the piece, the pickup included
	Pickup   int   // leading bars before the first downbeat; the groove is silent in them
	Chords   []ChordAt
	// Sections are the bars where a section of the source starts after
	// the first downbeat (a repeat, a part, a double bar line); nil when
	// the source marks none (SectionStarts then assumes 8-bar phrases).
	Sections []int
	// Families, when set, limits the grooves to these families (a lead
	// sheet's genre tags).
	Families []string
	// Licence names the source corpus's licence for the sidecar.
	Licence string
}

// Class returns the source's meter class (the Meter field of the grooves
// that fit it): "4/4" (also 2/4 and 2/2), "12/8" (4/4 with triplet beats),
// "3/4", "6/8", or "" when no groove fits.
func (s *Source) Class() string {
	switch {
	case s.Num == 4 && s.Den == 4 && s.Triplet:
		return "12/8"
	case (s.Num == 4 || s.Num == 2) && (s.Den == 4 || s.Den == 2) && !s.Triplet:
		return "4/4"
	case s.Num == 3 && s.Den == 4:
		return "3/4"
	case s.Num == 6 && s.Den == 8:
		return "6/8"
	}
	return ""
}

// BarQuarters returns the bar length in quarter notes.
func (s *Source) BarQuarters() float64 {
	return float64(s.BarTicks) / float64(s.Score.TicksPerBeat)
}

// BPM returns the tempo in quarter notes per minute that is in force for
// the longest time after the pickup (ties: the earliest), the tempo the
// grooves must fit.
func (s *Source) BPM() float64 {
	sc := s.Score
	start := int64(s.Pickup) * s.BarTicks
	end := int64(s.Bars) * s.BarTicks
	if end <= start {
		end = start + 1
	}
	dur := map[int]int64{}
	mpb := sc.TempoAt(start)
	last := start
	for _, t := range sc.Tempos {
		if t.Tick <= start {
			continue
		}
		if t.Tick >= end {
			break
		}
		dur[mpb] += t.Tick - last
		last, mpb = t.Tick, t.MicrosPerBeat
	}
	dur[mpb] += end - last
	best, bestDur := 0, int64(-1)
	keys := make([]int, 0, len(dur))
	for k := range dur {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		if dur[k] > bestDur {
			best, bestDur = k, dur[k]
		}
	}
	return 60e6 / float64(best)
}

// EndTick returns the end of the last bar.
func (s *Source) EndTick() int64 { return int64(s.Bars) * s.BarTicks }

// secondsToTick converts a time in seconds to a (fractional) tick through
// the score's tempo map: the inverse of Score.TickToSeconds.
func secondsToTick(sc *midi.Score, sec float64) float64 {
	tpb := float64(sc.TicksPerBeat)
	last := int64(0)
	lastSec := 0.0
	mpb := midi.DefaultMicrosPerBeat
	for _, t := range sc.Tempos {
		if t.Tick > last {
			tSec := lastSec + float64(t.Tick-last)*float64(mpb)/1e6/tpb
			if tSec > sec {
				break
			}
			last, lastSec = t.Tick, tSec
		}
		mpb = t.MicrosPerBeat
	}
	return float64(last) + (sec-lastSec)*1e6/float64(mpb)*tpb
}

// shiftTempos returns the tempo map of sc seen from tick start on, shifted
// so that start becomes tick 0 (the tempo in force at start comes first, at
// 0; a negative start uses the first tempo).
func shiftTempos(sc *midi.Score, start int64) []midi.TempoChange {
	first := sc.TempoAt(max(start, 0))
	out := []midi.TempoChange{{Tick: 0, MicrosPerBeat: first}}
	for _, t := range sc.Tempos {
		if t.Tick <= start {
			continue
		}
		if out[len(out)-1].MicrosPerBeat == t.MicrosPerBeat {
			continue
		}
		out = append(out, midi.TempoChange{Tick: t.Tick - start, MicrosPerBeat: t.MicrosPerBeat})
	}
	return out
}

// shiftNotes returns a copy of notes moved by -start ticks; notes that would
// start before 0 are dropped (there are none when start is the beginning
// of the first bar that holds a note).
func shiftNotes(notes []midi.Note, start int64) []midi.Note {
	out := make([]midi.Note, 0, len(notes))
	for _, n := range notes {
		if n.Tick < start {
			continue
		}
		n.Tick -= start
		n.Start, n.Duration = 0, 0
		out = append(out, n)
	}
	return out
}

// floorDiv divides rounding toward −∞.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// ceilDiv divides rounding toward +∞ (b > 0).
func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

// roundTo rounds x to the nearest multiple of step.
func roundTo(x float64, step int64) int64 {
	return int64(math.Round(x/float64(step))) * step
}

// mergeChords sorts chord events, drops those at or after end, clamps the
// ones before 0 to 0 (the last one before 0 wins), and removes repeats of
// the chord in force.
func mergeChords(ev []ChordAt, end int64) []ChordAt {
	sort.SliceStable(ev, func(i, j int) bool { return ev[i].Tick < ev[j].Tick })
	var out []ChordAt
	for _, e := range ev {
		if e.Tick >= end {
			break
		}
		if e.Tick < 0 {
			e.Tick = 0
		}
		if n := len(out); n > 0 && out[n-1].Tick == e.Tick {
			out[n-1] = e
			if n > 1 && sameChordAt(out[n-2], e) {
				out = out[:n-1]
			}
			continue
		}
		if n := len(out); n > 0 && sameChordAt(out[n-1], e) {
			continue
		}
		out = append(out, e)
	}
	return out
}

func sameChordAt(a, b ChordAt) bool {
	if a.None || b.None {
		return a.None == b.None
	}
	return a.Chord.Same(b.Chord)
}
