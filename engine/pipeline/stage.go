package pipeline

import (
	"context"
	"sync"
	"time"
)

// StageStats are one stage's measurements. Busy is time spent working;
// WaitIn time waiting for input (starved), WaitOut time waiting for room in
// the next queue (blocked); all summed over the stage's workers. Queue depth
// is the length of the stage's input queue, sampled at every receive.
type StageStats struct {
	Name           string  `json:"name"`
	Workers        int     `json:"workers"`
	BusySeconds    float64 `json:"busy_seconds"`
	WaitSeconds    float64 `json:"wait_seconds"`
	WaitInSeconds  float64 `json:"wait_in_seconds"`
	WaitOutSeconds float64 `json:"wait_out_seconds"`
	Items          int     `json:"items"`
	Bytes          int64   `json:"bytes"`
	QueueMean      float64 `json:"queue_mean"`
	QueueMax       int     `json:"queue_max"`
	QueueCap       int     `json:"queue_cap"`

	queueSum int64
	queueN   int64
}

// counter is one worker's private tally, merged when it ends (no sharing on
// the hot path).
type counter struct {
	busy, waitIn, waitOut time.Duration
	items                 int
	bytes                 int64
	qSum, qN              int64
	qMax                  int
}

func (s *StageStats) merge(c *counter) {
	s.BusySeconds += c.busy.Seconds()
	s.WaitInSeconds += c.waitIn.Seconds()
	s.WaitOutSeconds += c.waitOut.Seconds()
	s.WaitSeconds = s.WaitInSeconds + s.WaitOutSeconds
	s.Items += c.items
	s.Bytes += c.bytes
	s.queueSum += c.qSum
	s.queueN += c.qN
	if s.queueN > 0 {
		s.QueueMean = float64(s.queueSum) / float64(s.queueN)
	}
	s.QueueMax = max(s.QueueMax, c.qMax)
}

// stage runs workers goroutines that take items from in, apply fn and pass
// them to out, which is closed when all have finished. fn returns the bytes
// it handled. Items with Err set or Cached skip fn when skip says so.
func stage(ctx context.Context, wg *sync.WaitGroup, st *StageStats, workers int,
	in <-chan *Item, out chan<- *Item, skip func(*Item) bool, fn func(*Item) int64) {
	st.Workers = workers
	st.QueueCap = cap(in)
	var mu sync.Mutex
	var inner sync.WaitGroup
	for w := 0; w < workers; w++ {
		inner.Add(1)
		go func() {
			defer inner.Done()
			var c counter
			defer func() { mu.Lock(); st.merge(&c); mu.Unlock() }()
			for {
				t0 := time.Now()
				q := len(in)
				var it *Item
				var ok bool
				select {
				case it, ok = <-in:
				case <-ctx.Done():
					return
				}
				if !ok {
					c.waitIn += time.Since(t0)
					return
				}
				t1 := time.Now()
				c.waitIn += t1.Sub(t0)
				c.qSum += int64(q)
				c.qN++
				c.qMax = max(c.qMax, q)
				if skip == nil || !skip(it) {
					c.bytes += fn(it)
					c.items++
				}
				t2 := time.Now()
				c.busy += t2.Sub(t1)
				select {
				case out <- it:
				case <-ctx.Done():
					return
				}
				c.waitOut += time.Since(t2)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		inner.Wait()
		close(out)
	}()
}

// skipDone passes on failed and cached items untouched.
func skipDone(it *Item) bool { return it.Err != nil || it.Cached || it.touched }
