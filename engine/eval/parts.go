package eval

import (
	"math"
	"math/bits"
	"slices"
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

// partTally collects the parts while measureBars places the notes: each
// program's index in m.Parts (+1; 0 none) and its bars as bits, w words a
// part.
type partTally struct {
	idx    [128]int16
	w      int
	played []uint64
}

// startParts begins the parts of a piece of nbars bars.
func (e *Evaluator) startParts(nbars int) *partTally {
	e.line = e.line[:0]
	return &partTally{w: (nbars + 63) / 64}
}

// part is the index in m.Parts of a pitched track's program (added on its
// first note), -1 for drums, an empty track or a program outside 0–127.
func (pt *partTally) part(m *Metrics, tr *midi.Track) int {
	if tr.IsDrum || len(tr.Notes) == 0 || tr.Program < 0 || tr.Program > 127 {
		return -1
	}
	k := int(pt.idx[tr.Program]) - 1
	if k < 0 {
		k = len(m.Parts)
		pt.idx[tr.Program] = int16(k + 1)
		m.Parts = append(m.Parts, Part{Program: tr.Program})
		pt.played = append(pt.played, make([]uint64, pt.w)...)
	}
	m.Parts[k].Notes += len(tr.Notes)
	return k
}

// note places a note of part k in bar b and on the grid.
func (pt *partTally) note(e *Evaluator, k, b int, nt *midi.Note, tpb int64, program int) {
	pt.played[k*pt.w+b>>6] |= 1 << (b & 63)
	on := step(nt.Tick, tpb)
	e.line = append(e.line, lineItem{on: on, off: max(step(nt.Tick+nt.Dur, tpb), on+1), pitch: int32(nt.Pitch), program: int32(program)})
}

// measureParts fills m.Parts' bars and top-line onsets and m.TopOnsets
// from what measureBars collected.
func (e *Evaluator) measureParts(m *Metrics, pt *partTally) {
	w, idx := pt.w, &pt.idx
	for k := range m.Parts {
		for _, x := range pt.played[k*w : (k+1)*w] {
			m.Parts[k].Bars += bits.OnesCount64(x)
		}
	}
	// The top line, onset by onset: the notes bucketed by onset step (a
	// counting sort: the steps are bounded by MaxSteps and measureGrid
	// already holds a slice of them).
	last := int64(-1)
	for _, it := range e.line {
		last = max(last, it.on)
	}
	e.start = grow32(e.start, int(last)+2)
	for _, it := range e.line {
		e.start[it.on+1]++
	}
	for i := 1; i < len(e.start); i++ {
		e.start[i] += e.start[i-1]
	}
	e.order = grow32(e.order, len(e.line))
	fill := e.start[:len(e.start)-1] // advanced as notes are placed, then restored
	for i, it := range e.line {
		e.order[fill[it.on]] = int32(i)
		fill[it.on]++
	}
	// ends[p] is the latest offset of an earlier onset's note at pitch p:
	// a note above the onset's highest still sounds when one of the ends
	// above it lies past the onset. live marks the pitches whose end may
	// still lie ahead (a bit found past is cleared: onsets only move on).
	var ends [128]int64
	var live [2]uint64
	from := int32(0)
	for t := int64(0); t <= last; t++ {
		to := fill[t] // the end of step t's notes
		if to == from {
			continue
		}
		group := e.order[from:to]
		from = to
		hi := e.line[group[0]]
		for _, k := range group[1:] {
			// Two parts on the same highest pitch: the longer note's, then
			// the lower program's.
			if x := e.line[k]; x.pitch > hi.pitch || x.pitch == hi.pitch && (x.off > hi.off || x.off == hi.off && x.program < hi.program) {
				hi = x
			}
		}
		above := false
		for w := int(hi.pitch+1) / 64; w < 2 && !above; w++ {
			cand := live[w]
			if lo := int(hi.pitch+1) - 64*w; lo > 0 {
				cand &^= 1<<lo - 1
			}
			for ; cand != 0; cand &= cand - 1 {
				p := 64*w + bits.TrailingZeros64(cand)
				if ends[p] > t {
					above = true
					break
				}
				live[w] &^= 1 << (p & 63)
			}
		}
		if !above {
			m.TopOnsets++
			m.Parts[idx[hi.program]-1].Top++
		}
		for _, k := range group {
			x := e.line[k]
			ends[x.pitch] = max(ends[x.pitch], x.off)
			live[x.pitch>>6] |= 1 << (x.pitch & 63)
		}
	}
	slices.SortFunc(m.Parts, func(a, b Part) int { return a.Program - b.Program })
}

// lineItem is a pitched note on the grid for the top line: onset and
// offset steps, pitch, program.
type lineItem struct {
	on, off        int64
	pitch, program int32
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
