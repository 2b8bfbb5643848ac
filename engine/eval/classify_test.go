package eval

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// readFixture reads testdata/twosample/fixture.csv (sklearn_fixture.py says
// how it was drawn).
func readFixture(t *testing.T) ([][]float64, []int) {
	t.Helper()
	f, err := os.Open("testdata/twosample/fixture.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var X [][]float64
	var y []int
	for _, r := range rows[1:] {
		lab, _ := strconv.Atoi(r[0])
		y = append(y, lab)
		var x []float64
		for _, s := range r[1:] {
			v, err := strconv.ParseFloat(s, 64) // "nan" reads as NaN
			if err != nil {
				t.Fatal(err)
			}
			x = append(x, v)
		}
		X = append(X, x)
	}
	return X, y
}

type sklearnCase struct {
	X         []float64 `json:"x"`
	Y         []int     `json:"y"`
	Coef      float64   `json:"coef"`
	Intercept float64   `json:"intercept"`
}

type sklearnGolden struct {
	Version      string      `json:"sklearn"`
	LRCoef       []float64   `json:"lr_coef"`
	LRIntercept  float64     `json:"lr_intercept"`
	LRMean       float64     `json:"lr_cv_mean"`
	RFMean       float64     `json:"rf_cv_mean"`
	NonSeparable sklearnCase `json:"hand_nonseparable"`
	Separable    sklearnCase `json:"hand_separable"`
}

// The Go learners against scikit-learn on the same table
// (testdata/twosample: sklearn_fixture.py wrote fixture.csv and
// sklearn.json). Logistic regression has one optimum, so its coefficients
// must match to the solvers' tolerance; cross-validated accuracies differ
// by the folds' shuffles and the forest's draws, so they must agree within
// that noise (over 50 folds of 48 rows each the fold accuracies spread by
// about 0.06; the means of two independent repeated 5-fold runs differ by
// about 0.01–0.02). The fixture holds a signal no line can use (|f2|), so
// the forest must beat the regression by far, in both.
func TestClassifiersAgreeWithSklearn(t *testing.T) {
	X, y := readFixture(t)
	sk := readSklearn(t)
	c, err := LogisticRegression{}.Fit(X, y, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := c.(*LRModel)
	for j, w := range sk.LRCoef {
		if math.Abs(m.W[j]-w) > 1e-5 {
			t.Errorf("coefficient %d: %.7f, sklearn %s %.7f", j, m.W[j], sk.Version, w)
		}
	}
	if math.Abs(m.B-sk.LRIntercept) > 1e-5 {
		t.Errorf("intercept %.7f, sklearn %.7f", m.B, sk.LRIntercept)
	}
	o := CVOptions{Folds: 5, Repeats: 10, Seed: 1}
	lr, err := CrossValidate(LogisticRegression{}, X, y, o)
	if err != nil {
		t.Fatal(err)
	}
	rf, err := CrossValidate(RandomForest{Trees: 200}, X, y, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("logistic regression %.4f (sklearn %.4f), random forest %.4f (sklearn %.4f)", lr.Accuracy, sk.LRMean, rf.Accuracy, sk.RFMean)
	if math.Abs(lr.Accuracy-sk.LRMean) > 0.03 {
		t.Errorf("logistic regression CV accuracy %.4f, sklearn %.4f", lr.Accuracy, sk.LRMean)
	}
	if math.Abs(rf.Accuracy-sk.RFMean) > 0.03 {
		t.Errorf("random forest CV accuracy %.4f, sklearn %.4f", rf.Accuracy, sk.RFMean)
	}
	if rf.Accuracy < lr.Accuracy+0.1 {
		t.Errorf("the forest (%.3f) does not find the non-linear signal the regression (%.3f) cannot use", rf.Accuracy, lr.Accuracy)
	}
	if !(lr.Low < lr.Accuracy && lr.Accuracy < lr.High) || lr.High-lr.Low > 0.15 {
		t.Errorf("interval [%.3f, %.3f] around %.3f over %d rows", lr.Low, lr.High, lr.Accuracy, lr.N)
	}
}

// Logistic regression on one feature, by hand: the sklearn figures of two
// small cases, and the optimum's own equation w = C·Σ (y − p)·z (the
// gradient of ½w² + C·Σ log-loss vanishes) and Σ (y − p) = 0 for the
// intercept, which hold whatever solver found it. The separable case has a
// finite optimum only because of the penalty.
func TestLogisticRegressionByHand(t *testing.T) {
	sk := readSklearn(t)
	for _, tc := range []sklearnCase{sk.NonSeparable, sk.Separable} {
		var X [][]float64
		for _, x := range tc.X {
			X = append(X, []float64{x})
		}
		c, err := LogisticRegression{}.Fit(X, tc.Y, 0)
		if err != nil {
			t.Fatal(err)
		}
		m := c.(*LRModel)
		if math.Abs(m.W[0]-tc.Coef) > 1e-7 || math.Abs(m.B-tc.Intercept) > 1e-7 {
			t.Errorf("x %v: w %.9f b %.9f, sklearn %.9f %.9f", tc.X, m.W[0], m.B, tc.Coef, tc.Intercept)
		}
		gw, gb := 0.0, 0.0
		for i, r := range X {
			e := float64(tc.Y[i]) - m.Prob(r)
			gw += e * (r[0] - m.Mean[0]) / m.Scale[0]
			gb += e
		}
		if math.Abs(m.W[0]-gw) > 1e-9 || math.Abs(gb) > 1e-9 {
			t.Errorf("x %v: w %.9f against C·Σ(y−p)z %.9f, Σ(y−p) %.2g", tc.X, m.W[0], gw, gb)
		}
	}
	// One class only, or ragged rows: refused.
	if _, err := (LogisticRegression{}).Fit([][]float64{{1}, {2}}, []int{1, 1}, 0); err == nil {
		t.Error("one class fitted")
	}
	if _, err := (RandomForest{}).Fit([][]float64{{1}, {2, 3}}, []int{0, 1}, 0); err == nil {
		t.Error("ragged rows fitted")
	}
}

// The forest, the stump and the permutation importance on data whose
// answer is known: feature 0 decides the label (x0 > 0.5), feature 1 is
// noise. Every learner is right on held-out rows; shuffling feature 0
// costs about half the accuracy (a shuffled column is right by chance for
// half the rows), shuffling feature 1 nothing.
func TestForestStumpImportance(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var X [][]float64
	var y []int
	for i := 0; i < 100; i++ {
		x0 := rng.Float64()
		X = append(X, []float64{x0, rng.Float64()})
		y = append(y, map[bool]int{false: 0, true: 1}[x0 > 0.5])
	}
	for _, l := range []Learner{RandomForest{Trees: 50}, Stump{Feature: 0}} {
		r, err := CrossValidate(l, X, y, CVOptions{Folds: 5, Repeats: 3, Seed: 7, Importance: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Accuracy < 0.97 {
			t.Errorf("%s: accuracy %.3f on a separable feature", l.Name(), r.Accuracy)
		}
		if r.Importance[0] < 0.3 || r.Importance[0] > 0.7 || math.Abs(r.Importance[1]) > 0.03 {
			t.Errorf("%s: importance %v, want about 0.5 and 0", l.Name(), r.Importance)
		}
	}
	r, _ := CrossValidate(Stump{Feature: 1}, X, y, CVOptions{Folds: 5, Repeats: 3, Seed: 7})
	if r.Accuracy > 0.65 {
		t.Errorf("a stump on noise is right %.3f of the time", r.Accuracy)
	}
	// Stratified folds: each holds 20 rows, half of each class ± 1.
	fold := StratifiedFolds(y, 5, 9)
	var cnt [5][2]int
	for i, f := range fold {
		cnt[f][y[i]]++
	}
	for f, c := range cnt {
		if c[0]+c[1] != 20 {
			t.Errorf("fold %d holds %v", f, c)
		}
	}
	lo, hi := Wilson(0.5, 100)
	if math.Abs(lo-0.4038) > 1e-3 || math.Abs(hi-0.5962) > 1e-3 {
		t.Errorf("Wilson(0.5, 100) = [%.4f, %.4f], want [0.4038, 0.5962]", lo, hi)
	}
}

// Pairs of identical rows, one of each class: nothing tells them apart, so
// a classifier is right half the time when a pair stays in one fold; with
// the pairs split, the twin of each test row is in training with the other
// label and the forest is wrong nearly always.
func TestGroupedFoldsKeepPairsTogether(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var X [][]float64
	var y, g []int
	for i := 0; i < 60; i++ {
		x := []float64{rng.Float64(), rng.Float64()}
		X = append(X, x, x)
		y = append(y, 0, 1)
		g = append(g, i, i)
	}
	split, err := CrossValidate(RandomForest{Trees: 30}, X, y, CVOptions{Folds: 5, Repeats: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := CrossValidate(RandomForest{Trees: 30}, X, y, CVOptions{Folds: 5, Repeats: 3, Seed: 1, Groups: g})
	if err != nil {
		t.Fatal(err)
	}
	if split.Accuracy > 0.2 || math.Abs(kept.Accuracy-0.5) > 0.15 {
		t.Errorf("identical pairs: split %.3f (want near 0), kept together %.3f (want near 0.5)", split.Accuracy, kept.Accuracy)
	}
	for _, f := range [][]int{GroupFolds(g, 5, 3)} {
		for i := 0; i < len(g); i += 2 {
			if f[i] != f[i+1] {
				t.Fatalf("pair %d split over folds %d and %d", i/2, f[i], f[i+1])
			}
		}
	}
}

// readSklearn reads scikit-learn's figures on the fixture
// (testdata/twosample/sklearn_fixture.py wrote them).
func readSklearn(t *testing.T) sklearnGolden {
	t.Helper()
	data, err := os.ReadFile("testdata/twosample/sklearn.json")
	if err != nil {
		t.Fatal(err)
	}
	var sk sklearnGolden
	if err := json.Unmarshal(data, &sk); err != nil {
		t.Fatal(err)
	}
	return sk
}
