package cli

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/app/internal/testfiles"
)

func TestEvalCommandJSON(t *testing.T) {
	dir := t.TempDir()
	testfiles.Scale(t, filepath.Join(dir, "c.mid"), 500000, 60) // C major, 120 bpm
	testfiles.Scale(t, filepath.Join(dir, "g.mid"), 600000, 67) // G major, 100 bpm
	if err := os.WriteFile(filepath.Join(dir, "bad.mid"), []byte("not midi"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Request: 120 bpm, C major, 4/4, piano, 2 bars.
	code, out, errOut := runCLI("eval", dir, "--json", "--attrs",
		`{"tempo_bpm":120,"key_tonic":0,"meter_num":4,"meter_den":4,"programs":[0],"bars":2}`)
	if code != 0 {
		t.Fatalf("code %d, stderr %s", code, errOut)
	}
	var rep struct {
		Evaluated, Failed int
		PiecesPerSecond   float64 `json:"pieces_per_second"`
		Pieces            []struct {
			File      string
			Error     string
			Metrics   map[string]any
			Adherence struct {
				TB, CK  *bool
				Checked int
				Met     int
				ASA     float64 `json:"asa"`
			}
		}
		Summary []struct {
			Metric string
			N      int
			Mean   float64
		}
		Adherence struct {
			ASA float64 `json:"asa"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if rep.Evaluated != 2 || rep.Failed != 1 || len(rep.Pieces) != 3 || rep.PiecesPerSecond <= 0 {
		t.Fatalf("evaluated %d failed %d pieces %d rate %v", rep.Evaluated, rep.Failed, len(rep.Pieces), rep.PiecesPerSecond)
	}
	// Sorted: bad.mid, c.mid, g.mid.
	if !strings.Contains(rep.Pieces[0].Error, "bad.mid") {
		t.Errorf("bad file error %q does not name the file", rep.Pieces[0].Error)
	}
	c, g := rep.Pieces[1], rep.Pieces[2]
	// The C scale meets all six requests (the piano plays a part: 4 notes
	// in each of the 2 bars); the G scale at 100 bpm (bin 90–110 against
	// 110–140) misses tempo and key: 4 of 6.
	if c.Adherence.Checked != 6 || c.Adherence.Met != 6 || c.Adherence.ASA != 1 {
		t.Errorf("c.mid adherence %+v", c.Adherence)
	}
	if g.Adherence.Met != 4 || *g.Adherence.TB || *g.Adherence.CK {
		t.Errorf("g.mid adherence %+v", g.Adherence)
	}
	if math.Abs(rep.Adherence.ASA-(1+4.0/6)/2) > 1e-12 {
		t.Errorf("mean ASA %v, want (1 + 4/6)/2", rep.Adherence.ASA)
	}
	// Scale with the root doubled: entropy 2.75 bits (see eval tests).
	if e := c.Metrics["pitch_class_entropy"].(float64); math.Abs(e-2.75) > 1e-12 {
		t.Errorf("entropy %v, want 2.75", e)
	}
	if c.Metrics["key"] != "C major" || g.Metrics["key"] != "G major" || c.Metrics["drum_pattern_rate"] != nil {
		t.Errorf("keys %v %v, drum rate %v (want null)", c.Metrics["key"], g.Metrics["key"], c.Metrics["drum_pattern_rate"])
	}
	for _, s := range rep.Summary {
		if s.Metric == "tempo_bpm" && (s.N != 2 || math.Abs(s.Mean-110) > 1e-9) {
			t.Errorf("tempo summary %+v, want n 2 mean 110", s)
		}
	}
}

func TestEvalCommandReferenceAndText(t *testing.T) {
	dir, ref := t.TempDir(), t.TempDir()
	testfiles.Scale(t, filepath.Join(dir, "a.mid"), 500000, 60)
	testfiles.Scale(t, filepath.Join(dir, "b.mid"), 500000, 62)
	testfiles.Scale(t, filepath.Join(ref, "a.mid"), 500000, 60)
	testfiles.Scale(t, filepath.Join(ref, "b.mid"), 500000, 65)
	code, out, errOut := runCLI("eval", dir, "--reference", ref)
	if code != 0 {
		t.Fatalf("code %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"evaluated 2 files", "reference " + ref, "pitch_class_entropy", "overlap", "C major", "D major"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI("eval", dir, "--reference", ref, "--json", "--pieces=false")
	var rep struct {
		Pieces    []any
		Reference struct {
			Evaluated   int
			Comparisons []struct {
				Metric     string
				OverlapGen *float64 `json:"overlap_gen"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("code %d err %v", code, err)
	}
	if rep.Pieces != nil || rep.Reference.Evaluated != 2 || len(rep.Reference.Comparisons) == 0 {
		t.Fatalf("report %+v", rep)
	}
	for _, c := range rep.Reference.Comparisons {
		// Every scale has the same rhythm and shape: the metrics are
		// constant on both sides, so the distance densities coincide.
		if c.Metric == "groove_consistency" && (c.OverlapGen == nil || math.Abs(*c.OverlapGen-1) > 1e-9) {
			t.Errorf("groove overlap %v, want 1", c.OverlapGen)
		}
	}
}

func TestEvalCommandErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.mid")
	if code, _, errOut := runCLI("eval", missing); code != 1 || !strings.Contains(errOut, "nope.mid") {
		t.Errorf("missing file: code %d stderr %q", code, errOut)
	}
	if code, _, errOut := runCLI("eval", dir); code != 1 || !strings.Contains(errOut, "no MIDI files") {
		t.Errorf("empty folder: code %d stderr %q", code, errOut)
	}
	if code, _, _ := runCLI("eval"); code != 2 {
		t.Errorf("no path: code %d, want 2", code)
	}
	testfiles.Scale(t, filepath.Join(dir, "a.mid"), 500000, 60)
	if code, _, errOut := runCLI("eval", dir, "--attrs", "{}", "--prompt", "fast"); code != 2 || !strings.Contains(errOut, "not both") {
		t.Errorf("both requests: code %d stderr %q", code, errOut)
	}
	if code, _, errOut := runCLI("eval", dir, "--attrs", `{"tempo":1}`); code != 2 || !strings.Contains(errOut, "tempo") {
		t.Errorf("unknown attribute: code %d stderr %q", code, errOut)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("x"), 0o644)
	if code, _, errOut := runCLI("eval", bad); code != 1 || !strings.Contains(errOut, "bad.txt") {
		t.Errorf("only a bad file: code %d stderr %q", code, errOut)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := app.Evaluate(ctx, app.EvalOptions{Paths: []string{dir}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v", err)
	}
}

func TestEvalCommandPrompt(t *testing.T) {
	dir := t.TempDir()
	testfiles.Scale(t, filepath.Join(dir, "c.mid"), 500000, 60) // C major, 120 bpm, 4/4, piano
	code, out, errOut := runCLI("eval", dir, "--json", "--prompt", "a piano piece in C major at 120 bpm")
	if code != 0 {
		t.Fatalf("code %d stderr %s", code, errOut)
	}
	var rep struct {
		Request struct {
			TempoBPM float64 `json:"tempo_bpm"`
			KeyTonic int     `json:"key_tonic"`
		}
		Adherence struct {
			ASA float64 `json:"asa"`
			TB  struct{ N int }
			CK  struct{ N int }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// The parser reads 120 bpm and C major: both checked and met.
	if rep.Request.TempoBPM != 120 || rep.Request.KeyTonic != 0 || rep.Adherence.TB.N != 1 || rep.Adherence.CK.N != 1 || rep.Adherence.ASA != 1 {
		t.Errorf("request %+v adherence %+v", rep.Request, rep.Adherence)
	}
}
