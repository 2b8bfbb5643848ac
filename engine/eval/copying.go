package eval

import (
	"encoding/binary"
	"hash/fnv"
	"sort"

	"github.com/amtstudio/amt/engine/midi"
)

// Copying (issue 34): a model tuned on a few hundred pieces can memorise
// them. LongestCopy measures, for a generated piece, the longest run of
// consecutive bars that repeats consecutive bars of one training piece
// note for note, at any one transposition.
//
// A bar is the set of its pitched notes' (onset, pitch): the onset on the
// grid of GridPerBeat steps a quarter note from the bar line, every track
// together (programs are not compared: a melody copied onto another
// instrument is still copied), drums left out (they cannot be transposed,
// and a drum pattern repeated is a groove, not a copy). Durations and
// velocities are not compared. Two bars match at transposition t when
// they have the same length and the same set with every pitch moved by t;
// a run of bars is copied when each matches the next bar of one piece at
// the same t. A bar without pitched notes matches nothing, so rests do
// not make copies. Bars are counted as the tokenizer counts them
// (midi.BarLines).

// MaxCopyBars bounds the bars of a piece measured (a broken tick far past
// the music would otherwise ask for millions of bar lines).
const MaxCopyBars = 1 << 16

// Copy is the longest copied run found in a piece.
type Copy struct {
	Bars      int    `json:"bars"`      // bars in the run (0: no bar matches any)
	Piece     string `json:"piece"`     // the training piece it repeats
	Bar       int    `json:"bar"`       // 0-based first bar of the run in the piece measured
	FromBar   int    `json:"from_bar"`  // its first bar in the training piece
	Transpose int    `json:"transpose"` // semitones from the training piece to the copy
}

// CopyIndex holds the bars of training pieces.
type CopyIndex struct {
	names []string
	bars  map[uint64][]barRef // a bar's shape → where it occurs
	n     int
}

type barRef struct {
	piece, bar int32
	low        uint8 // the bar's lowest pitch (the shape is relative to it)
}

// NewCopyIndex returns an empty index.
func NewCopyIndex() *CopyIndex { return &CopyIndex{bars: map[uint64][]barRef{}} }

// Pieces and Bars count what the index holds.
func (x *CopyIndex) Pieces() int { return len(x.names) }
func (x *CopyIndex) Bars() int   { return x.n }

// Add indexes the bars of a training piece named name.
func (x *CopyIndex) Add(name string, s *midi.Score) {
	id := int32(len(x.names))
	x.names = append(x.names, name)
	for b, k := range barShapes(s) {
		if k.ok {
			x.bars[k.shape] = append(x.bars[k.shape], barRef{piece: id, bar: int32(b), low: k.low})
			x.n++
		}
	}
}

// LongestCopy is the longest run of s's bars copied from one indexed
// piece at one transposition (the first found of that length).
func (x *CopyIndex) LongestCopy(s *midi.Score) Copy {
	type key struct {
		piece, bar int32
		t          int16
	}
	var best Copy
	prev := map[key]int{}
	for b, k := range barShapes(s) {
		cur := map[key]int{}
		if k.ok {
			for _, r := range x.bars[k.shape] {
				t := int16(int(k.low) - int(r.low))
				run := prev[key{r.piece, r.bar - 1, t}] + 1
				cur[key{r.piece, r.bar, t}] = run
				if run > best.Bars {
					best = Copy{Bars: run, Piece: x.names[r.piece], Bar: b - run + 1, FromBar: int(r.bar) - run + 1, Transpose: int(t)}
				}
			}
		}
		prev = cur
	}
	return best
}

// barKey is a bar's shape (its length and its notes relative to its lowest
// pitch) and that pitch; ok is false for a bar without pitched notes.
type barKey struct {
	shape uint64
	low   uint8
	ok    bool
}

// barShapes returns the key of every bar of s, up to its last onset.
func barShapes(s *midi.Score) []barKey {
	if s == nil || s.TicksPerBeat <= 0 {
		return nil
	}
	last := int64(-1)
	for _, tr := range s.Tracks {
		if tr.IsDrum {
			continue
		}
		for _, n := range tr.Notes {
			last = max(last, n.Tick)
		}
	}
	if last < 0 {
		return nil
	}
	// Bar lines until one after the last onset: bar b is [lines[b],
	// lines[b+1]).
	var lines []int64
	for n := 64; ; n *= 2 {
		lines = midi.BarLines(s, n)
		if len(lines) < n || lines[len(lines)-1] > last || n >= MaxCopyBars {
			break
		}
	}
	if len(lines) < 2 || lines[len(lines)-1] <= last {
		return nil // no bar length to go on (BarLines ended early)
	}
	for len(lines) >= 3 && lines[len(lines)-2] > last {
		lines = lines[:len(lines)-1]
	}
	type onset struct {
		pos   int64
		pitch uint8
	}
	bars := make([][]onset, len(lines)-1)
	tpb := int64(s.TicksPerBeat)
	for _, tr := range s.Tracks {
		if tr.IsDrum {
			continue
		}
		for _, n := range tr.Notes {
			b := sort.Search(len(lines), func(i int) bool { return lines[i] > n.Tick }) - 1
			if b < 0 || b >= len(bars) {
				continue
			}
			pos := ((n.Tick-lines[b])*GridPerBeat*2 + tpb) / (2 * tpb) // rounded to the grid
			bars[b] = append(bars[b], onset{pos, n.Pitch})
		}
	}
	out := make([]barKey, len(bars))
	var buf []byte
	for b, ons := range bars {
		if len(ons) == 0 {
			continue
		}
		low := uint8(127)
		for _, o := range ons {
			low = min(low, o.pitch)
		}
		sort.Slice(ons, func(i, j int) bool {
			if ons[i].pos != ons[j].pos {
				return ons[i].pos < ons[j].pos
			}
			return ons[i].pitch < ons[j].pitch
		})
		length := ((lines[b+1]-lines[b])*GridPerBeat*2 + tpb) / (2 * tpb)
		buf = binary.AppendVarint(buf[:0], length)
		prev := onset{-1, 0}
		for _, o := range ons {
			if o == prev { // the same note twice (doubled in two tracks) counts once
				continue
			}
			prev = o
			buf = binary.AppendVarint(buf, o.pos)
			buf = append(buf, o.pitch-low)
		}
		h := fnv.New64a()
		h.Write(buf)
		out[b] = barKey{shape: h.Sum64(), low: low, ok: true}
	}
	return out
}
