package eval

import (
	"math"
	"sort"

	"github.com/amtstudio/amt/engine/midi"
)

// Parts (issue 33): an instrument a request names is there when it plays a
// part, not when it plays a note. "A piano trio: piano, violin and cello"
// whose cello plays one note in 16 bars has every family present (F1 1.0
// under the presence definition), and a listener hears a duo.
//
// A part is one pitched GM program of the piece (the tracks of one program
// merged, as the two-sample features merge them). It plays in a bar when
// one of its notes starts in the bar (bars as measureBars defines them: the
// meter map's, through the bar of the last onset); a note held over a bar
// line does not make the next bar its own, so one long note cannot make a
// part. A requested part is real when it plays in at least PartBarFloor
// of the bars (or the share the request implies, AdhereOptions.PartShare).
//
// The top line is the skyline as features.go defines it: at each pitched
// onset (grid step), the highest note starting there, unless a note
// started earlier, still sounding, is higher; a part's Top counts the
// onsets of the top line it holds, the tune it carries (two parts starting
// the same highest pitch at once: the longer note's, then the lower
// program's).

// PartBarFloor is the share of bars a requested pitched instrument must
// play in (start a note in) to have a real part: "plays in most bars" of
// issue 33, at its floor of half the bars.
const PartBarFloor = 0.5

// PartNoteFloor is the notes a bar below which a requested part is a
// cameo whatever its bars (issue 33: no requested instrument below 1 note
// per 2 bars unless the words ask for it).
const PartNoteFloor = 0.5

// Part is one pitched program's activity in a piece.
type Part struct {
	Program int `json:"program"`
	Notes   int `json:"notes"`
	// Bars counts the bars in which the part starts a note.
	Bars int `json:"bars"`
	// Top counts the top line's onsets whose note is the part's.
	Top int `json:"top"`
}

// measureParts fills m.Parts and m.TopOnsets from the pitched notes; bars
// are e.barStart's (measureBars has run), nbars of them.
func (e *Evaluator) measureParts(m *Metrics, s *midi.Score, nbars int, barOf func(int64) int) {
	idx := map[int]int{} // program → index in m.Parts
	w := (nbars + 63) / 64
	var played []uint64 // per part, w words of bar bits
	tpb := int64(s.TicksPerBeat)
	e.line = e.line[:0]
	for ti := range s.Tracks {
		tr := &s.Tracks[ti]
		if tr.IsDrum || len(tr.Notes) == 0 || tr.Program < 0 || tr.Program > 127 {
			continue
		}
		k, ok := idx[tr.Program]
		if !ok {
			k = len(m.Parts)
			idx[tr.Program] = k
			m.Parts = append(m.Parts, Part{Program: tr.Program})
			played = append(played, make([]uint64, w)...)
		}
		for ni := range tr.Notes {
			nt := &tr.Notes[ni]
			b := barOf(nt.Tick)
			if b >= 0 && b < nbars {
				played[k*w+b>>6] |= 1 << (b & 63)
			}
			m.Parts[k].Notes++
			on := step(nt.Tick, tpb)
			e.line = append(e.line, lineItem{on: on, off: max(step(nt.Tick+nt.Dur, tpb), on+1), pitch: int32(nt.Pitch), program: int32(tr.Program)})
		}
	}
	for k := range m.Parts {
		for _, x := range played[k*w : (k+1)*w] {
			m.Parts[k].Bars += popcount64(x)
		}
	}
	// The top line: onsets in time order, the highest first within one.
	sort.Slice(e.line, func(i, j int) bool {
		a, b := e.line[i], e.line[j]
		if a.on != b.on {
			return a.on < b.on
		}
		if a.pitch != b.pitch {
			return a.pitch > b.pitch
		}
		if a.off != b.off {
			return a.off > b.off
		}
		return a.program < b.program
	})
	e.sounding = e.sounding[:0] // earlier notes that may still sound
	for i := 0; i < len(e.line); {
		j := i
		for j < len(e.line) && e.line[j].on == e.line[i].on {
			j++
		}
		hi := e.line[i]
		above := false
		live := e.sounding[:0]
		for _, q := range e.sounding {
			if q.off > hi.on {
				live = append(live, q)
				above = above || q.pitch > hi.pitch
			}
		}
		e.sounding = append(live, e.line[i:j]...)
		if !above {
			m.TopOnsets++
			m.Parts[idx[int(hi.program)]].Top++
		}
		i = j
	}
	sort.Slice(m.Parts, func(i, j int) bool { return m.Parts[i].Program < m.Parts[j].Program })
}

// lineItem is a pitched note on the grid for the top line: onset and
// offset steps, pitch, program.
type lineItem struct {
	on, off        int64
	pitch, program int32
}

func popcount64(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// PartOf returns the piece's part of program p (false when it plays none).
func (m *Metrics) PartOf(p int) (Part, bool) {
	for _, pt := range m.Parts {
		if pt.Program == p {
			return pt, true
		}
	}
	return Part{}, false
}

// PartPlay is how one requested pitched instrument plays in a piece.
type PartPlay struct {
	// Program is the requested program; Played the piece's program that
	// answers it (the same, or one of its family when the piece has not
	// the requested one and no other request claims it; -1 none).
	Program int `json:"program"`
	Played  int `json:"played"`
	// Bars is the share of the piece's bars the part plays in; NotesPerBar
	// its notes over the piece's bars; Top its share of the top line's
	// onsets (the tune it carries).
	Bars        Num `json:"bars"`
	NotesPerBar Num `json:"notes_per_bar"`
	Top         Num `json:"top"`
	// Need is the share of bars asked of it (PartBarFloor unless the
	// request implies another); Real: Bars ≥ Need and, when Need is the
	// floor, NotesPerBar ≥ PartNoteFloor.
	Need float64 `json:"need"`
	Real bool    `json:"real"`
}

// PartScore is the parts check of Adherence: the requested pitched
// instruments and how many of them play a real part.
type PartScore struct {
	Each      []PartPlay `json:"each"`
	Requested int        `json:"requested"`
	Real      int        `json:"real"`
	// Share is Real / Requested.
	Share Num `json:"share"`
	// Cameos counts the requested instruments below PartNoteFloor notes a
	// bar that were asked for a part at the floor (the floor of "none below
	// 1 note per 2 bars").
	Cameos int `json:"cameos"`
	// Lead is the part holding the most of the top line (-1 without
	// pitched notes), LeadTop its share.
	Lead    int `json:"lead"`
	LeadTop Num `json:"lead_top"`
}

// AdhereOptions refine what a request asks beyond its attributes.
type AdhereOptions struct {
	// PartShare is the share of bars a requested program is asked to play
	// in when the request implies one ("a cello solo with a little piano":
	// the piano less; "the strings enter at bar 9": half); programs not
	// in it are asked PartBarFloor.
	PartShare map[int]float64
}

// scoreParts compares the requested pitched programs with the piece's
// parts. A requested program the piece does not play is answered by a
// part of the same GM family that no request names (the piece may write
// a viola where a violin was asked: the family's part is there).
func scoreParts(programs []int, m *Metrics, o AdhereOptions) *PartScore {
	want := map[int]bool{}
	var req []int
	for _, p := range programs {
		if p >= 0 && p < 128 && !want[p] {
			want[p] = true
			req = append(req, p)
		}
	}
	if len(req) == 0 {
		return nil
	}
	sort.Ints(req)
	nbars := float64(m.MeasuredBars)
	ps := &PartScore{Requested: len(req), Lead: -1, LeadTop: Num(math.NaN())}
	used := map[int]bool{}
	for _, p := range req {
		if _, ok := m.PartOf(p); ok {
			used[p] = true
		}
	}
	for _, p := range req {
		pp := PartPlay{Program: p, Played: -1, Need: PartBarFloor, Bars: 0, NotesPerBar: 0, Top: Num(math.NaN())}
		if s, ok := o.PartShare[p]; ok && s >= 0 && s <= 1 {
			pp.Need = s
		}
		part, ok := m.PartOf(p)
		if !ok {
			for _, q := range m.Parts {
				if q.Program/8 == p/8 && !want[q.Program] && !used[q.Program] {
					part, ok = q, true
					used[q.Program] = true
					break
				}
			}
		}
		if ok && nbars > 0 {
			pp.Played = part.Program
			pp.Bars = Num(float64(part.Bars) / nbars)
			pp.NotesPerBar = Num(float64(part.Notes) / nbars)
			if m.TopOnsets > 0 {
				pp.Top = Num(float64(part.Top) / float64(m.TopOnsets))
			}
		}
		floor := pp.Need >= PartBarFloor
		pp.Real = float64(pp.Bars) >= pp.Need && (!floor || float64(pp.NotesPerBar) >= PartNoteFloor)
		if pp.Need > 0 && !(ok && float64(pp.Bars) > 0) {
			pp.Real = false
		}
		if pp.Real {
			ps.Real++
		}
		if floor && float64(pp.NotesPerBar) < PartNoteFloor {
			ps.Cameos++
		}
		ps.Each = append(ps.Each, pp)
	}
	ps.Share = Num(float64(ps.Real) / float64(ps.Requested))
	best := 0
	for _, q := range m.Parts {
		if q.Top > best {
			best, ps.Lead = q.Top, q.Program
		}
	}
	if ps.Lead >= 0 {
		ps.LeadTop = Num(float64(best) / float64(m.TopOnsets))
	}
	return ps
}
