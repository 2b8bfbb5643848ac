package eval

import (
	"encoding/json"
	"math"
	"testing"
)

func TestDescribe(t *testing.T) {
	// 1, 2, 3, 6 (NaN skipped): mean 3; deviations −2 −1 0 3, squares
	// 4+1+0+9 = 14, /(4−1): std = √(14/3).
	st := Describe([]float64{1, math.NaN(), 2, 3, 6})
	if st.N != 4 {
		t.Errorf("n %d, want 4", st.N)
	}
	near(t, "mean", float64(st.Mean), 3)
	near(t, "std", float64(st.Std), math.Sqrt(14.0/3))
	near(t, "median", float64(st.Median), 2.5) // 1 2 | 3 6: (2+3)/2
	near(t, "odd median", Median([]float64{7, 1, math.NaN(), 3}), 3)
	near(t, "median of none", Median([]float64{math.NaN()}), math.NaN())
	one := Describe([]float64{5})
	near(t, "mean of one", float64(one.Mean), 5)
	near(t, "median of one", float64(one.Median), 5)
	near(t, "std of one", float64(one.Std), math.NaN())
	b, _ := json.Marshal(Describe(nil))
	if string(b) != `{"n":0,"mean":null,"std":null,"median":null}` {
		t.Errorf("empty stat json %s", b)
	}
}

// Distances of {0, 1, 2} within itself and against itself, by hand.
func TestDistancesByHand(t *testing.T) {
	x := []float64{0, 1, 2}
	// Intra pairs i<j: |0−1|, |0−2|, |1−2| = 1, 2, 1: mean 4/3,
	// deviations −⅓ −⅓ ⅔, squares sum 6/9, /(3−1): std √(1/3).
	d := newDistances(x, nil)
	if d.n != 3 {
		t.Fatalf("intra n %d, want 3", d.n)
	}
	near(t, "intra mean", d.mean, 4.0/3)
	near(t, "intra std", d.std, math.Sqrt(1.0/3))
	// Scott: σ·n^(−1/5) = 0.5773503·3^(−0.2) = 0.5773503·0.8027416.
	near(t, "intra bandwidth", d.h, math.Sqrt(1.0/3)*math.Pow(3, -0.2))
	near(t, "intra max", d.max, 2)
	// Inter, all 9 pairs: 0,1,2 / 1,0,1 / 2,1,0: sum 8, mean 8/9.
	e := newDistances(x, x)
	if e.n != 9 {
		t.Fatalf("inter n %d, want 9", e.n)
	}
	near(t, "inter mean", e.mean, 8.0/9)
}

// The binned density matches the exact Gaussian KDE
// (1/(n·h))·Σ φ((x − d_i)/h) at the cell centers, up to binning error.
func TestDensityMatchesExactKDE(t *testing.T) {
	x := []float64{0, 0.3, 1.1, 2.5, 2.6, 4}
	d := newDistances(x, nil)
	lo, hi := -4*d.h, d.max+4*d.h
	p := d.density(lo, hi)
	w := (hi - lo) / kdeGrid
	var ds []float64
	d.each(func(v float64) { ds = append(ds, v) })
	worst := 0.0
	for j := 0; j < kdeGrid; j += 7 {
		c := lo + (float64(j)+0.5)*w
		exact := 0.0
		for _, v := range ds {
			u := (c - v) / d.h
			exact += math.Exp(-0.5*u*u) / math.Sqrt(2*math.Pi)
		}
		exact /= float64(len(ds)) * d.h
		worst = max(worst, math.Abs(p[j]/w-exact))
	}
	// Peak density is about 1/(h·√(2π)·…) ≈ 0.3; cells are ~1/200 of a
	// bandwidth wide, so the binning error is far below 1%.
	if worst > 2e-3 {
		t.Errorf("binned KDE differs from exact by %.2g", worst)
	}
}

// Overlap and KL on two unit Gaussians a distance δ apart, against the
// closed forms: overlap = 2Φ(−δ/2), KL = δ²/2.
func TestOverlapAndKLClosedForm(t *testing.T) {
	for _, delta := range []float64{0, 0.5, 1, 2} {
		lo, hi := -10.0, 12.0
		w := (hi - lo) / kdeGrid
		p := make([]float64, kdeGrid)
		q := make([]float64, kdeGrid)
		for j := range p {
			x := lo + (float64(j)+0.5)*w
			p[j] = math.Exp(-0.5*x*x) * w / math.Sqrt(2*math.Pi)
			q[j] = math.Exp(-0.5*(x-delta)*(x-delta)) * w / math.Sqrt(2*math.Pi)
		}
		oa := 2 * 0.5 * math.Erfc(delta/2/math.Sqrt2) // 2Φ(−δ/2)
		if got := overlap(p, q); math.Abs(got-oa) > 1e-3 {
			t.Errorf("δ=%v overlap %.5f, want %.5f", delta, got, oa)
		}
		if got := kl(p, q); math.Abs(got-delta*delta/2) > 1e-3 {
			t.Errorf("δ=%v KL %.5f, want %.5f", delta, got, delta*delta/2)
		}
	}
}

func TestCompareValues(t *testing.T) {
	// A set against itself: intra and inter distance distributions nearly
	// coincide (inter adds the zero self-distances and both orders).
	a := make([]float64, 300)
	for i := range a {
		a[i] = math.Sin(float64(i)*1.7)*2 + float64(i%7)/3
	}
	c := CompareValues("x", a, a)
	if float64(c.OverlapGen) < 0.9 || float64(c.KLGen) > 0.05 || c.OverlapGen != c.OverlapRef {
		t.Errorf("self comparison: overlap %v KL %v (ref %v)", c.OverlapGen, c.KLGen, c.OverlapRef)
	}
	// Shifted far away: inter distances are all near 100, intra below 5.
	b := make([]float64, len(a))
	for i := range a {
		b[i] = a[i] + 100
	}
	c = CompareValues("x", a, b)
	if float64(c.OverlapGen) > 1e-6 || float64(c.KLGen) < 10 {
		t.Errorf("disjoint sets: overlap %v KL %v", c.OverlapGen, c.KLGen)
	}
	near(t, "gen mean shift", float64(c.Ref.Mean-c.Gen.Mean), 100)
	// A set with a slightly wider spread overlaps less than itself.
	wide := make([]float64, len(a))
	for i := range a {
		wide[i] = a[i] * 1.5
	}
	cw := CompareValues("x", wide, a)
	if !(cw.OverlapGen < CompareValues("x", a, a).OverlapGen) {
		t.Errorf("wider set overlap %v not below self overlap", cw.OverlapGen)
	}
	// Too few values: overlaps undefined, no panic.
	c = CompareValues("x", []float64{1}, a)
	if !math.IsNaN(float64(c.OverlapGen)) || c.Gen.N != 1 {
		t.Errorf("one value: %+v", c)
	}
	// Constant sets equal to each other: every distance 0 on both sides.
	k := []float64{3, 3, 3, 3}
	c = CompareValues("x", k, k)
	near(t, "constant overlap", float64(c.OverlapGen), 1)
	near(t, "constant kl", float64(c.KLGen), 0)
	if _, err := json.Marshal(c); err != nil {
		t.Error(err)
	}
}

func TestSummarizeAndCompareMetrics(t *testing.T) {
	ms := []Metrics{
		{PitchRange: 10, TempoBPM: 100, GrooveConsistency: math.NaN()},
		{PitchRange: 20, TempoBPM: 120, GrooveConsistency: 0.5},
	}
	sum := Summarize(ms)
	if len(sum) != NumMetrics || sum[PitchRange].Metric != "pitch_range" {
		t.Fatalf("summary %+v", sum)
	}
	near(t, "pitch range mean", float64(sum[PitchRange].Mean), 15)
	near(t, "pitch range std", float64(sum[PitchRange].Std), math.Sqrt(50)) // (25+25)/1
	if sum[GrooveConsistency].N != 1 {
		t.Errorf("groove n %d, want 1 (NaN skipped)", sum[GrooveConsistency].N)
	}
	cs := Compare(ms, ms)
	if len(cs) != NumMetrics || cs[TempoBPM].Metric != "tempo_bpm" {
		t.Errorf("compare %+v", cs)
	}
	if _, err := json.Marshal(cs); err != nil {
		t.Error(err)
	}
}
