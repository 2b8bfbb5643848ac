package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Classifiers of the two-sample test (issue 24): can a classifier tell
// generated pieces from real ones by their features (features.go)? Labels
// are 0 (real) and 1 (generated); 50% accuracy means it cannot tell. Two
// learners, both with the conventions of scikit-learn's defaults so they can
// be checked against it (testdata/twosample, TestClassifiersAgreeWithSklearn):
//
//   - LogisticRegression: the features standardised (training mean and
//     population standard deviation), L2-penalised logistic regression
//     minimising ½‖w‖² + C·Σ log-loss (the intercept unpenalised, C = 1 by
//     default), solved by Newton's method to convergence: the optimum is
//     unique, so its coefficients equal sklearn's LogisticRegression
//     (lbfgs) to the solver's tolerance.
//   - RandomForest: bootstrap samples, CART trees grown until their leaves
//     are pure (Gini impurity, thresholds halfway between neighbouring
//     values, √d features tried at each node, more when those are constant
//     in the node), probabilities averaged over the trees: sklearn's
//     RandomForestClassifier. Its random draws differ from sklearn's, so
//     the two agree within the noise of the forest, not bit for bit.
//
// Missing features (NaN) are filled with the training median of their
// column before either learner sees them.

// Classifier is a fitted model: the probability that x is generated.
type Classifier interface {
	Prob(x []float64) float64
}

// Learner fits a Classifier on the rows X with labels y (0 or 1); seed
// makes a random learner reproducible.
type Learner interface {
	Fit(X [][]float64, y []int, seed uint64) (Classifier, error)
	Name() string
}

// ErrFit marks data a learner cannot fit (no rows, one class only, rows of
// different lengths).
var ErrFit = fmt.Errorf("eval: cannot fit")

func checkXY(X [][]float64, y []int) (d int, err error) {
	if len(X) == 0 || len(X) != len(y) {
		return 0, fmt.Errorf("%w: %d rows, %d labels", ErrFit, len(X), len(y))
	}
	d = len(X[0])
	var n [2]int
	for i, r := range X {
		if len(r) != d {
			return 0, fmt.Errorf("%w: row %d has %d features, row 0 %d", ErrFit, i, len(r), d)
		}
		if y[i] != 0 && y[i] != 1 {
			return 0, fmt.Errorf("%w: label %d of row %d is not 0 or 1", ErrFit, y[i], i)
		}
		n[y[i]]++
	}
	if n[0] == 0 || n[1] == 0 {
		return 0, fmt.Errorf("%w: one class only (%d real, %d generated)", ErrFit, n[0], n[1])
	}
	return d, nil
}

// columnMedians returns each column's median over the rows (NaN skipped;
// 0 for a column with no value).
func columnMedians(X [][]float64) []float64 {
	d := len(X[0])
	out := make([]float64, d)
	col := make([]float64, 0, len(X))
	for j := 0; j < d; j++ {
		col = col[:0]
		for _, r := range X {
			col = append(col, r[j])
		}
		if m := Median(col); !math.IsNaN(m) {
			out[j] = m
		}
	}
	return out
}

// filled copies x with NaNs replaced by fill.
func filled(dst, x, fill []float64) []float64 {
	dst = append(dst[:0], x...)
	for j, v := range dst {
		if math.IsNaN(v) {
			dst[j] = fill[j]
		}
	}
	return dst
}

// LogisticRegression is the standardised, L2-penalised logistic regression
// (see the file comment). C ≤ 0 means 1.
type LogisticRegression struct{ C float64 }

// Name is "logistic regression".
func (LogisticRegression) Name() string { return "logistic regression" }

// LRModel is a fitted logistic regression: NaNs filled with Fill, then
// z = Σ W[j]·(x[j] − Mean[j]) / Scale[j] + B.
type LRModel struct {
	Fill, Mean, Scale []float64
	W                 []float64 // per standardised feature
	B                 float64
	Iterations        int
}

// Prob is the logistic of z.
func (m *LRModel) Prob(x []float64) float64 {
	z := m.B
	for j, v := range x {
		if math.IsNaN(v) {
			v = m.Fill[j]
		}
		z += m.W[j] * (v - m.Mean[j]) / m.Scale[j]
	}
	return sigmoid(z)
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// log1pexp is log(1 + e^z) without overflow.
func log1pexp(z float64) float64 {
	if z > 30 {
		return z
	}
	return math.Log1p(math.Exp(z))
}

// Fit solves the penalised problem by Newton's method with a backtracking
// line search.
func (l LogisticRegression) Fit(X [][]float64, y []int, _ uint64) (Classifier, error) {
	d, err := checkXY(X, y)
	if err != nil {
		return nil, err
	}
	C := l.C
	if C <= 0 {
		C = 1
	}
	n := len(X)
	m := &LRModel{Fill: columnMedians(X), Mean: make([]float64, d), Scale: make([]float64, d), W: make([]float64, d)}
	Z := make([][]float64, n) // standardised rows
	for i, r := range X {
		Z[i] = filled(nil, r, m.Fill)
		for j, v := range Z[i] {
			m.Mean[j] += v / float64(n)
		}
	}
	for _, r := range Z {
		for j, v := range r {
			m.Scale[j] += (v - m.Mean[j]) * (v - m.Mean[j]) / float64(n)
		}
	}
	for j := range m.Scale {
		m.Scale[j] = math.Sqrt(m.Scale[j])
		if m.Scale[j] < 1e-12 {
			m.Scale[j] = 1 // a constant column (sklearn's StandardScaler)
		}
	}
	for _, r := range Z {
		for j := range r {
			r[j] = (r[j] - m.Mean[j]) / m.Scale[j]
		}
	}
	// Parameters θ = (w, b); k = d+1.
	k := d + 1
	theta := make([]float64, k)
	objective := func(th []float64) float64 {
		s := 0.0
		for j := 0; j < d; j++ {
			s += 0.5 * th[j] * th[j]
		}
		for i, r := range Z {
			z := th[d]
			for j, v := range r {
				z += th[j] * v
			}
			s += C * (log1pexp(z) - float64(y[i])*z)
		}
		return s
	}
	g := make([]float64, k)
	H := make([]float64, k*k)
	step := make([]float64, k)
	trial := make([]float64, k)
	f := objective(theta)
	for it := 1; it <= 100; it++ {
		clear(g)
		clear(H)
		for j := 0; j < d; j++ {
			g[j] = theta[j]
			H[j*k+j] = 1
		}
		for i, r := range Z {
			z := theta[d]
			for j, v := range r {
				z += theta[j] * v
			}
			p := sigmoid(z)
			e, w := C*(p-float64(y[i])), C*p*(1-p)
			for a := 0; a < k; a++ {
				xa := 1.0
				if a < d {
					xa = r[a]
				}
				g[a] += e * xa
				for b := 0; b <= a; b++ {
					xb := 1.0
					if b < d {
						xb = r[b]
					}
					H[a*k+b] += w * xa * xb
				}
			}
		}
		for a := 0; a < k; a++ {
			for b := 0; b < a; b++ {
				H[b*k+a] = H[a*k+b]
			}
		}
		gmax := 0.0
		for _, v := range g {
			gmax = max(gmax, math.Abs(v))
		}
		m.Iterations = it
		if gmax < 1e-9 {
			break
		}
		if !choleskySolve(H, g, step, k) {
			H[d*k+d] += 1e-9 // separable data pushing p to 0 and 1: a touch of ridge on the intercept
			if !choleskySolve(H, g, step, k) {
				return nil, fmt.Errorf("%w: the Hessian is singular", ErrFit)
			}
		}
		t := 1.0
		for {
			for a := range trial {
				trial[a] = theta[a] - t*step[a]
			}
			if ft := objective(trial); ft <= f+1e-4*t*dot(g, step)*-1 || t < 1e-10 {
				copy(theta, trial)
				f = ft
				break
			}
			t /= 2
		}
	}
	copy(m.W, theta[:d])
	m.B = theta[d]
	return m, nil
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// choleskySolve solves H x = g for a symmetric positive definite k×k H
// (row-major), leaving H unchanged; false when H is not positive definite.
func choleskySolve(H, g, x []float64, k int) bool {
	L := make([]float64, k*k)
	for i := 0; i < k; i++ {
		for j := 0; j <= i; j++ {
			s := H[i*k+j]
			for p := 0; p < j; p++ {
				s -= L[i*k+p] * L[j*k+p]
			}
			if i == j {
				if s <= 0 {
					return false
				}
				L[i*k+i] = math.Sqrt(s)
			} else {
				L[i*k+j] = s / L[j*k+j]
			}
		}
	}
	for i := 0; i < k; i++ { // L u = g
		s := g[i]
		for p := 0; p < i; p++ {
			s -= L[i*k+p] * x[p]
		}
		x[i] = s / L[i*k+i]
	}
	for i := k - 1; i >= 0; i-- { // Lᵀ x = u
		s := x[i]
		for p := i + 1; p < k; p++ {
			s -= L[p*k+i] * x[p]
		}
		x[i] = s / L[i*k+i]
	}
	return true
}

// RandomForest is the forest of the file comment. Trees ≤ 0 means
// DefaultTrees; MaxFeatures ≤ 0 means ⌊√d⌋.
type RandomForest struct {
	Trees       int
	MaxFeatures int
}

// DefaultTrees is the size of a forest.
const DefaultTrees = 200

// Name is "random forest".
func (RandomForest) Name() string { return "random forest" }

// treeNode is a node of a fitted tree: a leaf when feature < 0.
type treeNode struct {
	feature     int
	threshold   float64
	left, right int32
	prob        float64 // share of generated rows reaching a leaf
}

// Forest is a fitted random forest.
type Forest struct {
	Fill  []float64
	trees [][]treeNode
	buf   []float64
}

// Prob averages the trees' leaf shares.
func (f *Forest) Prob(x []float64) float64 {
	s := 0.0
	for _, t := range f.trees {
		i := int32(0)
		for t[i].feature >= 0 {
			v := x[t[i].feature]
			if math.IsNaN(v) {
				v = f.Fill[t[i].feature]
			}
			if v <= t[i].threshold {
				i = t[i].left
			} else {
				i = t[i].right
			}
		}
		s += t[i].prob
	}
	return s / float64(len(f.trees))
}

// Fit grows the trees.
func (rf RandomForest) Fit(X [][]float64, y []int, seed uint64) (Classifier, error) {
	d, err := checkXY(X, y)
	if err != nil {
		return nil, err
	}
	nt := rf.Trees
	if nt <= 0 {
		nt = DefaultTrees
	}
	mf := rf.MaxFeatures
	if mf <= 0 {
		mf = max(int(math.Sqrt(float64(d))), 1)
	}
	mf = min(mf, d)
	fill := columnMedians(X)
	Z := make([][]float64, len(X))
	for i, r := range X {
		Z[i] = filled(nil, r, fill)
	}
	f := &Forest{Fill: fill}
	g := &grower{Z: Z, y: y, d: d, mf: mf}
	for t := 0; t < nt; t++ {
		g.rng = rand.New(rand.NewPCG(seed, uint64(t)+1))
		rows := make([]int, len(Z))
		for i := range rows {
			rows[i] = g.rng.IntN(len(Z))
		}
		g.nodes = nil
		g.grow(rows)
		f.trees = append(f.trees, g.nodes)
	}
	return f, nil
}

// grower builds one tree.
type grower struct {
	Z     [][]float64
	y     []int
	d, mf int
	rng   *rand.Rand
	nodes []treeNode
	order []int
}

// grow adds the subtree of rows (bootstrap indices, repeats allowed) and
// returns its index.
func (g *grower) grow(rows []int) int32 {
	id := int32(len(g.nodes))
	pos := 0
	for _, r := range rows {
		pos += g.y[r]
	}
	n := len(rows)
	g.nodes = append(g.nodes, treeNode{feature: -1, prob: float64(pos) / float64(n)})
	if pos == 0 || pos == n || n < 2 {
		return id
	}
	bestF, bestT, bestCost := -1, 0.0, math.Inf(1)
	feats := g.rng.Perm(g.d)
	tried := 0
	for _, j := range feats {
		if tried >= g.mf && bestF >= 0 {
			break
		}
		// Sort the rows by feature j.
		g.order = append(g.order[:0], rows...)
		sort.Slice(g.order, func(a, b int) bool { return g.Z[g.order[a]][j] < g.Z[g.order[b]][j] })
		lo, hi := g.Z[g.order[0]][j], g.Z[g.order[n-1]][j]
		if lo == hi {
			continue // constant in this node: does not count as tried
		}
		tried++
		lp := 0
		for i := 0; i+1 < n; i++ {
			lp += g.y[g.order[i]]
			a, b := g.Z[g.order[i]][j], g.Z[g.order[i+1]][j]
			if a == b {
				continue
			}
			nl, nr := float64(i+1), float64(n-i-1)
			pl, pr := float64(lp)/nl, float64(pos-lp)/nr
			cost := nl*2*pl*(1-pl) + nr*2*pr*(1-pr)
			if cost < bestCost-1e-12 {
				bestF, bestT, bestCost = j, a+(b-a)/2, cost
				if bestT == b { // halfway rounds up to b: keep a on the left
					bestT = a
				}
			}
		}
	}
	if bestF < 0 {
		return id
	}
	var left, right []int
	for _, r := range rows {
		if g.Z[r][bestF] <= bestT {
			left = append(left, r)
		} else {
			right = append(right, r)
		}
	}
	l := g.grow(left)
	r := g.grow(right)
	g.nodes[id] = treeNode{feature: bestF, threshold: bestT, left: l, right: r, prob: g.nodes[id].prob}
	return id
}

// Stump is a one-feature threshold classifier (a tree of depth 1 on
// Feature): the single-feature accuracy of the report.
type Stump struct{ Feature int }

// Name is "stump".
func (s Stump) Name() string { return fmt.Sprintf("stump on feature %d", s.Feature) }

type stumpModel struct {
	feature     int
	fill        float64
	threshold   float64
	left, right float64
}

func (m *stumpModel) Prob(x []float64) float64 {
	v := x[m.feature]
	if math.IsNaN(v) {
		v = m.fill
	}
	if v <= m.threshold {
		return m.left
	}
	return m.right
}

// Fit chooses the threshold with the fewest training errors (Gini on a
// tie), the leaves holding their share of generated rows.
func (s Stump) Fit(X [][]float64, y []int, _ uint64) (Classifier, error) {
	d, err := checkXY(X, y)
	if err != nil {
		return nil, err
	}
	if s.Feature < 0 || s.Feature >= d {
		return nil, fmt.Errorf("%w: feature %d of %d", ErrFit, s.Feature, d)
	}
	fill := columnMedians(X)[s.Feature]
	n := len(X)
	idx := make([]int, n)
	vals := make([]float64, n)
	pos := 0
	for i := range idx {
		idx[i] = i
		vals[i] = X[i][s.Feature]
		if math.IsNaN(vals[i]) {
			vals[i] = fill
		}
		pos += y[i]
	}
	sort.Slice(idx, func(a, b int) bool { return vals[idx[a]] < vals[idx[b]] })
	m := &stumpModel{feature: s.Feature, fill: fill, threshold: math.Inf(1), left: float64(pos) / float64(n), right: float64(pos) / float64(n)}
	best := min(pos, n-pos) // errors with no split
	lp := 0
	for i := 0; i+1 < n; i++ {
		lp += y[idx[i]]
		a, b := vals[idx[i]], vals[idx[i+1]]
		if a == b {
			continue
		}
		nl, nr := i+1, n-i-1
		errs := min(lp, nl-lp) + min(pos-lp, nr-(pos-lp))
		if errs < best {
			best = errs
			m.threshold = a + (b-a)/2
			m.left, m.right = float64(lp)/float64(nl), float64(pos-lp)/float64(nr)
		}
	}
	return m, nil
}

// CVOptions control CrossValidate: stratified Folds-fold cross-validation
// repeated Repeats times with different shuffles, seeded.
type CVOptions struct {
	Folds, Repeats int    // ≤ 0: 5 and 10
	Seed           uint64 // shuffles and the learners' seeds
	// Importance asks for the permutation importance of each feature.
	Importance bool
	// Groups, when set (one id per row), keeps the rows of a group in one
	// fold: a real piece and the model's answer to its prompt share their
	// tempo, meter and instruments, and a classifier that trains on one of
	// them and is tested on the other learns the pair, not the difference
	// (on identical pairs it scores far below 50%). The groups are shuffled
	// and dealt round-robin; with pairs of one row of each class the folds
	// stay balanced.
	Groups []int
}

// CVResult is the outcome of a cross-validation.
type CVResult struct {
	Learner string `json:"learner"`
	// Accuracy is the mean over the repeats of the share of rows predicted
	// right when held out; Low and High its 95% interval (Wilson, over the
	// N rows: the repeats reuse the same rows, so they do not add
	// independent evidence); Min and Max the range over the repeats.
	Accuracy  float64   `json:"accuracy"`
	Low       float64   `json:"ci_low"`
	High      float64   `json:"ci_high"`
	Min       float64   `json:"min"`
	Max       float64   `json:"max"`
	N         int       `json:"n"`
	Folds     int       `json:"folds"`
	Repeats   int       `json:"repeats"`
	PerRepeat []float64 `json:"per_repeat"`
	// Prob is each row's held-out probability of being generated, averaged
	// over the repeats.
	Prob []float64 `json:"-"`
	// Importance is each feature's permutation importance: the accuracy
	// lost on the held-out rows when its column is shuffled among them,
	// averaged over folds and repeats (with CVOptions.Importance).
	Importance []float64 `json:"importance,omitempty"`
}

// Wilson returns the 95% Wilson score interval of a proportion p over n.
func Wilson(p float64, n int) (lo, hi float64) {
	if n <= 0 {
		return math.NaN(), math.NaN()
	}
	const z = 1.959963984540054
	nn := float64(n)
	den := 1 + z*z/nn
	c := (p + z*z/(2*nn)) / den
	h := z / den * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn))
	return max(c-h, 0), min(c+h, 1)
}

// StratifiedFolds assigns each row a fold in 0..k-1: each class shuffled
// (seeded) and dealt round-robin, the second class continuing where the
// first stopped, so folds differ in size by at most one.
func StratifiedFolds(y []int, k int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 0x5f0d))
	fold := make([]int, len(y))
	next := 0
	for c := 0; c <= 1; c++ {
		var idx []int
		for i, v := range y {
			if v == c {
				idx = append(idx, i)
			}
		}
		rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		for _, i := range idx {
			fold[i] = next % k
			next++
		}
	}
	return fold
}

// GroupFolds assigns each row the fold of its group: the distinct groups
// shuffled (seeded) and dealt round-robin.
func GroupFolds(groups []int, k int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 0x9a0f))
	var ids []int
	seen := map[int]bool{}
	for _, g := range groups {
		if !seen[g] {
			seen[g] = true
			ids = append(ids, g)
		}
	}
	rng.Shuffle(len(ids), func(a, b int) { ids[a], ids[b] = ids[b], ids[a] })
	of := map[int]int{}
	for i, g := range ids {
		of[g] = i % k
	}
	fold := make([]int, len(groups))
	for i, g := range groups {
		fold[i] = of[g]
	}
	return fold
}

// CrossValidate runs repeated stratified k-fold cross-validation of l on
// (X, y).
func CrossValidate(l Learner, X [][]float64, y []int, o CVOptions) (*CVResult, error) {
	d, err := checkXY(X, y)
	if err != nil {
		return nil, err
	}
	k, reps := o.Folds, o.Repeats
	if k <= 0 {
		k = 5
	}
	if reps <= 0 {
		reps = 10
	}
	var nc [2]int
	for _, v := range y {
		nc[v]++
	}
	if min(nc[0], nc[1]) < k {
		return nil, fmt.Errorf("%w: %d-fold cross-validation needs %d rows of each class (%d real, %d generated)", ErrFit, k, k, nc[0], nc[1])
	}
	n := len(X)
	res := &CVResult{Learner: l.Name(), N: n, Folds: k, Repeats: reps, Prob: make([]float64, n), Min: 1}
	if o.Importance {
		res.Importance = make([]float64, d)
	}
	x := make([]float64, d)
	if o.Groups != nil && len(o.Groups) != n {
		return nil, fmt.Errorf("%w: %d groups for %d rows", ErrFit, len(o.Groups), n)
	}
	for r := 0; r < reps; r++ {
		seed := o.Seed + uint64(r)*0x9E3779B97F4A7C15
		fold := StratifiedFolds(y, k, seed)
		if o.Groups != nil {
			fold = GroupFolds(o.Groups, k, seed)
		}
		right := 0
		for f := 0; f < k; f++ {
			var trX [][]float64
			var trY, test []int
			for i := range X {
				if fold[i] == f {
					test = append(test, i)
				} else {
					trX = append(trX, X[i])
					trY = append(trY, y[i])
				}
			}
			c, err := l.Fit(trX, trY, o.Seed^uint64(r*k+f+1)*0xBF58476D1CE4E5B9)
			if err != nil {
				return nil, err
			}
			base := 0
			for _, i := range test {
				p := c.Prob(X[i])
				res.Prob[i] += p / float64(reps)
				if (p > 0.5) == (y[i] == 1) {
					base++
				}
			}
			right += base
			if o.Importance {
				rng := rand.New(rand.NewPCG(o.Seed+uint64(r), uint64(f)))
				perm := slices.Clone(test)
				for j := 0; j < d; j++ {
					rng.Shuffle(len(perm), func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
					ok := 0
					for t, i := range test {
						copy(x, X[i])
						x[j] = X[perm[t]][j]
						if (c.Prob(x) > 0.5) == (y[i] == 1) {
							ok++
						}
					}
					res.Importance[j] += float64(base-ok) / float64(n) / float64(reps)
				}
			}
		}
		acc := float64(right) / float64(n)
		res.PerRepeat = append(res.PerRepeat, acc)
		res.Accuracy += acc / float64(reps)
		res.Min, res.Max = min(res.Min, acc), max(res.Max, acc)
	}
	res.Low, res.High = Wilson(res.Accuracy, n)
	return res, nil
}
