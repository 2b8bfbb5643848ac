package ui

import (
	"slices"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

// A drained bridge applies nothing until drain, then applies each key's
// latest update once, in the order the keys were first posted, with what
// those updates post in turn; after Close it applies and takes nothing.
func TestBridgeDrained(t *testing.T) {
	b := newBridge(true)
	var got []string
	b.Post("a", func() { got = append(got, "a1") })
	b.Post("b", func() { got = append(got, "b1") })
	b.Post("a", func() { got = append(got, "a2") }) // replaces a1, keeps a's place
	time.Sleep(2 * redrawInterval)
	if len(got) != 0 {
		t.Fatalf("applied before drain: %v", got)
	}
	b.Post("c", func() {
		got = append(got, "c")
		b.Post("d", func() { got = append(got, "d") }) // posted while draining
	})
	if n := b.drain(); n != 4 {
		t.Errorf("drain applied %d updates, want 4", n)
	}
	if want := []string{"a2", "b1", "c", "d"}; !slices.Equal(got, want) {
		t.Fatalf("applied %v, want %v", got, want)
	}
	if n := b.drain(); n != 0 {
		t.Errorf("second drain applied %d", n)
	}
	// An update that posts itself again is bounded.
	var loop func()
	loops := 0
	loop = func() { loops++; b.Post("loop", loop) }
	b.Post("loop", loop)
	if n := b.drain(); n != maxDrainRounds || loops != maxDrainRounds {
		t.Errorf("a self-posting update ran %d times (drain said %d), want %d", loops, n, maxDrainRounds)
	}
	b.Close()
	b.Post("e", func() { got = append(got, "e") })
	if n := b.drain(); n != 0 || len(got) != 4 {
		t.Errorf("after Close: drained %d, applied %v", n, got)
	}
}

// A scheduled bridge applies updates by itself through fyne.Do, at most
// one batch per redrawInterval, keeping only each key's latest update.
func TestBridgeScheduled(t *testing.T) {
	test.NewTempApp(t)
	b := newBridge(false)
	var mu sync.Mutex
	var got []int
	var batches []time.Time
	start := time.Now()
	for i := range 200 {
		b.Post("v", func() {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, i)
			batches = append(batches, time.Now())
		})
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	time.Sleep(3 * redrawInterval)
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 || got[len(got)-1] != 199 {
		t.Fatalf("applied %v, want the last update (199) applied", got)
	}
	if !slices.IsSorted(got) {
		t.Errorf("updates applied out of order: %v", got)
	}
	// 200 posts over `elapsed`: at most one batch per interval, plus the
	// first (applied at once) and the last.
	if most := int(elapsed/redrawInterval) + 2; len(got) > most {
		t.Errorf("%d batches in %v, want at most %d (one per %v)", len(got), elapsed, most, redrawInterval)
	}
	for i := 1; i < len(batches); i++ {
		if gap := batches[i].Sub(batches[i-1]); gap < redrawInterval*9/10 {
			t.Errorf("batches %d and %d %v apart, want ≥ %v", i-1, i, gap, redrawInterval)
		}
	}
	if n := b.drain(); n != 0 {
		t.Errorf("drain on a scheduled bridge applied %d", n)
	}
}
