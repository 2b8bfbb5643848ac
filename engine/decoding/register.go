package decoding

import "github.com/amtstudio/amt/engine/token"

// RegisterBias returns a logit hook (gpt.SampleOptions.Mask) that pulls the
// notes of pitched programs toward the register lo…hi (MIDI pitches as
// heard): a pitch outside it loses bias for each octave it lies beyond
// (in proportion, at most two octaves' worth), so the model still chooses
// its line but places it lower or higher. Basses (programs 32–39) and
// drums keep their own register. shift is the key frame's move applied to
// what the model writes (app/compose_keyframe.go): a frame pitch p sounds at
// p+shift. lo > hi or bias ≤ 0 returns nil. Issue 25: "dark" and "deep"
// music sits low, "bright" and "twinkling" music high.
func RegisterBias(v *token.Vocab, b *Bars, lo, hi int, bias float32, shift int) func([]float32) {
	if bias <= 0 || lo > hi {
		return nil
	}
	first, n := v.Range(token.KindPitch)
	pen := make([]float32, n)
	for p := range pen {
		heard := p + shift
		d := 0
		switch {
		case heard < lo:
			d = lo - heard
		case heard > hi:
			d = heard - hi
		}
		pen[p] = bias * float32(min(d, 24)) / 12
	}
	return func(logits []float32) {
		pr := b.prog
		if pr < 0 || pr == token.DrumProgram || (pr >= 32 && pr <= 39) || !b.Grammar.InBody() {
			return
		}
		for p := 0; p < n && int(first)+p < len(logits); p++ {
			logits[int(first)+p] -= pen[p]
		}
	}
}
