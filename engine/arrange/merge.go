package arrange

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/amtstudio/amt/engine/midi"
)

// MaxAccompanimentPrograms bounds the pitched programs the groove keeps
// (the melody's program comes on top): a piece stays a small band.
const MaxAccompanimentPrograms = 3

// MergeInfo says what Merge kept.
type MergeInfo struct {
	Lead     int      // the melody's General MIDI program
	Kept     []string // the groove's tracks kept ("Bass(33)", "Chord-Guitar(27)", "Drum")
	Dropped  []string // the groove's tracks dropped
	Programs int      // pitched programs in the result
}

// isBassProgram reports General MIDI basses (32–39).
func isBassProgram(p int) bool { return p >= 32 && p <= 39 }

// meanPitch is the mean pitch of a track's notes (0 when empty).
func meanPitch(t *midi.Track) float64 {
	if len(t.Notes) == 0 {
		return 0
	}
	s := 0.0
	for _, n := range t.Notes {
		s += float64(n.Pitch)
	}
	return s / float64(len(t.Notes))
}

// Merge builds the arranged piece from MMA's output acc and the source:
// MMA's ticks are scaled onto the source's grid (one MMA beat is 1/R
// quarter notes; MMA bar k starts where source bar k×(Time/R)/bar starts),
// notes past the source's last bar are cut, and the source's tempo map,
// meter and key signatures are kept. Of the groove's pitched tracks, the
// bass (a General MIDI bass program, else the lowest "Bass"/"Walk" track)
// comes first, then the busiest others until MaxAccompanimentPrograms
// programs; with KeepPiano only the bass stays and the source's piano
// (and bridge) parts join. All drum tracks become one drum track. The
// melody (and bridge) get a lead program of the groove's family that the
// groove does not use.
func Merge(acc *midi.Score, s *Source, v Variant) (*midi.Score, MergeInfo, error) {
	var info MergeInfo
	if acc.TicksPerBeat <= 0 {
		return nil, info, fmt.Errorf("arrange: merge %s: MMA output has %d ticks per beat", s.ID, acc.TicksPerBeat)
	}
	g := v.Groove
	f := float64(s.Score.TicksPerBeat) / (float64(acc.TicksPerBeat) * g.R)
	end := s.EndTick()
	scale := func(notes []midi.Note) []midi.Note {
		out := make([]midi.Note, 0, len(notes))
		for _, n := range notes {
			t := int64(math.Round(float64(n.Tick) * f))
			e := int64(math.Round(float64(n.Tick+n.Dur) * f))
			if t >= end || t < 0 {
				continue
			}
			e = min(e, end)
			if e <= t {
				e = t + 1
			}
			out = append(out, midi.Note{Tick: t, Dur: e - t, Pitch: n.Pitch, Velocity: n.Velocity})
		}
		return out
	}

	var drums []midi.Note
	type cand struct {
		t     midi.Track
		order int
	}
	var pitched []cand
	for i, t := range acc.Tracks {
		if len(t.Notes) == 0 {
			continue
		}
		if t.IsDrum {
			drums = append(drums, scale(t.Notes)...)
			continue
		}
		t.Notes = scale(t.Notes)
		if len(t.Notes) > 0 {
			pitched = append(pitched, cand{t, i})
		}
	}
	// The bass: a bass program (the most notes), else the lowest Bass/Walk
	// track.
	bass := -1
	for i, c := range pitched {
		if isBassProgram(c.t.Program) && (bass < 0 || len(c.t.Notes) > len(pitched[bass].t.Notes)) {
			bass = i
		}
	}
	if bass < 0 {
		for i, c := range pitched {
			n := strings.ToLower(c.t.Name)
			if (strings.HasPrefix(n, "bass") || strings.HasPrefix(n, "walk")) &&
				(bass < 0 || meanPitch(&c.t) < meanPitch(&pitched[bass].t)) {
				bass = i
			}
		}
	}
	keep := make([]bool, len(pitched))
	programs := map[int]bool{}
	if bass >= 0 {
		keep[bass] = true
		programs[pitched[bass].t.Program] = true
		// Other tracks on the bass's program are the same instrument.
		for i, c := range pitched {
			if c.t.Program == pitched[bass].t.Program && (isBassProgram(c.t.Program) || !v.KeepPiano) {
				keep[i] = true
			}
		}
	}
	if !v.KeepPiano {
		order := make([]int, len(pitched))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			return cmp.Compare(len(pitched[b].t.Notes), len(pitched[a].t.Notes))
		})
		for _, i := range order {
			p := pitched[i].t.Program
			if keep[i] {
				continue
			}
			if programs[p] || len(programs) < MaxAccompanimentPrograms {
				keep[i] = true
				programs[p] = true
			}
		}
	}

	out := &midi.Score{
		TicksPerBeat: s.Score.TicksPerBeat,
		Title:        fmt.Sprintf("%s (%s)", s.Title, g.Name),
		Tempos:       append([]midi.TempoChange(nil), s.Score.Tempos...),
		Meters:       []midi.MeterChange{{Tick: 0, Num: s.Num, Den: s.Den}},
		Keys:         append([]midi.KeyChange(nil), s.Score.Keys...),
		EndTick:      end,
	}
	used := map[int]bool{}
	for i, c := range pitched {
		if keep[i] {
			used[c.t.Program] = true
		}
	}
	if v.KeepPiano {
		used[0] = true
	}
	info.Lead = leadProgram(g.Family, v.Seed, used)

	ch := 0
	nextChannel := func() int {
		c := ch
		ch++
		if ch == 9 {
			ch++
		}
		return c
	}
	for _, t := range s.Score.Tracks {
		switch t.Name {
		case "Melody", "Bridge":
			out.Tracks = append(out.Tracks, midi.Track{Name: t.Name, Channel: nextChannel(), Program: info.Lead,
				Notes: clipNotes(t.Notes, end)})
		case "Piano":
			if v.KeepPiano {
				out.Tracks = append(out.Tracks, midi.Track{Name: "Piano", Channel: nextChannel(), Program: 0,
					Notes: clipNotes(t.Notes, end)})
			}
		}
	}
	if v.KeepPiano {
		// The bridge plays on the piano beside the original piano part.
		for i := range out.Tracks {
			if out.Tracks[i].Name == "Bridge" {
				out.Tracks[i].Program = 0
			}
		}
	}
	for i, c := range pitched {
		label := fmt.Sprintf("%s(%d)", c.t.Name, c.t.Program)
		if !keep[i] {
			info.Dropped = append(info.Dropped, label)
			continue
		}
		info.Kept = append(info.Kept, label)
		if ch > 15 {
			return nil, info, fmt.Errorf("arrange: merge %s: more than 15 pitched tracks", s.ID)
		}
		sortNotes(c.t.Notes)
		out.Tracks = append(out.Tracks, midi.Track{Name: c.t.Name, Channel: nextChannel(), Program: c.t.Program,
			Notes: c.t.Notes})
	}
	if len(drums) > 0 {
		sortNotes(drums)
		out.Tracks = append(out.Tracks, midi.Track{Name: "Drums", Channel: 9, IsDrum: true, Notes: drums})
		info.Kept = append(info.Kept, "Drum")
	}
	progs := map[int]bool{}
	for _, t := range out.Tracks {
		if !t.IsDrum {
			progs[t.Program] = true
		}
	}
	info.Programs = len(progs)
	out.ComputeSeconds()
	return out, info, nil
}

// clipNotes copies notes, cutting those that start at or after end and
// shortening those that ring past it.
func clipNotes(notes []midi.Note, end int64) []midi.Note {
	out := make([]midi.Note, 0, len(notes))
	for _, n := range notes {
		if n.Tick >= end {
			continue
		}
		if n.Tick+n.Dur > end {
			n.Dur = end - n.Tick
		}
		out = append(out, n)
	}
	return out
}
