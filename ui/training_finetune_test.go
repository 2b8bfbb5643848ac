package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/amtstudio/amt/app"
)

// waitLong is waitFor with a deadline for a fine-tune of the default
// model on a shared 2-core machine.
func waitLong(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		drainShells()
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("condition not met in 5 minutes")
}

// TestTrainingFineTuneFlow drives the whole flow of issue 34 through the
// window: choose the default model as the base (the preset goes off,
// steps and context "auto"), train a tiny fine-tune of an imported
// dataset (the base's held-out loss is the loss chart's first point), see
// the tuned model in Compose's Model list under the dataset's name, and
// generate from it. Captures: testdata/out/training_start_from.png,
// training_finetuned.png, compose_finetuned_model.png.
func TestTrainingFineTuneFlow(t *testing.T) {
	a := test.NewTempApp(t)
	st := tempStudio(t)
	corpus := t.TempDir()
	if err := writeDemoCorpus(corpus, 12); err != nil {
		t.Fatal(err)
	}
	ing, err := app.Ingest(context.Background(), st.Store, app.IngestOptions{Project: app.DefaultProject, Dir: corpus})
	if err != nil {
		t.Fatal(err)
	}
	s := testShell(t, a, st, nil)
	defer s.Close()
	s.Window.Resize(fyne.NewSize(1280, 800))
	tr := s.Training
	tr.refresh()
	if tr.dataset.Selected != ing.Dataset {
		t.Fatalf("dataset %q offered, want %q", tr.dataset.Selected, ing.Dataset)
	}
	if tr.from.Selected != fromScratchLabel || len(tr.from.Options) != 2 {
		t.Fatalf("start from %q of %v; want scratch of scratch and the default model", tr.from.Selected, tr.from.Options)
	}
	tr.from.SetSelected(fromDefaultLabel)
	if !tr.preset.Disabled() || tr.steps.Text != "auto" || tr.context_.Text != "auto" || !tr.fromNote.Visible() {
		t.Fatalf("fine-tune form: preset disabled %v, steps %q, context %q, note shown %v", tr.preset.Disabled(), tr.steps.Text, tr.context_.Text, tr.fromNote.Visible())
	}
	if err := s.Select("training"); err != nil {
		t.Fatal(err)
	}
	captureShell(t, s, "training_start_from")

	tr.steps.SetText("4") // a tiny fine-tune; the context stays auto
	tr.batch.SetText("2")
	test.Tap(tr.start)
	waitLong(t, func() bool { return tr.ends.Load() == 1 })
	if n := tr.loss.Len("train loss"); n != 4 {
		t.Fatalf("train loss points %d, want 4", n)
	}
	runs, _ := st.TrainRuns(app.DefaultProject)
	if len(runs) != 1 || runs[0].Status != app.RunDone || runs[0].Lineage == nil {
		t.Fatalf("runs %+v", runs)
	}
	l := runs[0].Lineage
	ms, _ := st.RunMetrics(runs[0].ID)
	if vl := ms["val_loss"]; len(vl[0]) < 2 || vl[0][0] != 0 || vl[1][0] != l.BaseValLoss || tr.loss.Len("val loss") != len(vl[0]) {
		t.Fatalf("val loss points %v (chart %d), base %.4f: want the base's loss at step 0 first", vl, tr.loss.Len("val loss"), l.BaseValLoss)
	}
	label := app.FineTuneLabel(l, runs[0].ID)
	if !strings.Contains(tr.info.Text, "held-out loss") || !strings.Contains(tr.info.Text, label) {
		t.Errorf("end message %q does not give the losses and the Compose label %q", tr.info.Text, label)
	}
	captureShell(t, s, "training_finetuned")

	// Compose offers it under the dataset's name and generates from it.
	c := s.Compose
	found := false
	for _, o := range c.model.Options {
		found = found || o == label
	}
	if !found || !strings.HasPrefix(label, ing.Dataset+" · tuned from default model") {
		t.Fatalf("Compose's models %v lack %q", c.model.Options, label)
	}
	// and the Training screen offers it as a base for the next fine-tune.
	if !strings.Contains(strings.Join(tr.from.Options, "\n"), label) {
		t.Errorf("start from %v lacks the tuned model", tr.from.Options)
	}
	c.model.SetSelected(label)
	test.Type(c.prompt, "a folk tune in G major, 3/4, 110 bpm, 8 bars")
	test.Tap(c.generate)
	waitLong(t, func() bool { return len(c.pieces) == 1 && c.running == nil })
	p := c.pieces[0]
	if p.Model != runsDir(st, runs[0]) || c.roll.BarCount() == 0 {
		t.Fatalf("piece of model %q with %d bars; want the tuned model %q", p.Model, c.roll.BarCount(), runsDir(st, runs[0]))
	}
	if err := s.Select("compose"); err != nil {
		t.Fatal(err)
	}
	captureShell(t, s, "compose_finetuned_model")

	// After a restart the Training screen shows the run with its lineage.
	s2 := testShell(t, a, st, nil)
	defer s2.Close()
	if info := s2.Training.info.Text; !strings.Contains(info, "default model tuned on "+ing.Dataset) || !strings.Contains(info, "step 4 of 4 kept") {
		t.Errorf("past fine-tune shown as %q", info)
	}
}

func runsDir(st *app.Studio, r app.TrainRun) string { return st.Store.Abs(r.ModelDir) }
