package arrange

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// mmaEvent is a chord change in MMA's absolute beats from the start.
type mmaEvent struct {
	beat float64
	name string // an MMA chord name, "z" (rest, drums play) or "z!" (silence)
}

// MMABars returns how many MMA bars cover the source under groove g.
func MMABars(s *Source, g Groove) int {
	beats := float64(s.EndTick()) / float64(s.Score.TicksPerBeat) * g.R
	return int(math.Ceil(beats/g.Time - 1e-9))
}

// events lists the chord changes in MMA beats: silence over the pickup,
// then the source's chords (a "no chord" becomes a rest in which only the
// drums play).
func events(s *Source, g Groove) []mmaEvent {
	ppq := float64(s.Score.TicksPerBeat)
	pickupEnd := int64(s.Pickup) * s.BarTicks
	var ev []mmaEvent
	if s.Pickup > 0 {
		ev = append(ev, mmaEvent{0, "z!"})
	}
	// The chord in force at the first downbeat.
	var at ChordAt
	have := false
	for _, c := range s.Chords {
		if c.Tick <= pickupEnd {
			at, have = c, true
		}
	}
	name := func(c ChordAt) string {
		if c.None {
			return "z"
		}
		return c.Chord.MMA()
	}
	if have {
		ev = append(ev, mmaEvent{float64(pickupEnd) / ppq * g.R, name(at)})
	} else {
		ev = append(ev, mmaEvent{float64(pickupEnd) / ppq * g.R, "z"})
	}
	for _, c := range s.Chords {
		if c.Tick <= pickupEnd {
			continue
		}
		ev = append(ev, mmaEvent{float64(c.Tick) / ppq * g.R, name(c)})
	}
	return ev
}

// formatBeat writes a beat position with at most 3 decimals: "1", "2.5",
// "1.667".
func formatBeat(b float64) string {
	return strconv.FormatFloat(math.Round(b*1000)/1000, 'f', -1, 64)
}

// MMA returns the MMA source text that makes the accompaniment of the
// variant: the random seed, the groove (defined inline when it is ours),
// the tempo (the source's, × R), then one line per MMA bar with the chord
// in force at its start and the changes inside it ("C G7@3"). MMA writes
// its own 192 ticks per beat; Merge maps them back onto the source's grid.
func MMA(s *Source, v Variant) string {
	g := v.Groove
	var b strings.Builder
	fmt.Fprintf(&b, "// AMT Studio engine/arrange: %s with %s (%s), %d/%d, source tempo %.2f\n",
		s.ID, g.Spec(), g.Family, s.Num, s.Den, s.BPM())
	fmt.Fprintf(&b, "RndSeed %d\n", v.Seed%1000000)
	if g.Set != "" {
		b.WriteString(g.Set + "\n")
	}
	if g.Define != "" {
		b.WriteString(g.Define)
	}
	fmt.Fprintf(&b, "Groove %s\n", g.Spec())
	fmt.Fprintf(&b, "Tempo %s\n", formatBeat(g.TempoFor(s.BPM())))
	ev := events(s, g)
	bars := MMABars(s, g)
	cur := ""
	k := 0
	for bar := 0; bar < bars; bar++ {
		start := float64(bar) * g.Time
		end := start + g.Time
		// The chord in force at the bar's start.
		for k < len(ev) && ev[k].beat < start+1e-6 {
			cur = ev[k].name
			k++
		}
		line := []string{cur}
		for k < len(ev) && ev[k].beat < end-1e-6 {
			pos := ev[k].beat - start + 1
			// MMA wants increasing positions; a change that rounds onto the
			// previous one replaces it.
			if len(line) > 1 || pos > 1+1e-6 {
				line = append(line, ev[k].name+"@"+formatBeat(pos))
			} else {
				line[0] = ev[k].name
			}
			cur = ev[k].name
			k++
		}
		fmt.Fprintf(&b, "%d %s\n", bar+1, strings.Join(line, " "))
	}
	return b.String()
}
