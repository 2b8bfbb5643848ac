package condition

import (
	"math/rand/v2"
	"slices"

	"github.com/amtstudio/amt/engine/token"
)

// Voice classes of splitVoices.
const (
	voiceMelody = iota
	voiceHarmony
	voiceBass
)

// note is one note of a position group.
type note struct {
	prog, pitch   int
	vel, dur      uint16
	voice, target int
}

// splitVoices re-voices a one-program body as an ensemble (most of the
// corpora are a single piano part): at each onset the top note (from
// middle C up) is the melody, the lowest (below F3, under another note or
// below C3) the bass, the rest the harmony; each class moves to a program
// whose range holds its notes (under keepRoles one that plays the class's
// role, roleFit), drawn from rng (with probability 1/2 the bass stays with
// the harmony). Bodies with several pitched programs come back
// unchanged (ok false).
func splitVoices(v *token.Vocab, body []uint16, rng *rand.Rand, keepRoles bool) ([]uint16, bool) {
	src := -1
	for _, t := range body {
		if k, x := v.Kind(t); k == token.KindProgram && x != token.DrumProgram {
			if src >= 0 && x != src {
				return nil, false
			}
			src = x
		}
	}
	if src < 0 {
		return nil, false
	}
	mergeBass := rng.IntN(2) == 0
	// Pass 1: classify, for the ranges.
	var lo, hi [3]int
	var seen [3]bool
	classify := func(group []note) {
		top, bot := -1, -1
		for i, n := range group {
			if n.prog != src {
				continue
			}
			if top < 0 || n.pitch > group[top].pitch {
				top = i
			}
			if bot < 0 || n.pitch < group[bot].pitch {
				bot = i
			}
		}
		for i := range group {
			n := &group[i]
			if n.prog != src {
				continue
			}
			n.voice = voiceHarmony
			switch {
			case i == top && n.pitch >= 60:
				n.voice = voiceMelody
			case i == bot && !mergeBass && n.pitch < 53 && (top != bot || n.pitch < 48):
				n.voice = voiceBass
			}
			c := n.voice
			if !seen[c] {
				seen[c], lo[c], hi[c] = true, n.pitch, n.pitch
			}
			lo[c], hi[c] = min(lo[c], n.pitch), max(hi[c], n.pitch)
		}
	}
	walkGroups(v, body, func(group []note) { classify(group) }, nil)
	var target [3]int
	for c := range target {
		target[c] = src
		if seen[c] {
			fit := FitPrograms(lo[c], hi[c])
			if keepRoles {
				fit = roleFit(lo[c], hi[c], c)
			}
			if len(fit) > 0 {
				target[c] = fit[rng.IntN(len(fit))]
			}
		}
	}
	// Pass 2: emit with the new programs, notes of a group ordered by
	// (program, pitch) as the encoder orders them.
	out := make([]uint16, 0, len(body)+len(body)/8)
	walkGroups(v, body, func(group []note) {
		classify(group)
		for i := range group {
			n := &group[i]
			n.target = n.prog
			if n.prog == src {
				n.target = target[n.voice]
			}
		}
		slices.SortStableFunc(group, func(a, b note) int {
			if a.target != b.target {
				return a.target - b.target
			}
			return a.pitch - b.pitch
		})
		prog := -1
		for _, n := range group {
			if n.target != prog {
				t, _ := v.Token(token.KindProgram, n.target)
				out = append(out, t)
				prog = n.target
			}
			p, _ := v.Token(token.KindPitch, n.pitch)
			out = append(out, p, n.vel, n.dur)
		}
	}, func(t uint16) { out = append(out, t) })
	return out, true
}

// walkGroups calls group for the notes of each onset (the tokens after a
// Position and its optional Tempo) and other for every token outside note
// groups (Bar, TimeSig, Tempo, Position, EOS…), in order. A note cut short
// at the end of body is dropped.
func walkGroups(v *token.Vocab, body []uint16, group func([]note), other func(uint16)) {
	var notes []note
	prog := -1
	flush := func() {
		if len(notes) > 0 {
			group(notes)
			notes = notes[:0]
		}
	}
	for i := 0; i < len(body); i++ {
		t := body[i]
		k, x := v.Kind(t)
		switch k {
		case token.KindProgram:
			prog = x
			continue
		case token.KindPitch:
			if i+2 < len(body) {
				notes = append(notes, note{prog: prog, pitch: x, vel: body[i+1], dur: body[i+2]})
			}
			i += 2
			continue
		}
		flush()
		if other != nil {
			other(t)
		}
	}
	flush()
}
