package cpu

import "sync"

// job is one parallel kernel: Do handles items [lo,hi) as worker w. Kernels
// keep their job structs as fields of the Backend and pass pointers to them,
// so dispatching allocates nothing.
type job interface {
	Do(lo, hi, w int)
}

type task struct {
	j         job
	lo, hi, w int
}

// pool is a fixed set of worker goroutines; the calling goroutine works too.
// The split of n items is static (worker i gets the i-th contiguous part), so
// reductions done per worker and summed in worker order are deterministic.
type pool struct {
	n     int
	tasks chan task
	wg    sync.WaitGroup
	done  sync.WaitGroup
}

func newPool(n int) *pool {
	if n < 1 {
		n = 1
	}
	p := &pool{n: n, tasks: make(chan task, n)}
	p.done.Add(n - 1)
	for i := 1; i < n; i++ {
		go func() {
			defer p.done.Done()
			for t := range p.tasks {
				t.j.Do(t.lo, t.hi, t.w)
				p.wg.Done()
			}
		}()
	}
	return p
}

// run splits n items into at most p.n parts of at least grain items each.
func (p *pool) run(n, grain int, j job) {
	if n <= 0 {
		return
	}
	if grain < 1 {
		grain = 1
	}
	parts := (n + grain - 1) / grain
	if parts > p.n {
		parts = p.n
	}
	if parts <= 1 {
		j.Do(0, n, 0)
		return
	}
	p.wg.Add(parts - 1)
	for i := 1; i < parts; i++ {
		p.tasks <- task{j, n * i / parts, n * (i + 1) / parts, i}
	}
	j.Do(0, n/parts, 0)
	p.wg.Wait()
}

func (p *pool) close() {
	close(p.tasks)
	p.done.Wait()
}
