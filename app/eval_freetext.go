package app

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/amtstudio/amt/engine/eval"
	"github.com/amtstudio/amt/engine/midi"
)

// The free-text suite (issue 25): prompts as a new user types them, each
// with what a listener would expect of the music, checked on the generated
// MIDI (`amt eval-model --freetext`). The file format is described at the
// top of DefaultFreeTextSuite; ReadFreeText reads it.

// DefaultFreeTextSuite is the free-text prompt suite.
const DefaultFreeTextSuite = "testdata/prompts/freetext.txt"

// FreeTextSeeds is how many seeds each free-text prompt runs with; an
// expectation is met when it holds in a majority of them.
const FreeTextSeeds = 3

// FreeTextPrompt is one line of a free-text suite.
type FreeTextPrompt struct {
	Prompt  string        `json:"prompt"`
	Expect  []Expectation `json:"expect"`
	HeldOut bool          `json:"held_out"` // below the "# held-out" line
	Line    int           `json:"line"`
}

// Expectation is one thing a listener expects of a piece: a measure
// compared with bounds (tempo, vel, npb, pitch), a mode, drums, a meter,
// instruments present (has) or absent (no), an instrument playing a part
// (part) or carrying the tune (lead).
type Expectation struct {
	Text string `json:"text"` // as written: "tempo<=90"
	kind string // tempo vel npb pitch mode drums meter has no part lead
	op   string // "<=", ">=", "=" (range for numbers)
	lo   float64
	hi   float64
	word string  // mode, drums, meter value
	any  [][]int // has/no: alternatives, each a set of programs (-1: drums)
}

// freeTextGroups are the instrument names an expectation may use besides
// program numbers: the 16 General MIDI families and a few groups a
// listener names.
var freeTextGroups = func() map[string][]int {
	g := map[string][]int{}
	names := []string{"piano", "chromatic", "organ", "guitar", "bass", "strings", "ensemble", "brass",
		"reed", "pipe", "lead", "pad", "fx", "ethnic", "percussive", "sfx"}
	for f, n := range names {
		for p := 8 * f; p < 8*f+8; p++ {
			g[n] = append(g[n], p)
		}
	}
	g["distorted"] = []int{29, 30}
	g["synth"] = append(append(append([]int{38, 39, 50, 51, 62, 63}, g["lead"]...), g["pad"]...), g["fx"]...)
	g["orchestral"] = append(append(append(append([]int{}, g["strings"]...), g["ensemble"]...), g["brass"]...), g["reed"]...)
	g["keys"] = append(append([]int{}, g["piano"]...), g["organ"]...)
	g["drums"] = []int{-1}
	// Instruments a listener names (the ensemble suite's parts and leads).
	for name, ps := range map[string][]int{
		"harpsichord": {6}, "clavinet": {7}, "celesta": {8}, "epiano": {4, 5}, "accordion": {21, 23}, "harmonica": {22},
		"violin": {40, 110}, "viola": {41}, "cello": {42}, "contrabass": {43}, "harp": {46}, "timpani": {47},
		"choir": {52, 53, 54}, "trumpet": {56, 59}, "trombone": {57}, "tuba": {58}, "horn": {60, 61}, "sax": {64, 65, 66, 67},
		"oboe": {68, 69}, "bassoon": {70}, "clarinet": {71}, "flute": {72, 73}, "recorder": {74}, "shakuhachi": {77},
		"whistle": {78, 79}, "square": {80}, "saw": {81}, "synthbass": {38, 39}, "banjo": {105}, "shamisen": {106},
		"koto": {107}, "steeldrums": {114},
	} {
		g[name] = ps
	}
	return g
}()

// ReadFreeText reads a free-text suite: "PROMPT | EXPECTATION …" a line, #
// comments and blank lines skipped; prompts after a line "# held-out" are
// the held-out part.
func ReadFreeText(path string) ([]FreeTextPrompt, error) {
	data, err := ReadInput(path) // bounded; a FIFO never waited on
	if err != nil {
		return nil, fmt.Errorf("free-text suite: %w", err)
	}
	var out []FreeTextPrompt
	held := false
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "#") {
			if strings.TrimSpace(strings.TrimPrefix(l, "#")) == "held-out" {
				held = true
			}
			continue
		}
		if l == "" {
			continue
		}
		prompt, exp, ok := strings.Cut(l, "|")
		if !ok || strings.TrimSpace(prompt) == "" {
			return nil, fmt.Errorf("free-text suite %s:%d: want \"PROMPT | EXPECTATION …\"", path, i+1)
		}
		fp := FreeTextPrompt{Prompt: strings.TrimSpace(prompt), HeldOut: held, Line: i + 1}
		for _, f := range strings.Fields(exp) {
			e, err := ParseExpectation(f)
			if err != nil {
				return nil, fmt.Errorf("free-text suite %s:%d: %w", path, i+1, err)
			}
			fp.Expect = append(fp.Expect, e)
		}
		if len(fp.Expect) == 0 {
			return nil, fmt.Errorf("free-text suite %s:%d: %q has no expectation", path, i+1, fp.Prompt)
		}
		out = append(out, fp)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("free-text suite %s: no prompts", path)
	}
	return out, nil
}

// ParseExpectation reads one expectation ("tempo<=90", "mode=minor",
// "has=strings/brass", "no=distorted", "meter=3/4").
func ParseExpectation(s string) (Expectation, error) {
	e := Expectation{Text: s}
	for _, op := range []string{"<=", ">=", "="} {
		if k, v, ok := strings.Cut(s, op); ok {
			e.kind, e.op = k, op
			switch k {
			case "tempo", "vel", "npb", "pitch":
				if op == "=" {
					a, b, ok := strings.Cut(v, "-")
					lo, err1 := strconv.ParseFloat(a, 64)
					hi, err2 := strconv.ParseFloat(b, 64)
					if !ok || err1 != nil || err2 != nil || lo > hi {
						return e, fmt.Errorf("expectation %q: want %s=LO-HI", s, k)
					}
					e.lo, e.hi = lo, hi
					return e, nil
				}
				x, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return e, fmt.Errorf("expectation %q: %q is not a number", s, v)
				}
				e.lo, e.hi = math.Inf(-1), math.Inf(1)
				if op == "<=" {
					e.hi = x
				} else {
					e.lo = x
				}
				return e, nil
			case "mode", "drums", "meter":
				ok := op == "=" && ((k == "mode" && (v == "major" || v == "minor")) || (k == "drums" && (v == "yes" || v == "no")) ||
					(k == "meter" && strings.Count(v, "/") == 1))
				if !ok {
					return e, fmt.Errorf("expectation %q: want mode=major|minor, drums=yes|no or meter=N/D", s)
				}
				e.word = v
				return e, nil
			case "has", "no", "part", "lead":
				if op != "=" {
					return e, fmt.Errorf("expectation %q: want %s=INSTRUMENT[/…]", s, k)
				}
				for _, alt := range strings.Split(v, "/") {
					if g, ok := freeTextGroups[alt]; ok {
						e.any = append(e.any, g)
						continue
					}
					p, err := strconv.Atoi(alt)
					if err != nil || p < 0 || p > 127 {
						return e, fmt.Errorf("expectation %q: %q is neither a program 0–127 nor a family or group", s, alt)
					}
					e.any = append(e.any, []int{p})
				}
				return e, nil
			}
			return e, fmt.Errorf("expectation %q: unknown measure %q", s, k)
		}
	}
	return e, fmt.Errorf("expectation %q: want MEASURE<=N, MEASURE>=N or MEASURE=VALUE", s)
}

// FreeTextMeasures are what the expectations look at in one piece.
type FreeTextMeasures struct {
	TempoBPM     float64 `json:"tempo_bpm"`
	Minor        bool    `json:"minor"`
	Key          string  `json:"key"`
	Meter        string  `json:"meter"`
	Drums        bool    `json:"drums"`
	DrumBars     float64 `json:"drum_bars"`
	Programs     []int   `json:"programs"`
	Velocity     float64 `json:"velocity"`       // mean over all notes
	NotesPerBeat float64 `json:"notes_per_beat"` // drums included
	Pitch        float64 `json:"pitch"`          // mean over the pitched notes
	// Parts are the pitched parts (eval.Part: bars, notes a bar and top
	// line as shares), Lead the program holding most of the top line (-1
	// none).
	Parts []PartMeasure `json:"parts"`
	Lead  int           `json:"lead"`
}

// PartMeasure is one pitched part of a piece (eval.Part as shares of the
// piece's bars and of the top line).
type PartMeasure struct {
	Program     int      `json:"program"`
	Bars        float64  `json:"bars"`
	NotesPerBar float64  `json:"notes_per_bar"`
	Top         eval.Num `json:"top"` // null without a top line
}

// Real reports whether the part plays in at least eval.PartBarFloor of
// the bars and eval.PartNoteFloor notes a bar.
func (p PartMeasure) Real() bool {
	return p.Bars >= eval.PartBarFloor && p.NotesPerBar >= eval.PartNoteFloor
}

// MeasureFreeText reads the measures of a piece.
func MeasureFreeText(s *midi.Score, m *eval.Metrics) FreeTextMeasures {
	out := FreeTextMeasures{TempoBPM: m.TempoBPM, Minor: m.Key.Minor, Key: m.Key.String(), Meter: fmt.Sprintf("%d/%d", m.MeterNum, m.MeterDen),
		Drums: m.HasDrums, DrumBars: m.DrumBarShare, Programs: append([]int{}, m.Programs...), NotesPerBeat: m.NotesPerBeat,
		Velocity: math.NaN(), Pitch: math.NaN()}
	if !m.HasDrums || math.IsNaN(out.DrumBars) {
		out.DrumBars = 0
	}
	var vs, ps float64
	var nv, np int
	for _, t := range s.Tracks {
		for _, n := range t.Notes {
			vs += float64(n.Velocity)
			nv++
			if !t.IsDrum {
				ps += float64(n.Pitch)
				np++
			}
		}
	}
	if nv > 0 {
		out.Velocity = vs / float64(nv)
	}
	if np > 0 {
		out.Pitch = ps / float64(np)
	}
	out.Lead = -1
	best := 0
	for _, pt := range m.Parts {
		pm := PartMeasure{Program: pt.Program, Top: eval.Num(math.NaN())}
		if m.MeasuredBars > 0 {
			pm.Bars = float64(pt.Bars) / float64(m.MeasuredBars)
			pm.NotesPerBar = float64(pt.Notes) / float64(m.MeasuredBars)
		}
		if m.TopOnsets > 0 {
			pm.Top = eval.Num(float64(pt.Top) / float64(m.TopOnsets))
		}
		if pt.Top > best {
			best, out.Lead = pt.Top, pt.Program
		}
		out.Parts = append(out.Parts, pm)
	}
	return out
}

// Check reports whether a piece meets the expectation.
func (e Expectation) Check(m FreeTextMeasures) bool {
	in := func(x float64) bool { return !math.IsNaN(x) && x >= e.lo && x <= e.hi }
	plays := func(set []int) bool {
		for _, p := range set {
			if p == -1 && m.Drums {
				return true
			}
			for _, q := range m.Programs {
				if p == q {
					return true
				}
			}
		}
		return false
	}
	switch e.kind {
	case "tempo":
		return in(m.TempoBPM)
	case "vel":
		return in(m.Velocity)
	case "npb":
		return in(m.NotesPerBeat)
	case "pitch":
		return in(m.Pitch)
	case "mode":
		return m.Key != "" && m.Minor == (e.word == "minor")
	case "drums":
		if e.word == "yes" {
			return m.DrumBars >= eval.DrumBarFloor
		}
		return !m.Drums
	case "meter":
		return m.Meter == e.word
	case "has":
		for _, set := range e.any {
			if plays(set) {
				return true
			}
		}
		return false
	case "no":
		for _, set := range e.any {
			if plays(set) {
				return false
			}
		}
		return true
	case "part":
		for _, set := range e.any {
			for _, p := range m.Parts {
				if slices.Contains(set, p.Program) && p.Real() {
					return true
				}
			}
		}
		return false
	case "lead":
		for _, set := range e.any {
			if m.Lead >= 0 && slices.Contains(set, m.Lead) {
				return true
			}
		}
		return false
	}
	return false
}

// FreeTextPiece is one prompt at one seed.
type FreeTextPiece struct {
	Seed     uint64           `json:"seed"`
	Error    string           `json:"error,omitempty"`
	Measures FreeTextMeasures `json:"measures"`
	Met      []bool           `json:"met"` // per expectation
	// Understood is what the prompt was read as for this seed.
	Understood *Understanding `json:"understood,omitempty"`
	// Parts is how the requested pitched programs play (eval.Adherence's
	// parts check: a real part in eval.PartBarFloor of the bars); nil when
	// the request names no pitched program.
	Parts *eval.PartScore `json:"parts,omitempty"`
}

// FreeTextResult is one prompt over its seeds.
type FreeTextResult struct {
	FreeTextPrompt
	Pieces []FreeTextPiece `json:"pieces"`
	// Majority per expectation: met in more than half the seeds.
	Majority []bool `json:"majority"`
	AllMet   bool   `json:"all_met"`
}

// FreeTextScore sums a part of the suite.
type FreeTextScore struct {
	Prompts      int     `json:"prompts"`
	Expectations int     `json:"expectations"`
	Met          int     `json:"met"`
	Rate         float64 `json:"rate"` // Met / Expectations (floor 0.90)
	AllMet       int     `json:"prompts_all_met"`
	AllMetRate   float64 `json:"prompts_all_met_rate"` // floor 0.75
	// PerSeedRate is the share of expectations met over every piece (no
	// majority), for comparison.
	PerSeedRate float64 `json:"per_seed_rate"`
	// Parts: over every piece whose request names pitched programs, the
	// requested ones (PartsRequested), those playing a real part (PartsReal;
	// PartShare, issue 33's floor 0.90) and the cameos under
	// eval.PartNoteFloor notes a bar (PartCameos, floor 0); NaN share when
	// none was requested.
	PartsRequested int      `json:"parts_requested"`
	PartsReal      int      `json:"parts_real"`
	PartShare      eval.Num `json:"part_share"`
	PartCameos     int      `json:"part_cameos"`
}

// PartTally counts one requested program over a suite's pieces: how often
// it was requested and how often it played a real part.
type PartTally struct {
	Program   int    `json:"program"`
	Name      string `json:"name"`
	Requested int    `json:"requested"`
	Real      int    `json:"real"`
}

// FreeTextReport is what `amt eval-model --freetext` prints.
type FreeTextReport struct {
	Model   string           `json:"model"`
	Suite   string           `json:"suite"`
	Seeds   []uint64         `json:"seeds"`
	Dev     FreeTextScore    `json:"dev"`
	HeldOut FreeTextScore    `json:"held_out"`
	All     FreeTextScore    `json:"all"`
	Seconds float64          `json:"seconds"`
	Results []FreeTextResult `json:"results"`
	// Instruments are the requested pitched programs over all pieces, by
	// program: requested and with a real part.
	Instruments []PartTally `json:"instruments,omitempty"`
}

// FreeTextOptions control EvalFreeText.
type FreeTextOptions struct {
	Seeds       []uint64 // default 1, 2, 3
	KeyBias     float32
	Candidates  int
	Temperature float64
	TopP        float64
	Bars        int    // 0: each prompt's, else DefaultBars
	Levers      Levers // the decoding levers of issue 24 (0: DefaultLevers)
}

// EvalFreeText generates each prompt with each seed through the prompt path
// (GenerateFromPrompt, as `amt generate` and Compose) and checks its
// expectations. progress (may be nil) sees the pieces done.
func EvalFreeText(ctx context.Context, m *Model, prompts []FreeTextPrompt, o FreeTextOptions, progress func(done, total int)) (*FreeTextReport, error) {
	seeds := o.Seeds
	if len(seeds) == 0 {
		seeds = []uint64{1, 2, 3}
	}
	rep := &FreeTextReport{Model: m.Dir, Seeds: seeds}
	start := time.Now()
	done := 0
	for _, fp := range prompts {
		res := FreeTextResult{FreeTextPrompt: fp}
		count := make([]int, len(fp.Expect))
		for _, sd := range seeds {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			piece := FreeTextPiece{Seed: sd, Met: make([]bool, len(fp.Expect))}
			r, err := GenerateFromPrompt(ctx, m, PromptRequest{Prompt: fp.Prompt, Seed: sd, Bars: o.Bars, KeyBias: o.KeyBias,
				Candidates: o.Candidates, Temperature: o.Temperature, TopP: o.TopP, Levers: o.Levers})
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				piece.Error = err.Error()
			} else {
				piece.Measures = MeasureFreeText(r.Score, &r.Metrics)
				piece.Understood = r.Understood
				piece.Parts = r.Adherence.Parts
				for i, e := range fp.Expect {
					if piece.Met[i] = e.Check(piece.Measures); piece.Met[i] {
						count[i]++
					}
				}
			}
			res.Pieces = append(res.Pieces, piece)
			done++
			if progress != nil {
				progress(done, len(prompts)*len(seeds))
			}
		}
		res.AllMet = true
		for i := range fp.Expect {
			ok := 2*count[i] > len(seeds)
			res.Majority = append(res.Majority, ok)
			res.AllMet = res.AllMet && ok
		}
		rep.Results = append(rep.Results, res)
	}
	rep.Dev = scoreFreeText(rep.Results, func(r FreeTextResult) bool { return !r.HeldOut })
	rep.HeldOut = scoreFreeText(rep.Results, func(r FreeTextResult) bool { return r.HeldOut })
	rep.All = scoreFreeText(rep.Results, func(FreeTextResult) bool { return true })
	rep.Instruments = tallyParts(rep.Results)
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// tallyParts counts each requested pitched program over the pieces.
func tallyParts(rs []FreeTextResult) []PartTally {
	by := map[int]*PartTally{}
	for _, r := range rs {
		for _, p := range r.Pieces {
			if p.Parts == nil {
				continue
			}
			for _, e := range p.Parts.Each {
				t := by[e.Program]
				if t == nil {
					t = &PartTally{Program: e.Program, Name: midi.ProgramName(e.Program)}
					by[e.Program] = t
				}
				t.Requested++
				if e.Real {
					t.Real++
				}
			}
		}
	}
	out := make([]PartTally, 0, len(by))
	for _, t := range by {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b PartTally) int { return a.Program - b.Program })
	return out
}

func scoreFreeText(rs []FreeTextResult, keep func(FreeTextResult) bool) FreeTextScore {
	var s FreeTextScore
	var seen, met int
	for _, r := range rs {
		if !keep(r) {
			continue
		}
		s.Prompts++
		s.Expectations += len(r.Majority)
		for _, ok := range r.Majority {
			if ok {
				s.Met++
			}
		}
		if r.AllMet {
			s.AllMet++
		}
		for _, p := range r.Pieces {
			for _, ok := range p.Met {
				seen++
				if ok {
					met++
				}
			}
			if p.Parts != nil {
				s.PartsRequested += p.Parts.Requested
				s.PartsReal += p.Parts.Real
				s.PartCameos += p.Parts.Cameos
			}
		}
	}
	s.PartShare = eval.Num(math.NaN())
	if s.PartsRequested > 0 {
		s.PartShare = eval.Num(float64(s.PartsReal) / float64(s.PartsRequested))
	}
	if s.Expectations > 0 {
		s.Rate = float64(s.Met) / float64(s.Expectations)
	}
	if s.Prompts > 0 {
		s.AllMetRate = float64(s.AllMet) / float64(s.Prompts)
	}
	if seen > 0 {
		s.PerSeedRate = float64(met) / float64(seen)
	}
	return s
}
