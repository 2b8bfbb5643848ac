package ui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/app/cli"
)

func TestEachScreenRendersWithoutStore(t *testing.T) {
	a := test.NewTempApp(t)
	s := testShell(t, a, nil, app.ErrStoreInUse)
	defer s.Close()
	s.Window.Resize(fyne.NewSize(900, 600))
	for _, n := range ScreenNames {
		if err := s.Select(n); err != nil {
			t.Fatal(err)
		}
		if img := s.Window.Canvas().Capture(); img.Bounds().Dx() == 0 {
			t.Fatalf("%s: empty capture", n)
		}
	}
	if got := s.Status.Text; got != "No data directory: "+app.ErrStoreInUse.Error() {
		t.Errorf("status = %q", got)
	}
}

func TestComposeGenerateAddsPieceToHistory(t *testing.T) {
	a := test.NewTempApp(t)
	st := tempStudio(t)
	model := t.TempDir()
	if err := app.WriteRandomModel(model, "tiny", 5); err != nil {
		t.Fatal(err)
	}
	s := testShell(t, a, st, nil)
	defer s.Close()
	s.Window.Resize(fyne.NewSize(1100, 720))
	c := s.Compose
	if c.model.Selected != defaultModelLabel || c.noModel.Visible() {
		t.Fatalf("model %q, no-model note visible %v; want the default model", c.model.Selected, c.noModel.Visible())
	}
	test.Type(c.prompt, "calm piano waltz in D minor, 90 bpm, 8 bars")
	if c.meter.Selected != "3/4" || c.key.Selected != "D minor" || c.tempo.Text != "90" || c.bars.Text != "8" || c.instruments.Text != "Acoustic Grand Piano" {
		t.Fatalf("chips: meter %q key %q tempo %q bars %q instruments %q", c.meter.Selected, c.key.Selected, c.tempo.Text, c.bars.Text, c.instruments.Text)
	}
	c.modelDirs["Folder tiny"] = model
	c.refreshModels()
	c.model.SetSelected("Folder tiny")
	c.length.SetText("300")
	c.meter.SetSelected("4/4") // the user's edit overrides the prompt
	test.Tap(c.generate)
	waitFor(t, func() bool { return len(c.pieces) == 1 && c.running == nil })
	p := c.pieces[0]
	if p.Prompt != "calm piano waltz in D minor, 90 bpm, 8 bars" || p.Attrs.MeterNum != 4 || p.Attrs.KeyTonic != 2 {
		t.Fatalf("piece = %+v, want the prompt with the 4/4 edit and D minor", p.Piece)
	}
	if c.current == nil || c.roll.BarCount() == 0 || c.evalText.Text == "" {
		t.Fatalf("result not shown: score %v, bars %d, evaluation %q", c.current != nil, c.roll.BarCount(), c.evalText.Text)
	}
	// Enter generates too; newest first.
	c.prompt.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	waitFor(t, func() bool { return len(c.pieces) == 2 && c.running == nil })
	if c.pieces[0].ID <= c.pieces[1].ID {
		t.Errorf("history not newest first: %d, %d", c.pieces[0].ID, c.pieces[1].ID)
	}
	// The history survives a restart.
	s2 := testShell(t, a, st, nil)
	defer s2.Close()
	if len(s2.Compose.pieces) != 2 || s2.Compose.current == nil {
		t.Fatalf("after restart: %d pieces, current %v", len(s2.Compose.pieces), s2.Compose.current != nil)
	}
}

func TestImportFolderFillsTable(t *testing.T) {
	a := test.NewTempApp(t)
	st := tempStudio(t)
	corpus := t.TempDir()
	if err := writeDemoCorpus(corpus, 6); err != nil {
		t.Fatal(err)
	}
	s := testShell(t, a, st, nil)
	defer s.Close()
	s.Window.Resize(fyne.NewSize(1100, 720))
	d := s.Datasets
	if !s.Datasets.importDropped(corpus) {
		t.Fatal("a dropped folder was not imported")
	}
	waitFor(t, func() bool { return len(d.all) == 7 && d.importB.Disabled() == false })
	if len(d.rows) != 7 || d.dataset.Selected != filepath.Base(corpus) {
		t.Fatalf("rows %d dataset %q", len(d.rows), d.dataset.Selected)
	}
	d.failedOnly.SetChecked(true)
	if len(d.rows) != 1 || d.rows[0].Path != "broken.mid" {
		t.Fatalf("failed filter: %d rows", len(d.rows))
	}
	d.failedOnly.SetChecked(false)
	test.Type(d.search, "tune 3")
	if len(d.rows) != 1 || cellText(d.rows[0], 0) != "Demo tune 3" {
		t.Fatalf("search: %d rows", len(d.rows))
	}
	d.search.SetText("")
	d.sortBy.SetSelected("Tempo")
	for i := 1; i < len(d.rows); i++ {
		if d.rows[i-1].Meta != nil && d.rows[i].Meta != nil && d.rows[i-1].Meta.TempoBPM > d.rows[i].Meta.TempoBPM {
			t.Fatalf("not sorted by tempo at %d", i)
		}
	}
	d.table.Select(fyneTableCell(len(d.rows) - 1))
	if d.previewScore == nil || d.preview.BarCount() == 0 {
		t.Fatal("clicking a row did not preview it")
	}
	if d.verdict.Text == "" {
		t.Error("no verdict after the import")
	}
}

func TestTrainingRunDrawsLossCurve(t *testing.T) {
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
	s.Window.Resize(fyne.NewSize(1100, 720))
	tr := s.Training
	tr.refresh()
	if tr.dataset.Selected == "" {
		t.Fatal("no dataset offered")
	}
	tr.preset.SetSelected("tiny")
	tr.steps.SetText("20")
	tr.batch.SetText("2")
	tr.context_.SetText("32")
	test.Tap(tr.start)
	waitFor(t, func() bool { return tr.ends.Load() == 1 })
	if n := tr.loss.Len("train loss"); n != 20 {
		t.Fatalf("train loss points = %d, want 20", n)
	}
	if tr.loss.Len("val loss") == 0 || tr.speed.Len("tokens/s") != 20 {
		t.Errorf("val points %d, speed points %d", tr.loss.Len("val loss"), tr.speed.Len("tokens/s"))
	}
	if tr.checkpoints.Text == "Checkpoints: none yet" {
		t.Error("no checkpoint listed")
	}
	runs, _ := st.TrainRuns(app.DefaultProject)
	if len(runs) != 1 || runs[0].Status != app.RunDone {
		t.Fatalf("runs = %+v", runs)
	}
	// Compose now offers the trained model (the default stays chosen).
	offered := false
	for _, o := range s.Compose.model.Options {
		offered = offered || strings.HasPrefix(o, "Training run ")
	}
	if !offered || s.Compose.model.Selected != defaultModelLabel {
		t.Errorf("compose models %v, chosen %q", s.Compose.model.Options, s.Compose.model.Selected)
	}
}

func fyneTableCell(row int) widget.TableCellID { return widget.TableCellID{Row: row, Col: 0} }

// With the default model, the window makes byte for byte the MIDI file
// `amt generate "PROMPT" --seed S` makes: the chips filled from the prompt
// force what the command line forces. A rating is kept on the piece, and
// a piece is deleted only after the confirmation.
func TestComposeDefaultModelMatchesCLIAndDeletes(t *testing.T) {
	a := test.NewTempApp(t)
	st := tempStudio(t)
	s := testShell(t, a, st, nil)
	defer s.Close()
	s.Window.Resize(fyne.NewSize(1100, 720))
	c := s.Compose
	const prompt = "slow jazz ballad in B flat major for piano and double bass, 6 bars"
	test.Type(c.prompt, prompt)
	c.seed.SetText("21")
	test.Tap(c.generate)
	waitFor(t, func() bool { return len(c.pieces) == 1 && c.running == nil })
	p := c.pieces[0]
	if p.Model != app.EmbeddedModelDir || p.Attrs.Bars != 6 {
		t.Fatalf("piece model %q attrs %+v", p.Model, p.Attrs)
	}
	gui, err := os.ReadFile(p.Abs)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "cli.mid")
	var stdout, stderr bytes.Buffer
	if code := cli.Main(context.Background(), &cli.Env{Stdout: &stdout, Stderr: &stderr}, []string{"generate", prompt, "-o", out, "--seed", "21"}); code != 0 {
		t.Fatalf("amt generate: exit %d: %s", code, stderr.String())
	}
	if cli, err := os.ReadFile(out); err != nil || !bytes.Equal(gui, cli) {
		t.Fatalf("GUI piece (%d bytes) differs from amt generate's (%d bytes, %v)", len(gui), len(cli), err)
	}

	if err := st.RatePiece(p.ID, 3); err != nil {
		t.Fatal(err)
	}
	c.refreshHistory()
	if c.pieces[0].Rating != 3 {
		t.Errorf("rating %d, want 3", c.pieces[0].Rating)
	}
	c.confirmDelete(c.pieces[0])
	if c.deleteDialog == nil {
		t.Fatal("no confirmation shown")
	}
	c.deleteDialog.Hide() // dismissed: nothing deleted
	if ps, _ := st.Pieces(app.DefaultProject); len(ps) != 1 {
		t.Fatalf("dismissing deleted: %d pieces", len(ps))
	}
	c.confirmDelete(c.pieces[0])
	c.deleteDialog.Confirm()
	if ps, _ := st.Pieces(app.DefaultProject); len(ps) != 0 || len(c.pieces) != 0 {
		t.Fatalf("after confirming: %d stored, %d listed", len(ps), len(c.pieces))
	}
	if _, err := os.Stat(p.Abs); !os.IsNotExist(err) {
		t.Errorf("MIDI file after delete: %v", err)
	}
	if c.current != nil {
		t.Error("the deleted piece is still shown")
	}
}
