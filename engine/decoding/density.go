package decoding

import (
	"math"

	"github.com/amtstudio/amt/engine/token"
)

// The model hardly follows its own DENSITY token: asked for 1–1.5 notes a
// quarter note ("a sparse pop song for solo piano") it writes 4.8–6.8,
// and the two-sample test's POP909 prompts, whose sampled bins lie at 2.5–
// 4.5 notes a quarter, were answered with 4.7–12 (docs/MODEL.md, "Known
// weaknesses"). DensityHold holds the body to the bin the prefix declares
// as it goes; the app installs it when the request asks a density
// (DensityHoldWeight), since holding the bin the model samples made
// the two-sample test worse (the model samples too dense a bin for POP909).
//
// It pulls toward the middle of the bin, not its edges, and judges the
// first bar too (issue 33): held at the bin's upper edge from the second
// bar on, calm prompts asked for 2–2.5 notes a quarter came out at 2.7–4
// (the model's first bar, unheld at 5–6.5 notes a quarter, was restated by
// the form twice more), and their median over the texture suite stayed
// above the 2.5 a listener's "few notes and space" allows (docs/MODEL.md,
// "Texture from words").

// DensityHold returns a logit hook (gpt.SampleOptions.Mask) that keeps the
// piece near the density its prefix declares (the middle of the DENSITY
// bin [lo, hi), notes a quarter note, drums included, as training measured
// it; the open-ended last bin only from below, at lo): after each note, while the notes so
// far over the time so far (from the start of the piece to the open
// onset's step, and at least one bar) run above the middle by a factor r,
// the tokens that add a note at this onset (Pitch, Program) lose w·ln r
// and an onset less than a quarter note ahead loses w·ln r times how much
// nearer than a quarter it is (a 16th three quarters of it, an 8th half);
// below the middle the same with the sign turned, from the second bar on
// (the first is too short to say a piece is sparse). Not a prefix without
// a DENSITY token. nil for w ≤ 0.
func DensityHold(v *token.Vocab, b *Bars, w float32) func([]float32) {
	if w <= 0 {
		return nil
	}
	pitchFirst, pitchN := v.Range(token.KindPitch)
	progFirst, progN := v.Range(token.KindProgram)
	posFirst, posN := v.Range(token.KindPosition)
	ppb := v.Config().PositionsPerBeat
	return func(logits []float32) {
		if b.densityBin < 0 || !b.Grammar.AfterNote() {
			return
		}
		pos, barLen := b.Grammar.Position()
		if pos < 0 || barLen <= 0 {
			return
		}
		t := max(b.onsetTime()+1, barLen)
		d := float64(b.notes) * float64(ppb) / float64(t)
		lo, hi := v.DensityRange(b.densityBin)
		mid := (lo + hi) / 2
		if math.IsInf(hi, 1) {
			mid = lo
		}
		var r float64
		switch {
		case d > mid && !math.IsInf(hi, 1):
			r = math.Log(d / mid)
		case d < mid && mid > 0 && b.Grammar.Bars() >= 2:
			r = math.Log(d / mid)
		default:
			return
		}
		bias := w * float32(r)
		sub := func(i int, x float32) {
			if !math.IsInf(float64(logits[i]), -1) {
				logits[i] -= x
			}
		}
		for i := range pitchN {
			sub(int(pitchFirst)+i, bias)
		}
		for i := range progN {
			sub(int(progFirst)+i, bias)
		}
		for p := pos + 1; p < min(posN, barLen, pos+ppb); p++ {
			sub(int(posFirst)+p, bias*float32(ppb-(p-pos))/float32(ppb))
		}
	}
}
