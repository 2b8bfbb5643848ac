package app

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/eval"
)

// Two hand-made reports: piece 2's tokens and CK changed, piece 3's CK
// alone, piece 1 is the same; a floor judged only in the new one.
func TestCompareSuites(t *testing.T) {
	yes, no := true, false
	piece := func(prompt string, seed uint64, tokens int, ck *bool) SuitePiece {
		return SuitePiece{Prompt: prompt, Seed: seed, Valid: true, Tokens: tokens, Adherence: eval.Adherence{CK: ck}}
	}
	old := &SuiteReport{
		FloorList: []Floor{{Name: "ck", Value: 0.5, Met: false}, {Name: "tb", Value: 1, Met: true}},
		Pieces:    []SuitePiece{piece("a", 1, 100, &yes), piece("b", 2, 200, &no), piece("c", 3, 300, &yes)},
	}
	cur := &SuiteReport{
		FloorList: []Floor{{Name: "tb", Value: 1, Met: true}, {Name: "ck", Value: 0.75, Met: true}, {Name: "pitched_in_bars", Value: 0.9, Met: true}},
		Pieces:    []SuitePiece{piece("a", 1, 100, &yes), piece("b", 2, 250, &yes), piece("c", 3, 300, &no)},
	}
	d, err := CompareSuites(old, cur)
	if err != nil {
		t.Fatal(err)
	}
	if d.Same != 1 || len(d.Changed) != 2 || d.Changed[0].Index != 2 || d.Changed[1].Index != 3 {
		t.Fatalf("same %d, changed %+v", d.Same, d.Changed)
	}
	if c := d.Changed[0]; c.OldTokens != 200 || c.NewTokens != 250 || c.Checks["ck"] != [2]any{false, true} || len(c.Checks) != 1 {
		t.Errorf("piece 2: %+v", c)
	}
	if c := d.Changed[1]; c.OldTokens != 300 || c.NewTokens != 300 || c.Checks["ck"] != [2]any{true, false} {
		t.Errorf("piece 3: %+v", c)
	}
	if len(d.Floors) != 3 {
		t.Fatalf("floors %+v", d.Floors)
	}
	ck, added := d.Floors[0], d.Floors[2]
	if ck.Name != "ck" || ck.OldValue != 0.5 || ck.NewValue != 0.75 || ck.OldMet || !ck.NewMet || !ck.OldJudged || !ck.NewJudged {
		t.Errorf("ck: %+v", ck)
	}
	if added.Name != "pitched_in_bars" || added.OldJudged || !added.NewJudged || !math.IsNaN(float64(added.OldValue)) {
		t.Errorf("added floor: %+v", added)
	}

	// Another suite or other seeds are refused, naming the piece.
	other := *cur
	other.Pieces = []SuitePiece{piece("a", 1, 100, &yes), piece("b", 9, 200, &no), piece("c", 3, 300, &yes)}
	if _, err := CompareSuites(old, &other); err == nil || !strings.Contains(err.Error(), "piece 2") {
		t.Errorf("other seeds: %v", err)
	}
	other.Pieces = other.Pieces[:2]
	if _, err := CompareSuites(old, &other); err == nil || !strings.Contains(err.Error(), "3 pieces against 2") {
		t.Errorf("other length: %v", err)
	}

	// A saved report reads back (NaN values as null) and compares equal to itself.
	path := filepath.Join(t.TempDir(), "r.json")
	cur.Seconds16 = eval.Num(math.NaN())
	data, err := json.Marshal(cur)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSuiteReport(path)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := CompareSuites(cur, back); err != nil || d.Same != 3 || len(d.Changed) != 0 {
		t.Errorf("a report against itself read back: %+v, %v", d, err)
	}
	if _, err := ReadSuiteReport(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("a missing file read")
	}
	os.WriteFile(path, []byte(`{"prompts": 3}`), 0o644)
	if _, err := ReadSuiteReport(path); err == nil || !strings.Contains(err.Error(), "no pieces") {
		t.Errorf("a report without pieces: %v", err)
	}
}
