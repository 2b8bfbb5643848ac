package token

// Bars of a token stream: where each starts and the meter and tempo in
// force there. Training examples (engine/train/condition) cut their windows
// at these bar lines, and the sampler's window refill (engine/decoding)
// restates the header of the bar it keeps, so both read a stream through
// the same two functions.

// BarHeader is one bar of a body: where its Bar token is (At), where its
// content starts after the header's TimeSig and Tempo (Content), and the
// meter and tempo tokens in force once the header is read (0 where none was
// seen yet).
type BarHeader struct {
	At, Content int
	TimeSig     uint16
	Tempo       uint16
}

// BarHeaders lists the bars of the body that starts at toks[from].
func (v *Vocab) BarHeaders(toks []uint16, from int) []BarHeader {
	var bars []BarHeader
	var ts, tp uint16
	for i := from; i < len(toks); i++ {
		k, _ := v.Kind(toks[i])
		switch k {
		case KindBar:
			j := i + 1
			for j < len(toks) {
				kk, _ := v.Kind(toks[j])
				if kk == KindTimeSig {
					ts = toks[j]
				} else if kk == KindTempo {
					tp = toks[j]
				} else {
					break
				}
				j++
			}
			bars = append(bars, BarHeader{At: i, Content: j, TimeSig: ts, Tempo: tp})
			i = j - 1
		case KindTempo:
			tp = toks[i]
		case KindTimeSig:
			ts = toks[i]
		}
	}
	return bars
}

// SepIndex is the index of the SEP that ends a sequence's attribute
// prefix, or -1.
func (v *Vocab) SepIndex(toks []uint16) int {
	for i, t := range toks {
		if t == v.SEP {
			return i
		}
	}
	return -1
}
