package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app/internal/testfiles"
)

func TestEvaluateProgress(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.mid", "b.mid", "c.mid"} {
		testfiles.Scale(t, filepath.Join(dir, n), 500000, 60)
	}
	ch := make(chan EvalProgress, 16)
	rep, err := Evaluate(context.Background(), EvalOptions{Paths: []string{dir}, Reference: dir, Workers: 2, Progress: ch})
	if err != nil {
		t.Fatal(err)
	}
	close(ch)
	seen := map[string]int{}
	for ev := range ch {
		if ev.Total != 3 || ev.Done < 1 || ev.Done > 3 || !strings.HasSuffix(ev.File, ".mid") {
			t.Errorf("event %+v", ev)
		}
		seen[ev.Stage]++
	}
	// Buffered enough: every event arrives, three per stage.
	if seen["evaluate"] != 3 || seen["reference"] != 3 || rep.Evaluated != 3 {
		t.Errorf("events %v, evaluated %d", seen, rep.Evaluated)
	}
}
