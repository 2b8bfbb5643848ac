package app

import (
	"strings"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/text"
	"github.com/amtstudio/amt/engine/token"
)

// From words to a request (ARCHITECTURE §10, issue 25): Understand reads a
// prompt for one seed into the attributes to force — what it names and
// what its words imply, drawn for the seed — with where each came from,
// the dynamics to shape the notes to, and the words it did not use. The
// prompt path (GenerateFromPrompt: `amt generate "PROMPT"`, Compose,
// eval-model) resolves every request through it once, before the
// candidates, so a piece and what the screen or `--json` shows agree.

// Choices are the user's edits of the mood, ensemble and dynamics a
// prompt implies ("" keeps the words', "none" drops them); Item is one
// understood attribute with its source. Both are engine/text's, named here
// for the front ends.
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
	// Choices replace the mood, ensemble or dynamics the words imply.
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
	// Register is "low" or "high" ("" none): the pitched parts, basses
	// aside, are pulled into RegisterRange while sampling
	// (decoding.RegisterBias).
	Register      string `json:"register,omitempty"`
	RegisterRange [2]int `json:"register_range,omitempty"`
	// Problems are the prompt's numbers that cannot be used.
	Problems []string `json:"problems,omitempty"`
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
	p := text.ParsePrompt(req.Prompt)
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
	r := p.Resolve(req.Seed, req.Choices)
	a := r.Attrs
	if a.Density < 0 {
		sparse, dense := 3.0, 20.0 // notes per bar (vocabulary v1)
		perBeat := 1.0
		if v.Config().DensityPerBeat {
			// notes per quarter note: Nottingham's median is 2.6, POP909's
			// 5.1, the arranged corpus's about 15 (drums included)
			sparse, dense, perBeat = 1.25, 12, 1
		} else {
			perBeat = 4
		}
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
		Valence: r.Valence, Arousal: r.Arousal, Ensemble: r.Ensemble, Scenes: r.Scenes, Dynamics: r.Dynamics, Velocity: r.Velocity,
		Problems: p.Problems, SampleSeed: req.Seed ^ r.SeedMix, Register: r.Register, RegisterRange: r.RegisterRange}
	// The instruments as forced (mapped onto trained programs).
	for i := range u.Items {
		if u.Items[i].Attr == "instruments" && len(a.Programs) > 0 {
			u.Items[i].Value = programNames(a.Programs)
		}
	}
	return u
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

// Moods, Ensembles and DynamicsLevels are the choices a front end offers
// for what the words imply (text.Choices).
func Moods() []string          { return text.Moods() }
func Ensembles() []string      { return text.Ensembles() }
func DynamicsLevels() []string { return text.DynamicsLevels() }
