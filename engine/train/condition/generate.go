package condition

import "github.com/amtstudio/amt/engine/token"

// Refill returns what a sampler re-encodes when its window fills (the
// gpt.SampleOptions.Refill hook): the attribute prefix of hist (BOS … SEP),
// a bar header restating the meter and tempo in force, and the music from
// the earliest bar line that fits in budget tokens, so the window keeps the
// conditions and has the form of a training example. The result ends with
// hist's last token. When no bar line fits (one bar longer than the
// budget), the prefix is followed by the last tokens of hist.
func Refill(v *token.Vocab, hist []uint16, budget int) []uint16 {
	sep := sepIndex(v, hist)
	if sep < 0 || sep+1 >= budget {
		return append([]uint16(nil), hist[max(0, len(hist)-budget):]...)
	}
	prefix := hist[:sep+1]
	bars := scanBars(v, hist, sep+1)
	for _, b := range bars {
		if b.at <= sep || b.content >= len(hist) {
			continue
		}
		if len(prefix)+3+len(hist)-b.content <= budget {
			out := make([]uint16, 0, budget)
			out = append(out, prefix...)
			out = append(out, v.Bar, b.timeSig, b.tempo)
			return append(out, hist[b.content:]...)
		}
	}
	out := append(make([]uint16, 0, budget), prefix...)
	return append(out, hist[len(hist)-(budget-len(prefix)):]...)
}

// Bars wraps a grammar so that a sequence has exactly N bars: no Bar token
// once N bars are open, no EOS before. It satisfies gpt.Constraint.
type Bars struct {
	*token.Grammar
	N   int
	bar uint16
	eos uint16
}

// NewBars caps g at n bars (n ≤ 0: no cap).
func NewBars(v *token.Vocab, g *token.Grammar, n int) *Bars {
	return &Bars{Grammar: g, N: n, bar: v.Bar, eos: v.EOS}
}

// Allow is the grammar's mask with the bar count enforced.
func (b *Bars) Allow(mask []bool) {
	b.Grammar.Allow(mask)
	if b.N <= 0 || !b.Grammar.InBody() {
		return
	}
	n := b.Grammar.Bars()
	if n >= b.N {
		mask[b.bar] = false
	}
	if n < b.N && n > 0 {
		mask[b.eos] = false
	}
}
