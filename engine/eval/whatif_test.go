package eval

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestFamiliesPartition(t *testing.T) {
	seen := make([]int, NumFeatures)
	for _, f := range Families {
		if f.Name == "" || f.Doc == "" || len(f.Features) == 0 {
			t.Errorf("family %+v: name, doc and features wanted", f)
		}
		for _, c := range f.Features {
			seen[c]++
		}
	}
	for c, n := range seen {
		if n != 1 {
			t.Errorf("feature %s is in %d families, want 1", Features[c].Name, n)
		}
	}
}

// pairsData makes n pairs (real, generated) in strata of size per, d
// columns: column 0 tells the classes apart (generated +shift), the others
// are noise drawn alike for both.
func pairsData(n, per, d int, shift float64, seed uint64) (X [][]float64, y, strata, groups []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	for i := 0; i < n; i++ {
		for c := 0; c < 2; c++ {
			x := make([]float64, d)
			for j := range x {
				x[j] = rng.NormFloat64()
			}
			if c == 1 {
				x[0] += shift
			}
			X = append(X, x)
			y = append(y, c)
			strata = append(strata, i/per)
			groups = append(groups, i)
		}
	}
	return
}

func TestMatchColumns(t *testing.T) {
	X, y, strata, groups := pairsData(11, 5, 4, 10, 1) // strata of 5, 5 and 1 pair
	orig := make([][]float64, len(X))
	for i := range X {
		orig[i] = slices.Clone(X[i])
	}
	origGroups := slices.Clone(groups)
	cols := []int{0, 2}
	out, ng := MatchColumns(X, y, strata, groups, cols, 3)
	for i := range X {
		if !slices.Equal(X[i], orig[i]) || !slices.Equal(groups, origGroups) {
			t.Fatal("input modified")
		}
	}
	again, ng2 := MatchColumns(X, y, strata, groups, cols, 3)
	if !slices.Equal(ng, ng2) {
		t.Fatal("same seed, other groups")
	}
	donors := map[int]int{}
	for i := range X {
		if !slices.Equal(again[i], out[i]) {
			t.Fatalf("row %d: same seed, other values", i)
		}
		for _, c := range []int{1, 3} { // other columns untouched
			if out[i][c] != X[i][c] {
				t.Errorf("row %d column %d changed", i, c)
			}
		}
		if y[i] == 0 {
			if !slices.Equal(out[i], X[i]) {
				t.Errorf("real row %d changed", i)
			}
			continue
		}
		if strata[i] == 2 { // a stratum of one pair has no other donor
			if !slices.Equal(out[i], X[i]) {
				t.Errorf("row %d: lone pair changed", i)
			}
			continue
		}
		// The donor: the real row whose matched columns it now carries.
		d := -1
		for r := range X {
			if y[r] == 0 && X[r][0] == out[i][0] && X[r][2] == out[i][2] {
				d = r
			}
		}
		switch {
		case d < 0:
			t.Fatalf("row %d: columns from no real row", i)
		case groups[d] == groups[i]:
			t.Errorf("row %d took its own pair's values", i)
		case strata[d] != strata[i]:
			t.Errorf("row %d took values from stratum %d", i, strata[d])
		case ng[d] != ng[i]:
			t.Errorf("row %d (group %d) and its donor %d (group %d) may be split across folds", i, ng[i], d, ng[d])
		}
		donors[d]++
	}
	// Cycles of 2 and 3 over 5 pairs: every real row of the first two
	// strata gives once.
	if len(donors) != 10 {
		t.Errorf("%d distinct donors, want 10: %v", len(donors), donors)
	}
	for d, n := range donors {
		if n != 1 {
			t.Errorf("real row %d gave %d times", d, n)
		}
	}
	// A pair stays together.
	for i := 0; i < len(X); i += 2 {
		if ng[i] != ng[i+1] {
			t.Errorf("pair %d split: groups %d, %d", i/2, ng[i], ng[i+1])
		}
	}
}

func TestWhatIf(t *testing.T) {
	// Column 0 (dup_share, family "chords") gives the game away; matching
	// it leaves nothing to find, matching anything else leaves it all.
	X, y, strata, groups := pairsData(60, 20, NumFeatures, 8, 2)
	o := CVOptions{Folds: 5, Repeats: 2, Seed: 5, Groups: groups}
	learners := []Learner{LogisticRegression{}, RandomForest{Trees: 40}}
	base, rows, err := WhatIf(learners, X, y, strata, Families, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(Families) {
		t.Fatalf("%d rows for %d families", len(rows), len(Families))
	}
	for _, l := range learners {
		name := l.Name()
		if base.Accuracy[name] < 0.9 {
			t.Errorf("%s base %.3f, want ≥ 0.9 (column 0 separates the classes)", name, base.Accuracy[name])
		}
		if rows[0].Family != "chords" {
			t.Fatalf("first family %q, want chords (the one that buys the most)", rows[0].Family)
		}
		if a := rows[0].Alone.Accuracy[name]; a > 0.65 {
			t.Errorf("%s with chords matched: %.3f, want near 0.5", name, a)
		}
		for _, r := range rows[1:] {
			if r.Alone.Accuracy[name] < 0.9 {
				t.Errorf("%s with %s matched: %.3f, want ≥ 0.9 (noise matched)", name, r.Family, r.Alone.Accuracy[name])
			}
			if r.Cumulative.Accuracy[name] > 0.65 {
				t.Errorf("%s cumulative at %s: %.3f, want near 0.5 (chords matched already)", name, r.Family, r.Cumulative.Accuracy[name])
			}
		}
	}
	if base2, rows2, _ := WhatIf(learners, X, y, strata, Families, o); base2.Accuracy["random forest"] != base.Accuracy["random forest"] || rows2[3].Alone.Accuracy["random forest"] != rows[3].Alone.Accuracy["random forest"] {
		t.Error("same data and seed, other figures")
	}
	// Within each stratum (the forest, the first learner): three strata of
	// 20 pairs, each told apart before and not once chords are matched.
	if len(base.Strata) != 3 || len(rows[0].Alone.Strata) != 3 {
		t.Fatalf("strata: base %v, chords %v; want 3 each", base.Strata, rows[0].Alone.Strata)
	}
	for s := range base.Strata {
		if base.Strata[s] < 0.9 || rows[0].Alone.Strata[s] > 0.7 {
			t.Errorf("stratum %d: %.3f before, %.3f with chords matched", s, base.Strata[s], rows[0].Alone.Strata[s])
		}
	}
	if _, _, err := WhatIf(learners, X, y, append(strata[:len(strata)-1:len(strata)-1], -1), Families, o); err == nil {
		t.Error("a negative stratum: want an error")
	}
	if _, _, err := WhatIf(nil, X, y, strata, Families, o); err == nil {
		t.Error("no learner: want an error")
	}
	if _, _, err := WhatIf(learners, X, y, strata[:3], Families, o); err == nil {
		t.Error("short strata: want an error")
	}
}
