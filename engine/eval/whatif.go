package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
)

// What would it take? (issue 24). The two-sample test says how often a
// classifier tells generated music from real; its importances say which
// features it leans on, but not what fixing them would buy: features move
// together (a busier texture changes note lengths, chord sizes and
// silences at once) and a classifier denied one feature leans on its
// neighbours. The what-if analysis asks the question a lever or a training
// run answers: if the generated pieces measured like real pieces in one
// family of features, and were unchanged in the rest, how often would the
// classifiers still tell them apart? Each family is "matched" by giving
// every generated row the family's values of another real piece of the same
// stratum (the corpus group: POP909 against POP909), drawn by a seeded
// shuffle, so the matched values are real music's, with real music's spread
// and the correlations inside the family intact (MatchColumns). The
// correlations between the matched family and the rest are broken, which
// leaves a classifier more to find than a lever that moved the family and
// everything tied to it: read the figures as what matching that family
// alone would buy.

// Family is a group of two-sample features that one part of the music
// carries and one kind of change (a lever, more training) moves together.
type Family struct {
	Name     string
	Doc      string
	Features []int // indices into Features
}

// Families partitions the two-sample features (TestFamiliesPartition).
var Families = []Family{
	{"chords", "doubled pitches and chord sizes of one program", []int{FDupShare, FMaxChord, FMeanChord}},
	{"top line", "the melody as the skyline: steps, leaps, repeats, turns, legato, phrase endings",
		[]int{FTopSteps, FTopLeaps, FTopRepeats, FTopInterval, FTopZigzag, FTopLegato, FPhraseEnd}},
	{"bass", "the bottom line: register and motion", []int{FBassMedian, FBassMotion}},
	{"texture", "how much sounds: silences, polyphony, notes and onsets a beat, density from bar to bar",
		[]int{FSilent16, FPolyphony, FNotesPerBeat, FOnsetsPerBeat, FDensitySpread}},
	{"lengths", "note lengths and their spread", []int{FLogNoteLen, FNoteLenSpread}},
	{"rhythm", "where onsets fall: beats, off-beats, off the grid, the steps between them, the groove, the drums",
		[]int{FOnBeat, FOffEighth, FOffSixteenth, FIOIEntropy, FGroove, FDrumOnsets}},
	{"repetition", "bars that repeat an earlier bar's rhythm or notes", []int{FRhythmRepeat, FExactRepeat}},
	{"dynamics", "velocity: level and spread", []int{FVelMean, FVelSpread}},
	{"harmony", "pitch range, voice leading, chords from beat to beat, pitch classes, the scale",
		[]int{FPitchRange, FVoiceLeading, FChordVocab, FChordChange, FPCEntropy, FScaleFit}},
}

// MatchColumns returns a copy of X in which the generated rows (y = 1)
// take the values of cols from real rows (y = 0) of another unit of their
// stratum, and the units as merged for cross-validation. A unit is a group
// of rows (groups, one id per row, as CVOptions.Groups: a real piece and
// its answer; nil, each row alone); a unit's stratum is its first row's.
// Within a stratum the units are shuffled (seed) and linked in cycles of
// two (three for the last when their number is odd): each unit's generated
// rows take the family from the first real row of the next unit in its
// cycle, and a cycle's units become one group, so a donor is always held
// out with the row it gave to (no classifier trains on the very row whose
// values it is tested on). Real rows and the other columns are copied
// unchanged, and so is a unit whose donor has no real row or whose stratum
// has one unit; X and groups are not modified.
func MatchColumns(X [][]float64, y, strata, groups, cols []int, seed uint64) ([][]float64, []int) {
	donor, merged := matchDonors(y, strata, groups, seed)
	return copyFromDonors(X, donor, cols), merged
}

// matchDonors draws MatchColumns's pairing: for each row, the real row it
// takes its matched columns from (-1: none, and for every real row), and
// each row's group once the units of a cycle are merged.
func matchDonors(y, strata, groups []int, seed uint64) (donor, merged []int) {
	unit := func(i int) int {
		if groups == nil {
			return i
		}
		return groups[i]
	}
	rowsOf := map[int][]int{}
	byStratum := map[int][]int{}
	var strataKeys []int
	for i := range y {
		u := unit(i)
		if _, ok := rowsOf[u]; !ok {
			s := strata[i]
			if _, ok := byStratum[s]; !ok {
				strataKeys = append(strataKeys, s)
			}
			byStratum[s] = append(byStratum[s], u)
		}
		rowsOf[u] = append(rowsOf[u], i)
	}
	sort.Ints(strataKeys)
	donor = make([]int, len(y))
	for i := range donor {
		donor[i] = -1
	}
	cycleOf := map[int]int{}
	rng := rand.New(rand.NewPCG(seed, 0x5851F42D4C957F2D))
	for _, s := range strataKeys {
		us := byStratum[s]
		sort.Ints(us)
		rng.Shuffle(len(us), func(a, b int) { us[a], us[b] = us[b], us[a] })
		for start := 0; start+1 < len(us); {
			n := 2
			if len(us)-start == 3 {
				n = 3
			}
			cycle := us[start : start+n]
			id := slices.Min(cycle)
			for k, u := range cycle {
				cycleOf[u] = id
				d := -1
				for _, r := range rowsOf[cycle[(k+1)%n]] {
					if y[r] == 0 {
						d = r
						break
					}
				}
				for _, r := range rowsOf[u] {
					if y[r] == 1 {
						donor[r] = d
					}
				}
			}
			start += n
		}
	}
	merged = make([]int, len(y))
	for i := range y {
		u := unit(i)
		if m, ok := cycleOf[u]; ok {
			u = m
		}
		merged[i] = u
	}
	return donor, merged
}

// copyFromDonors returns a copy of X in which each row with a donor takes
// the donor's values of cols.
func copyFromDonors(X [][]float64, donor, cols []int) [][]float64 {
	out := make([][]float64, len(X))
	for i, x := range X {
		out[i] = slices.Clone(x)
		if d := donor[i]; d >= 0 {
			for _, c := range cols {
				out[i][c] = X[d][c]
			}
		}
	}
	return out
}

// WhatIfFigures are the cross-validated accuracies of a what-if step: of
// each learner (by Name), and of the first learner within each stratum
// (the share of its rows it held right, from the held-out probabilities;
// indexed by stratum id).
type WhatIfFigures struct {
	Accuracy map[string]float64 `json:"accuracy"`
	Strata   []float64          `json:"strata"`
}

// WhatIfRow is one family in a what-if analysis: the figures with only
// this family matched to real music (Alone), and with it and every family
// listed before it matched (Cumulative; the families are in order of what
// they buy alone).
type WhatIfRow struct {
	Family     string        `json:"family"`
	Doc        string        `json:"doc"`
	Features   []string      `json:"features"`
	Alone      WhatIfFigures `json:"alone"`
	Cumulative WhatIfFigures `json:"cumulative"`
}

// WhatIf runs the what-if analysis: the learners cross-validated (o) on X
// with nothing matched but the units merged as matching merges them (base:
// the figures the rows compare with), then for each family with the family
// matched (MatchColumns; strata: one id ≥ 0 a row, the corpus group), then
// the families in order of the first learner's accuracy alone (lowest
// first, ties in Families order) matched one after another. One draw of
// donors and merged units (seeded from o.Seed) serves the base and every
// row, so the figures differ only in what is matched, and a report is
// reproducible.
func WhatIf(learners []Learner, X [][]float64, y, strata []int, families []Family, o CVOptions) (base WhatIfFigures, rows []WhatIfRow, err error) {
	if len(learners) == 0 {
		return base, nil, fmt.Errorf("%w: what-if: no learner", ErrFit)
	}
	if len(strata) != len(X) {
		return base, nil, fmt.Errorf("%w: what-if: %d strata for %d rows", ErrFit, len(strata), len(X))
	}
	ns := 0
	for _, s := range strata {
		if s < 0 {
			return base, nil, fmt.Errorf("%w: what-if: stratum %d", ErrFit, s)
		}
		ns = max(ns, s+1)
	}
	o.Importance = false
	donor, merged := matchDonors(y, strata, o.Groups, o.Seed)
	oc := o
	oc.Groups = merged
	run := func(cols []int) (WhatIfFigures, error) {
		Xm := copyFromDonors(X, donor, cols)
		f := WhatIfFigures{Accuracy: map[string]float64{}}
		for k, l := range learners {
			r, err := CrossValidate(l, Xm, y, oc)
			if err != nil {
				return f, err
			}
			f.Accuracy[l.Name()] = r.Accuracy
			if k > 0 {
				continue
			}
			right, n := make([]float64, ns), make([]float64, ns)
			for i, p := range r.Prob {
				n[strata[i]]++
				if (p > 0.5) == (y[i] == 1) {
					right[strata[i]]++
				}
			}
			f.Strata = make([]float64, ns)
			for s := range f.Strata {
				if n[s] > 0 {
					f.Strata[s] = right[s] / n[s]
				}
			}
		}
		return f, nil
	}
	if base, err = run(nil); err != nil {
		return base, nil, err
	}
	rows = make([]WhatIfRow, len(families))
	for i, f := range families {
		names := make([]string, len(f.Features))
		for j, c := range f.Features {
			names[j] = Features[c].Name
		}
		acc, err := run(f.Features)
		if err != nil {
			return base, nil, err
		}
		rows[i] = WhatIfRow{Family: f.Name, Doc: f.Doc, Features: names, Alone: acc}
	}
	first := learners[0].Name()
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].Alone.Accuracy[first] < rows[b].Alone.Accuracy[first] })
	var cols []int
	for i := range rows {
		for _, name := range rows[i].Features {
			cols = append(cols, FeatureIndex(name))
		}
		acc, err := run(cols)
		if err != nil {
			return base, nil, err
		}
		rows[i].Cumulative = acc
	}
	return base, rows, nil
}
