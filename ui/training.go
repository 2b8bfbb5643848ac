package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/ui/widgets"
)

// Training alert thresholds.
const (
	ramAlertPercent = 80  // RAM use above this
	slowFraction    = 0.5 // tokens/s below this share of the run's median
	starvedFraction = 0.5 // data wait above this share of a step
)

type trainingScreen struct {
	e    *env
	root fyne.CanvasObject

	dataset                                    *widget.Select
	from                                       *widget.Select    // Start from: scratch, the default model, a model of the project
	fromDirs                                   map[string]string // Start from label → app.TrainSpec.From
	fromNote                                   *widget.Label
	preset                                     *widget.Select
	context_, batch, lr, steps, accum, workers *widget.Entry
	device                                     *widget.RadioGroup
	start, pause, resume, stop, listen         *widget.Button
	progress                                   *widget.ProgressBar
	info, alerts, checkpoints, compare         *widget.Label
	loss, speed                                *widgets.LineChart
	resources                                  *widgets.ResourceGraph
	disk                                       *widget.Label
	stages                                     *widgets.StageChart
	runs                                       *widget.List
	pastRuns                                   []app.TrainRun
	shown                                      *app.TrainRun // the past run shown last (compared with the next one clicked)
	leftScroll                                 *container.Scroll
	job                                        *app.TrainJob
	pausedRun                                  uint64 // a stored run Resume continues
	speeds                                     []float64
	stageSum                                   app.StageSeconds
	lastRAM                                    float64
	mu                                         sync.Mutex
	visible                                    bool
	sampler                                    *app.ResourceSampler
	samplerStop                                context.CancelFunc
	sampleEvery                                time.Duration
	idleEvery                                  time.Duration // sampling with no run; 0: none
	ends                                       atomic.Int32  // run segments whose end was shown (tests)
	gpuDetails                                 *widget.Button
	gpuWhy                                     string // the GPU line once the check is done (tests)
}

func newTrainingScreen(e *env) *trainingScreen {
	t := &trainingScreen{e: e}
	def := app.DefaultTrainSpec()
	t.dataset = widget.NewSelect(nil, nil)
	t.from = widget.NewSelect([]string{fromScratchLabel, fromDefaultLabel}, nil)
	t.from.Selected = fromScratchLabel
	t.fromDirs = map[string]string{fromScratchLabel: "", fromDefaultLabel: app.FromDefault}
	t.fromNote = widget.NewLabel("")
	t.fromNote.Importance = widget.LowImportance
	t.fromNote.Wrapping = fyne.TextWrapWord
	t.fromNote.Hide()
	t.preset = widget.NewSelect(app.ModelPresets(), nil)
	t.preset.Selected = def.Preset
	entry := func(v string) *widget.Entry { w := widget.NewEntry(); w.SetText(v); return w }
	t.context_ = entry(strconv.Itoa(def.Context))
	t.batch = entry(strconv.Itoa(def.Batch))
	t.lr = entry(strconv.FormatFloat(def.LR, 'g', -1, 64))
	t.steps = entry(strconv.Itoa(def.Steps))
	t.accum = entry(strconv.Itoa(def.Accum))
	t.workers = entry("0")
	t.device = widget.NewRadioGroup([]string{"CPU", "GPU"}, nil)
	t.device.Horizontal = true
	t.device.Selected = "CPU"
	t.device.Disable()
	// The GPU line is one short sentence; the whole reason and how far the
	// GPU path is verified are behind "Details" (the full text took 14
	// lines of the form and pushed Workers out of sight).
	gpuWhy := widget.NewLabel("GPU: checking for CUDA…")
	gpuWhy.Importance = widget.LowImportance
	gpuWhy.Wrapping = fyne.TextWrapWord
	var gpuDetail string
	t.gpuDetails = widget.NewButtonWithIcon("Details", theme.InfoIcon(), func() {
		d := dialog.NewInformation("GPU", gpuDetail, e.win)
		d.Resize(fyne.NewSize(520, 0))
		d.Show()
	})
	t.gpuDetails.Importance = widget.LowImportance
	t.gpuDetails.Disable()
	// Opening CUDA loads the driver: off the UI goroutine.
	go func() {
		ok, why := app.GPUAvailable()
		e.bridge.Post("train.gpu", func() {
			if ok {
				gpuWhy.SetText("GPU: " + why + ".")
				gpuDetail = "GPU: " + why + ".\n\nThe GPU path is " + app.GPUVerification + "."
				t.device.Enable()
			} else {
				gpuWhy.SetText("GPU unavailable: " + shortReason(why) + ".")
				gpuDetail = "GPU unavailable: " + why + ".\n\nThe GPU path is " + app.GPUVerification + "."
			}
			t.gpuWhy = gpuWhy.Text
			t.gpuDetails.Enable()
		})
	}()

	t.start = widget.NewButtonWithIcon("Start", theme.MediaPlayIcon(), t.startRun)
	t.start.Importance = widget.HighImportance
	t.pause = widget.NewButtonWithIcon("Pause", theme.MediaPauseIcon(), func() { t.halt(false) })
	t.resume = widget.NewButtonWithIcon("Resume", theme.MediaReplayIcon(), t.resumeRun)
	t.stop = widget.NewButtonWithIcon("Stop", theme.MediaStopIcon(), func() { t.halt(true) })
	t.listen = widget.NewButtonWithIcon("Listen", theme.VolumeUpIcon(), t.listenSample)
	t.progress = widget.NewProgressBar()
	t.info = widget.NewLabel("No run yet.")
	t.info.Truncation = fyne.TextTruncateEllipsis
	t.alerts = widget.NewLabel("")
	t.alerts.Importance = widget.DangerImportance
	t.alerts.Wrapping = fyne.TextWrapWord
	t.alerts.Hide() // shown with an alert; an empty label would take a line
	t.checkpoints = widget.NewLabel("")
	t.checkpoints.Wrapping = fyne.TextWrapWord
	t.compare = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	t.compare.Hide()

	t.loss = widgets.NewLineChart("Loss")
	t.loss.SetAxisCaptions("step", "cross-entropy")
	t.loss.AddSeries("train loss")
	t.loss.AddSeries("val loss")
	t.speed = widgets.NewLineChart("Throughput")
	t.speed.SetAxisCaptions("step", "tokens/s")
	t.speed.AddSeries("tokens/s")
	t.resources = widgets.NewResourceGraph("Resources", 120, time.Second, "CPU %", "RAM %", "GPU %", "GPU mem %")
	t.resources.SetThreshold(ramAlertPercent)
	t.disk = widget.NewLabel("Resources are sampled every second while a run trains.")
	t.disk.Truncation = fyne.TextTruncateEllipsis
	t.stages = widgets.NewStageChart("Stage breakdown (s)")

	t.runs = widget.NewList(func() int { return len(t.pastRuns) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("run")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(t.pastRuns) {
				r := t.pastRuns[id]
				o.(*widget.Label).SetText(fmt.Sprintf("Run %d · %s · %s", r.ID, r.Status, r.Started.Local().Format("Jan 2 15:04")))
			}
		})
	t.runs.OnSelected = func(id widget.ListItemID) {
		if id < len(t.pastRuns) {
			t.showPastRun(t.pastRuns[id])
		}
	}

	t.from.OnChanged = t.fromChanged
	form := widget.NewForm(
		widget.NewFormItem("Dataset", t.dataset),
		widget.NewFormItem("Start from", t.from),
		widget.NewFormItem("", t.fromNote),
		widget.NewFormItem("Preset", t.preset),
		widget.NewFormItem("Context", t.context_),
		widget.NewFormItem("Batch", t.batch),
		widget.NewFormItem("Learning rate", t.lr),
		widget.NewFormItem("Steps", t.steps),
		widget.NewFormItem("Accumulation", t.accum),
		widget.NewFormItem("Device", t.device),
		widget.NewFormItem("", container.NewBorder(nil, nil, nil, t.gpuDetails, gpuWhy)),
		widget.NewFormItem("Workers", t.workers),
	)
	controls := container.NewHBox(t.start, t.pause, t.resume, t.stop, t.listen)
	runsTitle := widget.NewLabelWithStyle("Past runs (click two to compare)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	runsBox := canvas.NewRectangle(color.Transparent) // the list shows about five runs
	runsBox.SetMinSize(fyne.NewSize(0, 190))
	t.compare.Wrapping = fyne.TextWrapWord
	left := container.NewVBox(form, t.checkpoints, runsTitle, container.NewStack(runsBox, t.runs), t.compare)
	charts := container.NewGridWithRows(2,
		container.NewGridWithColumns(2, t.loss, t.speed),
		container.NewGridWithColumns(2, container.NewBorder(nil, t.disk, nil, nil, t.resources), t.stages))
	right := container.NewBorder(container.NewVBox(controls, t.progress, t.info, t.alerts), nil, nil, nil, charts)
	t.leftScroll = container.NewVScroll(left)
	split := container.NewHSplit(t.leftScroll, right)
	split.Offset = 0.3
	t.root = split
	t.refresh()
	t.setButtons()
	e.onDatasetsChanged = append(e.onDatasetsChanged, t.refresh)
	e.onRunsChanged = append(e.onRunsChanged, t.refresh)
	return t
}

// refresh reloads the datasets and the past runs; the newest run's
// curves are shown while no run is live.
func (t *trainingScreen) refresh() {
	if t.e.studio == nil {
		t.info.SetText("No data directory: " + fmt.Sprint(t.e.err))
		return
	}
	list, _ := t.e.studio.Datasets(t.e.project)
	var names []string
	for _, d := range list {
		names = append(names, d.Name)
	}
	t.dataset.Options = names
	if !contains(names, t.dataset.Selected) {
		t.dataset.Selected = ""
		if len(names) > 0 {
			t.dataset.Selected = names[len(names)-1]
		}
	}
	t.dataset.Refresh()
	t.refreshBases()
	t.pastRuns, _ = t.e.studio.TrainRuns(t.e.project)
	t.runs.Refresh()
	t.pausedRun = 0
	for _, r := range t.pastRuns {
		if app.Resumable(r) {
			t.pausedRun = r.ID
			break
		}
	}
	if t.job == nil && len(t.pastRuns) > 0 {
		t.showPastRun(t.pastRuns[0])
		if t.pausedRun != 0 {
			t.info.SetText(fmt.Sprintf("Run %d is %s: Resume continues it from its last checkpoint.", t.pausedRun, statusOf(t.pastRuns, t.pausedRun)))
		}
	}
	t.setButtons()
}

// Start from: the labels of the two fixed choices.
const (
	fromScratchLabel = "Scratch (random weights)"
	fromDefaultLabel = "Default model"
)

// refreshBases lists what a run can start from: scratch, the default
// model, and the project's finished models (Compose's list).
func (t *trainingScreen) refreshBases() {
	opts := []string{fromScratchLabel, fromDefaultLabel}
	dirs := map[string]string{fromScratchLabel: "", fromDefaultLabel: app.FromDefault}
	models, _ := t.e.studio.ComposeModels(t.e.project)
	for _, m := range models {
		opts = append(opts, m.Label)
		dirs[m.Label] = m.Dir
	}
	t.from.Options, t.fromDirs = opts, dirs
	if _, ok := dirs[t.from.Selected]; !ok {
		t.from.SetSelected(fromScratchLabel)
	}
	t.from.Refresh()
}

// fromChanged sets the form for a run from scratch or a fine-tune: a
// fine-tune keeps its base's size and tokens (the preset is off) and
// takes its steps and context from the dataset ("auto").
func (t *trainingScreen) fromChanged(label string) {
	tune := t.fromDirs[label] != ""
	def := app.DefaultTrainSpec()
	if tune {
		t.preset.Disable()
		t.fromNote.SetText("A fine-tune keeps the base's size and tokens, holds out a fifth of the pieces, keeps the best weights and stops when the held-out loss stops falling. auto: from the dataset.")
		t.fromNote.Show()
		t.steps.SetText("auto")
		t.context_.SetText("auto")
		t.batch.SetText(strconv.Itoa(app.FineTuneBatch))
		t.lr.SetText(strconv.FormatFloat(app.FineTuneLR, 'g', -1, 64))
		return
	}
	t.preset.Enable()
	t.fromNote.Hide()
	if t.steps.Text == "auto" {
		t.steps.SetText(strconv.Itoa(def.Steps))
	}
	if t.context_.Text == "auto" {
		t.context_.SetText(strconv.Itoa(def.Context))
	}
	t.batch.SetText(strconv.Itoa(def.Batch))
	t.lr.SetText(strconv.FormatFloat(def.LR, 'g', -1, 64))
}

func statusOf(runs []app.TrainRun, id uint64) string {
	for _, r := range runs {
		if r.ID == id {
			return r.Status
		}
	}
	return ""
}

// showPastRun draws a stored run's curves (a live run keeps its own; a
// past run is added as "run N" series to compare).
func (t *trainingScreen) showPastRun(r app.TrainRun) {
	ms, err := t.e.studio.RunMetrics(r.ID)
	if err != nil {
		t.e.setStatus(err.Error())
		return
	}
	t.compareWith(r, ms)
	if t.job != nil {
		name := fmt.Sprintf("run %d", r.ID)
		xy := ms["train_loss"]
		t.loss.SetSeries(name, xy[0], xy[1])
		return
	}
	t.loss.Clear()
	t.speed.Clear()
	tl, vl, sp := ms["train_loss"], ms["val_loss"], ms["tokens_per_s"]
	t.loss.SetSeries("train loss", tl[0], tl[1])
	t.loss.SetSeries("val loss", vl[0], vl[1])
	t.speed.SetSeries("tokens/s", sp[0], sp[1])
	t.loss.SetTitle(fmt.Sprintf("Loss · run %d (%s)", r.ID, r.Status))
	var st app.StageSeconds
	for _, s := range r.Stages {
		switch s.Name {
		case "data":
			st.Data = s.BusySeconds
		case "h2d":
			st.H2D, st.Device = s.BusySeconds, true
		case "forward":
			st.Forward = s.BusySeconds
		case "backward":
			st.Backward = s.BusySeconds
		case "optimizer":
			st.Optimizer = s.BusySeconds
		}
	}
	t.setStages(st)
	t.showCheckpoints(t.e.studio.Store.Abs(r.ModelDir))
	if n := len(tl[0]); n > 0 {
		t.info.SetText(fmt.Sprintf("Run %d (%s): %d steps, last train loss %.4f", r.ID, r.Status, int(tl[0][n-1]), tl[1][n-1]))
		if l := r.Lineage; l != nil {
			t.info.SetText(fmt.Sprintf("Run %d (%s): %s tuned on %s, held-out loss %.4f → %.4f (step %d of %d kept)", r.ID, r.Status, l.Base, l.Dataset, l.BaseValLoss, l.BestValLoss, l.BestStep, l.Steps))
		}
		var cfg app.TrainJobConfig
		if json.Unmarshal(r.Config, &cfg) == nil && cfg.Spec.Steps > 0 {
			t.progress.SetValue(min(1, tl[0][n-1]/float64(cfg.Spec.Steps)))
		}
	}
}

func (t *trainingScreen) showCheckpoints(dir string) {
	var lines []string
	for _, c := range app.ListCheckpoints(dir) {
		lines = append(lines, fmt.Sprintf("%s · %s · %.1f MB", c.Path, c.Modified.Local().Format("15:04:05"), float64(c.Bytes)/1e6))
	}
	if len(lines) == 0 {
		t.checkpoints.SetText("Checkpoints: none yet")
		return
	}
	t.checkpoints.SetText("Checkpoints:\n" + strings.Join(lines, "\n"))
}

// compareWith shows the speed of r beside the past run shown before it
// (the figures `amt bench train --compare` prints), then remembers r.
func (t *trainingScreen) compareWith(r app.TrainRun, ms map[string][2][]float64) {
	prev := t.shown
	t.shown = &r
	if prev == nil || prev.ID == r.ID {
		return
	}
	pm, err := t.e.studio.RunMetrics(prev.ID)
	if err != nil {
		return
	}
	var b bytes.Buffer
	app.WriteTrainComparison(&b, app.FiguresOfRun(*prev, pm), app.FiguresOfRun(r, ms))
	t.compare.SetText(strings.TrimRight(b.String(), "\n"))
	t.compare.Show()
	if t.leftScroll != nil {
		t.leftScroll.ScrollToBottom()
	}
}

// setStages draws the stage chart: host→device appears when the times are
// the device's (a GPU run).
func (t *trainingScreen) setStages(s app.StageSeconds) {
	d := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	rows := []widgets.Stage{{Name: "data wait", Wait: d(s.Data)}}
	if s.Device {
		rows = append(rows, widgets.Stage{Name: "host→device", Busy: d(s.H2D)})
	}
	rows = append(rows, widgets.Stage{Name: "forward", Busy: d(s.Forward)}, widgets.Stage{Name: "backward", Busy: d(s.Backward)},
		widgets.Stage{Name: "optimizer", Busy: d(s.Optimizer)})
	t.stages.SetStages(rows)
}

func (t *trainingScreen) setButtons() {
	running := t.job != nil && t.job.Running()
	set := func(b *widget.Button, on bool) {
		if on {
			b.Enable()
		} else {
			b.Disable()
		}
	}
	set(t.start, !running && t.e.studio != nil)
	set(t.pause, running)
	set(t.stop, running || (t.job != nil && !running))
	set(t.resume, !running && (t.job != nil || t.pausedRun != 0))
	set(t.listen, t.job != nil || len(t.pastRuns) > 0)
}

func (t *trainingScreen) spec() (app.TrainSpec, error) {
	s := app.DefaultTrainSpec()
	s.Preset = t.preset.Selected
	s.From = t.fromDirs[t.from.Selected]
	ints := []struct {
		name string
		e    *widget.Entry
		dst  *int
		min  int
		auto bool // a fine-tune's "auto": 0, chosen from the dataset
	}{{"context", t.context_, &s.Context, 1, true}, {"batch", t.batch, &s.Batch, 1, false}, {"steps", t.steps, &s.Steps, 1, true},
		{"accumulation", t.accum, &s.Accum, 1, false}, {"workers", t.workers, &s.Workers, 0, false}}
	for _, f := range ints {
		txt := strings.TrimSpace(f.e.Text)
		if f.auto && s.From != "" && (txt == "auto" || txt == "") {
			*f.dst = 0
			continue
		}
		v, err := strconv.Atoi(txt)
		if err != nil || v < f.min {
			if f.auto && s.From != "" {
				return s, fmt.Errorf("%s %q: give a whole number ≥ %d, or auto", f.name, f.e.Text, f.min)
			}
			return s, fmt.Errorf("%s %q: give a whole number ≥ %d", f.name, f.e.Text, f.min)
		}
		*f.dst = v
	}
	lr, err := strconv.ParseFloat(strings.TrimSpace(t.lr.Text), 64)
	if err != nil || lr <= 0 || lr > 1 {
		return s, fmt.Errorf("learning rate %q: give a number in (0, 1]", t.lr.Text)
	}
	s.LR = lr
	s.ValEvery = max(1, s.Steps/20)
	s.CheckpointEvery = max(1, s.Steps/10)
	if s.From != "" { // validation and checkpoints every tenth of the run (engine/train's fine-tune defaults)
		s.ValEvery, s.CheckpointEvery, s.ValFrac = 0, 0, 0
	}
	s.Device = "cpu"
	if t.device.Selected == "GPU" {
		s.Device = "cuda"
	}
	return s, nil
}

func (t *trainingScreen) startRun() {
	if t.e.studio == nil {
		return
	}
	spec, err := t.spec()
	if err != nil {
		t.e.setStatus("Cannot train: " + err.Error())
		return
	}
	if t.dataset.Selected == "" {
		t.e.setStatus("Cannot train: import a dataset first (Datasets)")
		return
	}
	j, err := t.e.studio.StartTraining(app.TrainJobConfig{Project: t.e.project, Dataset: t.dataset.Selected, Spec: spec})
	if err != nil {
		t.e.setStatus("Cannot train: " + err.Error())
		return
	}
	t.attach(j, true)
}

func (t *trainingScreen) resumeRun() {
	if t.job != nil && !t.job.Running() {
		if err := t.job.Resume(); err != nil {
			t.e.setStatus(err.Error())
			return
		}
		t.attach(t.job, false)
		return
	}
	if t.pausedRun == 0 {
		return
	}
	j, err := t.e.studio.ResumeTraining(t.pausedRun)
	if err != nil {
		t.e.setStatus(err.Error())
		return
	}
	t.attach(j, true)
	// Show what the run did before.
	ms, _ := t.e.studio.RunMetrics(j.RunID)
	tl, vl, sp := ms["train_loss"], ms["val_loss"], ms["tokens_per_s"]
	t.loss.SetSeries("train loss", tl[0], tl[1])
	t.loss.SetSeries("val loss", vl[0], vl[1])
	t.speed.SetSeries("tokens/s", sp[0], sp[1])
}

// attach shows job's events (fresh clears the charts).
func (t *trainingScreen) attach(j *app.TrainJob, fresh bool) {
	t.job = j
	if fresh {
		t.loss.Clear()
		t.speed.Clear()
		t.loss.AddSeries("train loss")
		t.loss.AddSeries("val loss")
		t.speed.AddSeries("tokens/s")
		t.loss.SetTitle(fmt.Sprintf("Loss · run %d", j.RunID))
		t.speeds = nil
		t.stageSum = app.StageSeconds{}
	}
	t.alerts.SetText("")
	t.alerts.Hide()
	t.info.SetText(fmt.Sprintf("Run %d starting…", j.RunID))
	t.setButtons()
	t.updateSampler()
	t.e.runsChanged()
	go t.follow(j)
}

// follow turns the job's events into chart points; points accumulate
// between redraws so none is lost to throttling.
func (t *trainingScreen) follow(j *app.TrainJob) {
	var mu sync.Mutex
	var steps, vsteps, losses, vals, speeds []float64
	for u := range j.Events() {
		switch u.Kind {
		case "start":
			s := u.Start
			t.e.bridge.Post("train.info", func() {
				if f := s.FineTune; f != nil {
					t.info.SetText(fmt.Sprintf("Run %d: %s; %d pieces to learn from, %d held out; at most %d steps of %d × %d", u.RunID, s.Preset, f.TrainPieces, f.ValPieces, f.Steps, f.Batch, f.Context))
					return
				}
				t.info.SetText(fmt.Sprintf("Run %d: %s model, %d parameters; %d pieces, %d tokens", u.RunID, s.Preset, s.Params, s.Pieces, s.Tokens))
			})
			continue
		case "step":
			e := u.Step
			if e.Step == 0 { // a fine-tune's base: its held-out loss is the chart's first point
				if e.ValLoss != nil {
					vl := *e.ValLoss
					t.e.bridge.Post("train.base", func() {
						t.loss.Append("val loss", 0, vl)
						t.info.SetText(fmt.Sprintf("Run %d · the base model's held-out loss %.4f; training…", u.RunID, vl))
					})
				}
				continue
			}
			mu.Lock()
			steps = append(steps, float64(e.Step))
			losses = append(losses, e.Loss)
			speeds = append(speeds, e.TokensPerSecond)
			if e.ValLoss != nil {
				vsteps = append(vsteps, float64(e.Step))
				vals = append(vals, *e.ValLoss)
			}
			mu.Unlock()
			t.e.bridge.Post("train.step", func() {
				mu.Lock()
				xs, ls, sp, vx, vl := steps, losses, speeds, vsteps, vals
				steps, losses, speeds, vsteps, vals = nil, nil, nil, nil, nil
				mu.Unlock()
				for i := range xs {
					t.loss.Append("train loss", xs[i], ls[i])
					t.speed.Append("tokens/s", xs[i], sp[i])
					t.speeds = append(t.speeds, sp[i])
				}
				for i := range vx {
					t.loss.Append("val loss", vx[i], vl[i])
				}
				st := e.Stage
				total := st.Data + st.H2D + st.Forward + st.Backward + st.Optimizer
				t.stageSum.Data += st.Data
				t.stageSum.H2D += st.H2D
				t.stageSum.Forward += st.Forward
				t.stageSum.Backward += st.Backward
				t.stageSum.Optimizer += st.Optimizer
				t.stageSum.Device = t.stageSum.Device || st.Device
				t.setStages(t.stageSum)
				t.progress.SetValue(float64(e.Step) / float64(e.Steps))
				t.info.SetText(fmt.Sprintf("Run %d · step %d/%d · loss %.4f · %.0f tokens/s · ETA %s", u.RunID, e.Step, e.Steps, e.Loss, e.TokensPerSecond, u.ETA.Round(time.Second)))
				t.checkAlerts(e.TokensPerSecond, st.Data/math.Max(total, 1e-9))
			})
			continue
		}
		// The end of a segment.
		t.e.bridge.Post("train.end", func() {
			t.setButtons()
			t.showCheckpoints(j.ModelDir)
			msg := fmt.Sprintf("Run %d %s", u.RunID, u.Kind)
			if r := u.Result; r != nil {
				msg += fmt.Sprintf(" at step %d, train loss %.4f, %.0f tokens/s", r.Steps, r.TrainLoss, r.TokensPerSecond)
				if l := r.Lineage; l != nil {
					why := ""
					if l.EarlyStopped {
						why = ", stopped when it stopped falling"
					}
					msg = fmt.Sprintf("Run %d done: held-out loss %.4f → %.4f (step %d kept%s); in Compose's Model list as %q", u.RunID, l.BaseValLoss, l.BestValLoss, l.BestStep, why, app.FineTuneLabel(l, u.RunID))
				}
			}
			if u.Err != nil {
				msg += ": " + u.Err.Error()
			}
			t.info.SetText(msg)
			t.e.status.SetText(msg)
			t.updateSampler()
			t.pastRuns, _ = t.e.studio.TrainRuns(t.e.project)
			t.runs.Refresh()
			t.e.runsChanged()
			t.ends.Add(1)
		})
		return
	}
}

// checkAlerts shows the run's alerts: RAM, throughput against the run's
// median, a starved model.
func (t *trainingScreen) checkAlerts(tps, dataShare float64) {
	var a []string
	if t.lastRAM > ramAlertPercent {
		a = append(a, fmt.Sprintf("RAM at %.0f%% (above %d%%)", t.lastRAM, ramAlertPercent))
	}
	if n := len(t.speeds); n >= 5 {
		s := append([]float64(nil), t.speeds...)
		sort.Float64s(s)
		if med := s[n/2]; tps < slowFraction*med {
			a = append(a, fmt.Sprintf("throughput %.0f tokens/s is below half the run's median %.0f", tps, med))
		}
	}
	if dataShare > starvedFraction {
		a = append(a, fmt.Sprintf("starved: the model waited on data %.0f%% of the step", dataShare*100))
	}
	if len(a) == 0 {
		t.alerts.SetText("")
		t.alerts.Hide()
		return
	}
	msg := "⚠ " + strings.Join(a, " · ")
	t.alerts.SetText(msg)
	t.alerts.Show()
	t.e.status.SetText(msg)
}

func (t *trainingScreen) halt(stop bool) {
	j := t.job
	if j == nil {
		return
	}
	if !j.Running() {
		if stop {
			t.job = nil
			t.refresh()
		}
		return
	}
	t.pause.Disable()
	t.stop.Disable()
	go func() {
		if stop {
			j.Stop()
		} else {
			j.Pause()
		}
	}()
}

// listenSample generates a short sample from the latest checkpoint's
// model and shows it on the Compose screen's path (stored as a piece).
func (t *trainingScreen) listenSample() {
	dir := ""
	if t.job != nil {
		dir = t.job.ListenDir()
	} else if len(t.pastRuns) > 0 {
		dir = app.LatestModelDir(t.e.studio.Store.Abs(t.pastRuns[0].ModelDir))
	}
	if dir == "" {
		return
	}
	t.e.setStatus("Generating a sample from " + dir + "…")
	go func() {
		app.ForgetModel(dir)
		res, err := t.e.studio.Compose(context.Background(), app.ComposeRequest{Project: t.e.project, Prompt: "sample from training", ModelDir: dir,
			SampleSettings: app.SampleSettings{MaxTokens: 512, Temperature: 1, TopP: 0.95, Seed: uint64(time.Now().UnixNano() % 1e6)}})
		if err != nil {
			t.e.setStatus("Listen: " + err.Error())
			return
		}
		t.e.setStatus(fmt.Sprintf("Sample piece %d: %d notes (in Compose's history)", res.Piece.ID, res.Score.NoteCount()))
		t.e.bridge.Post("train.listen", func() { t.e.runsChanged() })
	}()
}

// liveSampleEvery is the resource sampling interval while a run is live.
// With no run the window samples nothing (trainingScreen.idleEvery is 0):
// one sample and repaint every 5 s still cost 0.7% of a core under Xvfb,
// on top of Fyne's own 60 Hz event loop (~1.7%).
const liveSampleEvery = time.Second

// setVisible starts the resource sampler while a run is live (or, with
// idleEvery set, while the screen shows) and stops it otherwise.
func (t *trainingScreen) setVisible(on bool) {
	t.mu.Lock()
	t.visible = on
	t.mu.Unlock()
	t.updateSampler()
}

// updateSampler starts, stops or re-paces the resource sampler: every
// second while a run is live; every idleEvery (each sample held that many
// seconds on the graph, whose time axis is one point a second) while the
// screen shows with no run, if idleEvery > 0.
func (t *trainingScreen) updateSampler() {
	t.mu.Lock()
	defer t.mu.Unlock()
	live := t.job != nil && t.job.Running()
	want := live || (t.visible && t.idleEvery > 0)
	every := t.idleEvery
	if live {
		every = liveSampleEvery
	}
	if t.sampler != nil && (!want || t.sampleEvery != every) {
		t.samplerStop()
		t.sampler.Stop()
		t.sampler, t.samplerStop = nil, nil
	}
	if !want || t.sampler != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := app.StartResourceSampler(ctx, every)
	if err != nil {
		cancel()
		t.e.setStatus("Resource monitor: " + err.Error())
		return
	}
	t.sampler, t.samplerStop, t.sampleEvery = s, cancel, every
	gpuErr := s.GPUError()
	held := max(1, int(every/liveSampleEvery))
	go func() {
		for smp := range s.Samples() {
			smp := smp
			t.e.bridge.Post("train.resources", func() {
				gpu, gmem := math.NaN(), math.NaN()
				if len(smp.GPUs) > 0 {
					gpu, gmem = smp.GPUs[0].UtilPercent, smp.GPUs[0].MemPercent
				}
				t.lastRAM = smp.RAMPercent
				for i := 0; i < held; i++ {
					t.resources.Push(smp.CPUPercent, smp.RAMPercent, gpu, gmem)
				}
				g := ""
				if gpuErr != nil {
					g = " · " + gpuErr.Error()
				}
				t.disk.SetText(fmt.Sprintf("disk read %.1f MB/s · write %.1f MB/s · RSS %.0f MB%s", smp.DiskReadBps/1e6, smp.DiskWriteBps/1e6, float64(smp.ProcRSS)/1e6, g))
			})
		}
	}()
}

// close pauses a live run (its checkpoint is written) and stops the
// sampler.
func (t *trainingScreen) close() {
	if t.job != nil && t.job.Running() {
		t.job.Pause()
	}
	t.mu.Lock()
	t.visible = false
	t.mu.Unlock()
	t.job = nil
	t.updateSampler()
}

// shortReason is the cause at the end of an error chain ("nn: open cuda:
// …: no CUDA-capable device is detected" → "no CUDA-capable device is
// detected"), at most 80 characters: what a person acts on. The chain is
// cut at ": " outside parentheses, and the cause's parenthesised asides
// (dlopen's message, a result code) are dropped: cutting inside them left
// "No such file or directory)". A cause that does not say what is missing
// is told under the nearest kind of failure before it ("no NVIDIA
// driver: libcuda.so.1 not found (…)" → "no NVIDIA driver (libcuda.so.1
// not found)"). The whole chain is behind the GPU line's Details.
func shortReason(why string) string {
	why = strings.TrimSpace(why)
	clauses := splitClauses(why)
	if cause := dropAsides(clauses[len(clauses)-1]); len(clauses) > 1 && len(cause) > 6 {
		why = cause
		if !strings.HasPrefix(cause, "no ") {
			for i := len(clauses) - 2; i >= 0; i-- {
				if strings.HasPrefix(clauses[i], "no ") {
					why = clauses[i] + " (" + cause + ")"
					break
				}
			}
		}
	}
	if r := []rune(why); len(r) > 80 {
		why = string(r[:79]) + "…"
	}
	return why
}

// splitClauses cuts an error chain at each ": " outside parentheses.
func splitClauses(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '(':
			depth++
		case s[i] == ')' && depth > 0:
			depth--
		case depth == 0 && strings.HasPrefix(s[i:], ": "):
			out = append(out, s[start:i])
			start = i + 2
		}
	}
	return append(out, s[start:])
}

// dropAsides removes the parenthesised parts of s.
func dropAsides(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
