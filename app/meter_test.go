package app

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/storage"
)

// writeMeterPieces writes two pieces into dir: waltz.mid, a waltz (bass on
// 1, chords on 2 and 3) declared in 1/4 as most POP909 files are, and
// groove.mid, a 4/4 groove with drums declared 4/4 on the file's grid.
func writeMeterPieces(t *testing.T, dir string) {
	t.Helper()
	roots := []uint8{0, 5, 7, 0, 9, 5, 7, 0}
	const tpb = 480
	note := func(beat, dur float64, p, v uint8) midi.Note {
		return midi.Note{Tick: int64(beat * tpb), Dur: int64(dur * tpb), Pitch: p, Velocity: v}
	}
	var w []midi.Note
	for b := 0; b < 16; b++ {
		r, t0 := roots[b%8], 3*float64(b)
		w = append(w, note(t0, 1, 36+r, 96), note(t0, 2, 79+r, 90))
		for _, beat := range []float64{1, 2} {
			w = append(w, note(t0+beat, 0.9, 56+r, 70), note(t0+beat, 0.9, 59+r, 70))
		}
		w = append(w, note(t0+2, 1, 76+r, 80))
	}
	var g, d []midi.Note
	for b := 0; b < 16; b++ {
		r, t0 := roots[b%8], 4*float64(b)
		g = append(g, note(t0, 2, 36+r, 100), note(t0+2, 2, 43+r, 85), note(t0, 4, 55+r, 75), note(t0, 4, 59+r, 75),
			note(t0, 1.5, 72+r, 95), note(t0+1.5, 0.5, 76+r, 80), note(t0+2, 1, 79+r, 85), note(t0+3, 1, 76+r, 80))
		for k := 0; k < 8; k++ {
			d = append(d, note(t0+float64(k)/2, 0.25, 42, 70))
		}
		d = append(d, note(t0, 0.5, 36, 110), note(t0+1, 0.5, 38, 100), note(t0+2, 0.5, 36, 100), note(t0+3, 0.5, 38, 100))
	}
	byTick := func(a, b midi.Note) int { return int(a.Tick - b.Tick) }
	for _, p := range []struct {
		name   string
		meter  midi.MeterChange
		tracks []midi.Track
		end    int64
	}{
		{"waltz.mid", midi.MeterChange{Num: 1, Den: 4}, []midi.Track{{Name: "piano", Notes: w}}, 48 * tpb},
		{"groove.mid", midi.MeterChange{Num: 4, Den: 4}, []midi.Track{{Name: "band", Notes: g},
			{Name: "drums", Channel: 9, IsDrum: true, Notes: d}}, 64 * tpb},
	} {
		for i := range p.tracks {
			slices.SortStableFunc(p.tracks[i].Notes, byTick)
		}
		s := &midi.Score{Format: 1, TicksPerBeat: tpb, Tracks: p.tracks, EndTick: p.end,
			Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}}, Meters: []midi.MeterChange{p.meter}}
		if err := midi.WriteFile(filepath.Join(dir, p.name), s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIngestRebarsAndReports: ingestion tokenizes the waltz in 3/4 (not
// the declared 1/4), keeps the groove's 4/4, stores both meters in the
// items' metadata, and the run's report lists the re-barred file.
func TestIngestRebarsAndReports(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	writeMeterPieces(t, root)
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
// and the inferred meter; `amt tokenize` and the MIDI-folder tokenizer of
// `amt train --data` encode the re-barred score.
func TestInspectAndTokenizeShowBothMeters(t *testing.T) {
	dir := t.TempDir()
	writeMeterPieces(t, dir)
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
	var r TokenizeResult
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
		t.Fatalf("tokenize exit %d %v: %s", code, err, errOut)
	}
	if r.Attributes.MeterNum != 3 || r.Bars != 16 || r.RoundTripNoteMatch != 1 {
		t.Errorf("tokenize: meter %d/%d, %d bars, round trip %.3f; want 3/4, 16, 1", r.Attributes.MeterNum, r.Attributes.MeterDen, r.Bars, r.RoundTripNoteMatch)
	}
	v := token.DefaultVocab()
	toks, err := midiTokenizer(v)(file)
	if err != nil {
		t.Fatal(err)
	}
	if names := strings.Join(v.Names(toks[:12]), " "); !strings.Contains(names, "METER_3/4") {
		t.Errorf("train tokenizer prefix %s has no METER_3/4", names)
	}
}
