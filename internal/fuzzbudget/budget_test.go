package fuzzbudget

import (
	"testing"
	"time"
)

// fakeTB records a Fatalf instead of stopping the test.
type fakeTB struct {
	testing.TB
	failed bool
}

func (f *fakeTB) Helper()                  {}
func (f *fakeTB) Name() string             { return "fake" }
func (f *fakeTB) Fatalf(string, ...any)    { f.failed = true }
func (f *fakeTB) Setenv(key, value string) {}

func TestCheck(t *testing.T) {
	t.Setenv("AMT_FUZZ_BUDGET", "50ms")
	if Budget() != 50*time.Millisecond {
		t.Fatalf("budget %v", Budget())
	}
	fast := &fakeTB{TB: t}
	Check(fast, 10, func() {})
	if fast.failed {
		t.Error("a fast input failed")
	}
	slow := &fakeTB{TB: t}
	Check(slow, 10, func() { time.Sleep(120 * time.Millisecond) })
	if !slow.failed {
		t.Error("an input over the budget passed")
	}
	t.Setenv("AMT_FUZZ_BUDGET", "nonsense")
	if Budget() != Default {
		t.Errorf("bad AMT_FUZZ_BUDGET: %v", Budget())
	}
}
