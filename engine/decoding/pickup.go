package decoding

import "github.com/amtstudio/amt/engine/token"

// Pickup is the anacrusis a piece of genre starts with, for draw u in
// [0, 1) (the caller draws it from the piece's seed) and a bar of num/den:
// the positions (v.Positions() a quarter note) before the first full bar
// at which the tune's first note falls, or 0 for none. Folk tunes mostly
// start on an upbeat: of the Nottingham tunes' MIDI files (../shared/data,
// counted 2026-11-27), jigs 85%, reels 75–88%, hornpipes 97%, morris 94%,
// waltzes 92%, Playford 67%, Ashover 57%, slip jigs 55%, carols 54%, the
// upbeat one beat long in x/4 and 2/2 (90%) and an eighth in x/8 and 2/4
// (77% of the jigs; a dotted quarter in 10%). The model alone starts on
// the downbeat (the two-sample test, issue 24: the first bar's rest, 4–5%
// of a real tune's 16th points, was a tell). Other genres: 0.
func Pickup(v *token.Vocab, genre string, num, den int, u float64) int {
	share := 0.0
	switch genre {
	case "folk":
		share = 0.83
	case "waltz":
		share = 0.92
	case "gospel":
		share = 0.54
	}
	if u >= share || num <= 0 || den <= 0 {
		return 0
	}
	q := v.Positions() // a quarter note
	switch {
	case den == 8 || num == 2 && den == 4:
		return q / 2
	case den == 2:
		return q
	}
	return q * 4 / den
}

// allowPickup keeps, in the first bar before its first onset, only the
// Position of the upbeat (Bars.Pickup before the bar's end); once the
// upbeat has started the bar goes on as usual.
func (b *Bars) allowPickup(mask []bool) {
	pos, n := b.Grammar.Position()
	if pos >= 0 || n <= b.Pickup || !b.Grammar.InBody() {
		return
	}
	first, count := b.v.Range(token.KindPosition)
	at := n - b.Pickup
	if at >= count || !mask[int(first)+at] {
		return // not allowed here (a tempo change pending…): as usual
	}
	for p := range count {
		if p != at {
			mask[int(first)+p] = false
		}
	}
	mask[b.bar], mask[b.eos] = false, false
}
