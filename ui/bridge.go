package ui

import (
	"sync"
	"time"

	"fyne.io/fyne/v2"
)

// redrawInterval is the shortest time between two UI updates the bridge
// makes: at most 20 a second.
const redrawInterval = 50 * time.Millisecond

// bridge turns updates from background goroutines into widget changes on
// the UI goroutine. Updates are keyed: a newer update with the same key
// replaces one not yet applied (a progress bar only needs its latest
// value). Pending updates are applied together in one fyne.Do, no sooner
// than redrawInterval after the previous batch.
type bridge struct {
	// apply is held while a batch is applied. With the GL driver fyne.Do
	// already runs batches on the UI goroutine; Fyne's test driver runs
	// them on the posting goroutine, so whoever reads widgets from another
	// goroutine (a snapshot's capture) holds it to see no half-applied
	// batch.
	apply     sync.Mutex
	mu        sync.Mutex
	order     []string
	pending   map[string]func()
	scheduled bool
	last      time.Time
	closed    bool
	batches   int // applied batches (tests)
}

func newBridge() *bridge { return &bridge{pending: map[string]func(){}} }

// Post queues fn under key; safe from any goroutine.
func (b *bridge) Post(key string, fn func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	if _, ok := b.pending[key]; !ok {
		b.order = append(b.order, key)
	}
	b.pending[key] = fn
	if b.scheduled {
		return
	}
	b.scheduled = true
	wait := redrawInterval - time.Since(b.last)
	if wait < 0 {
		wait = 0
	}
	time.AfterFunc(wait, b.flush)
}

func (b *bridge) flush() {
	b.mu.Lock()
	order, pending := b.order, b.pending
	b.order, b.pending = nil, map[string]func(){}
	b.scheduled = false
	b.last = time.Now()
	b.batches++
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return
	}
	fyne.Do(func() {
		b.apply.Lock()
		defer b.apply.Unlock()
		for _, k := range order {
			b.mu.Lock()
			closed := b.closed
			b.mu.Unlock()
			if closed {
				return
			}
			pending[k]()
		}
	})
}

// Close drops pending updates and refuses new ones.
func (b *bridge) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
}

// hold runs fn while no batch is being applied (and none starts).
func (b *bridge) hold(fn func()) {
	b.apply.Lock()
	defer b.apply.Unlock()
	fn()
}
