package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/amtstudio/amt/engine/midi"
)

// writeWaltz writes a 16-bar waltz (bass on 1, chords on 2 and 3) whose
// file declares 1/4, as most of POP909 does.
func writeWaltz(t *testing.T, path string) {
	t.Helper()
	const tpb = 96
	var notes []midi.Note
	for b := 0; b < 16; b++ {
		r := uint8([]int{0, 5, 7, 0}[b%4])
		t0 := int64(3 * b * tpb)
		notes = append(notes, midi.Note{Tick: t0, Dur: tpb, Pitch: 40 + r, Velocity: 96},
			midi.Note{Tick: t0, Dur: 2 * tpb, Pitch: 79 + r, Velocity: 90})
		for k := int64(1); k <= 2; k++ {
			notes = append(notes, midi.Note{Tick: t0 + k*tpb, Dur: tpb - 8, Pitch: 59 + r, Velocity: 70},
				midi.Note{Tick: t0 + k*tpb, Dur: tpb - 8, Pitch: 64 + r, Velocity: 70})
		}
		notes = append(notes, midi.Note{Tick: t0 + 2*tpb, Dur: tpb, Pitch: 76 + r, Velocity: 80})
	}
	s := &midi.Score{Format: 1, TicksPerBeat: tpb, Title: "Waltz in one", EndTick: 48 * tpb,
		Tempos: []midi.TempoChange{{MicrosPerBeat: 500000}}, Meters: []midi.MeterChange{{Num: 1, Den: 4}},
		Tracks: []midi.Track{{Name: "piano", Notes: notes}}}
	for i := range s.Tracks[0].Notes { // sorted by onset, as a file reads back
		for j := i; j > 0 && s.Tracks[0].Notes[j].Tick < s.Tracks[0].Notes[j-1].Tick; j-- {
			s.Tracks[0].Notes[j], s.Tracks[0].Notes[j-1] = s.Tracks[0].Notes[j-1], s.Tracks[0].Notes[j]
		}
	}
	if err := midi.WriteFile(path, s); err != nil {
		t.Fatal(err)
	}
}

// TestDatasetsListsRebarredFiles: after an import, the report says how many
// files were re-barred, the Meter column shows the meter they were
// tokenized in and the one their file declared, and "Re-barred only"
// lists just them. The capture is saved for a person to look at.
func TestDatasetsListsRebarredFiles(t *testing.T) {
	a := test.NewTempApp(t)
	st := tempStudio(t)
	dir := t.TempDir()
	if err := writeDemoCorpus(dir, 3); err != nil {
		t.Fatal(err)
	}
	writeWaltz(t, filepath.Join(dir, "waltz.mid"))
	s := testShell(t, a, st, nil)
	defer s.Close()
	s.Window.Resize(fyne.NewSize(1400, 640))
	d := s.Datasets
	if !d.importDropped(dir) {
		t.Fatal("folder not imported")
	}
	waitFor(t, func() bool { return len(d.all) == 5 && !d.importB.Disabled() })
	var rebarred []string
	for _, r := range d.all {
		if r.Meta != nil && r.Meta.Rebarred {
			rebarred = append(rebarred, r.Path)
		}
	}
	if len(rebarred) == 0 {
		t.Fatal("no item re-barred")
	}
	if !strings.Contains(d.verdict.Text, "re-barred") {
		t.Errorf("report %q does not mention the re-barred files", d.verdict.Text)
	}
	d.rebarredOnly.SetChecked(true)
	if len(d.rows) != len(rebarred) {
		t.Fatalf("re-barred filter: %d rows, want %d (%v)", len(d.rows), len(rebarred), rebarred)
	}
	found := false
	for _, r := range d.rows {
		if r.Path == "waltz.mid" {
			found = true
			if got := cellText(r, 4); got != "3/4 (was 1/4)" {
				t.Errorf("waltz meter cell %q, want \"3/4 (was 1/4)\"", got)
			}
		}
	}
	if !found {
		t.Errorf("waltz.mid not among the re-barred rows %v", rebarred)
	}

	if err := s.Select("datasets"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(snapshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WritePNG(filepath.Join(snapshotDir, "datasets-rebarred.png"), s.Window.Canvas().Capture()); err != nil {
		t.Fatal(err)
	}
	// The preview shows the bar lines the tokenizer saw: 16 bars of 3/4,
	// not 48 of 1/4.
	d.table.Select(fyneTableCell(0))
	if d.previewScore == nil || d.preview.BarCount() != 16 || !strings.Contains(d.previewTitle.Text, "re-barred to 3/4") {
		t.Errorf("preview: %d bars, title %q", d.preview.BarCount(), d.previewTitle.Text)
	}
	d.rebarredOnly.SetChecked(false)
	if len(d.rows) != 5 {
		t.Errorf("%d rows after clearing the filter, want 5", len(d.rows))
	}
}
