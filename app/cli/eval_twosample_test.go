package cli

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/eval"
)

// eval-model --two-sample --from re-reads a saved report: the classifiers
// and the what-if analysis on its features, no model run; wrong
// combinations are usage errors and a report from other features is
// refused by name.
func TestTwoSampleFromSavedReport(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	rep := app.TwoSampleReport{Kind: "two-sample", Model: "saved", Groups: map[string]int{"a": 10, "b": 10}}
	for _, f := range eval.Features {
		rep.Features = append(rep.Features, app.FeatureRow{Name: f.Name})
	}
	for i := 0; i < 20; i++ {
		r, g := make([]eval.Num, eval.NumFeatures), make([]eval.Num, eval.NumFeatures)
		for j := range r {
			r[j], g[j] = eval.Num(rng.NormFloat64()), eval.Num(rng.NormFloat64())
		}
		g[eval.FTopSteps] += 6 // the top line gives it away
		rep.Pieces = append(rep.Pieces, app.TwoSamplePiece{Group: []string{"a", "b"}[i%2], File: "f.mid", Real: r, Generated: g})
	}
	saved := writeJSONFile(t, dir, "ts.json", rep)
	out := filepath.Join(dir, "again.json")
	code, stdout, stderr := runCLI("eval-model", "--two-sample", "--from", saved, "--repeats", "2", "--save", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"what would it take?", "top line", "floors (issue 24)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	back, ok, err := app.ReadTwoSampleReport(out)
	if err != nil || !ok {
		t.Fatalf("saved: %v %v", ok, err)
	}
	if back.Pairs != 20 || back.RF.Accuracy < 0.9 || back.WhatIf[0].Family != "top line" || back.WhatIf[0].Alone.Accuracy[app.ForestName] > 0.7 {
		t.Errorf("pairs %d, forest %.3f, first what-if row %s %v: want 20, ≥ 0.9, top line ≤ 0.7",
			back.Pairs, back.RF.Accuracy, back.WhatIf[0].Family, back.WhatIf[0].Alone)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval-model", "--from", saved}, "add --two-sample"},
		{[]string{"eval-model", "--two-sample", "--from", saved, "--rolls", filepath.Join(dir, "r")}, "--rolls"},
		{[]string{"eval-model", "--two-sample", "--from", filepath.Join(dir, "none.json")}, "none.json"},
	} {
		if code, _, stderr := runCLI(c.args...); code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %s (want an error naming %q)", c.args, code, stderr, c.want)
		}
	}
	rep.Features[0].Name = "old_feature"
	if code, _, stderr := runCLI("eval-model", "--two-sample", "--from", writeJSONFile(t, dir, "old.json", rep)); code == 0 || !strings.Contains(stderr, "old_feature") {
		t.Errorf("a report from other features: exit %d, %s", code, stderr)
	}
}
