package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/storage"
)

// TestIngestRebarsAndReports: ingestion tokenizes the waltz in 3/4 (not
// the declared 1/4), keeps the groove's 4/4, stores both meters in the
// items' metadata, and the run's report lists the re-barred file.
func TestIngestRebarsAndReports(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	testfiles.MeterPieces(t, root)
	code, out, errOut := runCLI("ingest", root, "--project", "p", "--home", home, "--json", "--workers", "1")
	if code != 0 {
		t.Fatalf("ingest exit %d: %s", code, errOut)
	}
	var sum IngestSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.OK != 2 || sum.Rebarred != 1 || !slices.Equal(sum.RebarredFiles, []string{"waltz.mid"}) {
		t.Fatalf("ok %d rebarred %d %v, want 2, 1 [waltz.mid]", sum.OK, sum.Rebarred, sum.RebarredFiles)
	}
	st, err := storage.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	metas := map[string]midi.Metadata{}
	attrs := map[string]token.Attributes{}
	err = st.View(func(tx *bolt.Tx) error {
		ds, err := storage.Datasets(tx, 1)
		if err != nil || len(ds) != 1 {
			return fmt.Errorf("datasets %v: %w", ds, err)
		}
		return storage.Items(tx, ds[0].ID, func(it *storage.Item) bool {
			var m midi.Metadata
			if e := json.Unmarshal(it.Meta, &m); e == nil {
				metas[it.Path], attrs[it.Path] = m, it.Attrs
			}
			return true
		})
	})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	w, g := metas["waltz.mid"], metas["groove.mid"]
	if w.DeclaredMeter != "1/4" || w.InferredMeter != "3/4" || !w.Rebarred || w.TimeSignature != "3/4" {
		t.Errorf("waltz metadata: declared %q inferred %q rebarred %v time signature %q", w.DeclaredMeter, w.InferredMeter, w.Rebarred, w.TimeSignature)
	}
	if g.DeclaredMeter != "4/4" || g.InferredMeter != "4/4" || g.Rebarred {
		t.Errorf("groove metadata: declared %q inferred %q rebarred %v", g.DeclaredMeter, g.InferredMeter, g.Rebarred)
	}
	if a := attrs["waltz.mid"]; a.MeterNum != 3 || a.MeterDen != 4 || a.Bars != 16 {
		t.Errorf("waltz tokenized as %d/%d over %d bars, want 3/4 over 16", a.MeterNum, a.MeterDen, a.Bars)
	}
	code, out, errOut = runCLI("report", "--project", "p", "--home", home, "--run", fmt.Sprint(sum.RunID))
	if code != 0 || !strings.Contains(out, "re-barred: 1 files") || !strings.Contains(out, "  waltz.mid") {
		t.Errorf("report (exit %d, %s) does not list the re-barred file:\n%s", code, errOut, out)
	}
	code, out, _ = runCLI("report", "--project", "p", "--home", home, "--run", fmt.Sprint(sum.RunID), "--json")
	var run storage.IngestRun
	if err := json.Unmarshal([]byte(out), &run); code != 0 || err != nil || run.Rebarred != 1 || !slices.Equal(run.RebarredFiles, []string{"waltz.mid"}) {
		t.Errorf("report --json: exit %d, %v, rebarred %d %v", code, err, run.Rebarred, run.RebarredFiles)
	}
}

// TestInspectAndTokenizeShowBothMeters: `amt inspect` prints the declared
// and the inferred meter; `amt tokenize` encodes the re-barred score (as
// the MIDI-folder tokenizer of `amt train --data` does: app's
// TestTrainTokenizerRebars).
func TestInspectAndTokenizeShowBothMeters(t *testing.T) {
	dir := t.TempDir()
	testfiles.MeterPieces(t, dir)
	file := filepath.Join(dir, "waltz.mid")
	code, out, errOut := runCLI("inspect", file)
	if code != 0 {
		t.Fatalf("inspect exit %d: %s", code, errOut)
	}
	for _, want := range []string{"declared meter  1/4", "inferred meter  3/4", "re-barred (declared 1/4 has one-beat bars)"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI("inspect", filepath.Join(dir, "groove.mid"))
	if code != 0 || !strings.Contains(out, "declared meter  4/4") || !strings.Contains(out, "not re-barred") {
		t.Errorf("inspect groove (exit %d):\n%s", code, out)
	}
	code, out, errOut = runCLI("tokenize", file, "--json")
	var r app.TokenizeResult
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
		t.Fatalf("tokenize exit %d %v: %s", code, err, errOut)
	}
	if r.Attributes.MeterNum != 3 || r.Bars != 16 || r.RoundTripNoteMatch != 1 {
		t.Errorf("tokenize: meter %d/%d, %d bars, round trip %.3f; want 3/4, 16, 1", r.Attributes.MeterNum, r.Attributes.MeterDen, r.Bars, r.RoundTripNoteMatch)
	}
}
