package train

import (
	"encoding/binary"
	"path/filepath"
)

// Examples builds training examples other than random windows of the token
// stream: engine/train/condition makes each one an attribute prefix, a
// window of music starting on a bar line and on-the-fly augmentation.
// Fill writes batch number k of split: B rows of T inputs and targets
// (target < 0: no loss at that position). It must depend only on (split,
// k, seed), so a resumed run sees the same batches, and be safe for
// concurrent use (the loader and validation call it at once).
type Examples interface {
	Fill(split *Split, k, seed uint64, B, T int, inputs, targets []int32) error
}

// PieceLen is the token count of piece i.
func (s *Split) PieceLen(i int) int { return s.pieces[i].len() }

// AppendPiece appends the tokens of piece i to dst.
func (s *Split) AppendPiece(dst []uint16, i int) []uint16 {
	p := s.pieces[i]
	for j := 0; j < p.len(); j++ {
		dst = append(dst, binary.LittleEndian.Uint16(p[2*j:]))
	}
	return dst
}

// PieceSource names where piece i came from: the name of the folder holding
// its shard (one dataset export per folder: "pop909" for DATA/pop909/x.bin),
// or "" for a piece tokenized in memory. condition.Options.SourceWeight
// reads it.
func (s *Split) PieceSource(i int) string {
	return sourceOf(s.from[i])
}

func sourceOf(sh *Shard) string {
	if sh == nil {
		return ""
	}
	return filepath.Base(filepath.Dir(sh.Name))
}

// Sources counts the pieces of each source (see Split.PieceSource).
func (d *Dataset) Sources() map[string]int {
	out := map[string]int{}
	for _, sh := range d.from {
		out[sourceOf(sh)]++
	}
	return out
}
