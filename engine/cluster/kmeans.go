// Package cluster owns k-means clustering of dense float32 vectors (the text
// embeddings of captions, grouped into style groups): k-means++ seeding,
// Lloyd iterations with Hamerly's bounds, run in parallel and deterministic
// for a seed whatever the number of workers.
//
// It is part of the engine: it imports only the standard library and must
// never import app/, ui/ or storage/.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Options tune KMeans. The zero value is usable.
type Options struct {
	Seed    int64 // seed of the k-means++ draws; the same seed gives the same model
	Workers int   // goroutines; 0 means runtime.GOMAXPROCS(0). Does not change the result.
	MaxIter int   // Lloyd iterations at most; 0 means 100
}

// Model is a fitted clustering: K centroids of Dim values each, row-major.
type Model struct {
	K         int
	Dim       int
	Centroids []float32 // K×Dim
	// Labels holds the cluster of each input vector after the last iteration.
	Labels []int
	// Iterations is the number of Lloyd iterations run; Converged says the
	// assignment stopped changing before MaxIter.
	Iterations int
	Converged  bool
	// Inertia is the sum of squared distances of the vectors to their centroids.
	Inertia float64
}

// Errors callers can test with errors.Is.
var (
	ErrEmpty    = errors.New("cluster: no data")
	ErrBadShape = errors.New("cluster: bad shape")
)

// chunk is the fixed unit of parallel work. Partial sums are formed per chunk
// and reduced in chunk order, so results do not depend on the worker count.
const chunk = 512

// KMeans clusters the n = len(data)/dim vectors of data into k groups. When
// n < k, k is lowered to n. It checks ctx between iterations.
func KMeans(ctx context.Context, data []float32, dim, k int, opts Options) (*Model, error) {
	if dim <= 0 || k <= 0 {
		return nil, fmt.Errorf("%w: dim %d, k %d (both must be positive)", ErrBadShape, dim, k)
	}
	if len(data)%dim != 0 {
		return nil, fmt.Errorf("%w: %d values is not a multiple of dim %d", ErrBadShape, len(data), dim)
	}
	n := len(data) / dim
	if n == 0 {
		return nil, ErrEmpty
	}
	for i, v := range data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("%w: vector %d holds a non-finite value", ErrBadShape, i/dim)
		}
	}
	if k > n {
		k = n
	}
	if opts.MaxIter <= 0 {
		opts.MaxIter = 100
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	km := &kmeans{data: data, n: n, dim: dim, k: k, workers: opts.Workers}
	km.norms = make([]float32, n)
	km.parallel(func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x := data[i*dim : (i+1)*dim]
			km.norms[i] = dot(x, x)
		}
	})
	if err := km.seed(ctx, opts.Seed); err != nil {
		return nil, err
	}
	m, err := km.lloyd(ctx, opts.MaxIter)
	if err != nil {
		return nil, err
	}
	return m, nil
}

type kmeans struct {
	data    []float32
	norms   []float32 // squared norm of each vector
	n, dim  int
	k       int
	workers int

	cent  []float32 // k×dim
	cnorm []float32 // squared norm of each centroid
}

// parallel runs f over fixed chunks of [0,n) on the workers.
func (km *kmeans) parallel(f func(lo, hi int)) {
	km.parallelN(km.n, chunk, f)
}

func (km *kmeans) parallelN(n, size int, f func(lo, hi int)) {
	nch := (n + size - 1) / size
	w := min(km.workers, nch)
	if w <= 1 {
		for c := 0; c < nch; c++ {
			f(c*size, min(n, (c+1)*size))
		}
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				c := next
				next++
				mu.Unlock()
				if c >= nch {
					return
				}
				f(c*size, min(n, (c+1)*size))
			}
		}()
	}
	wg.Wait()
}

// dist2 is the squared Euclidean distance of vector i to centroid j, through
// the norms (|x|² + |c|² − 2x·c), clamped at zero.
func (km *kmeans) dist2(i, j int) float32 {
	x := km.data[i*km.dim : (i+1)*km.dim]
	c := km.cent[j*km.dim : (j+1)*km.dim]
	d := km.norms[i] + km.cnorm[j] - 2*dot(x, c)
	if d < 0 {
		return 0
	}
	return d
}

// seed picks k initial centroids by k-means++: the first uniformly, each next
// with probability proportional to the squared distance to the nearest
// centroid so far. Distinct points are preferred; duplicates only when the
// data has fewer than k distinct vectors.
func (km *kmeans) seed(ctx context.Context, seed int64) error {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	n, dim, k := km.n, km.dim, km.k
	km.cent = make([]float32, k*dim)
	km.cnorm = make([]float32, k)
	best := make([]float32, n)
	for i := range best {
		best[i] = float32(math.Inf(1))
	}
	nch := (n + chunk - 1) / chunk
	sums := make([]float64, nch)
	pick := rng.IntN(n)
	for j := 0; j < k; j++ {
		if j%8 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		copy(km.cent[j*dim:(j+1)*dim], km.data[pick*dim:(pick+1)*dim])
		km.cnorm[j] = km.norms[pick]
		if j == k-1 {
			break
		}
		jj := j
		km.parallel(func(lo, hi int) {
			s := 0.0
			for i := lo; i < hi; i++ {
				if d := km.dist2(i, jj); d < best[i] {
					best[i] = d
				}
				s += float64(best[i])
			}
			sums[lo/chunk] = s
		})
		total := 0.0
		for _, s := range sums {
			total += s
		}
		if total <= 0 {
			// Every point coincides with a centroid: take the next points in order.
			pick = (pick + 1) % n
			continue
		}
		r := rng.Float64() * total
		c := 0
		for c < nch-1 && r >= sums[c] {
			r -= sums[c]
			c++
		}
		pick = -1
		lo, hi := c*chunk, min(n, (c+1)*chunk)
		for i := lo; i < hi; i++ {
			if best[i] <= 0 {
				continue
			}
			pick = i
			r -= float64(best[i])
			if r < 0 {
				break
			}
		}
		if pick < 0 { // rounding left r in an all-zero chunk: take the farthest point
			far := float32(-1)
			for i := range best {
				if best[i] > far {
					far, pick = best[i], i
				}
			}
		}
	}
	return nil
}

// lloyd runs Lloyd iterations with Hamerly's bounds: each point keeps an upper
// bound on the distance to its own centroid and a lower bound on the distance
// to any other, so most points skip the k distance computations once centroids
// settle. The result equals plain Lloyd's up to rounding.
func (km *kmeans) lloyd(ctx context.Context, maxIter int) (*Model, error) {
	n, dim, k := km.n, km.dim, km.k
	labels := make([]int, n)
	upper := make([]float32, n) // ≥ distance to own centroid
	lower := make([]float32, n) // ≤ distance to second-nearest centroid
	for i := range lower {
		labels[i] = -1
	}
	sums := make([]float64, k*dim)
	counts := make([]int, k)
	prev := make([]float32, k*dim)
	move := make([]float32, k) // how far each centroid moved
	half := make([]float32, k) // half the distance to the nearest other centroid
	changed := make([]int, (n+chunk-1)/chunk)
	members := make([]int, n)
	start := make([]int, k+1)

	m := &Model{K: k, Dim: dim}
	full := true // recompute every distance (first pass, or after a reseed)
	for it := 0; it < maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Half distance from each centroid to its nearest other centroid.
		km.parallelN(k, 8, func(lo, hi int) {
			for a := lo; a < hi; a++ {
				h := float32(math.Inf(1))
				ca := km.cent[a*dim : (a+1)*dim]
				for b := 0; b < k; b++ {
					if b == a {
						continue
					}
					d := km.cnorm[a] + km.cnorm[b] - 2*dot(ca, km.cent[b*dim:(b+1)*dim])
					if d < h {
						h = d
					}
				}
				if h < 0 {
					h = 0
				}
				half[a] = float32(math.Sqrt(float64(h))) / 2
			}
		})
		// Assignment.
		fullPass := full
		km.parallel(func(lo, hi int) {
			ch := 0
			for i := lo; i < hi; i++ {
				a := labels[i]
				if !fullPass {
					z := max(half[a], lower[i])
					if upper[i] <= z {
						continue
					}
					upper[i] = float32(math.Sqrt(float64(km.dist2(i, a))))
					if upper[i] <= z {
						continue
					}
				}
				// Nearest and second nearest.
				b1, b2 := float32(math.Inf(1)), float32(math.Inf(1))
				j1 := 0
				for j := 0; j < k; j++ {
					d := km.dist2(i, j)
					if d < b1 {
						b2, b1, j1 = b1, d, j
					} else if d < b2 {
						b2 = d
					}
				}
				if j1 != a {
					ch++
					labels[i] = j1
				}
				upper[i] = float32(math.Sqrt(float64(b1)))
				lower[i] = float32(math.Sqrt(float64(b2)))
			}
			changed[lo/chunk] = ch
		})
		nchanged := 0
		for _, c := range changed {
			nchanged += c
		}
		m.Iterations = it + 1
		if nchanged == 0 && !full {
			m.Converged = true
			break
		}
		full = false
		// Group the members of each cluster in index order (counting sort),
		// then sum each cluster sequentially: deterministic and parallel over
		// clusters.
		clear(counts)
		for _, l := range labels {
			counts[l]++
		}
		start[0] = 0
		for j := 0; j < k; j++ {
			start[j+1] = start[j] + counts[j]
		}
		pos := append([]int(nil), start[:k]...)
		for i, l := range labels {
			members[pos[l]] = i
			pos[l]++
		}
		copy(prev, km.cent)
		km.parallelN(k, 1, func(lo, hi int) {
			for j := lo; j < hi; j++ {
				s := sums[j*dim : (j+1)*dim]
				clear(s)
				for _, i := range members[start[j]:start[j+1]] {
					x := km.data[i*dim : (i+1)*dim]
					for d, v := range x {
						s[d] += float64(v)
					}
				}
				if counts[j] == 0 {
					continue
				}
				c := km.cent[j*dim : (j+1)*dim]
				inv := 1 / float64(counts[j])
				for d := range c {
					c[d] = float32(s[d] * inv)
				}
				km.cnorm[j] = dot(c, c)
			}
		})
		// Empty clusters take the point farthest from its centroid (lowest
		// index on ties), one each, and force a full pass next iteration.
		for j := 0; j < k; j++ {
			if counts[j] != 0 {
				continue
			}
			far, fi := float32(0), -1 // only points off their centroid
			for i := 0; i < n; i++ {
				if counts[labels[i]] <= 1 {
					continue
				}
				if d := km.dist2(i, labels[i]); d > far {
					far, fi = d, i
				}
			}
			if fi < 0 {
				break // fewer distinct points than clusters: it stays empty
			}
			counts[labels[fi]]--
			counts[j] = 1
			labels[fi] = j
			copy(km.cent[j*dim:(j+1)*dim], km.data[fi*dim:(fi+1)*dim])
			km.cnorm[j] = km.norms[fi]
			full = true
		}
		if full {
			continue
		}
		// Bounds follow the centroid moves.
		maxMove, second := float32(0), float32(0)
		mi := -1
		for j := 0; j < k; j++ {
			var s float32
			a, b := prev[j*dim:(j+1)*dim], km.cent[j*dim:(j+1)*dim]
			for d := range a {
				t := a[d] - b[d]
				s += t * t
			}
			move[j] = float32(math.Sqrt(float64(s)))
			if move[j] > maxMove {
				second, maxMove, mi = maxMove, move[j], j
			} else if move[j] > second {
				second = move[j]
			}
		}
		km.parallel(func(lo, hi int) {
			for i := lo; i < hi; i++ {
				a := labels[i]
				upper[i] += move[a]
				if a == mi {
					lower[i] -= second
				} else {
					lower[i] -= maxMove
				}
			}
		})
	}
	// Inertia, summed per chunk in order.
	parts := make([]float64, (n+chunk-1)/chunk)
	km.parallel(func(lo, hi int) {
		s := 0.0
		for i := lo; i < hi; i++ {
			s += float64(km.dist2(i, labels[i]))
		}
		parts[lo/chunk] = s
	})
	for _, p := range parts {
		m.Inertia += p
	}
	m.Centroids = km.cent
	m.Labels = labels
	return m, nil
}

// Assign returns the index of the centroid nearest to vec (lowest index on
// ties). vec must have Dim values; a shorter or longer one is compared on the
// common prefix.
func (m *Model) Assign(vec []float32) int {
	best, bi := float32(math.Inf(1)), 0
	d := min(len(vec), m.Dim)
	for j := 0; j < m.K; j++ {
		c := m.Centroids[j*m.Dim : j*m.Dim+d]
		var s float32
		for t, v := range vec[:d] {
			u := v - c[t]
			s += u * u
		}
		if s < best {
			best, bi = s, j
		}
	}
	return bi
}

// dot is the inner product of two equal-length vectors, unrolled by four
// with independent accumulators.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}
