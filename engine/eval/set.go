package eval

import (
	"math"
	"slices"
)

// Stat is the mean, sample standard deviation (n − 1 in the denominator)
// and median of the defined values of one metric over a set; N counts
// them. Mean and Median are NaN when N is 0, Std when N < 2. The median of
// an even count is the mean of the two middle values.
type Stat struct {
	N      int `json:"n"`
	Mean   Num `json:"mean"`
	Std    Num `json:"std"`
	Median Num `json:"median"`
}

// Describe returns the Stat of xs, skipping NaN values.
func Describe(xs []float64) Stat {
	st := Stat{Mean: Num(math.NaN()), Std: Num(math.NaN()), Median: Num(math.NaN())}
	sum := 0.0
	for _, x := range xs {
		if !math.IsNaN(x) {
			st.N++
			sum += x
		}
	}
	if st.N == 0 {
		return st
	}
	mean := sum / float64(st.N)
	st.Mean = Num(mean)
	st.Median = Num(Median(xs))
	if st.N < 2 {
		return st
	}
	ss := 0.0
	for _, x := range xs {
		if !math.IsNaN(x) {
			ss += (x - mean) * (x - mean)
		}
	}
	st.Std = Num(math.Sqrt(ss / float64(st.N-1)))
	return st
}

// Median returns the median of the values of xs that are not NaN (the mean
// of the two middle ones for an even count), NaN when there are none. xs is
// not changed.
func Median(xs []float64) float64 {
	d := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			d = append(d, x)
		}
	}
	if len(d) == 0 {
		return math.NaN()
	}
	slices.Sort(d)
	n := len(d)
	if n%2 == 1 {
		return d[n/2]
	}
	return (d[n/2-1] + d[n/2]) / 2
}

// MetricStat is the Stat of one named metric.
type MetricStat struct {
	Metric string `json:"metric"`
	Stat
}

// Summarize returns the mean ± std of every numeric metric over a set, in
// Metric order.
func Summarize(ms []Metrics) []MetricStat {
	out := make([]MetricStat, NumMetrics)
	xs := make([]float64, len(ms))
	for k := Metric(0); int(k) < NumMetrics; k++ {
		for i := range ms {
			xs[i] = ms[i].Value(k)
		}
		out[k] = MetricStat{Metric: k.String(), Stat: Describe(xs)}
	}
	return out
}

// MaxSetSize bounds the values of one set that Compare uses per metric: a
// larger set is thinned to MaxSetSize evenly spaced values (deterministic),
// which keeps the pair count (quadratic) to a few million.
const MaxSetSize = 2000

// kdeGrid is the number of cells over which the distance densities are
// estimated and integrated.
const kdeGrid = 1024

// Comparison is the mgeval intra/inter-set comparison of one metric between
// a generated set and a reference set. For a metric, the intra-set distances
// of a set are |x_i − x_j| over its pairs i < j, the inter-set distances
// |g_i − r_j| over all pairs across the sets. Each distance sample is
// smoothed by a Gaussian kernel density estimate with Scott's bandwidth
// (σ·n^(−1/5), σ the sample standard deviation of the distances), evaluated
// on one grid of kdeGrid cells covering every density's support (the largest
// distance plus 4 bandwidths on either side). OverlapGen is the area shared by
// the densities of the generated set's intra-set distances and of the
// inter-set distances (1: indistinguishable, 0: disjoint); KLGen is
// KL(intra-gen ‖ inter) in nats. OverlapRef and KLRef are the same for the
// reference set's intra-set distances: a model matches the reference when
// both overlaps are high and the KLs low. Cell probabilities are floored at
// 1e−12 before the KL so it stays finite (at most about 27.6 nats).
type Comparison struct {
	Metric     string `json:"metric"`
	Gen        Stat   `json:"gen"`
	Ref        Stat   `json:"ref"`
	IntraGen   Stat   `json:"intra_gen"`
	IntraRef   Stat   `json:"intra_ref"`
	Inter      Stat   `json:"inter"`
	OverlapGen Num    `json:"overlap_gen"`
	KLGen      Num    `json:"kl_gen"`
	OverlapRef Num    `json:"overlap_ref"`
	KLRef      Num    `json:"kl_ref"`
}

// Compare compares every numeric metric of a generated set with a reference
// set, in Metric order.
func Compare(gen, ref []Metrics) []Comparison {
	out := make([]Comparison, NumMetrics)
	g := make([]float64, len(gen))
	r := make([]float64, len(ref))
	for k := Metric(0); int(k) < NumMetrics; k++ {
		for i := range gen {
			g[i] = gen[i].Value(k)
		}
		for i := range ref {
			r[i] = ref[i].Value(k)
		}
		out[k] = CompareValues(k.String(), g, r)
	}
	return out
}

// CompareValues compares one metric's values of two sets (NaN values are
// skipped). Overlaps and KLs are NaN when a set has fewer than two values.
func CompareValues(name string, gen, ref []float64) Comparison {
	c := Comparison{Metric: name, Gen: Describe(gen), Ref: Describe(ref)}
	nan := Num(math.NaN())
	c.OverlapGen, c.KLGen, c.OverlapRef, c.KLRef = nan, nan, nan, nan
	g, r := thin(defined(gen)), thin(defined(ref))
	ig := newDistances(g, nil)
	ir := newDistances(r, nil)
	in := newDistances(g, r)
	c.IntraGen, c.IntraRef, c.Inter = ig.stat(), ir.stat(), in.stat()
	if len(g) < 2 || len(r) < 2 {
		return c
	}
	hmax := max(ig.h, ir.h, in.h)
	lo := -4 * hmax
	hi := max(ig.max, ir.max, in.max) + 4*hmax
	pg, pr, pi := ig.density(lo, hi), ir.density(lo, hi), in.density(lo, hi)
	c.OverlapGen, c.KLGen = Num(overlap(pg, pi)), Num(kl(pg, pi))
	c.OverlapRef, c.KLRef = Num(overlap(pr, pi)), Num(kl(pr, pi))
	return c
}

func defined(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}

// thin keeps at most MaxSetSize evenly spaced values.
func thin(xs []float64) []float64 {
	if len(xs) <= MaxSetSize {
		return xs
	}
	out := make([]float64, MaxSetSize)
	for i := range out {
		out[i] = xs[i*len(xs)/MaxSetSize]
	}
	return out
}

// distances is an implicit sample of pairwise distances: the pairs i < j
// of a (b nil) or all pairs across a and b. Its moments come from one pass;
// density bins them in a second.
type distances struct {
	a, b      []float64
	n         int
	mean, std float64
	max       float64
	h         float64 // Scott bandwidth
}

func newDistances(a, b []float64) *distances {
	d := &distances{a: a, b: b}
	sum, max_ := 0.0, 0.0
	d.each(func(x float64) {
		d.n++
		sum += x
		max_ = max(max_, x)
	})
	d.max = max_
	if d.n == 0 {
		return d
	}
	d.mean = sum / float64(d.n)
	if d.n > 1 {
		ss := 0.0
		d.each(func(x float64) { ss += (x - d.mean) * (x - d.mean) })
		d.std = math.Sqrt(ss / float64(d.n-1))
	}
	d.h = d.std * math.Pow(float64(d.n), -0.2)
	if d.h <= 0 || math.IsNaN(d.h) {
		// All distances equal (or one): no spread to estimate; use a
		// narrow kernel scaled to the data so equal samples still match.
		d.h = 1e-3 * max(d.max, scale(a), scale(b), 1e-9)
	}
	return d
}

func scale(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s = max(s, math.Abs(x))
	}
	return s
}

func (d *distances) each(f func(float64)) {
	if d.b == nil {
		for i, x := range d.a {
			for _, y := range d.a[i+1:] {
				f(math.Abs(x - y))
			}
		}
		return
	}
	for _, x := range d.a {
		for _, y := range d.b {
			f(math.Abs(x - y))
		}
	}
}

func (d *distances) stat() Stat {
	st := Stat{N: d.n, Mean: Num(math.NaN()), Std: Num(math.NaN())}
	if d.n > 0 {
		st.Mean = Num(d.mean)
	}
	if d.n > 1 {
		st.Std = Num(d.std)
	}
	return st
}

// density returns the kernel density estimate as cell probabilities on
// kdeGrid cells over [lo, hi] (summing to 1): the distances are binned to
// cell centers, then convolved with the Gaussian kernel sampled at whole
// cell offsets (cut at 8 bandwidths).
func (d *distances) density(lo, hi float64) []float64 {
	w := (hi - lo) / kdeGrid
	cnt := make([]float64, kdeGrid)
	d.each(func(x float64) {
		k := int((x - lo) / w)
		cnt[min(max(k, 0), kdeGrid-1)]++
	})
	reach := min(int(math.Ceil(8*d.h/w)), kdeGrid-1)
	kern := make([]float64, reach+1)
	for j := range kern {
		u := float64(j) * w / d.h
		kern[j] = math.Exp(-0.5 * u * u)
	}
	p := make([]float64, kdeGrid)
	for k, c := range cnt {
		if c == 0 {
			continue
		}
		for j := max(k-reach, 0); j <= min(k+reach, kdeGrid-1); j++ {
			off := j - k
			if off < 0 {
				off = -off
			}
			p[j] += c * kern[off]
		}
	}
	normalize(p)
	return p
}

func normalize(p []float64) {
	s := 0.0
	for _, x := range p {
		s += x
	}
	if s > 0 {
		for i := range p {
			p[i] /= s
		}
	}
}

// overlap is the shared area of two cell distributions: Σ min(p, q).
func overlap(p, q []float64) float64 {
	s := 0.0
	for i := range p {
		s += min(p[i], q[i])
	}
	return s
}

// klFloor keeps KL finite where q has no mass.
const klFloor = 1e-12

// kl is KL(p ‖ q) = Σ p log(p/q) in nats, with both floored at klFloor and
// renormalized.
func kl(p, q []float64) float64 {
	var sp, sq float64
	for i := range p {
		sp += max(p[i], klFloor)
		sq += max(q[i], klFloor)
	}
	s := 0.0
	for i := range p {
		pi := max(p[i], klFloor) / sp
		qi := max(q[i], klFloor) / sq
		s += pi * math.Log(pi/qi)
	}
	return max(s, 0)
}
