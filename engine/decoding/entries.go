package decoding

import "github.com/amtstudio/amt/engine/token"

// Entries lays out when each part of a piece of genre first plays, as the
// game corpora's tracks build up: a bar per program (pitched programs and
// token.DrumProgram), 0 for parts that play from the start; nil when the
// genre does not build up or the piece has fewer than two parts or
// sections. draw(i) is a uniform draw in [0, 1) for the i-th decision
// (the caller derives it from the piece's seed).
//
// Of the 97 OpenMSX and Freedoom files (../shared/data, counted
// 2026-11-27), 32 of the 40 excerpts the two-sample test takes bring a part
// in at bar 3 or later; over all files, of the parts after the first that
// enter in the first 16 bars, 49% enter with it, 18% about bar 5, 27%
// about bar 9 and 6% about bar 13; drums are there from the start in 72%.
// Parts enter only at the first bar of a section the form samples (a
// restated section copies its source's parts), so here: at bar 1 or at the
// second section's first bar (sectionBars), with the shares above folded
// onto those two (a part of the real 9th-bar entries joins at the second
// section, the rest from the start); one pitched part always plays from
// the start. The model alone brings every part in at once (its density
// spread between bars 0.22 against 0.38 real).
func Entries(genre string, programs []int, drums bool, sectionBars int, draw func(i int) float64) map[int]int {
	if genre != "game" || sectionBars <= 0 {
		return nil
	}
	parts := append([]int(nil), programs...)
	if drums {
		parts = append(parts, token.DrumProgram)
	}
	pitched := len(programs)
	if len(parts) < 2 || pitched == 0 {
		return nil
	}
	out := make(map[int]int, len(parts))
	first := programs[min(int(draw(0)*float64(pitched)), pitched-1)]
	for i, p := range parts {
		out[p] = 0
		if p == first {
			continue
		}
		late := lateShare
		if p == token.DrumProgram {
			late = lateDrums
		}
		if draw(i+1) < late {
			out[p] = sectionBars
		}
	}
	return out
}

// Shares of parts entering after the start (Entries): pitched parts 0.51
// of the real ones enter later, drums 0.28.
const (
	lateShare = 0.51
	lateDrums = 0.28
)

// allowEntries clears, at a Program choice, the programs whose entry bar
// (Bars.Entry) is still ahead, when another token stays allowed.
func (b *Bars) allowEntries(mask []bool) {
	bar := b.Grammar.Bars() - 1
	first, n := b.v.Range(token.KindProgram)
	late := false
	for p, at := range b.Entry {
		if at > bar && p < n && mask[int(first)+p] {
			late = true
		}
	}
	if !late {
		return
	}
	other := false
	for i, ok := range mask {
		if !ok {
			continue
		}
		if i >= int(first) && i < int(first)+n {
			if at, has := b.Entry[i-int(first)]; has && at > bar {
				continue
			}
		}
		other = true
		break
	}
	if !other {
		return
	}
	for p, at := range b.Entry {
		if at > bar && p < n {
			mask[int(first)+p] = false
		}
	}
}
