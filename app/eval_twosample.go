package app

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/decoding"
	"github.com/amtstudio/amt/engine/eval"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/text"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/internal/splitmix"
)

// The two-sample test (issue 24, `amt eval-model --two-sample`): can a
// classifier tell the model's music from real music? Real pieces are taken
// from the corpora; each is answered by the model through a prompt that
// states its own attributes (key, meter, tempo, instruments, genre), written
// as a user would type it and sent down the normal prompt path with the
// default decoding; the first bars of both sides are measured by the plain
// musical features of engine/eval (features.go) and two classifiers
// (standardised logistic regression, random forest; classify.go) are
// cross-validated on them. 50% means they cannot tell.
//
// Which real pieces. Training held out pieces by a hash of their index in
// the exported token shards (train.Dataset.Split, split seed 1), and that
// order is not reproducible from the corpora: ingestion writes pieces in
// the order its parallel stages finish and the style stage rewrites shards
// by cluster. And 3% of the 2,038 real pieces (about 60) is fewer than the
// test needs, while the arranged corpus carries POP909's and Nottingham's
// melodies into training whatever the split. So the test chooses by the
// same rule keyed by what is stable, each file's path within its corpus:
// the files ordered by a hash of (SelectSeed, corpus/file), the first
// PerGroup of each group (POP909; Nottingham; OpenMSX and Freedoom as
// "game") that hold a full excerpt. Most of them were seen in training;
// that matters little here (the model is asked for attributes, not for the
// piece, and the classifiers compare two sets of features), and the check
// that counts uses pieces from outside the training data: RealDirs takes
// any folder of MIDI files in their place.

// Groups of corpora the real pieces are drawn from.
var twoSampleGroups = []struct {
	name    string
	corpora []string
}{
	{RefPOP909, []string{corpus.POP909}},
	{RefNottingham, []string{corpus.Nottingham}},
	{"game", []string{corpus.OpenMSX, corpus.Freedoom}},
}

// TwoSampleOptions control TwoSample.
type TwoSampleOptions struct {
	// DataDir holds the corpora (pop909/, nottingham/, openmsx/,
	// freedoom/); RealDirs, when given, replace them (each folder a
	// group, its files all candidates).
	DataDir  string
	RealDirs []string
	// RealFiles, when given, replace both: one group named RealGroup of
	// these files (a fine-tune's held-out pieces, app/train_report.go).
	RealFiles []string
	RealGroup string
	PerGroup  int    // real pieces per group (0: 40)
	Bars      int    // bars compared (0: 16)
	Seed      uint64 // the i-th piece is generated with seed Seed+i
	// SelectSeed orders the files (0: 1, the split seed of training).
	SelectSeed uint64
	// Exclude names files (as the report names them, corpus/file) that
	// are not chosen: the pieces of another run, so a critic is trained
	// on pieces the evaluation does not use.
	Exclude []string
	// Request is the decoding (KeyBias, Candidates, Temperature, TopP,
	// Form, RhythmBias …); its Prompt, Bars and Seed are set per piece.
	Request        PromptRequest
	Folds, Repeats int // cross-validation (0: 5 and 10)
	Trees          int // random forest (0: eval.DefaultTrees)
}

func (o *TwoSampleOptions) defaults() {
	if o.PerGroup <= 0 {
		o.PerGroup = 40
	}
	if o.Bars <= 0 {
		o.Bars = DefaultBars
	}
	if o.SelectSeed == 0 {
		o.SelectSeed = 1
	}
	if o.Folds <= 0 {
		o.Folds = 5
	}
	if o.Repeats <= 0 {
		o.Repeats = 10
	}
}

// Nums converts features to JSON-safe numbers (NaN as null).
func Nums(xs []float64) []eval.Num {
	out := make([]eval.Num, len(xs))
	for i, x := range xs {
		out[i] = eval.Num(x)
	}
	return out
}

func floats(xs []eval.Num) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// TwoSamplePiece is one real piece and the model's answer to its prompt.
type TwoSamplePiece struct {
	Group    string `json:"group"`
	File     string `json:"file"`      // corpus/file
	StartBar int    `json:"start_bar"` // 0-based bar of the excerpt's start
	Prompt   string `json:"prompt"`
	// PromptOK: the prompt reads back as the attributes measured from the
	// real excerpt (else PromptProblem says what differs).
	PromptOK      bool           `json:"prompt_ok"`
	PromptProblem string         `json:"prompt_problem,omitempty"`
	Seed          uint64         `json:"seed"`
	Real          []eval.Num     `json:"real"`
	Tokenized     []eval.Num     `json:"tokenized,omitempty"` // the real excerpt encoded and decoded
	Generated     []eval.Num     `json:"generated,omitempty"`
	Error         string         `json:"error,omitempty"`
	Tried         int            `json:"candidates"`
	Tokens        int            `json:"tokens"`
	Seconds       float64        `json:"seconds"`
	Adherence     eval.Adherence `json:"adherence"`
	// ProbGenerated is the random forest's held-out probability that the
	// generated piece is generated (averaged over the repeats); ProbReal
	// the same for the real piece.
	ProbGenerated eval.Num `json:"prob_generated"`
	ProbReal      eval.Num `json:"prob_real"`

	realScore, genScore *midi.Score
}

// FeatureRow is one feature of the report: medians of each side, how well
// it tells them apart alone (a stump's cross-validated accuracy), its
// permutation importance in the forest and its standardised coefficient in
// the logistic regression fitted on all rows (> 0: higher in generated).
type FeatureRow struct {
	Name       string   `json:"name"`
	Doc        string   `json:"doc"`
	Real       eval.Num `json:"real"`
	Generated  eval.Num `json:"generated"`
	Tokenized  eval.Num `json:"tokenized"`
	RealMean   eval.Num `json:"real_mean"`
	GenMean    eval.Num `json:"generated_mean"`
	Single     eval.Num `json:"single_accuracy"`
	Importance eval.Num `json:"importance"`
	Coef       eval.Num `json:"lr_coef"`
}

// CVResult is a cross-validated classifier's accuracy with its interval
// (engine/eval), as the report carries it.
type CVResult = eval.CVResult

// NumTwoSampleFeatures is how many features describe a piece.
const NumTwoSampleFeatures = eval.NumFeatures

// TwoSampleReport is what `amt eval-model --two-sample` prints and saves.
type TwoSampleReport struct {
	Kind        string         `json:"kind"` // "two-sample"
	Model       string         `json:"model"`
	Bars        int            `json:"bars"`
	Selection   string         `json:"selection"`
	Groups      map[string]int `json:"groups"`
	Pairs       int            `json:"pairs"` // real pieces answered
	KeyBias     float32        `json:"key_bias"`
	Candidates  int            `json:"candidates"`
	Temperature float64        `json:"temperature"`
	TopP        float64        `json:"top_p"`
	Form        string         `json:"form"`
	Decoding    string         `json:"decoding"` // the levers in force (DecodingName)
	// LR and RF tell generated from real; Accuracy is the better of the two.
	LR       *eval.CVResult `json:"logistic_regression"`
	RF       *eval.CVResult `json:"random_forest"`
	Accuracy float64        `json:"accuracy"`
	// RepresentationLR and RepresentationRF tell the real excerpts from the
	// same excerpts encoded and decoded by the tokenizer: what the
	// representation alone gives away (50%: nothing).
	RepresentationLR *eval.CVResult `json:"representation_lr"`
	RepresentationRF *eval.CVResult `json:"representation_rf"`
	// Unseen is the random forest on the features the critic does not see
	// (all but CriticFeatures): the check that a critic made the music
	// more real rather than more like what it measures.
	Unseen   *eval.CVResult `json:"unseen_rf"`
	Features []FeatureRow   `json:"features"`
	// WhatIf is the what-if analysis (eval.WhatIf): the classifiers with
	// one family of features of the generated pieces matched to other real
	// pieces of their group, alone and one family after another;
	// WhatIfBase the same cross-validation with nothing matched;
	// WhatIfGroups the groups by stratum id (the forest's accuracy within
	// each, eval.WhatIfFigures.Strata).
	WhatIfBase     *eval.WhatIfFigures   `json:"what_if_base,omitempty"`
	WhatIf         []eval.WhatIfRow      `json:"what_if,omitempty"`
	WhatIfGroups   []string              `json:"what_if_groups,omitempty"`
	WhatIfRepeats  int                   `json:"what_if_repeats,omitempty"`
	Floors         []Floor               `json:"floors"`
	PromptMismatch int                   `json:"prompt_mismatch"`
	Adherence      eval.AdherenceSummary `json:"adherence"`
	// Seconds16 is the mean wall time of one generated piece (all its
	// candidates); TokensPerSecond over the generation.
	Seconds16       eval.Num         `json:"seconds_per_piece"`
	TokensPerSecond float64          `json:"tokens_per_second"`
	Seconds         float64          `json:"seconds"`
	Pieces          []TwoSamplePiece `json:"pieces"`
	// Copies: the generated pieces' longest runs copied from training
	// pieces (MeasureCopies, app/eval_copies.go), when measured.
	Copies *CopyReport `json:"copies,omitempty"`
}

// The names the what-if rows key their accuracies by (eval.Learner.Name).
var (
	ForestName = eval.RandomForest{}.Name()
	LinearName = eval.LogisticRegression{}.Name()
)

// WhatIfRepeats bounds the cross-validation repeats of the what-if
// analysis (TwoSampleReport.WhatIf).
const WhatIfRepeats = 5

// Floors of issue 24 on the two-sample test.
const (
	floorClassifier  = 0.80
	floorDupShare    = 0.01
	ChordCap         = decoding.ChordCap
	floorLeapsRatio  = 1.5
	floorSilentRatio = 2
	floorExactLo     = 0.5
	floorExactHi     = 1.5
	floorRhythmRatio = 0.8
)

// excerpt returns bars whole bars of s from the bar holding its first note
// onset, moved to tick 0 with the meter and tempo in force there, notes
// sounding past the end cut; ok is false when s holds fewer (its last onset
// falls before the excerpt's last bar).
func excerpt(s *midi.Score, bars int) (out *midi.Score, start int, ok bool) {
	first, last := int64(math.MaxInt64), int64(-1)
	for _, tr := range s.Tracks {
		for _, n := range tr.Notes {
			first, last = min(first, n.Tick), max(last, n.Tick)
		}
	}
	if last < 0 {
		return nil, 0, false
	}
	// Bar starts through the last onset.
	n := 1
	var starts []int64
	for {
		st, end := eval.ExcerptBars(s, n)
		if end > last || n > 1<<16 {
			starts = append(st, end)
			break
		}
		n *= 2
	}
	b0 := sort.Search(len(starts), func(i int) bool { return starts[i] > first }) - 1
	if b0 < 0 || b0+bars >= len(starts) || starts[b0+bars-1] > last {
		return nil, 0, false
	}
	S, E := starts[b0], starts[b0+bars]
	out = &midi.Score{Format: 1, TicksPerBeat: s.TicksPerBeat, Title: s.Title, EndTick: E - S}
	num, den, mpb := 4, 4, midi.DefaultMicrosPerBeat
	for _, m := range s.Meters {
		if m.Tick <= S {
			num, den = m.Num, m.Den
		} else if m.Tick < E {
			out.Meters = append(out.Meters, midi.MeterChange{Tick: m.Tick - S, Num: m.Num, Den: m.Den})
		}
	}
	out.Meters = append([]midi.MeterChange{{Tick: 0, Num: num, Den: den}}, out.Meters...)
	for _, t := range s.Tempos {
		if t.Tick <= S {
			mpb = t.MicrosPerBeat
		} else if t.Tick < E {
			out.Tempos = append(out.Tempos, midi.TempoChange{Tick: t.Tick - S, MicrosPerBeat: t.MicrosPerBeat})
		}
	}
	out.Tempos = append([]midi.TempoChange{{Tick: 0, MicrosPerBeat: mpb}}, out.Tempos...)
	for _, tr := range s.Tracks {
		t := tr
		t.Notes = nil
		for _, nt := range tr.Notes {
			if nt.Tick < S || nt.Tick >= E {
				continue
			}
			nt.Tick -= S
			nt.Dur = min(nt.Dur, E-S-nt.Tick)
			t.Notes = append(t.Notes, nt)
		}
		if len(t.Notes) > 0 {
			out.Tracks = append(out.Tracks, t)
		}
	}
	out.ComputeSeconds()
	return out, b0, true
}

// genrePhrase is how a user would name the kind of piece a corpus file
// is, and a plainer fallback for when the words imply another meter than
// the piece's.
func genrePhrase(group, file string) (phrase, fallback string) {
	base := strings.ToLower(filepath.Base(file))
	switch group {
	case RefPOP909:
		return "A pop song", "A pop song"
	case RefNottingham:
		for _, p := range [][2]string{{"jigs", "A jig"}, {"reels", "A reel"}, {"hpps", "A hornpipe"}, {"waltzes", "A waltz"},
			{"slip", "A slip jig"}, {"morris", "A morris dance"}, {"playford", "A Playford country dance"},
			{"xmas", "A Christmas carol"}, {"ashover", "An English folk tune"}} {
			if strings.HasPrefix(base, p[0]) {
				return p[1], "A folk tune"
			}
		}
		return "A folk tune", "A folk tune"
	case "game":
		return "A video game tune", "A video game tune"
	}
	return "A piece", "A piece"
}

// TwoSamplePrompt writes the prompt a user would type for attributes a
// (tempo bins of v)
// (key, meter, tempo, instruments and drums) after phrase ("A jig"): "A jig
// in D major, 6/8, 112 bpm, for violin and piano".
func TwoSamplePrompt(v *token.Vocab, phrase string, a token.Attributes) string {
	var b strings.Builder
	b.WriteString(phrase)
	if a.KeyTonic >= 0 {
		b.WriteString(" in " + (midi.Key{Tonic: a.KeyTonic, Minor: a.KeyMinor}).String())
	}
	if a.MeterNum > 0 {
		fmt.Fprintf(&b, ", %d/%d", a.MeterNum, a.MeterDen)
	}
	if a.TempoBPM > 0 {
		// A whole number, as a user types it, in the tempo's bin (79.5 is
		// written 79, not 80, when 80 starts the next bin).
		bpm := math.Round(a.TempoBPM)
		if v.TempoBin(bpm) != v.TempoBin(a.TempoBPM) {
			bpm = math.Floor(a.TempoBPM)
			if v.TempoBin(bpm) != v.TempoBin(a.TempoBPM) {
				bpm = math.Ceil(a.TempoBPM)
			}
		}
		fmt.Fprintf(&b, ", %d bpm", int(bpm))
	}
	var names []string
	seen := map[string]bool{}
	for _, p := range a.Programs {
		if n := text.InstrumentName(p); n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if a.Drums != nil && *a.Drums {
		names = append(names, "drums")
	}
	switch len(names) {
	case 0:
	case 1:
		b.WriteString(", for " + names[0])
	default:
		b.WriteString(", for " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1])
	}
	return b.String()
}

// twoSamplePrompt is the first prompt that reads back as attributes a
// (promptProblem) for seed: after each phrase in turn (the genre's, then a
// plainer one), as TwoSamplePrompt writes it and, for a piece without
// drums, followed by "without drums" (a style's words imply a drum kit: "a
// pop song for piano" is asked with one). With none, the first prompt and
// its problem.
func twoSamplePrompt(v *token.Vocab, phrases []string, a token.Attributes, bars int, seed uint64) (prompt, problem string) {
	for _, ph := range phrases {
		base := TwoSamplePrompt(v, ph, a)
		for _, suffix := range []string{"", " without drums"} {
			if suffix != "" && a.Drums != nil && *a.Drums {
				continue
			}
			p := base + suffix
			prob := promptProblem(v, p, a, bars, seed)
			if prob == "" {
				return p, ""
			}
			if prompt == "" {
				prompt, problem = p, prob
			}
		}
	}
	return prompt, problem
}

// promptProblem says how the attributes the prompt reads as, for seed,
// differ from want ("" when they agree as the model is asked: tempo bin,
// key, meter, trained programs, drums). It reads the prompt as generation
// does (Understand: the attributes named and those the words imply).
func promptProblem(v *token.Vocab, prompt string, want token.Attributes, bars int, seed uint64) string {
	got := Understand(UnderstandRequest{Prompt: prompt, Seed: seed, Bars: bars}, v).Attrs
	var out []string
	if want.TempoBPM > 0 && (got.TempoBPM <= 0 || v.TempoBin(got.TempoBPM) != v.TempoBin(want.TempoBPM)) {
		out = append(out, fmt.Sprintf("tempo %g for %g", got.TempoBPM, want.TempoBPM))
	}
	if got.KeyTonic != want.KeyTonic || got.KeyMinor != want.KeyMinor {
		out = append(out, "key")
	}
	if got.MeterNum != want.MeterNum || got.MeterDen != want.MeterDen {
		out = append(out, fmt.Sprintf("meter %d/%d for %d/%d", got.MeterNum, got.MeterDen, want.MeterNum, want.MeterDen))
	}
	if !slices.Equal(got.Programs, decoding.NearestPrograms(want.Programs)) {
		out = append(out, fmt.Sprintf("programs %v for %v", got.Programs, want.Programs))
	}
	wd := want.Drums != nil && *want.Drums
	gd := got.Drums != nil && *got.Drums
	if wd != gd {
		out = append(out, "drums")
	}
	return strings.Join(out, ", ")
}

// pathRank orders files by a hash of (seed, name).
func pathRank(seed uint64, name string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", seed, name)
	return splitmix.Mix64(h.Sum64())
}

// realPieces chooses and cuts the real pieces (see the file comment).
func realPieces(ctx context.Context, v *token.Vocab, o *TwoSampleOptions) ([]TwoSamplePiece, map[string]int, error) {
	type group struct {
		name  string
		files []string // absolute
		rel   []string // as named in the report
	}
	var groups []group
	if len(o.RealFiles) > 0 {
		g := group{name: o.RealGroup}
		for _, f := range o.RealFiles {
			g.files = append(g.files, f)
			g.rel = append(g.rel, filepath.Join(o.RealGroup, filepath.Base(f)))
		}
		groups = append(groups, g)
	} else if len(o.RealDirs) > 0 {
		for _, d := range o.RealDirs {
			files, err := corpus.List(d)
			if err != nil {
				return nil, nil, fmt.Errorf("two-sample: real pieces %s: %w", d, err)
			}
			g := group{name: filepath.Base(filepath.Clean(d))}
			for _, f := range files {
				g.files = append(g.files, f)
				g.rel = append(g.rel, filepath.Join(g.name, strings.TrimPrefix(f, filepath.Clean(d)+string(filepath.Separator))))
			}
			groups = append(groups, g)
		}
	} else {
		if o.DataDir == "" {
			return nil, nil, fmt.Errorf("%w: two-sample: no corpora folder (../shared/data or AMT_SHARED_DATA) and no --real folder", ErrUsage)
		}
		for _, gs := range twoSampleGroups {
			g := group{name: gs.name}
			for _, c := range gs.corpora {
				dir := filepath.Join(o.DataDir, c)
				if st, err := os.Stat(dir); err != nil || !st.IsDir() {
					return nil, nil, fmt.Errorf("two-sample: corpora folder %s has no %s folder", o.DataDir, c)
				}
				files, err := corpus.List(dir)
				if err != nil {
					return nil, nil, fmt.Errorf("two-sample: %w", err)
				}
				for _, f := range files {
					g.files = append(g.files, f)
					g.rel = append(g.rel, filepath.Join(c, strings.TrimPrefix(f, dir+string(filepath.Separator))))
				}
			}
			groups = append(groups, g)
		}
	}
	var out []TwoSamplePiece
	counts := map[string]int{}
	excluded := map[string]bool{}
	for _, f := range o.Exclude {
		excluded[f] = true
	}
	for _, g := range groups {
		idx := make([]int, len(g.files))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, b int) bool {
			return pathRank(o.SelectSeed, g.rel[idx[a]]) < pathRank(o.SelectSeed, g.rel[idx[b]])
		})
		for _, i := range idx {
			if counts[g.name] >= o.PerGroup {
				break
			}
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			if excluded[g.rel[i]] {
				continue
			}
			s, err := midi.ReadFile(g.files[i])
			if err != nil {
				continue
			}
			midi.Prepare(s)
			ex, start, ok := excerpt(s, o.Bars)
			if !ok {
				continue
			}
			f, err := eval.PieceFeatures(ex, o.Bars)
			if err != nil {
				continue
			}
			a := v.Measure(ex, midi.Analyze(ex))
			phrase, fallback := genrePhrase(g.name, g.rel[i])
			seed := o.Seed + uint64(len(out))
			prompt, prob := twoSamplePrompt(v, []string{phrase, fallback}, a, o.Bars, seed)
			p := TwoSamplePiece{Group: g.name, File: g.rel[i], StartBar: start, Prompt: prompt, PromptOK: prob == "",
				PromptProblem: prob, Real: Nums(f), realScore: ex}
			// The same excerpt as the tokenizer writes it.
			if toks, err := v.Encode(ex, a); err == nil {
				if sc, _, err := v.Decode(toks); err == nil {
					if tf, err := eval.PieceFeatures(sc, o.Bars); err == nil {
						p.Tokenized = Nums(tf)
					}
				}
			}
			out = append(out, p)
			counts[g.name]++
		}
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("two-sample: no real piece holds %d bars", o.Bars)
	}
	return out, counts, nil
}

// TwoSample runs the test: real pieces, the model's answers, features,
// classifiers, the table and the floors. progress (may be nil) sees the
// pieces generated so far and their number.
func TwoSample(ctx context.Context, m *Model, o TwoSampleOptions, progress func(done, total int)) (*TwoSampleReport, error) {
	o.defaults()
	start := time.Now()
	v := m.Vocab
	pieces, counts, err := realPieces(ctx, v, &o)
	if err != nil {
		return nil, err
	}
	req := o.Request
	req.Levers = m.levers(req.Levers) // as GenerateFromPrompt resolves them, for the report's name
	rep := &TwoSampleReport{Kind: "two-sample", Model: m.Dir, Bars: o.Bars, Groups: counts,
		KeyBias: req.KeyBias, Candidates: max(req.Candidates, 1), Temperature: req.Temperature, TopP: req.TopP, Form: req.Form,
		Decoding:  DecodingName(req),
		Selection: fmt.Sprintf("%d a group, files ordered by a hash of (seed %d, corpus/file), excerpts from the first bar with a note", o.PerGroup, o.SelectSeed)}
	if rep.Temperature == 0 {
		rep.Temperature = DefaultTemperature
	}
	if rep.TopP == 0 {
		rep.TopP = DefaultTopP
	}
	if len(o.RealDirs) > 0 {
		rep.Selection = fmt.Sprintf("%d a folder of %s, files ordered by a hash of (seed %d, folder/file)", o.PerGroup, strings.Join(o.RealDirs, ", "), o.SelectSeed)
	}
	if len(o.RealFiles) > 0 {
		rep.Selection = fmt.Sprintf("%d of %d files (%s), ordered by a hash of (seed %d, name)", o.PerGroup, len(o.RealFiles), o.RealGroup, o.SelectSeed)
	}
	if len(o.Exclude) > 0 {
		rep.Selection += fmt.Sprintf(", %d files excluded", len(o.Exclude))
	}
	var ads []eval.Adherence
	var secs float64
	toks := 0
	for i := range pieces {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := &pieces[i]
		if !p.PromptOK {
			rep.PromptMismatch++
		}
		r := req
		r.Prompt, r.Bars, r.Seed, r.OnToken = p.Prompt, o.Bars, o.Seed+uint64(i), nil
		p.Seed = r.Seed
		res, err := GenerateFromPrompt(ctx, m, r)
		if err == nil {
			var f []float64
			if f, err = eval.PieceFeatures(res.Score, o.Bars); err == nil {
				p.Generated, p.genScore = Nums(f), res.Score
				p.Tried, p.Tokens, p.Seconds, p.Adherence = res.Tried, res.Sampled, res.Seconds, res.Adherence
				ads = append(ads, res.Adherence)
				secs += res.Seconds
				toks += res.Sampled
			}
		}
		if err != nil {
			p.Error = err.Error()
		}
		if progress != nil {
			progress(i+1, len(pieces))
		}
	}
	rep.Pieces = pieces
	rep.Adherence = eval.SummarizeAdherence(ads)
	if len(ads) > 0 {
		rep.Seconds16 = eval.Num(secs / float64(len(ads)))
		rep.TokensPerSecond = float64(toks) / secs
	}
	if err := rep.classify(o); err != nil {
		return nil, err
	}
	rep.judge()
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// Reclassify re-runs the classifiers, the what-if analysis and the floors
// on the features a saved report holds (`amt eval-model --two-sample --from
// FILE`) with o's Folds, Repeats and Trees (the rest is unused): no
// model and no generation, so a change to the classifiers or the analysis
// can be read on runs already made. The features must be those this build measures,
// in its order; the pieces, adherence and timings are kept.
func (rep *TwoSampleReport) Reclassify(o TwoSampleOptions) error {
	if len(rep.Features) != eval.NumFeatures {
		return fmt.Errorf("two-sample: the report holds %d features, this build measures %d: run the test again", len(rep.Features), eval.NumFeatures)
	}
	for j, f := range rep.Features {
		if f.Name != eval.Features[j].Name {
			return fmt.Errorf("two-sample: the report's feature %d is %q, this build's %q: run the test again", j+1, f.Name, eval.Features[j].Name)
		}
	}
	for i, p := range rep.Pieces {
		for _, v := range [][]eval.Num{p.Real, p.Generated} {
			if v != nil && len(v) != eval.NumFeatures {
				return fmt.Errorf("two-sample: piece %d (%s): %d features, want %d", i+1, p.File, len(v), eval.NumFeatures)
			}
		}
		if p.Real == nil && p.Generated != nil {
			return fmt.Errorf("two-sample: piece %d (%s): generated features without the real ones", i+1, p.File)
		}
		if p.Tokenized != nil && len(p.Tokenized) != eval.NumFeatures {
			return fmt.Errorf("two-sample: piece %d (%s): %d tokenized features, want %d", i+1, p.File, len(p.Tokenized), eval.NumFeatures)
		}
	}
	o.defaults()
	rep.Pairs, rep.Features = 0, nil
	if err := rep.classify(o); err != nil {
		return err
	}
	rep.judge()
	return nil
}

// classify fits the classifiers and fills the accuracies, the held-out
// probabilities of the pieces and the feature table.
func (rep *TwoSampleReport) classify(o TwoSampleOptions) error {
	var X, T [][]float64
	var y, ty, g, tg []int
	var rows [][2]int // piece, side (0 real, 1 generated)
	for i, p := range rep.Pieces {
		if p.Generated == nil {
			continue
		}
		rep.Pairs++
		X = append(X, floats(p.Real), floats(p.Generated))
		y = append(y, 0, 1)
		rows = append(rows, [2]int{i, 0}, [2]int{i, 1})
		g = append(g, i, i)
		if p.Tokenized != nil {
			T = append(T, floats(p.Real), floats(p.Tokenized))
			ty = append(ty, 0, 1)
			tg = append(tg, i, i)
		}
	}
	if rep.Pairs < o.Folds {
		return fmt.Errorf("two-sample: %d pieces generated, %d-fold cross-validation needs %d", rep.Pairs, o.Folds, o.Folds)
	}
	// A real piece and its answer share a fold (eval.CVOptions.Groups).
	cv := eval.CVOptions{Folds: o.Folds, Repeats: o.Repeats, Seed: 24, Groups: g}
	var err error
	if rep.LR, err = eval.CrossValidate(eval.LogisticRegression{}, X, y, cv); err != nil {
		return err
	}
	cvi := cv
	cvi.Importance = true
	if rep.RF, err = eval.CrossValidate(eval.RandomForest{Trees: o.Trees}, X, y, cvi); err != nil {
		return err
	}
	rep.Accuracy = max(rep.LR.Accuracy, rep.RF.Accuracy)
	for k, r := range rows {
		if r[1] == 1 {
			rep.Pieces[r[0]].ProbGenerated = eval.Num(rep.RF.Prob[k])
		} else {
			rep.Pieces[r[0]].ProbReal = eval.Num(rep.RF.Prob[k])
		}
	}
	if len(T) >= 2*o.Folds {
		cvt := cv
		cvt.Groups = tg
		rep.RepresentationLR, _ = eval.CrossValidate(eval.LogisticRegression{}, T, ty, cvt)
		rep.RepresentationRF, _ = eval.CrossValidate(eval.RandomForest{Trees: o.Trees}, T, ty, cvt)
	}
	seen := map[int]bool{}
	for _, f := range CriticFeatures {
		seen[eval.FeatureIndex(f)] = true
	}
	var U [][]float64
	for _, x := range X {
		var u []float64
		for j, v := range x {
			if !seen[j] {
				u = append(u, v)
			}
		}
		U = append(U, u)
	}
	if rep.Unseen, err = eval.CrossValidate(eval.RandomForest{Trees: o.Trees}, U, y, cv); err != nil {
		return err
	}
	strata := make([]int, len(rows))
	ids := map[string]int{}
	rep.WhatIfGroups = nil
	for k, r := range rows {
		grp := rep.Pieces[r[0]].Group
		if _, ok := ids[grp]; !ok {
			ids[grp] = len(ids)
			rep.WhatIfGroups = append(rep.WhatIfGroups, grp)
		}
		strata[k] = ids[grp]
	}
	// At most WhatIfRepeats repeats: the analysis is 19 cross-validations
	// of both learners (about 50 s for 240 pieces on the 2-core VM with 5
	// repeats, twice that with 10).
	cw := cv
	cw.Repeats = min(max(o.Repeats, 1), WhatIfRepeats)
	rep.WhatIfRepeats = cw.Repeats
	base, whatIf, err := eval.WhatIf([]eval.Learner{eval.RandomForest{Trees: o.Trees}, eval.LogisticRegression{}},
		X, y, strata, eval.Families, cw)
	if err != nil {
		return err
	}
	rep.WhatIfBase, rep.WhatIf = &base, whatIf
	full, err := eval.LogisticRegression{}.Fit(X, y, 0)
	if err != nil {
		return err
	}
	lr := full.(*eval.LRModel)
	for j, f := range eval.Features {
		var re, ge, te []float64
		for k := range X {
			if y[k] == 0 {
				re = append(re, X[k][j])
			} else {
				ge = append(ge, X[k][j])
			}
		}
		for k := range T {
			if ty[k] == 1 {
				te = append(te, T[k][j])
			}
		}
		st, err := eval.CrossValidate(eval.Stump{Feature: j}, X, y, cv)
		if err != nil {
			return err
		}
		rep.Features = append(rep.Features, FeatureRow{Name: f.Name, Doc: f.Doc,
			Real: eval.Num(eval.Median(re)), Generated: eval.Num(eval.Median(ge)), Tokenized: eval.Num(eval.Median(te)),
			RealMean: eval.Describe(re).Mean, GenMean: eval.Describe(ge).Mean,
			Single: eval.Num(st.Accuracy), Importance: eval.Num(rep.RF.Importance[j]), Coef: eval.Num(lr.W[j])})
	}
	return nil
}

// Feature returns the row of the feature named name (nil when absent).
func (rep *TwoSampleReport) Feature(name string) *FeatureRow {
	for i := range rep.Features {
		if rep.Features[i].Name == name {
			return &rep.Features[i]
		}
	}
	return nil
}

// judge fills the floors of issue 24:
//
//   - classifier: the better of the two cross-validated accuracies ≤ 0.80;
//   - dup_share: the mean over generated pieces of the share of notes
//     struck twice at one onset by one program ≤ 1%;
//   - max_chord: the largest chord of one program at one onset over all
//     generated pieces ≤ ChordCap, the corpora's 99th percentile;
//   - top_leaps ≤ 1.5× and silent_16ths ≤ 2× the real pieces' (medians);
//   - exact_repeat within 0.5–1.5× and rhythm_repeat ≥ 0.8× the real
//     pieces' (means: a median of shares of 15 bars moves in steps of 1/15).
func (rep *TwoSampleReport) judge() {
	rep.Floors = nil
	add := func(name, what string, v float64, op string, limit float64, n int) {
		rep.Floors = append(rep.Floors, judgeFloor(name, what, v, op, limit, n))
	}
	n := rep.Pairs
	add("classifier", "the better cross-validated accuracy (logistic regression, random forest)", rep.Accuracy, "<=", floorClassifier, n)
	col := func(j int) []float64 {
		var xs []float64
		for _, p := range rep.Pieces {
			if p.Generated != nil {
				xs = append(xs, float64(p.Generated[j]))
			}
		}
		return xs
	}
	add("dup_share", "mean share of generated notes struck twice at one onset by one program", float64(eval.Describe(col(eval.FDupShare)).Mean), "<=", floorDupShare, n)
	mc := math.NaN()
	for _, x := range col(eval.FMaxChord) {
		if math.IsNaN(mc) || x > mc {
			mc = x
		}
	}
	add("max_chord", "largest chord of one program at one onset, all generated pieces", mc, "<=", ChordCap, n)
	ratio := func(name string, mean bool) float64 {
		r := rep.Feature(name)
		if r == nil {
			return math.NaN()
		}
		if mean {
			return float64(r.GenMean) / float64(r.RealMean)
		}
		return float64(r.Generated) / float64(r.Real)
	}
	add("top_leaps", "top-line leaps over 7 semitones, generated median / real median", ratio("top_leaps", false), "<=", floorLeapsRatio, n)
	add("silent_16ths", "16th points with nothing sounding, generated median / real median", ratio("silent_16ths", false), "<=", floorSilentRatio, n)
	add("exact_repeat", "bars repeating an earlier bar exactly, generated mean / real mean (0.5–1.5)", ratio("exact_repeat", true), "in", floorExactHi, n)
	add("rhythm_repeat", "bars repeating an earlier bar's rhythm, generated mean / real mean", ratio("rhythm_repeat", true), ">=", floorRhythmRatio, n)
}

// DecodingName names the decoding of a request: form and rhythm bias when
// not the default, and the levers in force.
func DecodingName(r PromptRequest) string {
	var parts []string
	if r.Form != "" && r.Form != "auto" {
		parts = append(parts, "form "+r.Form)
	}
	if r.RhythmBias != 0 {
		parts = append(parts, "rhythm bias "+strconv.FormatFloat(float64(r.RhythmBias), 'g', -1, 32))
	}
	parts = append(parts, "levers "+r.Levers.String())
	return strings.Join(parts, ", ")
}

// WriteTwoSampleRolls writes every pair's MIDI files into dir
// (gen-NNN.mid, real-NNN.mid, NNN the piece's number in the report) and
// draws into dir/rolls.png, for each group of real pieces, the
// ⌈count/groups⌉ generated pieces the forest found most generated-looking
// (highest held-out probability), each beside the real piece whose prompt
// it answered (both their first bars bars).
func WriteTwoSampleRolls(dir string, rep *TwoSampleReport, count int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("rolls: %w", err)
	}
	byGroup := map[string][]int{}
	var groups []string
	for i, p := range rep.Pieces {
		if p.genScore == nil || p.realScore == nil {
			continue
		}
		if err := midi.WriteFile(filepath.Join(dir, fmt.Sprintf("gen-%03d.mid", i+1)), p.genScore); err != nil {
			return fmt.Errorf("rolls: %w", err)
		}
		if err := midi.WriteFile(filepath.Join(dir, fmt.Sprintf("real-%03d.mid", i+1)), p.realScore); err != nil {
			return fmt.Errorf("rolls: %w", err)
		}
		if byGroup[p.Group] == nil {
			groups = append(groups, p.Group)
		}
		byGroup[p.Group] = append(byGroup[p.Group], i)
	}
	if len(groups) == 0 {
		return fmt.Errorf("rolls: no generated piece to draw")
	}
	per := (count + len(groups) - 1) / len(groups)
	const px = 12
	var scores []*midi.Score
	var captions []string
	for _, g := range groups {
		idx := byGroup[g]
		sort.SliceStable(idx, func(a, b int) bool { return rep.Pieces[idx[a]].ProbGenerated > rep.Pieces[idx[b]].ProbGenerated })
		for _, i := range idx[:min(per, len(idx))] {
			p := &rep.Pieces[i]
			scores = append(scores, p.genScore, p.realScore)
			captions = append(captions, captionFit(fmt.Sprintf("%d generated (p %.2f): %s", i+1, float64(p.ProbGenerated), p.Prompt), rep.Bars, px),
				captionFit(fmt.Sprintf("real: %s from bar %d", p.File, p.StartBar+1), rep.Bars, px))
		}
	}
	return DrawRolls(filepath.Join(dir, "rolls.png"), scores, captions, nil, RollOptions{Bars: rep.Bars, Cols: 2, PxPerBeat: px})
}

// Save writes the report, every piece included, as JSON (atomically).
func (rep *TwoSampleReport) Save(path string) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("two-sample: %w", err)
	}
	if err := WriteOutputBytes(path, append(data, '\n')); err != nil {
		return fmt.Errorf("two-sample: save %s: %w", path, err)
	}
	return nil
}

// ReadTwoSampleReport reads a report saved by `amt eval-model --two-sample
// --save`; ok is false (and err nil) when the file is another kind of
// report.
func ReadTwoSampleReport(path string) (rep *TwoSampleReport, ok bool, err error) {
	data, err := ReadInput(path)
	if err != nil {
		return nil, false, err
	}
	var r TwoSampleReport
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, false, fmt.Errorf("%s: not a report: %w", path, err)
	}
	if r.Kind != "two-sample" {
		return nil, false, nil
	}
	return &r, true, nil
}

// TwoSampleDiff sets two two-sample reports side by side (`amt
// eval-compare`): accuracies, floors and every feature's generated median
// before and after, with the real median of the new report.
type TwoSampleDiff struct {
	Old, New TwoSampleSide
	SameReal bool          `json:"same_real_pieces"`
	Floors   []FloorDiff   `json:"floors"`
	Features []FeatureDiff `json:"features"`
}

// TwoSampleSide is one report's headline in a TwoSampleDiff.
type TwoSampleSide struct {
	Model    string  `json:"model"`
	Decoding string  `json:"decoding"`
	LR       float64 `json:"lr"`
	RF       float64 `json:"rf"`
	Pairs    int     `json:"pairs"`
	Seconds  float64 `json:"seconds_per_piece"`
}

// FeatureDiff is one feature before and after.
type FeatureDiff struct {
	Name   string   `json:"name"`
	Real   eval.Num `json:"real"`
	Old    eval.Num `json:"old"`
	New    eval.Num `json:"new"`
	OldAcc eval.Num `json:"old_single_accuracy"`
	NewAcc eval.Num `json:"new_single_accuracy"`
}

// CompareTwoSample compares two two-sample reports.
func CompareTwoSample(old, cur *TwoSampleReport) *TwoSampleDiff {
	d := &TwoSampleDiff{}
	fill := func(r *TwoSampleReport) (out TwoSampleSide) {
		out.Model, out.Decoding, out.Pairs, out.Seconds = r.Model, r.Decoding, r.Pairs, float64(r.Seconds16)
		if r.LR != nil {
			out.LR = r.LR.Accuracy
		}
		if r.RF != nil {
			out.RF = r.RF.Accuracy
		}
		return out
	}
	d.Old, d.New = fill(old), fill(cur)
	d.SameReal = len(old.Pieces) == len(cur.Pieces)
	for i := 0; d.SameReal && i < len(old.Pieces); i++ {
		d.SameReal = old.Pieces[i].File == cur.Pieces[i].File && old.Pieces[i].StartBar == cur.Pieces[i].StartBar
	}
	d.Floors = diffFloors(old.Floors, cur.Floors)
	for _, f := range cur.Features {
		fd := FeatureDiff{Name: f.Name, Real: f.Real, New: f.Generated, NewAcc: f.Single, Old: eval.Num(math.NaN()), OldAcc: eval.Num(math.NaN())}
		if o := old.Feature(f.Name); o != nil {
			fd.Old, fd.OldAcc = o.Generated, o.Single
		}
		d.Features = append(d.Features, fd)
	}
	return d
}

// GroupAccuracy is the random forest's accuracy within each group (POP909,
// Nottingham, game music, or each --real folder): the share of the group's
// real and generated pieces on the right side of 0.5 by their held-out
// probability averaged over the repeats (ProbReal, ProbGenerated). It says
// which music gives the model away; nil without pieces.
func (r *TwoSampleReport) GroupAccuracy() map[string]float64 {
	right, n := map[string]int{}, map[string]int{}
	for _, p := range r.Pieces {
		if p.Generated == nil {
			continue
		}
		n[p.Group] += 2
		if p.ProbReal <= 0.5 {
			right[p.Group]++
		}
		if p.ProbGenerated > 0.5 {
			right[p.Group]++
		}
	}
	if len(n) == 0 {
		return nil
	}
	out := make(map[string]float64, len(n))
	for g, k := range n {
		out[g] = float64(right[g]) / float64(k)
	}
	return out
}
