package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/eval"
)

// eval-compare prints each floor before and after and the changed pieces;
// wrong arguments are usage errors.
func TestEvalCompareCommand(t *testing.T) {
	dir := t.TempDir()
	yes, no := true, false
	write := func(name string, tokens int, ck *bool, v float64, met bool) string {
		return writeJSONFile(t, dir, name, app.SuiteReport{FloorList: []app.Floor{{Name: "ck", Value: eval.Num(v), Met: met}},
			Pieces: []app.SuitePiece{{Prompt: "a waltz", Seed: 1, Valid: true, Tokens: tokens, Adherence: eval.Adherence{CK: ck}}}})
	}
	a, b := write("a.json", 100, &no, 0.5, false), write("b.json", 120, &yes, 0.8, true)
	code, out, stderr := runCLI("eval-compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"0.500 → 0.800", "NOT met → met", "1 changed, 0 the same", "a waltz", "100 → 120", "ck false→true"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code, _, stderr := runCLI("eval-compare", a); code != 2 || !strings.Contains(stderr, "two reports") {
		t.Errorf("one argument: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI("eval-compare", a, filepath.Join(dir, "none.json")); code != 1 || !strings.Contains(stderr, "none.json") {
		t.Errorf("missing file: exit %d, %s", code, stderr)
	}
}

// writeJSONFile writes v as JSON to dir/name and returns its path.
func writeJSONFile(t *testing.T, dir, name string, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
