package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/corpus"
)

func TestTokenizeCommand(t *testing.T) {
	dir := corpus.Path(t, corpus.Nottingham)
	files, err := corpus.List(dir)
	if err != nil || len(files) == 0 {
		t.Fatalf("no files: %v", err)
	}
	code, out, errOut := runCLI("tokenize", files[0], "--json")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	var r app.TokenizeResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Tokens < 10 || r.Notes == 0 || r.Prefix[0] != "BOS" || r.Prefix[len(r.Prefix)-1] != "SEP" ||
		r.RoundTripNoteMatch < 0.99 || r.Attributes.Bars != r.Bars {
		t.Fatalf("result %+v", r)
	}
	code, out, _ = runCLI("tokenize", files[0])
	if code != 0 || !strings.Contains(out, "prefix:     BOS") || !strings.Contains(out, "round trip:") {
		t.Fatalf("text output: %q", out)
	}
	code, _, errOut = runCLI("tokenize", filepath.Join(t.TempDir(), "none.mid"))
	if code != 1 || !strings.Contains(errOut, "none.mid") {
		t.Fatalf("missing file: code %d, %q", code, errOut)
	}
	if code, _, _ := runCLI("tokenize"); code != 2 {
		t.Fatalf("no file: code %d, want 2", code)
	}
}

func TestBenchMIDICommand(t *testing.T) {
	dir := corpus.Path(t, corpus.OpenMSX)
	code, out, errOut := runCLI("bench", "midi", "--corpus", dir, "--json", "--min-seconds", "0.05")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, k := range []string{"files", "errors", "parse_files_per_second", "tokenize_files_per_second",
		"baseline_files_per_second", "roundtrip_note_match"} {
		if _, ok := r[k]; !ok {
			t.Errorf("no %s in %s", k, out)
		}
	}
	if r["files"].(float64) != 31 || r["roundtrip_note_match"].(float64) < 0.99 || r["tokenize_files_per_second"].(float64) <= 0 {
		t.Fatalf("figures %s", out)
	}
	if code, _, _ := runCLI("bench", "midi"); code != 2 {
		t.Fatalf("no corpus: code %d, want 2", code)
	}
}
