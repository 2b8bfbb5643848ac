package ui

import (
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"github.com/amtstudio/amt/ui/widgets"
)

// redrawInterval is the shortest time between two UI updates the bridge
// makes: at most 20 a second.
const redrawInterval = 50 * time.Millisecond

// maxDrainRounds bounds drain: a batch may post again (a screen telling
// another), but not forever.
const maxDrainRounds = 100

// bridge turns updates from background goroutines into widget changes on
// the UI goroutine. Updates are keyed: a newer update with the same key
// replaces one not yet applied (a progress bar only needs its latest
// value).
//
// A bridge runs in one of two modes:
//
//   - scheduled (the window, NewShell): pending updates are applied
//     together in one fyne.Do, no sooner than redrawInterval after the
//     previous batch. The GL driver runs them on its UI goroutine.
//   - drained (Fyne's software test driver: the tests and `amt
//     snapshot`): updates wait until drain applies them on the goroutine
//     that calls it. The test driver has no UI goroutine: its fyne.Do
//     runs the function on the calling goroutine, so a scheduled batch ran
//     on a timer's goroutine while the test typed, tapped, laid out or
//     captured the same widgets (concurrent map writes in a label's
//     renderer, three times in make test, each "fixed" by a lock around
//     one more caller). Drained, every widget change happens on the one
//     goroutine that drives the window, by construction.
type bridge struct {
	mu        sync.Mutex
	order     []string
	pending   map[string]func()
	scheduled bool
	last      time.Time
	closed    bool
	drained   bool
}

func newBridge(drained bool) *bridge {
	return &bridge{pending: map[string]func(){}, drained: drained}
}

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
	if b.drained || b.scheduled {
		return
	}
	b.scheduled = true
	wait := redrawInterval - time.Since(b.last)
	if wait < 0 {
		wait = 0
	}
	time.AfterFunc(wait, b.flush)
}

// postPlayhead moves roll's playhead to sec; safe from any goroutine (an
// audio player's clock). Scheduled, the roll coalesces positions itself
// at the display's rate (PianoRoll.PostPlayhead); drained, the position
// waits for drain under key like any update.
func (b *bridge) postPlayhead(key string, roll *widgets.PianoRoll, sec float64) {
	if b.drained {
		b.Post(key, func() { roll.SetPlayhead(sec) })
		return
	}
	roll.PostPlayhead(sec)
}

// take removes the pending updates in the order they were first posted;
// closed reports that the bridge refuses updates.
func (b *bridge) take() (order []string, pending map[string]func(), closed bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	order, pending = b.order, b.pending
	b.order, b.pending = nil, map[string]func(){}
	b.scheduled = false
	b.last = time.Now()
	return order, pending, b.closed
}

// apply runs one batch, stopping if the bridge closes meanwhile.
func (b *bridge) apply(order []string, pending map[string]func()) {
	for _, k := range order {
		b.mu.Lock()
		closed := b.closed
		b.mu.Unlock()
		if closed {
			return
		}
		pending[k]()
	}
}

func (b *bridge) flush() {
	order, pending, closed := b.take()
	if closed {
		return
	}
	fyne.Do(func() { b.apply(order, pending) })
}

// drain applies what is pending on the calling goroutine, and what those
// updates post in turn (at most maxDrainRounds batches); it returns the
// number of updates applied. Only a drained bridge is drained; on a
// scheduled one it does nothing.
func (b *bridge) drain() int {
	if !b.drained {
		return 0
	}
	n := 0
	for range maxDrainRounds {
		order, pending, closed := b.take()
		if closed || len(order) == 0 {
			break
		}
		b.apply(order, pending)
		n += len(order)
	}
	return n
}

// Close drops pending updates and refuses new ones.
func (b *bridge) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
}
