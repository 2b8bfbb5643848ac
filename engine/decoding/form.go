package decoding

import (
	"fmt"
	"strings"

	"github.com/amtstudio/amt/engine/token"
)

// Form planning: a piece is cut into sections of 4 bars (2 under 12 bars,
// 8 from 25 bars on) labelled by a pattern such as A A' B A; a later section with the
// label of an earlier one restates it, bar for bar, either exactly or
// varied (its first half restated, the rest sampled anew, like a phrase's
// second ending). Restating is done while sampling (Restater, a
// gpt.Constraint with a Force hook): the tokens of the source bar are
// pushed through the model as if sampled, so the music after a restated
// section follows from it. The last bar of a piece is always sampled, so
// the model writes its ending. Real songs repeat 23–28% of their bars
// (POP909 whole songs 0.23, Nottingham 0.25, issue 12's table); A A' B A
// over 16 bars restates 5 (0.31).

// Forms are the form names a request may give ("" means auto).
var Forms = []string{"auto", "none", "AABA", "ABAB", "AABB", "verse-chorus", "strains"}

// formPatterns: section letters; ' marks a varied restatement.
var formPatterns = map[string][]string{
	"AABA":         {"A", "A'", "B", "A"},
	"ABAB":         {"A", "B", "A", "B"},
	"AABB":         {"A", "A'", "B", "B'"},
	"verse-chorus": {"A", "B", "A'", "B"}, // verse, chorus, verse varied, chorus
	// A dance tune: each strain played twice, note for note, in 8-bar
	// strains from 16 bars on (StrainForm).
	"strains": {"A", "A", "B", "B"},
}

// StrainForm is the form a tune of genre family genre gets when its
// repeats follow the corpora (LeverStrains): dance and folk tunes play
// each 8-bar strain twice note for note ("strains": a 16-bar piece is A A),
// game music loops its 4-bar sections (ABAB); other genres keep their
// automatic form (""). On the two-sample test (issue 24) the real pieces
// repeat 0.53 (Nottingham) and 0.40 (game corpora) of their bars exactly,
// the automatic forms 0.27 (AABB and verse-chorus restate 4 of 15 bars).
//
// ABAB matches the game corpora's share of repeats, not where they fall:
// in the first 16 bars of the 96 Freedoom and OpenMSX files of 16 bars or
// more, a bar's nearest exact repeat is 2 bars back in 0.15 of the bars, 4
// back in 0.11, 1 back in 0.04 and 8 back in 0.02 (riffs that loop at
// once), where ABAB puts 0.41 at 8 bars. Loops of 2-bar sections drawn at
// the corpora's rates were tried (2026-11-27, fourth session: 72% of the
// sections new, 9% restating the one before, 11% the one two before, 7%
// the first bar of the one before, runs as in the corpora) and not kept:
// the model repeats too little between the restatements, so exact repeats
// fell to 0.21 of the bars and rhythm repeats to 0.52 (real 0.38 and 0.66;
// ABAB 0.45 and 0.60), and the linear classifier rose from 80.6 / 79.1% to
// 83.3 / 81.8% with the forest flat (docs/MODEL.md).
func StrainForm(genre string) string {
	switch genre {
	case "folk", "waltz", "march", "polka", "country":
		return "strains"
	case "game":
		return "ABAB"
	}
	return ""
}

// autoForm is the form a genre family gets by default: dance tunes repeat
// each strain (AABB), songs alternate verse and chorus, the rest (jazz
// standards, ballads, classical themes, no genre) AABA.
func autoForm(genre string) string {
	switch genre {
	case "folk", "waltz", "march", "polka", "country":
		return "AABB"
	case "pop", "rock", "funk", "reggae", "latin", "electronic", "gospel", "game":
		return "verse-chorus"
	}
	return "AABA"
}

// RepeatsExactly reports whether a genre family restates its sections note
// for note: dance and folk tunes repeat each strain, game music loops. In
// songs a restated section varies its melody (Restater.Vary). On the
// two-sample test (issue 24, 16-bar excerpts) real POP909 songs repeat no
// bar exactly (median 0), Nottingham's tunes 0.53 of their bars, the game
// corpora 0.40; the model with exact restatements 0.33 in all three.
func RepeatsExactly(genre string) bool {
	switch genre {
	case "folk", "waltz", "march", "polka", "country", "game":
		return true
	}
	return false
}

// Plan is a form laid over the bars of a piece.
type Plan struct {
	Name     string   // the form chosen ("none", "AABA", …)
	Sections []string // section letters in order, e.g. A A' B A
	Bars     int      // bars of a section
	// Copy[i] is the bar that bar i restates, or -1 when bar i is sampled.
	Copy []int
}

// Repeated is the share of bars restated.
func (p Plan) Repeated() float64 {
	if len(p.Copy) == 0 {
		return 0
	}
	n := 0
	for _, c := range p.Copy {
		if c >= 0 {
			n++
		}
	}
	return float64(n) / float64(len(p.Copy))
}

// String is the plan as a musician reads it: "AABA (A A' B A, 4-bar sections)".
func (p Plan) String() string {
	if len(p.Sections) == 0 {
		return p.Name
	}
	return fmt.Sprintf("%s (%s, %d-bar sections)", p.Name, strings.Join(p.Sections, " "), p.Bars)
}

// PlanForm lays form name ("" or "auto": by genre family; "none"; a
// pattern of Forms) over bars bars. Pieces under 8 bars have no form.
func PlanForm(name, genre string, bars int) (Plan, error) {
	if name == "" {
		name = "auto"
	}
	if name == "auto" {
		name = autoForm(genre)
		if bars < 8 {
			name = "none"
		}
	}
	p := Plan{Name: name, Copy: make([]int, max(bars, 0))}
	for i := range p.Copy {
		p.Copy[i] = -1
	}
	if name == "none" {
		return p, nil
	}
	pat, ok := formPatterns[name]
	if !ok {
		return Plan{}, fmt.Errorf("decoding: form %q: not one of %s", name, strings.Join(Forms, ", "))
	}
	if bars < 8 {
		return Plan{}, fmt.Errorf("decoding: form %s needs at least 8 bars, not %d", name, bars)
	}
	L := 4 // phrases of 4 bars; 2 in short pieces, 8 in long ones
	switch {
	case name == "strains" && bars >= 16:
		L = 8
	case name == "strains":
		L = 4
	case bars < 12:
		L = 2
	case bars > 24:
		L = 8
	}
	S := bars / L
	p.Bars = L
	first := map[byte]int{} // letter → its first section
	for s := range S {
		lab := pat[s%len(pat)]
		if s >= len(pat) && !strings.HasSuffix(lab, "'") {
			lab += "'" // the pattern again: varied, so it does not loop exactly
		}
		p.Sections = append(p.Sections, lab)
		src, seen := first[lab[0]]
		if !seen {
			first[lab[0]] = s
			continue
		}
		n := L
		if strings.HasSuffix(lab, "'") {
			n = L / 2
		}
		for k := range n {
			p.Copy[s*L+k] = src*L + k
		}
	}
	p.Copy[bars-1] = -1 // the ending is the model's
	return p, nil
}

// Restater samples under a Plan: it wraps the Bars constraint, records
// each bar's music as it is pushed, and its Force hook (gpt.SampleOptions
// .Force) gives the tokens of the source bar when a restated bar opens,
// then the bar line that closed the source. A restated token the
// constraint would not allow here ends the restatement of that bar (the
// model takes over); that keeps the grammar's guarantees.
type Restater struct {
	*Bars
	plan  Plan
	v     *token.Vocab
	music [][]uint16 // per bar: its tokens after the bar line, without TimeSig and Tempo
	queue []uint16
	free  []bool // per queue entry: a top pitch the model samples anew (Vary)
	mask  []bool
	// Vary, when > 0, varies the restatements as a musician repeats a
	// phrase: the top note of each onset of a restated bar (the melody:
	// the highest pitched note starting there) is sampled by the model
	// within Vary semitones of the source's, over the source's other notes,
	// rhythm, velocities and lengths, which are restated as before. Without
	// it a restated bar is an exact copy: on the two-sample test (issue 24)
	// the form made 0.33 of the bars exact repeats where real music has
	// 0.13.
	Vary    int
	pending int // the source pitch whose replacement is being sampled, -1 none
	// Forced counts tokens restated; Varied the top notes sampled anew
	// and Changed those that came out different.
	Forced, Varied, Changed int
}

// NewRestater plans over b (whose N is the piece's bars).
func NewRestater(v *token.Vocab, b *Bars, plan Plan) *Restater {
	return &Restater{Bars: b, plan: plan, v: v, mask: make([]bool, v.Size()), pending: -1}
}

// topNotes flags, in a bar's tokens, the Pitch token of the highest pitched
// (non-drum) note of each onset.
func topNotes(v *token.Vocab, bar []uint16) []bool {
	free := make([]bool, len(bar))
	best, bestAt, prog := -1, -1, -1
	flush := func() {
		if bestAt >= 0 {
			free[bestAt] = true
		}
		best, bestAt = -1, -1
	}
	for i, tok := range bar {
		switch k, x := v.Kind(tok); k {
		case token.KindPosition, token.KindBar:
			flush()
		case token.KindProgram:
			prog = x
		case token.KindPitch:
			if prog >= 0 && prog < token.DrumProgram && x > best {
				best, bestAt = x, i
			}
		}
	}
	flush()
	return free
}

// Allow is the constraint's mask; while a varied top note is sampled, only
// pitches within Vary semitones of the source's (when the grammar allows
// one).
func (r *Restater) Allow(mask []bool) {
	r.Bars.Allow(mask)
	if r.pending < 0 {
		return
	}
	lo, n := r.v.Range(token.KindPitch)
	ok := false
	for p := max(r.pending-r.Vary, 0); p <= min(r.pending+r.Vary, n-1); p++ {
		ok = ok || mask[int(lo)+p]
	}
	if !ok {
		return
	}
	for i := range mask {
		if p := i - int(lo); p < 0 || p >= n || p < r.pending-r.Vary || p > r.pending+r.Vary {
			mask[i] = false
		}
	}
}

// Push records tok and opens a restatement when a planned bar starts.
func (r *Restater) Push(tok uint16) error {
	if err := r.Bars.Push(tok); err != nil {
		return err
	}
	if r.pending >= 0 { // the model's top note in place of the source's
		if k, x := r.v.Kind(tok); k == token.KindPitch && len(r.queue) > 0 {
			r.queue, r.free = r.queue[1:], r.free[1:]
			r.Varied++
			if x != r.pending {
				r.Changed++
			}
		} else {
			r.queue, r.free = r.queue[:0], r.free[:0] // something else: the model takes over
		}
		r.pending = -1
	}
	if !r.Grammar.InBody() {
		return nil
	}
	i := r.Grammar.Bars() - 1 // the open bar
	if i < 0 {
		return nil
	}
	if tok == r.v.Bar {
		for len(r.music) <= i {
			r.music = append(r.music, nil)
		}
		r.queue, r.free = r.queue[:0], r.free[:0]
		if i < len(r.plan.Copy) {
			if src := r.plan.Copy[i]; src >= 0 && src < i && src < len(r.music) {
				r.queue = append(r.queue, r.music[src]...)
				if r.Vary > 0 {
					r.free = append(r.free, topNotes(r.v, r.music[src])...)
				} else {
					r.free = append(r.free, make([]bool, len(r.music[src]))...)
				}
				if i+1 < r.N {
					r.queue = append(r.queue, r.v.Bar)
					r.free = append(r.free, false)
				}
			}
		}
		return nil
	}
	if k, _ := r.v.Kind(tok); k != token.KindTimeSig && k != token.KindTempo && tok != r.v.EOS && i < len(r.music) {
		r.music[i] = append(r.music[i], tok)
	}
	return nil
}

// Force is the gpt.SampleOptions.Force hook.
func (r *Restater) Force() (uint16, bool) {
	if len(r.queue) == 0 || r.pending >= 0 {
		return 0, false
	}
	tok := r.queue[0]
	clear(r.mask)
	r.Bars.Allow(r.mask)
	if !r.mask[tok] {
		r.queue, r.free = r.queue[:0], r.free[:0]
		return 0, false
	}
	if r.free[0] {
		_, r.pending = r.v.Kind(tok) // the model samples it (Allow, Push)
		return 0, false
	}
	r.queue, r.free = r.queue[1:], r.free[1:]
	r.Forced++
	return tok, true
}

// strainOpening[k] is the share of the Nottingham tunes whose first
// strain's second phrase (its fifth bar on) restates exactly k bars of its
// first (../shared/data, 1,034 MIDI files with their chords, counted
// 2026-11-27): 0.39 none, 0.22 one bar, 0.25 two, 0.10 three, 0.04 four.
// In 61% of the tunes the fifth bar is the first again, note for note.
var strainOpening = [...]float64{0.392, 0.224, 0.250, 0.095, 0.040}

// StrainOpening is how many bars of a strain's first phrase its second
// phrase restates, for draw u in [0, 1) (the caller draws it from the
// piece's seed), at the corpus's rates (strainOpening).
func StrainOpening(u float64) int {
	for k, p := range strainOpening {
		if u < p {
			return k
		}
		u -= p
	}
	return 0
}

// WithOpening is a "strains" plan of 8-bar strains whose strains, where
// they are first played, open their second phrase as their first: bars 5
// to 4+k of the strain restate its bars 1 to k (StrainOpening). A strain
// played again restates the whole strain as before, these bars included;
// the ending stays the model's. Other plans are returned as they are.
func (p Plan) WithOpening(k int) Plan {
	if p.Name != "strains" || p.Bars != 8 || k <= 0 {
		return p
	}
	k = min(k, p.Bars/2)
	q := p
	q.Copy = append([]int(nil), p.Copy...)
	n := len(q.Copy)
	for s := 0; s*p.Bars < n; s++ {
		at := s * p.Bars
		if q.Copy[at] >= 0 {
			continue // a restated strain
		}
		for j := range k {
			if b := at + p.Bars/2 + j; b < n-1 {
				q.Copy[b] = at + j
			}
		}
	}
	return q
}

// AfterPickup is the plan moved one bar later for a piece whose first bar
// is an upbeat (Pickup): bar i+1 restates bar Copy[i]+1, the upbeat bar
// is the model's, and so is the ending. A strain of a tune with an upbeat
// runs from its first full bar, and its repeat comes back to it: "A A"
// over 16 bars (1-based: the upbeat is bar 1, the strain bars 2–9,
// bars 10–15 restate 2–7, bar 16 is the model's).
func (p Plan) AfterPickup() Plan {
	n := len(p.Copy)
	q := p
	q.Copy = make([]int, n)
	for i := range q.Copy {
		q.Copy[i] = -1
	}
	for i := 0; i+1 < n-1; i++ {
		if p.Copy[i] >= 0 {
			q.Copy[i+1] = p.Copy[i] + 1
		}
	}
	return q
}
