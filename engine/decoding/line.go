package decoding

import (
	"math"

	"github.com/amtstudio/amt/engine/token"
)

// LineWeights shape the top line (the skyline: the highest pitched note of
// each onset) while sampling (LineBias). Each is a logit offset for a
// pitch that would become the onset's new top note, by its interval d to
// the previous onset's top note:
//
//   - Step (|d| 1–2 semitones) is added: real melodies move by step far
//     more often than the model's top line does (POP909 0.36 of top-line
//     intervals against the model's 0.18, Nottingham 0.57 against 0.37).
//   - Repeat (d = 0) is subtracted: the model repeats its top note about
//     twice as often as real music (0.23–0.34 against 0.07–0.17).
//   - Turn (a move against the direction of the last move) is subtracted:
//     the model's line changes direction in 0.65–0.69 of its moves, real
//     ones in 0.47–0.57 (a broken chord rocking up and down where a
//     melody would run on).
//
// Only pitches above every pitch already at the onset and no lower than
// Window semitones under the previous top are touched (an accompaniment
// note far below the melody is left alone), and the touched pitches' total
// probability is kept: the hook decides which pitch, never whether the
// onset gets another note. (Figures: docs/MODEL.md, the two-sample test,
// selection 1, 2026-11-27.)
type LineWeights struct {
	Step, Repeat, Turn float32
	Window             int
}

// DefaultLine is the lever's weighting (app LeverLine).
var DefaultLine = LineWeights{Step: 1, Repeat: 0.7, Turn: 0.4, Window: 7}

// lineState is the skyline as sampled so far, times on the grid from the
// first bar: the previous onset's top pitch (-1 none) and when it ends, the
// direction of the last move (-1, 0, 1), and the open onset's time, highest
// pitch (-1 none) and that note's end (set by its Duration).
type lineState struct {
	top, topEnd, dir               int
	at, onsetTop, onsetEnd, maxDur int
	pending                        bool // the last Pitch is the onset's highest: its Duration sets onsetEnd
}

func newLineState() lineState { return lineState{top: -1, onsetTop: -1} }

// open starts an onset at grid time t, closing the one before.
func (l *lineState) open(t int) {
	l.closeOnset()
	l.at = t
}

// closeOnset moves the open onset's top into the line, unless it sits
// under the line's top note still sounding (the melody held over its
// accompaniment, as the skyline of engine/eval reads it).
func (l *lineState) closeOnset() {
	t := l.onsetTop
	l.onsetTop, l.pending = -1, false
	if t < 0 || (l.top >= 0 && t < l.top && l.topEnd > l.at) {
		return
	}
	if l.top >= 0 && t != l.top {
		l.dir = 1
		if t < l.top {
			l.dir = -1
		}
	}
	l.top, l.topEnd = t, l.onsetEnd
}

// pitch notes a pitched note of the open onset.
func (l *lineState) pitch(p int) {
	l.pending = p >= l.onsetTop
	if l.pending {
		l.onsetTop, l.onsetEnd = p, l.at+1
	}
}

// duration notes the length (grid units) of the note just written.
func (l *lineState) duration(units int) {
	if l.pending {
		l.onsetEnd = l.at + max(units, 1)
		l.pending = false
	}
}

// held reports whether the line's top note still sounds at the open onset.
func (l *lineState) held() bool { return l.top >= 0 && l.topEnd > l.at }

// LineBias returns a logit hook (gpt.SampleOptions.Mask) that applies w to
// the pitches of pitched programs (LineWeights); nil when every weight is
// 0. Drums and the first onset's notes are left alone.
func LineBias(v *token.Vocab, b *Bars, w LineWeights) func([]float32) {
	if w.Step == 0 && w.Repeat == 0 && w.Turn == 0 {
		return nil
	}
	first, n := v.Range(token.KindPitch)
	return func(logits []float32) {
		l := &b.line
		if b.prog < 0 || b.prog == token.DrumProgram || !b.Grammar.InBody() || l.top < 0 {
			return
		}
		lo := max(l.onsetTop+1, l.top-w.Window, 0)
		if l.held() {
			lo = max(lo, l.top+1) // below a held top note, no pitch is the line
		}
		if lo >= n {
			return
		}
		ps := logits[int(first)+lo : int(first)+n]
		before := logSumExp(ps)
		if math.IsInf(before, -1) {
			return
		}
		for i := range ps {
			if math.IsInf(float64(ps[i]), -1) {
				continue
			}
			d := lo + i - l.top
			switch {
			case d == 0:
				ps[i] -= w.Repeat
			case d >= -2 && d <= 2:
				ps[i] += w.Step
			}
			if d != 0 && l.dir != 0 && (d > 0) != (l.dir > 0) {
				ps[i] -= w.Turn
			}
		}
		shift := float32(before - logSumExp(ps))
		for i := range ps {
			ps[i] += shift
		}
	}
}

// logSumExp of xs (−Inf entries ignored; −Inf when all are).
func logSumExp(xs []float32) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, float64(x))
	}
	if math.IsInf(m, -1) {
		return m
	}
	s := 0.0
	for _, x := range xs {
		s += math.Exp(float64(x) - m)
	}
	return m + math.Log(s)
}
