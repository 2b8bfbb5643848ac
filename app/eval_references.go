package app

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/eval"
)

// Musicality references (issue 13): what real music measures, per corpus,
// with the same code (engine/eval) that measures generated pieces.

// Reference names: the four corpora of ../shared/data and "drums", the two
// corpora with drums (OpenMSX and Freedoom) pooled.
const (
	RefPOP909     = corpus.POP909
	RefNottingham = corpus.Nottingham
	RefOpenMSX    = corpus.OpenMSX
	RefFreedoom   = corpus.Freedoom
	RefDrums      = "drums"
)

// RefMetrics are the metrics a reference holds, in report order.
var RefMetrics = []eval.Metric{
	eval.NotesPerBeat, eval.OnsetsPerBeat, eval.DrumBarShare, eval.ProgramCount,
	eval.BarRepetition, eval.RhythmRepetition, eval.LastBarPileUp, eval.ScaleShareEstimated,
	eval.PitchClassEntropy, eval.GrooveConsistency,
}

// CorpusRef is one reference: for each metric of RefMetrics, the median
// over the corpus's pieces where it is defined, except last_bar_pile_up,
// which is the share of pieces that pile up (the mean of 0/1).
type CorpusRef struct {
	Name   string              `json:"name"`
	Path   string              `json:"path,omitempty"`
	Pieces int                 `json:"pieces"`
	Values map[string]eval.Num `json:"values"`
}

// Value returns the reference value of a metric (NaN when absent).
func (r *CorpusRef) Value(k eval.Metric) float64 {
	if r == nil {
		return math.NaN()
	}
	v, ok := r.Values[k.String()]
	if !ok {
		return math.NaN()
	}
	return float64(v)
}

// refAggregate is how a set's values of metric k are summarised in a
// reference and in the suite's musicality table.
func refAggregate(k eval.Metric, xs []float64) float64 {
	if k == eval.LastBarPileUp {
		return float64(eval.Describe(xs).Mean)
	}
	return eval.Median(xs)
}

// newRef summarises measured pieces.
func newRef(name, path string, ms []eval.Metrics) *CorpusRef {
	r := &CorpusRef{Name: name, Path: path, Pieces: len(ms), Values: map[string]eval.Num{}}
	xs := make([]float64, len(ms))
	for _, k := range RefMetrics {
		for i := range ms {
			xs[i] = ms[i].Value(k)
		}
		r.Values[k.String()] = eval.Num(refAggregate(k, xs))
	}
	return r
}

// NamedDir is a reference folder given on the command line (NAME=DIR).
type NamedDir struct{ Name, Dir string }

// MusicalityReferences measures the corpora found under dir (POP909,
// Nottingham, OpenMSX, Freedoom; any may be missing; dir "" skips them)
// and the extra folders, and returns the references by name, with "drums"
// pooling OpenMSX and Freedoom. Files that cannot be read are skipped.
func MusicalityReferences(ctx context.Context, dir string, extra []NamedDir) (map[string]*CorpusRef, error) {
	refs := map[string]*CorpusRef{}
	measure := func(name, path string) ([]eval.Metrics, error) {
		files, err := collectMIDI([]string{path})
		if err != nil {
			return nil, fmt.Errorf("reference %s: %w", name, err)
		}
		set, err := evaluateSet(ctx, "reference", files, nil, runtime.NumCPU(), nil)
		if err != nil {
			return nil, fmt.Errorf("reference %s: %w", name, err)
		}
		if set.Evaluated == 0 {
			return nil, fmt.Errorf("reference %s: none of %d files in %s could be measured", name, len(files), path)
		}
		return set.metrics, nil
	}
	var drums []eval.Metrics
	if dir != "" {
		for _, name := range []string{RefPOP909, RefNottingham, RefOpenMSX, RefFreedoom} {
			p := filepath.Join(dir, name)
			if st, err := os.Stat(p); err != nil || !st.IsDir() {
				continue
			}
			ms, err := measure(name, p)
			if err != nil {
				return nil, err
			}
			refs[name] = newRef(name, p, ms)
			if name == RefOpenMSX || name == RefFreedoom {
				drums = append(drums, ms...)
			}
		}
		if len(drums) > 0 {
			refs[RefDrums] = newRef(RefDrums, "", drums)
		}
	}
	for _, nd := range extra {
		ms, err := measure(nd.Name, nd.Dir)
		if err != nil {
			return nil, err
		}
		refs[nd.Name] = newRef(nd.Name, nd.Dir, ms)
	}
	return refs, nil
}

// KnownReferences returns the references measured by MusicalityReferences
// on ../shared/data (2026-11-25; POP909 909, Nottingham 1,034, OpenMSX 31,
// Freedoom 66 pieces, each file read with its declared meters), used when
// the corpora are not on the machine. TestKnownReferences holds them equal
// to a fresh measurement.
func KnownReferences() map[string]*CorpusRef {
	out := map[string]*CorpusRef{}
	for name, k := range knownRefs {
		r := &CorpusRef{Name: name, Pieces: k.pieces, Values: map[string]eval.Num{}}
		for i, m := range RefMetrics {
			r.Values[m.String()] = eval.Num(k.values[i])
		}
		out[name] = r
	}
	return out
}

type knownRef struct {
	pieces int
	values [10]float64 // in RefMetrics order
}

var nan = math.NaN()

// knownRefs: see KnownReferences. Columns in RefMetrics order:
// notes_per_beat, onsets_per_beat, drum_bar_share, programs,
// bar_repetition, rhythm_repetition, last_bar_pile_up, scale_share,
// pitch_class_entropy, groove_consistency.
var knownRefs = map[string]knownRef{
	"pop909":     {909, [10]float64{5.2526, 2.5228, nan, 1.0000, 0.3452, 0.8842, 0.0154, 0.9895, 2.7744, 0.9289}},
	"nottingham": {1034, [10]float64{2.6364, 1.4848, nan, 1.0000, 0.5625, 0.8125, 0.0000, 0.9907, 2.7401, 0.9590}},
	"openmsx":    {31, [10]float64{10.5489, 2.4474, 0.9851, 4.0000, 0.3846, 0.7899, 0.0000, 0.8742, 2.7391, 0.9668}},
	"freedoom":   {66, [10]float64{9.7739, 3.1378, 0.9756, 6.0000, 0.3529, 0.8506, 0.0303, 0.9100, 2.6952, 0.9555}},
	"drums":      {97, [10]float64{9.9263, 2.9306, 0.9839, 6.0000, 0.3617, 0.8267, 0.0206, 0.8992, 2.7149, 0.9607}},
}

// folkGenres are the prompt's genre words (text.Prompt.Genres) of the
// dance and folk forms the Nottingham corpus holds.
var folkGenres = map[string]bool{
	"folk": true, "country": true, "waltz": true, "jig": true, "slip jig": true, "reel": true,
	"hornpipe": true, "march": true, "polka": true, "celtic": true, "irish": true, "scottish": true,
	"english folk": true, "morris": true, "playford": true, "country dance": true, "shanty": true,
	"sea shanty": true, "strathspey": true, "bluegrass": true,
}

var reWord = regexp.MustCompile(`[a-z]+`)

// MatchCorpus names the reference a generated piece is set against, from
// what was asked:
//
//  1. drums requested: "drums" (OpenMSX and Freedoom, the only corpora with
//     drums: band music with a kit);
//  2. otherwise a folk or dance form named (jig, reel, hornpipe, waltz,
//     march, polka, morris, shanty, folk, country, bluegrass, celtic, …):
//     "nottingham" (folk tunes, melody and chords);
//  3. otherwise "pop909" (piano pop: melody, bridge and accompaniment,
//     what most of the training data is).
//
// The genre words are the understanding's (the parser's genres and the
// tune forms named in the plural, Understanding.Genres); the drums are the
// request's.
func MatchCorpus(u *Understanding) string {
	if u.Attrs.Drums != nil && *u.Attrs.Drums {
		return RefDrums
	}
	for _, g := range u.Genres {
		if folkGenres[g] {
			return RefNottingham
		}
	}
	return RefPOP909
}

// sortedRefNames returns the names of refs, the built-in ones first.
func sortedRefNames(refs map[string]*CorpusRef) []string {
	order := map[string]int{RefPOP909: 0, RefNottingham: 1, RefOpenMSX: 2, RefFreedoom: 3, RefDrums: 4}
	var names []string
	for n := range refs {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		oi, ok1 := order[names[i]]
		oj, ok2 := order[names[j]]
		switch {
		case ok1 && ok2:
			return oi < oj
		case ok1 != ok2:
			return ok1
		}
		return names[i] < names[j]
	})
	return names
}
