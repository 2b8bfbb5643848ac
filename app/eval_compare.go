package app

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/amtstudio/amt/engine/eval"
)

// SuiteDiff sets two suite reports of the same suite and seeds side by
// side (`amt eval-compare`): each floor before and after, and the pieces
// that changed. Prompt i samples with the same seed in both, so a decoding
// change meant for some pieces must leave the others bit for bit equal
// (docs/MODEL.md, "Trying a decoding change").
type SuiteDiff struct {
	Floors []FloorDiff `json:"floors"`
	// Changed are the pieces whose tokens or adherence differ; Same
	// counts the others.
	Changed []PieceDiff `json:"changed"`
	Same    int         `json:"same"`
}

// FloorDiff is one floor in the old and the new report; OldJudged or
// NewJudged is false where the report did not judge it (a floor added
// since, or the model-alone pass not run).
type FloorDiff struct {
	Name      string   `json:"name"`
	OldValue  eval.Num `json:"old"`
	NewValue  eval.Num `json:"new"`
	OldMet    bool     `json:"old_met"`
	NewMet    bool     `json:"new_met"`
	OldJudged bool     `json:"old_judged"`
	NewJudged bool     `json:"new_judged"`
}

// PieceDiff is one suite piece that changed: its token counts and the
// adherence checks whose outcome changed ("ck": false → true).
type PieceDiff struct {
	Index     int               `json:"index"` // 1-based, as the report's table
	Prompt    string            `json:"prompt"`
	OldTokens int               `json:"old_tokens"`
	NewTokens int               `json:"new_tokens"`
	Checks    map[string][2]any `json:"checks,omitempty"`
}

// ReadSuiteReport reads a report saved by `amt eval-model --save`.
func ReadSuiteReport(path string) (*SuiteReport, error) {
	data, err := ReadInput(path) // bounded; a FIFO never waited on
	if err != nil {
		return nil, err
	}
	var r SuiteReport
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a suite report: %w", path, err)
	}
	if len(r.Pieces) == 0 {
		return nil, fmt.Errorf("%s: the report holds no pieces (save it with eval-model --save)", path)
	}
	return &r, nil
}

// diffFloors sets the floors of two reports side by side, the old
// report's order first, then those only the new one judged.
func diffFloors(old, cur []Floor) []FloorDiff {
	var out []FloorDiff
	byName := map[string]int{}
	for _, f := range old {
		byName[f.Name] = len(out)
		out = append(out, FloorDiff{Name: f.Name, OldValue: f.Value, OldMet: f.Met, OldJudged: true, NewValue: eval.Num(math.NaN())})
	}
	for _, f := range cur {
		i, ok := byName[f.Name]
		if !ok {
			i = len(out)
			out = append(out, FloorDiff{Name: f.Name, OldValue: eval.Num(math.NaN())})
		}
		out[i].NewValue, out[i].NewMet, out[i].NewJudged = f.Value, f.Met, true
	}
	return out
}

// CompareSuites compares two reports piece by piece; they must hold the
// same prompts with the same seeds.
func CompareSuites(old, cur *SuiteReport) (*SuiteDiff, error) {
	if len(old.Pieces) != len(cur.Pieces) {
		return nil, fmt.Errorf("compare: %d pieces against %d: not the same suite", len(old.Pieces), len(cur.Pieces))
	}
	d := &SuiteDiff{Changed: []PieceDiff{}}
	d.Floors = diffFloors(old.FloorList, cur.FloorList)
	for i := range old.Pieces {
		a, b := &old.Pieces[i], &cur.Pieces[i]
		if a.Prompt != b.Prompt || a.Seed != b.Seed {
			return nil, fmt.Errorf("compare: piece %d is %q (seed %d) against %q (seed %d): not the same suite and seeds",
				i+1, a.Prompt, a.Seed, b.Prompt, b.Seed)
		}
		checks, err := changedChecks(a.Adherence, b.Adherence)
		if err != nil {
			return nil, err
		}
		if a.Tokens == b.Tokens && a.Valid == b.Valid && len(checks) == 0 {
			d.Same++
			continue
		}
		d.Changed = append(d.Changed, PieceDiff{Index: i + 1, Prompt: b.Prompt, OldTokens: a.Tokens, NewTokens: b.Tokens, Checks: checks})
	}
	return d, nil
}

// changedChecks lists the adherence fields whose JSON values differ.
func changedChecks(a, b eval.Adherence) (map[string][2]any, error) {
	flat := func(x eval.Adherence) (map[string]any, error) {
		data, err := json.Marshal(x)
		if err != nil {
			return nil, err
		}
		m := map[string]any{}
		return m, json.Unmarshal(data, &m)
	}
	ma, err := flat(a)
	if err != nil {
		return nil, err
	}
	mb, err := flat(b)
	if err != nil {
		return nil, err
	}
	out := map[string][2]any{}
	for _, k := range []string{"tb", "tbt", "ck", "ckd", "meter", "drums", "length"} {
		if fmt.Sprint(ma[k]) != fmt.Sprint(mb[k]) {
			out[k] = [2]any{ma[k], mb[k]}
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
