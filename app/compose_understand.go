package app

import (
	"strings"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/text"
	"github.com/amtstudio/amt/engine/token"
)

// From words to a request (ARCHITECTURE §10, issues 25 and 36): Understand
// is the one door from a prompt's words to a request. It reads a prompt for
// one seed into one value, the Understanding: the attributes to force —
// what it names and what its words imply, drawn for the seed — with where
// each came from, what the words name alone, the dynamics to shape the
// notes to, the numbers that cannot be used and the words it did not use.
// Everything downstream takes that value: generation and its candidates
// (GenerateFromPrompt: `amt generate "PROMPT"`, Compose, eval-model), the
// limits (checkPromptRequest), evaluation (the explicit adherence, the
// reference corpus), the CLI's --json and the window's understood fields;
// the window's edits make a new value through the same door. No other code
// of app calls the prompt parser, and one generation calls it once
// (TestPromptParsedOncePerGenerate).

// parsePrompt is the prompt parser, called by Understand alone (a variable
// so that a test can count the calls).
var parsePrompt = text.ParsePrompt

// Choices are the user's edits of the mood, ensemble, dynamics and
// density a prompt implies ("" keeps the words', "none" drops them); Item
// is one understood attribute with its source. Both are engine/text's,
// named here for the front ends.
type (
	Choices = text.Choices
	Item    = text.Item
)

// UnderstandRequest is a prompt to read.
type UnderstandRequest struct {
	Prompt string
	Seed   uint64
	// Bars, when > 0, overrides the prompt's length (else DefaultBars).
	Bars int
	// Attrs, when set, are the user's own values (the Compose screen's
	// chips): they replace the attributes the prompt names, and the ones
	// left unset are filled from what the words imply, for Seed.
	Attrs *token.Attributes
	// Choices replace the mood, ensemble, dynamics or density the words
	// imply.
	Choices text.Choices
}

// Understanding is a prompt read for one seed.
type Understanding struct {
	Prompt string `json:"prompt"`
	Seed   uint64 `json:"seed"`
	// Attrs are the request: explicit and implied attributes, finished as
	// the prompt path forces them (length, density bins, programs mapped to
	// trained ones).
	Attrs token.Attributes `json:"attrs"`
	// Items are every understood attribute with its value and source;
	// Implied ones are defaults the words gave.
	Items  []text.Item `json:"items"`
	Unused []string    `json:"unused,omitempty"`
	// Mood, Valence and Arousal (−1…1), Ensemble and Scenes: what the
	// words mean beyond the attributes.
	Mood     string   `json:"mood,omitempty"`
	Valence  float64  `json:"valence,omitempty"`
	Arousal  float64  `json:"arousal,omitempty"`
	Ensemble string   `json:"ensemble,omitempty"`
	Scenes   []string `json:"scenes,omitempty"`
	// Dynamics is the level ("pp" … "ff") and Velocity the mean velocity
	// the generated notes are shaped to (text.ShapeVelocities); 0 leaves
	// the model's velocities.
	Dynamics string  `json:"dynamics,omitempty"`
	Velocity float64 `json:"velocity,omitempty"`
	// Density is the texture asked ("sparse", "moderate", "dense"; ""
	// none: the model's own), by the words or the user's choice; the
	// request's DENSITY bin is its notes per beat (Items' "density").
	Density string `json:"density,omitempty"`
	// Register is "low" or "high" ("" none): the pitched parts, basses
	// aside, are pulled into RegisterRange while sampling
	// (decoding.RegisterBias).
	Register      string `json:"register,omitempty"`
	RegisterRange [2]int `json:"register_range,omitempty"`
	// Problems are the prompt's numbers that cannot be used.
	Problems []string `json:"problems,omitempty"`
	// Named are the attributes the words name alone, before the user's
	// own values and what the words imply (density words mapped to the
	// vocabulary's bins, the length 0 when not named, nothing finished):
	// what a piece is judged against when only the named counts (the
	// suite's explicit adherence, `amt eval --prompt`).
	Named token.Attributes `json:"-"`
	// Genres are the genre words and tune forms the prompt names ("jig";
	// "reel" for "reels"): what chooses the real corpus a piece is set
	// against (MatchCorpus).
	Genres []string `json:"-"`
	// SampleSeed is the seed the piece (its first candidate) is sampled
	// with: Seed mixed with what the words mean (text.Resolution.SeedMix),
	// so prompts that mean different things never give the same piece for
	// a seed; candidate i mixes Seed + i·0x9E3779B97F4A7C15 the same way.
	SampleSeed uint64 `json:"sample_seed"`
}

// Understand reads a prompt for a seed with the default vocabulary's
// density bins when v is nil.
func Understand(req UnderstandRequest, v *token.Vocab) Understanding {
	if v == nil {
		v = token.DefaultVocab()
	}
	p := parsePrompt(req.Prompt)
	sparse, dense, perBeat := densityWords(v)
	named := p.Attrs
	named.Programs = append([]int(nil), p.Attrs.Programs...)
	if p.Attrs.Programs == nil {
		named.Programs = nil
	}
	if named.Density < 0 {
		switch p.Density {
		case "sparse":
			named.Density = v.DensityBin(sparse)
		case "dense":
			named.Density = v.DensityBin(dense)
		}
	}
	if req.Attrs != nil {
		given := *req.Attrs
		given.Programs = append([]int(nil), req.Attrs.Programs...)
		if len(given.Programs) == 0 {
			given.Programs = nil
		}
		explicitDensity := given.Density
		p.Attrs = given
		if explicitDensity >= 0 {
			p.Density = ""
		}
		if given.KeyTonic >= 0 {
			p.Mode = ""
		}
	}
	if req.Choices.Density != "" {
		p.Density = "" // the user's texture over the words' "sparse" or "dense"
	}
	r := p.Resolve(req.Seed, req.Choices)
	a := r.Attrs
	if a.Density < 0 {
		switch {
		case p.Density == "sparse":
			a.Density = v.DensityBin(sparse)
		case p.Density == "dense":
			a.Density = v.DensityBin(dense)
		case r.NotesPerBeat > 0:
			a.Density = v.DensityBin(r.NotesPerBeat * perBeat)
		}
	}
	bars := req.Bars
	a = finishRequest(a, bars)
	u := Understanding{Prompt: req.Prompt, Seed: req.Seed, Attrs: a, Items: r.Items, Unused: r.Unused, Mood: r.Mood,
		Valence: r.Valence, Arousal: r.Arousal, Ensemble: r.Ensemble, Scenes: r.Scenes, Dynamics: r.Dynamics, Velocity: r.Velocity, Density: r.Density,
		Problems: p.Problems, SampleSeed: req.Seed ^ r.SeedMix, Register: r.Register, RegisterRange: r.RegisterRange,
		Named: named, Genres: append(append([]string(nil), p.Genres...), tuneForms(req.Prompt)...)}
	// The instruments as forced (mapped onto trained programs).
	for i := range u.Items {
		if u.Items[i].Attr == "instruments" && len(a.Programs) > 0 {
			u.Items[i].Value = programNames(a.Programs)
		}
	}
	return u
}

// densityWords are the densities "sparse" and "dense" ask, and the factor
// from notes a quarter note to the vocabulary's unit: notes a bar in
// vocabulary v1, notes a quarter note since (Nottingham's median is 2.6,
// POP909's 5.1, the arranged corpus's about 15, drums included).
func densityWords(v *token.Vocab) (sparse, dense, perBeat float64) {
	if v.Config().DensityPerBeat {
		return 1.25, 12, 1
	}
	return 3, 20, 4
}

// tuneForms are the tune forms a prompt names in the plural ("a set of
// reels"), which the parser does not keep as genres, in the singular.
func tuneForms(prompt string) []string {
	var out []string
	for _, w := range reWord.FindAllString(strings.ToLower(prompt), -1) {
		if w == "jigs" || w == "reels" || w == "hornpipes" {
			out = append(out, strings.TrimSuffix(w, "s"))
		}
	}
	return out
}

func programNames(ps []int) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = midi.ProgramName(p)
	}
	return strings.Join(names, ", ")
}

// Item is the understood attribute the screen shows for attr ("tempo",
// "mood", …), and whether there is one.
func (u Understanding) Item(attr string) (text.Item, bool) {
	for _, it := range u.Items {
		if it.Attr == attr {
			return it, true
		}
	}
	return text.Item{}, false
}

// Summary is the understanding in a few lines: every item ("tempo 68 bpm
// (62–76 bpm from 'lullaby')") and the words not used.
func (u Understanding) Summary() []string {
	var out []string
	for _, it := range u.Items {
		out = append(out, it.String())
	}
	if len(u.Unused) > 0 {
		out = append(out, "not used: "+strings.Join(quoteWords(u.Unused), ", "))
	}
	return out
}

func quoteWords(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = "'" + w + "'"
	}
	return out
}

// Moods, Ensembles, DynamicsLevels and DensityLevels are the choices a
// front end offers for what the words imply (text.Choices).
func Moods() []string          { return text.Moods() }
func Ensembles() []string      { return text.Ensembles() }
func DynamicsLevels() []string { return text.DynamicsLevels() }
func DensityLevels() []string  { return text.DensityLevels() }
