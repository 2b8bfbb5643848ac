package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// amt generate prints what it understood from a free-text prompt (each
// implied value with its source, the words not used), and --json carries
// the same; eval-model --freetext scores a suite by majority of seeds.
func TestGenerateShowsUnderstanding(t *testing.T) {
	if testing.Short() {
		t.Skip("generates with the embedded model")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "a.mid")
	code, text, errOut := runCLI("generate", "a soothing bedtime song, zorbly", "-o", out, "--bars", "2", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"understood from the prompt (for seed 3)", "tempo ", "from 'bedtime song'", "drums no", "not used: 'zorbly'"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	code, js, errOut := runCLI("generate", "a soothing bedtime song, zorbly", "-o", out, "--bars", "2", "--seed", "3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Requested struct {
			TempoBPM float64 `json:"tempo_bpm"`
		}
		Understood struct {
			Items []struct {
				Attr, Value, Range string
				From               []string
				Implied            bool
			}
			Unused   []string
			Dynamics string
			Velocity float64
		}
	}
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatal(err)
	}
	u := res.Understood
	found := false
	for _, it := range u.Items {
		if it.Attr == "tempo" && it.Implied && it.Range != "" && strings.Contains(it.Value, "bpm") {
			found = true
		}
	}
	if !found || u.Dynamics != "p" || len(u.Unused) != 1 || u.Unused[0] != "zorbly" || res.Requested.TempoBPM == 0 {
		t.Errorf("json understood %+v, requested %+v", u, res.Requested)
	}
	// Both print the same understanding: every JSON item appears in the text.
	for _, it := range u.Items {
		if !strings.Contains(text, it.Attr+" "+it.Value) {
			t.Errorf("text lacks %q", it.Attr+" "+it.Value)
		}
	}

	suite := filepath.Join(dir, "ft.txt")
	if err := os.WriteFile(suite, []byte("a lullaby | tempo<=90 drums=no\n# held-out\npunk rock | tempo>=140 drums=yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, js, errOut = runCLI("eval-model", "--freetext", "--suite", suite, "--seeds", "1", "--bars", "2", "--json")
	if code != 0 {
		t.Fatalf("eval-model --freetext: exit %d: %s", code, errOut)
	}
	var rep struct {
		Dev, HeldOut struct{ Prompts, Expectations, Met int } `json:"-"`
		DevJ         struct{ Prompts, Expectations int }      `json:"dev"`
		HeldJ        struct{ Prompts, Expectations int }      `json:"held_out"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.DevJ.Prompts != 1 || rep.HeldJ.Prompts != 1 || rep.DevJ.Expectations != 2 {
		t.Errorf("report %+v", rep)
	}
	if code, _, errOut := runCLI("eval-model", "--freetext", "--suite", suite, "--part", "nope"); code == 0 || !strings.Contains(errOut, "--part") {
		t.Errorf("bad --part: exit %d %q", code, errOut)
	}
}
