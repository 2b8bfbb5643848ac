package decoding

import (
	"fmt"
	"sort"
	"strings"
)

// Levers are the decoding levers of issue 24 (music a listener cannot tell
// from real music; docs/MODEL.md, "The two-sample test"), one bit each. A
// request uses DefaultLevers unless it sets its own (with LeversSet), so the
// zero value decodes as the app does by default.
type Levers uint32

const (
	// LeverCanonical: the notes of one onset follow the encoder's order
	// (token.Grammar.Canonical): each program once, pitches strictly
	// ascending, so no pitch is struck twice at one instant by one
	// program, and at most ChordCap pitches a pitched program.
	LeverCanonical Levers = 1 << iota
	// LeverVary: restated sections of songs vary their melody (the top
	// note of each onset re-sampled within VarySemitones,
	// decoding.Restater.Vary); dance tunes and game music, which repeat
	// their strains note for note, do not (decoding.RepeatsExactly).
	LeverVary
	// LeverLengths: a note's length is drawn from the model's own
	// distribution (temperature 1, no nucleus cut; gpt.SampleOptions.Plain).
	LeverLengths
	// LeverTexture: so is the choice after each note (another pitch,
	// program, onset, the bar line).
	LeverTexture
	// LeverDynamics: so is a note's velocity.
	LeverDynamics
	// LeverStrains: with the automatic form, dance and folk tunes play
	// 8-bar strains twice and game music loops 4-bar sections, note for
	// note (decoding.StrainForm), as the corpora do; a strain's second
	// phrase opens as its first, for as many bars as the piece's draw
	// gives at the Nottingham tunes' rates (decoding.StrainOpening: in
	// 61% of them the fifth bar is the first again).
	LeverStrains
	// LeverCritic: at least CriticCandidates candidates are sampled and,
	// among those meeting as many requested attributes, the one the critic
	// (app/compose_critic.go: candidate selection stays with the candidates, in app) finds most real is kept.
	LeverCritic
	// LeverLine: the top line moves as a melody does (decoding.LineBias,
	// decoding.DefaultLine): a pitch that would become an onset's top
	// note is favoured when it moves by step from the last top note and
	// disfavoured when it repeats it or turns back, the pitches' total
	// probability kept.
	LeverLine
	// LeverPickup: folk tunes, waltzes and carols start on an upbeat as
	// often as the corpus's do (decoding.Pickup; the piece's seed draws
	// whether), and the form's restatements move one bar later.
	LeverPickup
	// LeverBuild: in game music the parts enter in turn, as the game
	// corpora's tracks build up (decoding.Entries: a part either plays
	// from the start or enters with the form's second section).
	LeverBuild
	// LeverParts: every requested pitched instrument plays a part
	// (decoding.PartHold, DefaultParts): a part that falls behind 9 bars
	// in 10 gains logit mass on its Program token at every onset until it
	// plays again (issue 33).
	LeverParts
	// LeverLead: the tune belongs to the instrument a listener expects to
	// carry it (decoding.Lead, decoding.LeadBias): the other pitched parts
	// are kept under the lead's last note (LeadWeight).
	LeverLead
	numLevers = iota

	// LeversSet marks a Levers value as the request's own.
	LeversSet Levers = 1 << 31
)

// VarySemitones is how far a varied top note may move (LeverVary).
const VarySemitones = 4

// MinPickupBars: shorter pieces never start on an upbeat (LeverPickup): a
// sketch of a bar or two would be mostly the rest before it.
const MinPickupBars = 4

var leverNames = [numLevers]string{"canonical", "vary", "lengths", "texture", "dynamics", "strains", "critic", "line", "pickup", "build", "parts", "lead"}

// DefaultLevers are the levers on by default (the window, `amt generate`,
// eval-model), chosen on the two-sample test of the shipped model (120
// real pieces, docs/MODEL.md "The two-sample test", 2026-11-27): canonical
// brings doubled pitches 3.4% → 0 and the largest chord 11 → 6; vary and
// strains bring exact bar repeats to the corpora's per genre (POP909 0.33
// → 0.005 against 0.017 real, Nottingham 0.31 → 0.46 against 0.47) and
// the forest 93.6% → 90.3%, with adherence kept. Lengths and dynamics
// bring POP909's note lengths and velocity spread to the real ones but
// did not move the test (forest 93.6% → 93.8% over canonical alone, 90.3%
// → 90.8% over canonical, vary and strains; logistic regression 1.4–2.1
// points worse) and cost 1.5–2.5 points of CK: off. Texture (more leaps)
// and the critic (a second candidate always, trained on another model's
// pieces) are off. Line and pickup joined them in the second session of
// 2026-11-27 (same test, both selections of 120 real pieces, the same
// binary): the top line's steps 0.21 → 0.42 of its intervals (real 0.38),
// folk tunes start on their upbeat (33 of 40 real Nottingham excerpts do;
// its rest had been the test's first tell for folk), logistic regression
// 85.2/86.9% → 80.0/81.0%, forest 91.0/91.6% → 88.5/88.6%, CK 97.5/96.7%
// → 96.7/95.8%, drums in bars 0.998/0.984 → 0.997/0.997. In the third
// session strains gained the opening (a strain's second phrase opens as
// its first, decoding.StrainOpening): forest 88.5/88.6% → 85.2/85.4%,
// logistic regression 80.0/81.0% → 80.6/79.1%, CK and drums unchanged.
//
// Parts joined them on 2026-11-28 (issue 33, docs/MODEL.md "Parts"): on
// the ensemble suite (48 prompts × 3 seeds) the requested pitched
// instruments playing in half the bars went from 303 of 434 (69.8%) to 433
// (99.8%; held-out prompts 107 of 108), those under 1 note per 2 bars from
// 106 to 0, with the parts check in candidate selection.
const DefaultLevers = LeverCanonical | LeverVary | LeverStrains | LeverLine | LeverPickup | LeverParts

// Resolve returns the levers in force: DefaultLevers unless l is a
// request's own (LeversSet).
func (l Levers) Resolve() Levers {
	if l&LeversSet == 0 {
		return DefaultLevers
	}
	return l &^ LeversSet
}

// String names the levers in force ("none" when none).
func (l Levers) String() string {
	l = l.Resolve()
	var out []string
	for i, n := range leverNames {
		if l&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ",")
}

// LeverNames are the levers' names, in their order.
func LeverNames() []string { return append([]string(nil), leverNames[:]...) }

// ParseLevers reads a lever list: "default", "none", or names joined by
// commas ("canonical,vary").
func ParseLevers(s string) (Levers, error) {
	switch s = strings.TrimSpace(s); s {
	case "", "default":
		return 0, nil
	case "none":
		return LeversSet, nil
	}
	l := LeversSet
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(w)
		i := -1
		for k, n := range leverNames {
			if n == w {
				i = k
			}
		}
		if i < 0 {
			names := append([]string(nil), leverNames[:]...)
			sort.Strings(names)
			return 0, fmt.Errorf("lever %q: one of %s, or default, none", w, strings.Join(names, ", "))
		}
		l |= 1 << i
	}
	return l, nil
}

// The levers' weights.

// LeadWeight is the logit penalty per octave (at most one) of a pitch
// another part would write above the lead's last note (LeverLead). On the
// ensemble suite's development part with the parts lever (2026-11-28), the
// tune was on the expected instrument in 23 of 33 prompts' majorities
// without the lead lever and 26 with it at 4 (1.5 changed none of the six
// hardest prompts); what it leaves is a lead that rests while the guitar or
// the accordion strums on, which keeps the top line. Off by default: not
// yet measured on the two-sample test.
const LeadWeight = 4

// RegisterWeight is the logit penalty per octave outside a register the
// words ask for (RegisterBias): enough to move a line, not to forbid a
// leap.
const RegisterWeight = 1.5

// DensityHoldWeight is how hard a requested density is held (DensityHold):
// logits per unit of log density ratio. At 1.5 "a sparse pop song for solo
// piano" (1–1.5 notes a quarter note) still had 3.0–4.8 notes a quarter
// (5.7 without the hold); at 4, 2.1–3.0, and its dense twin 8–10 (12 or
// more asked; 4.9–7.8 without). 10 since the hold pulls to the bin's
// middle from the first bar (issue 33): on the texture suite
// (testdata/prompts/texture.txt, seeds 1–3) the 20 calm prompts' median is
// 2.26 notes a quarter (2.77 at 4 and the bin's edges from the second bar,
// 4.34 before the words asked a texture), each sparse/dense pair 1.6–2.4
// against 7.4–12.3.
const DensityHoldWeight = 10

// ChordCap is the corpora's 99th percentile of the pitches one program
// starts at one onset (LeverCanonical caps a chord there; measured
// 2026-11-27 over every onset of the whole corpora, programs merged across
// channels: POP909 6 of 740,515 groups, Nottingham 5, OpenMSX 5, Freedoom
// 3; the largest 10).
const ChordCap = 6

// Default sampling of the prompt path (the window, `amt generate`,
// eval-model).
const (
	DefaultTemperature = 0.95
	DefaultTopP        = 0.95
	// DefaultKeyBias is the key-scale logit penalty of the prompt path
	// (Options.KeyBias) used by amt generate, eval-model and Compose,
	// with a stronger push in the first and the last bar
	// (KeyBias; its weights' doc has the figures of each step).
	// 0.2 since the key-frame model (docs/MODEL.md, 2026-11-26, fourth
	// session), which keeps the requested key by itself in 46% of the
	// suite's pieces: on the suite with 6 candidates, bias 0 gave CK 78.6%
	// at pitch-class entropy −5.0% against the corpora, 0.2 CK 80.7% at
	// −7.9%, 0.3 82.1% at −10.1% and 0.75 93.6% at −13.4% (floor ±10%): the
	// push toward the tonic triad thins the pitch classes. (The absolute
	// model before it kept the key by itself in 9% and needed 0.75.)
	DefaultKeyBias = 0.2
	// DefaultRhythmBias pulls each bar's onsets toward the previous bar's
	// (RhythmBias). Off: on the suite (docs/MODEL.md, 2026-11-26)
	// bias 1 raised rhythm repetition from 0.461 to 0.489 but took drums in
	// bars from 0.968 to 0.899 and notes per beat from 0.751 to 0.687 of the
	// corpora, both under their floors, and CK from 77.9% to 75.0%.
	DefaultRhythmBias = 0
)
