package cpu

import (
	"math"
	"sync/atomic"
	"testing"
)

type countJob struct {
	hits  []atomic.Int32
	parts []float32 // per-part float sums: order-sensitive
	vals  []float32
}

func (j *countJob) Do(lo, hi, p int) {
	s := float32(0)
	for i := lo; i < hi; i++ {
		j.hits[i].Add(1)
		s += j.vals[i]
	}
	j.parts[p] = s
}

// TestPoolCoversEachItemOnceAndIsDeterministic runs many back-to-back runs of
// varying sizes on more workers than cores (so workers wake late and meet
// stale tokens): every item is handled exactly once per run, and a float
// reduction kept per part and summed in part order is bit-identical in every
// run, whichever threads took which parts.
func TestPoolCoversEachItemOnceAndIsDeterministic(t *testing.T) {
	for _, workers := range []int{1, 2, 5} {
		p := newPool(workers)
		n := 10007
		j := &countJob{hits: make([]atomic.Int32, n), parts: make([]float32, p.maxParts), vals: make([]float32, n)}
		for i := range j.vals {
			j.vals[i] = float32(math.Sin(float64(i))) * 1e3
		}
		var want float32
		checked := 0
		for r := 0; r < 1500; r++ {
			m := 1 + (r*7919)%n
			grain := 1 + r%300
			if r%10 == 0 {
				m, grain = n, 1
			}
			clear(j.parts)
			p.run(m, grain, j)
			for i := 0; i < m; i++ {
				if h := j.hits[i].Swap(0); h != 1 {
					t.Fatalf("workers %d run %d: item %d handled %d times", workers, r, i, h)
				}
			}
			if m == n && grain == 1 {
				s := float32(0)
				for _, x := range j.parts {
					s += x
				}
				checked++
				if want == 0 {
					want = s
				} else if s != want {
					t.Fatalf("workers %d: reduction %v, earlier %v", workers, s, want)
				}
			}
		}
		if checked < 100 {
			t.Fatalf("only %d reductions compared", checked)
		}
		p.close()
	}
}
