package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/ui/widgets"
)

var itemColumns = []string{"Title", "Duration", "Tempo", "Key", "Meter", "Instruments", "Notes", "Status"}

type datasetsScreen struct {
	e    *env
	root fyne.CanvasObject

	project     *widget.Select
	dataset     *widget.Select
	datasets    []app.DatasetSummary
	importB     *widget.Button
	cancelB     *widget.Button
	progress    *widget.ProgressBar
	progressRow *fyne.Container
	stage       *widget.Label

	stages      *widgets.StageChart
	verdict     *widget.Label
	suggestions *widget.Label

	search     *widget.Entry
	sortBy     *widget.Select
	failedOnly *widget.Check
	table      *widget.Table
	all        []app.ItemRow
	rows       []app.ItemRow

	side         *container.AppTabs
	preview      *widgets.PianoRoll
	previewTitle *widget.Label
	previewScore *midi.Score
	pb           *playback

	tempoHist, keyHist, pitchHist, instrHist *widgets.Histogram

	rebarredOnly *widget.Check // items whose declared meter gave way to the inferred one

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

func newDatasetsScreen(e *env) *datasetsScreen {
	d := &datasetsScreen{e: e}
	d.pb = &playback{e: e, soundFont: func() string {
		if e.studio == nil {
			return ""
		}
		s, _ := e.studio.Settings()
		return s.SoundFont
	}}
	d.project = widget.NewSelect(nil, func(p string) {
		if p != "" && p != e.project {
			e.project = p
			d.refresh()
			e.runsChanged()
		}
	})
	newProject := widget.NewButtonWithIcon("", theme.ContentAddIcon(), d.newProject)
	d.dataset = widget.NewSelect(nil, func(string) { d.showDataset() })
	d.importB = widget.NewButtonWithIcon("Import Folder…", theme.FolderOpenIcon(), func() {
		dlg := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
			if u != nil {
				d.startImport(u.Path())
			}
		}, e.win)
		dlg.Show()
	})
	d.importB.Importance = widget.HighImportance
	d.cancelB = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), d.cancelImport)
	d.cancelB.Disable()
	d.progress = widget.NewProgressBar()
	d.stage = widget.NewLabel("Import a folder of MIDI files (or drop one on the window).")

	d.stages = widgets.NewStageChart("Stages: busy vs waiting")
	d.verdict = widget.NewLabel("")
	d.verdict.TextStyle.Bold = true
	d.suggestions = widget.NewLabel("")
	d.suggestions.Wrapping = fyne.TextWrapWord

	d.search = widget.NewEntry()
	d.search.SetPlaceHolder("Search titles and paths")
	d.search.OnChanged = func(string) { d.filter() }
	d.sortBy = widget.NewSelect([]string{"Import order", "Title", "Duration", "Tempo", "Notes", "Status"}, func(string) { d.filter() })
	d.sortBy.Selected = "Import order"
	d.failedOnly = widget.NewCheck("Failed only", func(bool) { d.filter() })
	d.rebarredOnly = widget.NewCheck("Re-barred only", func(bool) { d.filter() })
	d.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(d.rows), len(itemColumns) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("template text")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TableCellID, o fyne.CanvasObject) {
			if id.Row < len(d.rows) {
				o.(*widget.Label).SetText(cellText(d.rows[id.Row], id.Col))
			}
		})
	d.table.CreateHeader = func() fyne.CanvasObject { return widget.NewLabel("header") }
	d.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		l := o.(*widget.Label)
		l.TextStyle.Bold = true
		if id.Row < 0 && id.Col >= 0 {
			l.SetText(itemColumns[id.Col])
		} else if id.Col < 0 && id.Row >= 0 {
			l.SetText(fmt.Sprint(id.Row + 1))
		}
	}
	for i, w := range []float32{220, 80, 70, 100, 100, 200, 70, 260} {
		d.table.SetColumnWidth(i, w)
	}
	d.table.OnSelected = func(id widget.TableCellID) {
		if id.Row >= 0 && id.Row < len(d.rows) {
			d.previewItem(d.rows[id.Row])
		}
	}

	d.preview = widgets.NewPianoRoll(nil)
	d.previewTitle = widget.NewLabel("Click an item to preview it")
	d.previewTitle.Truncation = fyne.TextTruncateEllipsis
	play := widget.NewButtonWithIcon("Play", theme.MediaPlayIcon(), func() {
		if d.pb.playing() {
			d.pb.stop()
			return
		}
		d.pb.play(d.previewScore, d.previewTitle.Text, d.preview)
	})
	d.tempoHist = widgets.NewHistogram("Tempo (bpm)")
	d.keyHist = widgets.NewHistogram("Key")
	d.pitchHist = widgets.NewHistogram("Pitch range by octave")
	d.instrHist = widgets.NewHistogram("Instruments")

	// The progress row is hidden until the first import: an idle bar at 0%
	// reads as stuck.
	d.progressRow = container.NewBorder(nil, nil, nil, d.cancelB, d.progress)
	d.progressRow.Hide()
	top := container.NewVBox(
		container.NewHBox(widget.NewLabel("Project"), d.project, newProject, widget.NewLabel("Dataset"), d.dataset, d.importB),
		d.progressRow, d.stage)
	filters := container.NewVBox(d.search, container.NewHBox(widget.NewLabel("Sort"), d.sortBy, d.failedOnly),
		container.NewHBox(d.rebarredOnly))
	items := container.NewBorder(filters, nil, nil, nil, d.table)
	report := container.NewBorder(d.verdict, d.suggestions, nil, nil, d.stages)
	previewBox := container.NewBorder(container.NewBorder(nil, nil, nil, play, d.previewTitle), nil, nil, nil, d.preview)
	stats := container.NewGridWithColumns(2, d.tempoHist, d.keyHist, d.pitchHist, d.instrHist)
	d.side = container.NewAppTabs(
		container.NewTabItem("Import report", report),
		container.NewTabItem("Statistics", stats),
		container.NewTabItem("Preview", previewBox))
	split := container.NewHSplit(items, d.side)
	split.Offset = 0.55
	d.root = container.NewBorder(top, nil, nil, nil, split)
	d.refresh()
	return d
}

func cellText(r app.ItemRow, col int) string {
	m := r.Meta
	switch col {
	case 0:
		if m != nil && m.Title != "" {
			return m.Title
		}
		return r.Path
	case 7:
		if r.Status == app.ItemFailed {
			return "failed: " + r.Error
		}
		return r.Status
	}
	if m == nil {
		return ""
	}
	switch col {
	case 1:
		return (time.Duration(m.DurationSeconds) * time.Second).String()
	case 2:
		return fmt.Sprintf("%.0f", m.TempoBPM)
	case 3:
		return m.Key.String()
	case 4:
		return meterText(m)
	case 5:
		fams := m.Families
		if m.HasDrums {
			fams = append(append([]string(nil), fams...), "Drums")
		}
		return strings.Join(fams, ", ")
	case 6:
		return fmt.Sprint(m.Notes)
	}
	return ""
}

// meterText is the meter the item was tokenized in and, when it was
// re-barred, the one its file declared.
func meterText(m *midi.Metadata) string {
	if !m.Rebarred {
		return fmt.Sprintf("%d/%d", m.MeterNum, m.MeterDen)
	}
	return fmt.Sprintf("%d/%d (was %s)", m.MeterNum, m.MeterDen, meterOrNone(m.DeclaredMeter))
}

func meterOrNone(m string) string {
	if m == "" {
		return "none"
	}
	return m
}

func (d *datasetsScreen) newProject() {
	name := widget.NewEntry()
	dialog.ShowForm("New project", "Create", "Cancel", []*widget.FormItem{widget.NewFormItem("Name", name)}, func(ok bool) {
		if !ok || strings.TrimSpace(name.Text) == "" || d.e.studio == nil {
			return
		}
		if err := d.e.studio.CreateProject(strings.TrimSpace(name.Text)); err != nil {
			d.e.setStatus("New project: " + err.Error())
			return
		}
		d.e.project = strings.TrimSpace(name.Text)
		d.refresh()
		d.e.runsChanged()
	}, d.e.win)
}

// refresh reloads projects and datasets and shows the selected dataset.
func (d *datasetsScreen) refresh() {
	if d.e.studio == nil {
		d.stage.SetText("No data directory: " + fmt.Sprint(d.e.err))
		return
	}
	ps, _ := d.e.studio.Projects()
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	d.project.Options = names
	d.project.Selected = d.e.project
	d.project.Refresh()
	list, err := d.e.studio.Datasets(d.e.project)
	if err != nil {
		d.e.setStatus("Datasets: " + err.Error())
	}
	d.datasets = list
	var dn []string
	for _, ds := range list {
		dn = append(dn, ds.Name)
	}
	prev := d.dataset.Selected
	d.dataset.Options = dn
	if len(dn) > 0 && !contains(dn, prev) {
		prev = dn[len(dn)-1]
	}
	d.dataset.Selected = prev
	d.dataset.Refresh()
	d.showDataset()
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func (d *datasetsScreen) selected() *app.DatasetSummary {
	for i := range d.datasets {
		if d.datasets[i].Name == d.dataset.Selected {
			return &d.datasets[i]
		}
	}
	return nil
}

// showDataset fills the table, the report and the statistics.
func (d *datasetsScreen) showDataset() {
	ds := d.selected()
	if ds == nil || d.e.studio == nil {
		d.all = nil
		d.filter()
		return
	}
	items, err := d.e.studio.Items(ds.ID)
	if err != nil {
		d.e.setStatus(err.Error())
	}
	d.all = items
	d.filter()
	d.stage.SetText(fmt.Sprintf("%s: %d items, %d ok, %d failed, %d tokens in %d shards (%s)", ds.Name, ds.Items, ds.OK, ds.Failed, ds.Tokens, ds.Shards, ds.Root))
	if run, err := d.e.studio.LastIngestRun(d.e.project, ds.ID); err == nil && run != nil {
		d.showReport(run.Stages, run.Bottleneck, run.Suggestions, run.Seconds, run.Rebarred)
	}
	d.showStats()
}

func (d *datasetsScreen) showReport(st []app.StageStat, bottleneck string, sugg []string, secs float64, rebarred int) {
	stages := make([]widgets.Stage, 0, len(st))
	for _, s := range st {
		stages = append(stages, widgets.Stage{Name: s.Name, Busy: time.Duration(s.BusySeconds * float64(time.Second)),
			Wait: time.Duration(s.WaitSeconds * float64(time.Second))})
	}
	d.stages.SetStages(stages)
	d.stages.SetHighlight(bottleneck)
	if bottleneck == "" {
		bottleneck = "none"
	}
	v := fmt.Sprintf("Last import took %.2f s · bottleneck: %s", secs, bottleneck)
	switch {
	case rebarred == 1:
		v += "\n1 file re-barred: its declared meter gave way to the one of its notes (Re-barred only lists it)"
	case rebarred > 1:
		v += fmt.Sprintf("\n%d files re-barred: their declared meters gave way to those of their notes (Re-barred only lists them)", rebarred)
	}
	d.verdict.SetText(v)
	if len(sugg) > 0 {
		d.suggestions.SetText("• " + strings.Join(sugg, "\n• "))
	} else {
		d.suggestions.SetText("")
	}
}

// filter applies search, failed-only and sort to the table.
func (d *datasetsScreen) filter() {
	q := strings.ToLower(strings.TrimSpace(d.search.Text))
	rows := d.rows[:0:0]
	for _, r := range d.all {
		if d.failedOnly.Checked && r.Status != app.ItemFailed {
			continue
		}
		if d.rebarredOnly.Checked && (r.Meta == nil || !r.Meta.Rebarred) {
			continue
		}
		if q != "" && !strings.Contains(strings.ToLower(cellText(r, 0)+" "+r.Path), q) {
			continue
		}
		rows = append(rows, r)
	}
	key := func(r app.ItemRow) (float64, string) {
		m := r.Meta
		switch d.sortBy.Selected {
		case "Title":
			return 0, strings.ToLower(cellText(r, 0))
		case "Status":
			return 0, r.Status
		}
		if m == nil {
			return -1, ""
		}
		switch d.sortBy.Selected {
		case "Duration":
			return m.DurationSeconds, ""
		case "Tempo":
			return m.TempoBPM, ""
		case "Notes":
			return float64(m.Notes), ""
		}
		return 0, ""
	}
	if d.sortBy.Selected != "Import order" {
		sort.SliceStable(rows, func(i, j int) bool {
			a, as := key(rows[i])
			b, bs := key(rows[j])
			if as != bs {
				return as < bs
			}
			return a < b
		})
	}
	d.rows = rows
	d.table.Refresh()
}

// showStats fills the histograms from the dataset's measured items.
func (d *datasetsScreen) showStats() {
	var tempos []float64
	keys := map[string]float64{}
	var octaves [11]float64
	fams := map[string]float64{}
	for _, r := range d.all {
		m := r.Meta
		if m == nil {
			continue
		}
		tempos = append(tempos, m.TempoBPM)
		keys[m.Key.String()]++
		if m.Notes > 0 && m.PitchMax >= m.PitchMin {
			for o := m.PitchMin / 12; o <= m.PitchMax/12 && o < len(octaves); o++ {
				octaves[o]++
			}
		}
		for _, f := range m.Families {
			fams[f]++
		}
		if m.HasDrums {
			fams["Drums"]++
		}
	}
	tl, tc := widgets.Bin(tempos, 40, 200, 8)
	d.tempoHist.SetBins(tl, tc)
	kl, kc := topCounts(keys, 8)
	d.keyHist.SetBins(kl, kc)
	var ol []string
	var oc []float64
	for o, n := range octaves {
		if n > 0 || (o >= 2 && o <= 7) {
			ol = append(ol, fmt.Sprintf("C%d", o-1))
			oc = append(oc, n)
		}
	}
	d.pitchHist.SetBins(ol, oc)
	fl, fc := topCounts(fams, 8)
	d.instrHist.SetBins(fl, fc)
	d.instrHist.SetCaption("pieces using each GM family")
}

// topCounts returns the n largest counts with their labels, largest first.
func topCounts(m map[string]float64, n int) ([]string, []float64) {
	type kv struct {
		k string
		v float64
	}
	var all []kv
	for k, v := range m {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].v != all[j].v {
			return all[i].v > all[j].v
		}
		return all[i].k < all[j].k
	})
	if len(all) > n {
		all = all[:n]
	}
	ls, cs := make([]string, len(all)), make([]float64, len(all))
	for i, x := range all {
		ls[i], cs[i] = x.k, x.v
	}
	return ls, cs
}

func (d *datasetsScreen) previewItem(r app.ItemRow) {
	d.pb.stop()
	if r.Status == app.ItemFailed {
		d.previewTitle.SetText(r.Path + ": " + r.Error)
		d.previewScore = nil
		d.preview.SetScore(nil)
		return
	}
	sc, m, err := app.OpenMIDI(r.Abs) // shown with the bar lines it was tokenized with
	if err != nil {
		d.previewTitle.SetText(err.Error())
		d.previewScore = nil
		d.preview.SetScore(nil)
		return
	}
	title := r.Path
	if m.Rebarred {
		title += fmt.Sprintf(" (re-barred to %s; the file declares %s)", m.TimeSignature, meterOrNone(m.DeclaredMeter))
	}
	d.previewScore = sc
	d.previewTitle.SetText(title)
	d.preview.SetScore(sc)
	d.side.SelectIndex(2)
}

// importDropped imports a dropped folder; false when path is no folder.
func (d *datasetsScreen) importDropped(path string) bool {
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		return false
	}
	d.startImport(path)
	return true
}

// startImport runs an ingestion of dir into the current project.
func (d *datasetsScreen) startImport(dir string) {
	if d.e.studio == nil {
		d.e.setStatus("Cannot import: no data directory")
		return
	}
	d.mu.Lock()
	if d.cancel != nil {
		d.mu.Unlock()
		d.e.setStatus("An import is already running")
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	d.done = make(chan struct{})
	done := d.done
	d.mu.Unlock()
	d.importB.Disable()
	d.cancelB.Enable()
	d.progress.SetValue(0)
	d.progressRow.Show()
	d.stage.SetText("Scanning " + dir + "…")
	d.e.setStatus("Importing " + filepath.Base(dir))
	// The stage workers come from the settings (Settings saves them where
	// Ingest reads them), as for `amt ingest`.
	events := make(chan app.IngestEvent, 64)
	opts := app.IngestOptions{Project: d.e.project, Dir: dir, Progress: events}
	go func() {
		for ev := range events {
			ev := ev
			d.e.bridge.Post("ingest.progress", func() {
				if ev.Total > 0 {
					d.progress.SetValue(float64(ev.Done) / float64(ev.Total))
				}
				d.stage.SetText(fmt.Sprintf("%s: %d of %d files · %s", ev.Stage, ev.Done, ev.Total, ev.Path))
			})
		}
	}()
	go func() {
		defer close(done)
		res, err := app.Ingest(ctx, d.e.studio.Store, opts)
		close(events)
		cancel()
		d.e.bridge.Post("ingest.done", func() {
			defer func() {
				d.mu.Lock()
				d.cancel = nil
				d.mu.Unlock()
				d.importB.Enable()
				d.cancelB.Disable()
			}()
			if err != nil {
				d.stage.SetText("Import stopped: " + err.Error())
				d.e.status.SetText("Import stopped: " + err.Error())
			}
			if res == nil {
				return
			}
			d.progress.SetValue(1)
			d.refresh()
			d.dataset.SetSelected(res.Dataset)
			if r := res.Report; r != nil {
				stages := make([]app.StageStat, len(r.Stages))
				for i, s := range r.Stages {
					stages[i] = app.StageStat{Name: s.Name, BusySeconds: s.BusySeconds, WaitSeconds: s.WaitSeconds}
				}
				d.showReport(stages, r.Bottleneck, r.Suggestions, r.Seconds, r.Rebarred)
				if err == nil {
					msg := fmt.Sprintf("Imported %s: %d files, %d ok, %d failed, %d unchanged in %.2f s", res.Dataset, r.Files, r.OK, r.Failed, r.Unchanged, r.Seconds)
					if r.Skipped > 0 { // named pipes, devices, dangling links: never opened
						msg += fmt.Sprintf("; %d skipped (not regular files, e.g. %s: %s)", r.Skipped, r.SkippedFiles[0].Path, r.SkippedFiles[0].Kind)
					}
					d.e.status.SetText(msg)
				}
			}
			d.e.datasetsChanged()
		})
	}()
}

func (d *datasetsScreen) cancelImport() {
	d.mu.Lock()
	if d.cancel != nil {
		d.cancel()
	}
	d.mu.Unlock()
}

// waitImport blocks until a running import ends.
func (d *datasetsScreen) waitImport() {
	d.mu.Lock()
	done := d.done
	d.mu.Unlock()
	if done != nil {
		<-done
	}
}

func (d *datasetsScreen) close() {
	d.cancelImport()
	d.waitImport()
	d.pb.stop()
}
