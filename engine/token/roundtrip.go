package token

import (
	"slices"

	"github.com/amtstudio/amt/engine/midi"
)

// RoundTrip is the outcome of Score → tokens → Score for one score.
type RoundTrip struct {
	Notes int `json:"notes"` // notes of the original score
	// Matched counts original notes that come back with the same onset (on
	// the grid), duration bin, pitch, program (drums as one program) and
	// velocity bin; Exact those whose duration also comes back to the grid
	// unit (they differ only for notes longer than the exactly-binned
	// durations).
	Matched int `json:"matched"`
	Exact   int `json:"exact"`
	Tokens  int `json:"tokens"`
}

// Rate is Matched/Notes (1 for a score without notes).
func (r RoundTrip) Rate() float64 {
	if r.Notes == 0 {
		return 1
	}
	return float64(r.Matched) / float64(r.Notes)
}

// Add accumulates another round trip.
func (r *RoundTrip) Add(o RoundTrip) {
	r.Notes += o.Notes
	r.Matched += o.Matched
	r.Exact += o.Exact
	r.Tokens += o.Tokens
}

// CheckRoundTrip encodes s with attrs, decodes the tokens, and compares the
// notes after quantization (as multisets, so notes sharing onset, pitch and
// program are matched by their other fields). It returns the tokens too.
func (v *Vocab) CheckRoundTrip(s *midi.Score, attrs Attributes) (RoundTrip, []uint16, error) {
	r := RoundTrip{Notes: s.NoteCount()}
	toks, err := v.Encode(s, attrs)
	if err != nil {
		return r, nil, err
	}
	r.Tokens = len(toks)
	d, _, err := v.Decode(toks)
	if err != nil {
		return r, toks, err
	}
	r.Exact = intersect(v.noteKeys(s, true), v.noteKeys(d, true))
	r.Matched = intersect(v.noteKeys(s, false), v.noteKeys(d, false))
	return r, toks, nil
}

// noteKeys packs each note, quantized to the grid, as onset (24 bits) |
// program (8) | pitch (7) | velocity bin (7) | duration (18): grid units
// when exact, else the duration bin. Decoded scores are on the grid already,
// so quantizing them is the identity.
func (v *Vocab) noteKeys(s *midi.Score, exact bool) []uint64 {
	out := make([]uint64, 0, s.NoteCount())
	for ti := range s.Tracks {
		tr := &s.Tracks[ti]
		prog := tr.Program & 127
		if tr.IsDrum {
			prog = DrumProgram
		}
		for _, n := range tr.Notes {
			on, units := v.Quantize(s.TicksPerBeat, n.Tick, n.Dur)
			dur := uint64(min(units, 1<<18-1))
			if !exact {
				dur = uint64(v.DurationBin(int(min(units, 1<<30))))
			}
			out = append(out, uint64(min(on, 1<<24-1))<<40|uint64(prog)<<32|uint64(n.Pitch&127)<<25|
				uint64(v.VelocityBin(int(n.Velocity)))<<18|dur)
		}
	}
	return out
}

// intersect returns the size of the multiset intersection (sorts both).
func intersect(a, b []uint64) int {
	slices.Sort(a)
	slices.Sort(b)
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			n++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return n
}
