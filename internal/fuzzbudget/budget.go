// Package fuzzbudget gives each input of a fuzz target a time budget, so a
// slow case fails the fuzzer as a panic does. Go's fuzzer only reports
// crashes; a reader that is quadratic in its input (1 M overlapping notes
// took a MIDI parse 76 s) or loops forever passes it unnoticed. Check
// fails the test when one input takes longer than the budget, and stops
// the process (which the fuzzer reports and saves as a crasher) when one
// never finishes.
//
// The budget is far above what a linear reader needs for the inputs a
// fuzzer makes (kilobytes: microseconds), so a loaded machine does not
// trip it. AMT_FUZZ_BUDGET (a Go duration, e.g. 500ms) changes it.
//
// It is imported only by tests.
package fuzzbudget

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// Default is the time one input may take.
const Default = 2 * time.Second

// Budget returns the per-input budget: AMT_FUZZ_BUDGET when it parses as a
// positive duration, else Default.
func Budget() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("AMT_FUZZ_BUDGET")); err == nil && d > 0 {
		return d
	}
	return Default
}

// Check runs fn for one input of n bytes. It fails t when fn takes longer
// than Budget, and panics from a watchdog (ending the process, which the
// fuzzer records as a crasher with the input) when fn is still running
// after ten budgets.
func Check(t testing.TB, n int, fn func()) {
	t.Helper()
	b := Budget()
	start := time.Now()
	watchdog := time.AfterFunc(10*b, func() {
		panic(fmt.Sprintf("fuzzbudget: %s: an input of %d bytes still running after %v (budget %v): a hang or a super-linear loop", t.Name(), n, 10*b, b))
	})
	defer watchdog.Stop()
	fn()
	if d := time.Since(start); d > b {
		t.Fatalf("an input of %d bytes took %v, over the budget of %v: the reader is not linear in its input (or hangs)", n, d.Round(time.Millisecond), b)
	}
}
