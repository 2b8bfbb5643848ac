package token

import (
	"errors"
	"fmt"
	"slices"
)

// Token-level augmentations for training (issue 8): each maps an encoded
// sequence to another grammatical one without decoding, so a trainer can
// apply them per batch. They append to dst and return it; on error dst is
// returned unchanged.

// ErrOutOfRange marks an augmentation that would move a pitch, tempo or
// program outside what the vocabulary holds.
var ErrOutOfRange = errors.New("augmentation out of range")

// AttrSet is a set of prefix attributes (for DropAttributes).
type AttrSet uint8

// Attribute slots of the prefix.
const (
	AttrTempo AttrSet = 1 << iota
	AttrKey
	AttrMeter
	AttrInstruments // all INSTRUMENT tokens together
	AttrDensity
	AttrLength
	AttrStyle
	AttrGenre
	AttrAll = AttrTempo | AttrKey | AttrMeter | AttrInstruments | AttrDensity | AttrLength | AttrStyle | AttrGenre
)

var attrOfKind = map[Kind]AttrSet{KindTempoAttr: AttrTempo, KindKeyAttr: AttrKey, KindMeterAttr: AttrMeter,
	KindInstrumentAttr: AttrInstruments, KindDensityAttr: AttrDensity, KindLengthAttr: AttrLength, KindStyleAttr: AttrStyle, KindGenreAttr: AttrGenre}

// DropAttributes copies toks leaving out the prefix tokens of the attributes
// in drop (attribute dropout: the model learns to choose what the prompt
// does not name). Instruments are dropped as a whole, never one by one, as
// a partial list would wrongly restrict the body's programs, and never with
// a vocabulary whose Config.InstrumentsRequired is set.
func (v *Vocab) DropAttributes(dst, toks []uint16, drop AttrSet) []uint16 {
	if v.cfg.InstrumentsRequired {
		drop &^= AttrInstruments // the grammar wants them listed
	}
	body := false
	for _, t := range toks {
		if !body {
			if t == v.SEP {
				body = true
			} else if k, _ := v.Kind(t); attrOfKind[k]&drop != 0 {
				continue
			}
		}
		dst = append(dst, t)
	}
	return dst
}

// Transpose shifts every pitched note (not drums) and the KEY by semitones.
// It fails with ErrOutOfRange when a pitch would leave 0–127.
func (v *Vocab) Transpose(dst, toks []uint16, semitones int) ([]uint16, error) {
	out, _, err := v.transpose(dst, toks, semitones, false)
	return out, err
}

// TransposeFold is Transpose for music that must be moved whatever its
// range (a model that writes in one key frame, app/compose_keyframe.go): a pitch
// that would leave 0–127 moves by octaves back into range, keeping its
// pitch class. It returns the sequence and how many pitches were folded.
func (v *Vocab) TransposeFold(dst, toks []uint16, semitones int) ([]uint16, int) {
	out, folded, _ := v.transpose(dst, toks, semitones, true)
	return out, folded
}

// transpose is Transpose (fold false: a pitch leaving 0–127 is an error) and
// TransposeFold (fold true: it moves by octaves back into range).
func (v *Vocab) transpose(dst, toks []uint16, semitones int, fold bool) ([]uint16, int, error) {
	n := len(dst)
	folded := 0
	drums := false
	for i, t := range toks {
		k, x := v.Kind(t)
		switch k {
		case KindKeyAttr:
			tonic := ((x%12+semitones)%12 + 12) % 12
			t = v.tok(KindKeyAttr, KeyIndex(tonic, x >= 12))
		case KindProgram:
			drums = x == DrumProgram
		case KindPitch:
			if !drums {
				p := x + semitones
				if p < 0 || p > 127 {
					if !fold {
						return dst[:n], 0, fmt.Errorf("token: transpose by %d: pitch %d at index %d: %w", semitones, x, i, ErrOutOfRange)
					}
					folded++
					for p < 0 {
						p += 12
					}
					for p > 127 {
						p -= 12
					}
				}
				t = v.tok(KindPitch, p)
			}
		}
		dst = append(dst, t)
	}
	return dst, folded, nil
}

// PitchRange returns the lowest and highest pitched (non-drum) note of a
// sequence, or ok false when it has none; transpositions in
// [-lo, 127-hi] succeed.
func (v *Vocab) PitchRange(toks []uint16) (lo, hi int, ok bool) {
	lo, hi = 127, 0
	drums := false
	for _, t := range toks {
		switch k, x := v.Kind(t); k {
		case KindProgram:
			drums = x == DrumProgram
		case KindPitch:
			if !drums {
				lo, hi, ok = min(lo, x), max(hi, x), true
			}
		}
	}
	return lo, hi, ok
}

// ScaleTempo multiplies every tempo (the TEMPO_BIN attribute and the body's
// Tempo tokens) by factor, through the bins' representative values. Note
// positions are in beats, so the music plays faster or slower. It fails with
// ErrOutOfRange when a tempo would fall in the open-ended lowest or highest
// bin from one inside the range.
func (v *Vocab) ScaleTempo(dst, toks []uint16, factor float64) ([]uint16, error) {
	n := len(dst)
	last := v.TempoBins() - 1
	for i, t := range toks {
		k, x := v.Kind(t)
		if k == KindTempoAttr || k == KindTempo {
			b := v.TempoBin(v.TempoBPM(x) * factor)
			if (b == 0 || b == last) && b != x {
				return dst[:n], fmt.Errorf("token: scale tempo by %g: %s at index %d: %w", factor, v.Name(t), i, ErrOutOfRange)
			}
			t = v.tok(k, b)
		}
		dst = append(dst, t)
	}
	return dst, nil
}

// Revoice moves parts onto other programs: mapping[p] is the new program of
// pitched program p (absent: unchanged). Body Program tokens and the
// INSTRUMENT list (kept sorted and unique) change together. Drums cannot be
// mapped; a target outside 0–127 fails with ErrOutOfRange.
func (v *Vocab) Revoice(dst, toks []uint16, mapping map[int]int) ([]uint16, error) {
	for from, to := range mapping {
		if from < 0 || from > 127 || to < 0 || to > 127 {
			return dst, fmt.Errorf("token: revoice %d → %d: %w", from, to, ErrOutOfRange)
		}
	}
	remap := func(p int) int {
		if to, ok := mapping[p]; ok && p != DrumProgram {
			return to
		}
		return p
	}
	instrFirst, _ := v.Range(KindInstrumentAttr)
	i := 0
	for ; i < len(toks); i++ {
		t := toks[i]
		k, _ := v.Kind(t)
		if k == KindInstrumentAttr {
			// Collect the whole list, remap, sort, dedupe.
			j := i
			var list []int
			for j < len(toks) {
				kk, x := v.Kind(toks[j])
				if kk != KindInstrumentAttr {
					break
				}
				list = append(list, remap(x))
				j++
			}
			slices.Sort(list)
			list = slices.Compact(list)
			for _, p := range list {
				dst = append(dst, instrFirst+uint16(p))
			}
			i = j - 1
			continue
		}
		dst = append(dst, t)
		if t == v.SEP {
			i++
			break
		}
	}
	for ; i < len(toks); i++ {
		t := toks[i]
		if k, x := v.Kind(t); k == KindProgram {
			t = v.tok(KindProgram, remap(x))
		}
		dst = append(dst, t)
	}
	return dst, nil
}
