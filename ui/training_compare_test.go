package ui

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/amtstudio/amt/app"
)

// Two past runs clicked one after the other are compared with the figures
// `amt bench train --compare` prints: tokens/s, the stage breakdown per
// step, and the speed-up of the second over the first.
func TestTrainingComparesPastRuns(t *testing.T) {
	a := test.NewTempApp(t)
	st := tempStudio(t)
	corpus := t.TempDir()
	if err := writeDemoCorpus(corpus, 12); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Ingest(context.Background(), st.Store, app.IngestOptions{Project: app.DefaultProject, Dir: corpus}); err != nil {
		t.Fatal(err)
	}
	s := testShell(t, a, st, nil)
	defer s.Close()
	s.Window.Resize(fyne.NewSize(1280, 800))
	tr := s.Training
	tr.refresh()
	tr.preset.SetSelected("tiny")
	tr.steps.SetText("4")
	tr.context_.SetText("32")
	for i, batch := range []string{"2", "4"} {
		tr.batch.SetText(batch)
		test.Tap(tr.start)
		waitFor(t, func() bool { return tr.ends.Load() == int32(i+1) })
	}
	tr.job = nil
	tr.refresh() // shows the newest run (batch 4)
	if tr.compare.Visible() {
		t.Fatal("a comparison before a second run was clicked")
	}
	tr.runs.Select(1) // the older run (batch 2)
	text := tr.compare.Text
	for _, want := range []string{"run 2", "run 1", "run 2: batch=4 accum=1", "run 1: batch=2 accum=1", "tokens/s", "forward", "backward", "optimizer", "host clock", "speed-up: run 1 is"} {
		if !strings.Contains(text, want) {
			t.Errorf("comparison lacks %q:\n%s", want, text)
		}
	}
	if !tr.compare.Visible() {
		t.Error("comparison hidden")
	}
	s.Select("training")
	if err := os.MkdirAll(snapshotDir, 0o755); err == nil {
		if f, err := os.Create(filepath.Join(snapshotDir, "training-compare.png")); err == nil {
			png.Encode(f, s.Window.Canvas().Capture())
			f.Close()
		}
	}
}
