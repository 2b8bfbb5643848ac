package app

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"github.com/amtstudio/amt/engine/eval"
)

// The critic (issue 24, LeverCritic): a logistic regression on some of the
// two-sample features that tells the model's pieces from real ones,
// trained by `amt eval-model --two-sample --train-critic FILE` on real
// pieces the evaluation does not use (another selection seed, the
// evaluation's files excluded) and the model's answers to them. Among
// candidates that meet as many requested attributes, the prompt path keeps
// the one the critic finds most real. It sees only CriticFeatures, so the
// test can ask whether the music became more real or only more like what
// the critic measures: the report's random forest on the features the
// critic does not see (TwoSampleReport.Unseen) and the logistic regression
// it was not trained as must fall too.

// CriticFeatures are the features the critic sees; the others are kept
// for checking it. Each line of the music it judges has a counterpart it
// does not see: the top line's steps, leaps, repeats and turns against the
// mean interval, voice leading and the bass's motion; repeats against the
// groove and the density's spread; lengths, legato and silence against
// the lengths' spread and the polyphony; chords against chord vocabulary
// and change; onsets against inter-onset entropy, triplets and notes per
// beat; velocity against its spread; pitch classes against scale fit.
var CriticFeatures = []string{"dup_share", "max_chord", "mean_chord", "top_steps", "top_leaps", "top_repeats", "top_zigzag",
	"top_legato", "silent_16ths", "log_note_len", "onsets_per_beat", "on_beat", "off_eighth", "rhythm_repeat", "exact_repeat",
	"vel_mean", "pitch_range", "bass_median", "pc_entropy"}

// Critic is a fitted critic (see the file comment).
type Critic struct {
	// What it was trained on.
	Model   string `json:"model"`
	Pairs   int    `json:"pairs"`
	Select  string `json:"selection"`
	Levers  string `json:"levers"`
	Trained string `json:"trained"`
	// Features are its inputs by name; Fill, Mean, Scale, W and B the
	// standardised logistic regression (eval.LRModel) over them.
	Features []string  `json:"features"`
	Fill     []float64 `json:"fill"`
	Mean     []float64 `json:"mean"`
	Scale    []float64 `json:"scale"`
	W        []float64 `json:"w"`
	B        float64   `json:"b"`
	idx      []int
}

//go:embed critic.json
var criticJSON []byte

// CriticCandidates is how many candidates the prompt path samples at least
// when the critic chooses among them.
const CriticCandidates = 2

var defaultCritic = sync.OnceValues(func() (*Critic, error) { return parseCritic(criticJSON, "app/critic.json") })

// DefaultCritic is the critic embedded in the app.
func DefaultCritic() (*Critic, error) { return defaultCritic() }

// ReadCritic reads a critic file.
func ReadCritic(path string) (*Critic, error) {
	data, err := ReadInput(path)
	if err != nil {
		return nil, fmt.Errorf("critic: %w", err)
	}
	return parseCritic(data, path)
}

func parseCritic(data []byte, name string) (*Critic, error) {
	var c Critic
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("critic %s: %w", name, err)
	}
	n := len(c.Features)
	if n == 0 || len(c.Fill) != n || len(c.Mean) != n || len(c.Scale) != n || len(c.W) != n {
		return nil, fmt.Errorf("critic %s: %d features with %d/%d/%d/%d fills, means, scales, weights", name, n, len(c.Fill), len(c.Mean), len(c.Scale), len(c.W))
	}
	for _, f := range c.Features {
		i := eval.FeatureIndex(f)
		if i < 0 {
			return nil, fmt.Errorf("critic %s: unknown feature %q", name, f)
		}
		c.idx = append(c.idx, i)
	}
	for j, s := range c.Scale {
		if !(s > 0) {
			return nil, fmt.Errorf("critic %s: scale %v of %s", name, s, c.Features[j])
		}
	}
	return &c, nil
}

// Score is the critic's probability that a piece with features f (all of
// eval.Features, in order) is generated.
func (c *Critic) Score(f []float64) float64 {
	x := make([]float64, len(c.idx))
	for j, i := range c.idx {
		x[j] = f[i]
	}
	m := eval.LRModel{Fill: c.Fill, Mean: c.Mean, Scale: c.Scale, W: c.W, B: c.B}
	return m.Prob(x)
}

// TrainCritic fits a critic on the pairs of a two-sample report.
func TrainCritic(rep *TwoSampleReport, features []string) (*Critic, error) {
	var idx []int
	for _, f := range features {
		i := eval.FeatureIndex(f)
		if i < 0 {
			return nil, fmt.Errorf("critic: unknown feature %q", f)
		}
		idx = append(idx, i)
	}
	var X [][]float64
	var y []int
	pick := func(f []eval.Num) []float64 {
		x := make([]float64, len(idx))
		for j, i := range idx {
			x[j] = float64(f[i])
		}
		return x
	}
	for _, p := range rep.Pieces {
		if p.Generated == nil {
			continue
		}
		X = append(X, pick(p.Real), pick(p.Generated))
		y = append(y, 0, 1)
	}
	fit, err := eval.LogisticRegression{}.Fit(X, y, 0)
	if err != nil {
		return nil, fmt.Errorf("critic: %w", err)
	}
	m := fit.(*eval.LRModel)
	c := &Critic{Model: rep.Model, Pairs: len(X) / 2, Select: rep.Selection, Levers: rep.Decoding, Features: features,
		Fill: m.Fill, Mean: m.Mean, Scale: m.Scale, W: m.W, B: m.B, idx: idx}
	for _, v := range append(append([]float64{m.B}, m.W...), m.Mean...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("critic: the fit did not converge")
		}
	}
	return c, nil
}

// Save writes the critic as JSON (atomically).
func (c *Critic) Save(path string) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("critic: %w", err)
	}
	return WriteOutputBytes(path, append(data, '\n'))
}
