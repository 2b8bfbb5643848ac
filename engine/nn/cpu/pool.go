package cpu

import (
	"sync/atomic"
)

// job is one parallel kernel: Do handles items [lo,hi) as part p of the
// current run (0 ≤ p < the run's part count). Kernels keep their job structs
// as fields of the Backend and pass pointers to them, so dispatching
// allocates nothing.
type job interface {
	Do(lo, hi, p int)
}

// partsPerWorker is how many parts a run is cut into per worker at most:
// enough that a thread the OS has descheduled (the dev machines are shared)
// leaves little for the others to wait on, few enough that products stay
// large for sgemm.
const partsPerWorker = 4

// pool is a fixed set of worker goroutines; the calling goroutine works too.
//
// A run cuts n items into parts at fixed boundaries (part i is
// [n·i/parts, n·(i+1)/parts), parts depending only on n, the grain and the
// pool size), and every thread that is running claims the next unclaimed part
// with an atomic counter. So the work goes to whichever cores the OS gives
// us, yet what each part computes, and reductions kept per part and summed in
// part order, are the same in every run: results are deterministic.
//
// A worker that wakes after every part has been claimed finds its token stale
// (the generation in the counter moved on) and goes back to sleep; the caller
// waits only for parts actually claimed.
type pool struct {
	n        int
	maxParts int
	tokens   chan token
	quit     chan struct{}
	done     chan struct{} // closed when every worker has exited

	// state of the current run: next = generation<<32 | next part index
	next     atomic.Uint64
	finished atomic.Int32 // parts completed in this run
	gen      uint32
	last     chan struct{} // a worker that completes the last part signals the caller
	exited   atomic.Int32
}

type token struct {
	j     job
	gen   uint32
	n     int
	parts int
}

func newPool(n int) *pool {
	if n < 1 {
		n = 1
	}
	p := &pool{n: n, maxParts: n * partsPerWorker, tokens: make(chan token, 4*n), quit: make(chan struct{}),
		done: make(chan struct{}), last: make(chan struct{}, 1)}
	if n == 1 {
		p.maxParts = 1
	}
	for i := 1; i < n; i++ {
		go func() {
			defer func() {
				if p.exited.Add(1) == int32(n-1) {
					close(p.done)
				}
			}()
			for {
				select {
				case t := <-p.tokens:
					if p.work(t) {
						p.last <- struct{}{}
					}
				case <-p.quit:
					return
				}
			}
		}()
	}
	if n == 1 {
		close(p.done)
	}
	return p
}

// work claims and runs parts of the run t belongs to until none is left. It
// reports whether it completed the run's last part.
func (p *pool) work(t token) (completedLast bool) {
	for {
		v := p.next.Load()
		if uint32(v>>32) != t.gen || int(uint32(v)) >= t.parts {
			return false
		}
		if !p.next.CompareAndSwap(v, v+1) {
			continue
		}
		i := int(uint32(v))
		t.j.Do(t.n*i/t.parts, t.n*(i+1)/t.parts, i)
		if p.finished.Add(1) == int32(t.parts) {
			return true
		}
	}
}

// partsFor is the number of parts run uses for n items of grain g.
func (p *pool) partsFor(n, grain int) int {
	if grain < 1 {
		grain = 1
	}
	parts := (n + grain - 1) / grain
	return max(1, min(parts, p.maxParts))
}

// run splits n items into at most maxParts parts of at least grain items
// each and returns when all are done.
func (p *pool) run(n, grain int, j job) {
	if n <= 0 {
		return
	}
	parts := p.partsFor(n, grain)
	if parts <= 1 {
		j.Do(0, n, 0)
		return
	}
	p.gen++
	p.finished.Store(0)
	p.next.Store(uint64(p.gen) << 32)
	t := token{j: j, gen: p.gen, n: n, parts: parts}
	for i := 0; i < min(parts-1, p.n-1); i++ {
		select {
		case p.tokens <- t:
		default: // workers far behind: the caller does the work
		}
	}
	if !p.work(t) {
		<-p.last
	}
}

func (p *pool) close() {
	close(p.quit)
	<-p.done
}
