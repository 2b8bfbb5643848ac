package condition

import (
	"fmt"
	"strings"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// Parts in training examples (issue 33): generation asked for "a string
// quartet" wrote the viola and the cello one note each. The examples list
// the programs their window plays; measured on 2,742 examples of the
// default options (docs/MODEL.md, 2026-11-28), 95% of the listed pitched
// programs play in half the window's complete bars and 1 note per 2 bars
// (the arranged corpus, POP909 and Nottingham 99–100% after re-voicing and
// splitting; the game music 82%), so the lists are not what taught the
// cameos. What the examples lack is the ensembles people ask for: 0–0.1%
// list two of violin, viola, cello and contrabass, 0.3% two brass outside
// the arranged corpus's sections, 0–3% two reeds or pipes; and random
// re-voicing puts the tune on a program that carries tunes in 17–20% of
// POP909 and Nottingham examples. Two options, off by default because they
// need a new training run, teach the list harder:
//
//   - RealParts: a pitched program playing in less than half of the
//     window's complete bars, or under 1 note per 2 bars, leaves the window
//     (its notes dropped), so every INSTRUMENT names a part;
//   - RevoiceRoles: re-voicing keeps each part's role (midi.TuneRank): the
//     part carrying the window's top line moves only to programs that carry
//     tunes, the bass only to bass programs, the others to programs that
//     accompany, instead of any program whose range holds the part.

// The floors of a real part (engine/eval's PartBarFloor and PartNoteFloor:
// condition does not import eval).
const (
	partBarFloor  = 0.5
	partNoteFloor = 0.5
)

// cameos returns the pitched programs of body that play in fewer than
// partBarFloor of its complete bars or under partNoteFloor notes a bar
// (the last bar counts when body ends with EOS); none when the window has
// fewer than two complete bars or every pitched program would go.
func cameos(v *token.Vocab, body []uint16) (drop [token.DrumProgram]bool, any bool) {
	var bars, notes [token.DrumProgram]int
	var present [token.DrumProgram]bool
	var inBar [token.DrumProgram]int // notes in the open bar
	var playedOpen [token.DrumProgram]bool
	n, prog, ended := 0, -1, false
	closeBar := func() {
		for p := range playedOpen {
			if playedOpen[p] {
				bars[p]++
				notes[p] += inBar[p]
			}
			playedOpen[p], inBar[p] = false, 0
		}
	}
	for _, t := range body {
		k, x := v.Kind(t)
		switch k {
		case token.KindBar:
			if n > 0 {
				closeBar()
			}
			n++
		case token.KindProgram:
			prog = x
			if x < token.DrumProgram {
				present[x] = true
				playedOpen[x] = true
			}
		case token.KindDuration:
			if prog >= 0 && prog < token.DrumProgram {
				inBar[prog]++
			}
		case token.KindSpecial:
			ended = ended || t == v.EOS
		}
	}
	full := n - 1 // the open bar may be cut by the window
	if ended {
		closeBar()
		full = n
	}
	if full < 2 {
		return drop, false
	}
	keep := false
	for p, ok := range present {
		if !ok {
			continue
		}
		if float64(bars[p]) < partBarFloor*float64(full) || float64(notes[p]) < partNoteFloor*float64(full) {
			drop[p], any = true, true
		} else {
			keep = true
		}
	}
	if !keep {
		return [token.DrumProgram]bool{}, false
	}
	return drop, any
}

// dropPrograms copies body without the notes of the programs in drop; an
// onset (Position) left with no note and no tempo goes too.
func dropPrograms(v *token.Vocab, dst, body []uint16, drop [token.DrumProgram]bool) []uint16 {
	pending := uint16(0) // a Position not yet written
	has, skip := false, false
	flush := func() {
		if has {
			dst = append(dst, pending)
			has = false
		}
	}
	for _, t := range body {
		k, x := v.Kind(t)
		switch k {
		case token.KindPosition:
			pending, has, skip = t, true, false
			continue
		case token.KindTempo:
			flush()
		case token.KindProgram:
			if skip = x < token.DrumProgram && drop[x]; skip {
				continue
			}
			flush()
		case token.KindPitch, token.KindVelocity, token.KindDuration:
			if skip {
				continue
			}
		default: // Bar, TimeSig, EOS: an onset with nothing kept is gone
			has, skip = false, false
		}
		dst = append(dst, t)
	}
	return dst
}

// roles reads the role of each pitched program of body: the one holding
// most onsets' highest note is the melody, the one lowest on average the
// bass (when it is not the melody and lies under G3), the others harmony;
// nil with fewer than two pitched programs.
func roles(v *token.Vocab, body []uint16) map[int]int {
	top := map[int]int{}
	sum, count := map[int]int{}, map[int]int{}
	walkGroups(v, body, func(group []note) {
		hi := -1
		for i, n := range group {
			if n.prog < 0 || n.prog >= token.DrumProgram {
				continue
			}
			sum[n.prog] += n.pitch
			count[n.prog]++
			if hi < 0 || n.pitch > group[hi].pitch {
				hi = i
			}
		}
		if hi >= 0 {
			top[group[hi].prog]++
		}
	}, nil)
	if len(count) < 2 {
		return nil
	}
	melody, bass := -1, -1
	for p := range count {
		if melody < 0 || top[p] > top[melody] || top[p] == top[melody] && p < melody {
			melody = p
		}
	}
	for p := range count {
		if p == melody {
			continue
		}
		if bass < 0 || sum[p]*count[bass] < sum[bass]*count[p] {
			bass = p
		}
	}
	out := map[int]int{}
	for p := range count {
		out[p] = voiceHarmony
	}
	out[melody] = voiceMelody
	if bass >= 0 && sum[bass] < 55*count[bass] {
		out[bass] = voiceBass
	}
	return out
}

// roleFit is FitPrograms(lo, hi) narrowed to the programs that play role
// (midi.TuneRank: a melody to ranks 0–1, a bass to rank 4, harmony to ranks
// 1–3); FitPrograms' list when none of them fits.
func roleFit(lo, hi, role int) []int {
	fit := FitPrograms(lo, hi)
	var out []int
	for _, p := range fit {
		r := midi.TuneRank(p)
		switch {
		case role == voiceMelody && r <= 1, role == voiceBass && r == 4, role == voiceHarmony && r >= 1 && r <= 3:
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return fit
	}
	return out
}

// SetParts sets RealParts and RevoiceRoles from a --parts value: "" or
// "none" (neither), or "real", "roles" joined by commas.
func (o *Options) SetParts(s string) error {
	o.RealParts, o.RevoiceRoles = false, false
	if s = strings.TrimSpace(s); s == "" || s == "none" {
		return nil
	}
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "real":
			o.RealParts = true
		case "roles":
			o.RevoiceRoles = true
		default:
			return fmt.Errorf("condition: parts %q: %q is neither real nor roles", s, f)
		}
	}
	return nil
}
