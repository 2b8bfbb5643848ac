package ui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/ui/widgets"
)

const anyChoice = "any"

var meterChoices = []string{anyChoice, "2/4", "3/4", "4/4", "5/4", "6/8", "7/8", "9/8", "12/8", "2/2"}

func keyChoices() []string {
	out := []string{anyChoice}
	for _, minor := range []bool{false, true} {
		for t := 0; t < 12; t++ {
			out = append(out, midi.Key{Tonic: t, Minor: minor}.String())
		}
	}
	return out
}

// defaultModelLabel is the model choice of the embedded default model.
const defaultModelLabel = "Default model"
const chooseFolderLabel = "Choose folder…"

type composeScreen struct {
	e    *env
	root fyne.CanvasObject

	prompt   *widget.Entry
	generate *widget.Button
	// attribute chips
	tempo, bars, instruments *widget.Entry
	key, meter, drums        *widget.Select
	instrNames               *widget.Label
	// sampling settings
	length, temperature, topP, seed *widget.Entry
	model                           *widget.Select
	modelDirs                       map[string]string
	noModel                         *widget.Label

	progress    *widget.ProgressBar
	progressRow *fyne.Container
	cancel      *widget.Button
	roll        *widgets.PianoRoll
	title       *widget.Label
	evalText    *widget.Label
	play        *widget.Button

	history     *widget.List
	pieces      []app.PieceRow
	current     *midi.Score
	currentName string
	pb          *playback

	deleteDialog *dialog.ConfirmDialog // open confirmation (tests)

	mu      sync.Mutex
	running context.CancelFunc
	last    app.ComposeRequest
}

func newComposeScreen(e *env) *composeScreen {
	c := &composeScreen{e: e, modelDirs: map[string]string{}}
	c.pb = &playback{e: e, soundFont: func() string { return c.soundFont() }, onChange: func(on bool) {
		if on {
			c.play.SetText("Stop")
			c.play.SetIcon(theme.MediaStopIcon())
		} else {
			c.play.SetText("Play")
			c.play.SetIcon(theme.MediaPlayIcon())
		}
	}}
	c.prompt = widget.NewEntry()
	c.prompt.SetPlaceHolder("calm piano waltz in D minor, 90 bpm, 32 bars")
	c.prompt.OnChanged = c.promptChanged
	c.prompt.OnSubmitted = func(string) { c.startGenerate(false) }
	c.generate = widget.NewButtonWithIcon("Generate", theme.MediaPlayIcon(), func() { c.startGenerate(false) })
	c.generate.Importance = widget.HighImportance

	c.tempo = widget.NewEntry()
	c.tempo.SetPlaceHolder(anyChoice)
	c.key = widget.NewSelect(keyChoices(), nil)
	c.meter = widget.NewSelect(meterChoices, nil)
	c.instruments = widget.NewEntry()
	c.instruments.SetPlaceHolder("GM programs, e.g. 0, 40")
	c.instrNames = widget.NewLabel("")
	c.instrNames.Truncation = fyne.TextTruncateEllipsis
	c.instruments.OnChanged = func(string) { c.instrNames.SetText(programNames(parsePrograms(c.instruments.Text))) }
	c.drums = widget.NewSelect([]string{anyChoice, "yes", "no"}, nil)
	c.bars = widget.NewEntry()
	c.bars.SetPlaceHolder(anyChoice)
	c.setChips(token.Unspecified())

	c.length = widget.NewEntry()
	c.length.SetPlaceHolder("auto")
	c.temperature = widget.NewEntry()
	c.temperature.SetText(strconv.FormatFloat(app.DefaultTemperature, 'g', -1, 64))
	c.topP = widget.NewEntry()
	c.topP.SetText(strconv.FormatFloat(app.DefaultTopP, 'g', -1, 64))
	c.seed = widget.NewEntry()
	c.seed.SetText("1")
	dice := widget.NewButtonWithIcon("", theme.ViewRefreshIcon(), func() { c.seed.SetText(strconv.FormatUint(rand.Uint64()%1_000_000, 10)) })
	c.model = widget.NewSelect(nil, c.modelChosen)
	c.noModel = widget.NewLabel("")
	c.noModel.Wrapping = fyne.TextWrapWord
	c.noModel.Importance = widget.WarningImportance

	c.progress = widget.NewProgressBar()
	c.cancel = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), c.cancelGenerate)
	c.cancel.Disable()

	c.roll = widgets.NewPianoRoll(nil)
	c.title = widget.NewLabelWithStyle("No piece yet: type a prompt and press Generate (or Enter)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	c.title.Truncation = fyne.TextTruncateEllipsis
	c.evalText = widget.NewLabel("")
	c.evalText.Wrapping = fyne.TextWrapWord
	c.play = widget.NewButtonWithIcon("Play", theme.MediaPlayIcon(), c.togglePlay)
	exportMIDI := widget.NewButtonWithIcon("Export MIDI", theme.DocumentSaveIcon(), c.exportMIDI)
	exportWAV := widget.NewButtonWithIcon("Export WAV", theme.DocumentSaveIcon(), c.exportWAV)
	regen := widget.NewButtonWithIcon("Regenerate", theme.ViewRefreshIcon(), func() { c.startGenerate(true) })

	c.history = widget.NewList(func() int { return len(c.pieces) }, c.newHistoryRow, c.updateHistoryRow)
	c.history.OnSelected = func(id widget.ListItemID) {
		if id >= 0 && id < len(c.pieces) {
			c.openPiece(c.pieces[id])
		}
	}

	chip := func(label string, o fyne.CanvasObject) fyne.CanvasObject {
		l := widget.NewLabel(label)
		l.TextStyle.Bold = true
		return container.NewBorder(nil, nil, l, nil, o)
	}
	chips := container.NewGridWithColumns(3,
		chip("Tempo", c.tempo), chip("Key", c.key), chip("Meter", c.meter),
		chip("Instruments", container.NewGridWithColumns(2, c.instruments, c.instrNames)), chip("Drums", c.drums), chip("Bars", c.bars))
	settings := container.NewGridWithColumns(5,
		chip("Length", c.length), chip("Temperature", c.temperature), chip("Top-p", c.topP),
		chip("Seed", container.NewBorder(nil, nil, nil, dice, c.seed)), chip("Model", c.model))
	// The progress row is hidden until the first generation: an idle bar at
	// 0% reads as stuck.
	c.progressRow = container.NewBorder(nil, nil, nil, c.cancel, c.progress)
	c.progressRow.Hide()
	top := container.NewVBox(
		container.NewBorder(nil, nil, nil, c.generate, c.prompt),
		widget.NewLabel("Understood from the prompt (edit to change):"),
		chips, settings, c.noModel,
		c.progressRow,
	)
	tools := container.NewHBox(c.play, exportMIDI, exportWAV, regen)
	piece := container.NewBorder(container.NewVBox(c.title, tools), nil, nil, nil, c.roll)
	histTitle := widget.NewLabelWithStyle("History", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	split := container.NewHSplit(piece, container.NewVSplit(container.NewBorder(histTitle, nil, nil, nil, c.history), container.NewVScroll(c.evalText)))
	split.Offset = 0.66
	c.root = container.NewBorder(top, nil, nil, nil, split)

	c.refreshModels()
	c.refreshHistory()
	if len(c.pieces) > 0 {
		c.openPiece(c.pieces[0])
	}
	e.onRunsChanged = append(e.onRunsChanged, c.refreshModels)
	return c
}

func (c *composeScreen) soundFont() string {
	if c.e.studio == nil {
		return ""
	}
	s, _ := c.e.studio.Settings()
	return s.SoundFont
}

// promptAttributes are the attributes the prompt path forces for text
// (what `amt generate "PROMPT"` forces).
func promptAttributes(text string) token.Attributes {
	return app.ChipAttributes(text)
}

// promptChanged shows what the prompt asks for in the chips.
func (c *composeScreen) promptChanged(text string) {
	c.setChips(promptAttributes(text))
}

func (c *composeScreen) setChips(a token.Attributes) {
	if a.TempoBPM > 0 {
		c.tempo.SetText(tempoText(a.TempoBPM))
	} else {
		c.tempo.SetText("")
	}
	if a.KeyTonic >= 0 {
		c.key.SetSelected(midi.Key{Tonic: a.KeyTonic, Minor: a.KeyMinor}.String())
	} else {
		c.key.SetSelected(anyChoice)
	}
	m := anyChoice
	if a.MeterNum > 0 && a.MeterDen > 0 {
		m = fmt.Sprintf("%d/%d", a.MeterNum, a.MeterDen)
	}
	c.meter.SetSelected(m)
	var ps []string
	for _, p := range a.Programs {
		ps = append(ps, strconv.Itoa(p))
	}
	c.instruments.SetText(strings.Join(ps, ", "))
	switch {
	case a.Drums == nil:
		c.drums.SetSelected(anyChoice)
	case *a.Drums:
		c.drums.SetSelected("yes")
	default:
		c.drums.SetSelected("no")
	}
	if a.Bars > 0 {
		c.bars.SetText(strconv.Itoa(a.Bars))
	} else {
		c.bars.SetText("")
	}
}

// chipAttributes reads the chips back (the prompt's density and style
// stay as the prompt says; a tempo chip showing the prompt's tempo rounded
// keeps the prompt's exact value).
func (c *composeScreen) chipAttributes() (token.Attributes, error) {
	a := promptAttributes(c.prompt.Text)
	promptTempo := a.TempoBPM
	a.TempoBPM, a.KeyTonic, a.KeyMinor, a.MeterNum, a.MeterDen, a.Programs, a.Drums, a.Bars = 0, -1, false, 0, 0, nil, nil, 0
	if t := strings.TrimSpace(c.tempo.Text); t != "" && promptTempo > 0 && t == tempoText(promptTempo) {
		a.TempoBPM = promptTempo
	} else if t != "" {
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || v < 20 || v > 400 {
			return a, fmt.Errorf("tempo %q: give beats per minute, 20–400", t)
		}
		a.TempoBPM = v
	}
	for _, minor := range []bool{false, true} {
		for t := 0; t < 12; t++ {
			if (midi.Key{Tonic: t, Minor: minor}).String() == c.key.Selected {
				a.KeyTonic, a.KeyMinor = t, minor
			}
		}
	}
	if n, d, ok := strings.Cut(c.meter.Selected, "/"); ok {
		a.MeterNum, _ = strconv.Atoi(n)
		a.MeterDen, _ = strconv.Atoi(d)
	}
	if strings.TrimSpace(c.instruments.Text) != "" {
		a.Programs = parsePrograms(c.instruments.Text)
		if a.Programs == nil {
			return a, fmt.Errorf("instruments %q: give GM program numbers 0–127", c.instruments.Text)
		}
	}
	switch c.drums.Selected {
	case "yes":
		t := true
		a.Drums = &t
	case "no":
		f := false
		a.Drums = &f
	}
	if b := strings.TrimSpace(c.bars.Text); b != "" {
		v, err := strconv.Atoi(b)
		if err != nil || v < 1 {
			return a, fmt.Errorf("bars %q: give a count ≥ 1", b)
		}
		a.Bars = v
	}
	return a, nil
}

func tempoText(bpm float64) string { return strconv.FormatFloat(math.Round(bpm), 'f', -1, 64) }

func parsePrograms(s string) []int {
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 || v > 127 {
			return nil
		}
		out = append(out, v)
	}
	return out
}

func programNames(ps []int) string {
	var names []string
	for _, p := range ps {
		names = append(names, midi.ProgramName(p))
	}
	return strings.Join(names, ", ")
}

// refreshModels lists the model choices: the default model, the trained
// runs' model folders, folders chosen before, and "Choose folder…".
func (c *composeScreen) refreshModels() {
	opts := []string{defaultModelLabel}
	dirs := map[string]string{defaultModelLabel: ""}
	if c.e.studio != nil {
		runs, _ := c.e.studio.TrainRuns(c.e.project)
		for _, r := range runs {
			dir := c.e.studio.Store.Abs(r.ModelDir)
			if !app.HasModelWeights(dir) {
				continue
			}
			l := fmt.Sprintf("Training run %d (%s)", r.ID, r.Status)
			opts = append(opts, l)
			dirs[l] = dir
		}
	}
	for l, d := range c.modelDirs {
		if _, ok := dirs[l]; !ok && strings.HasPrefix(l, "Folder ") {
			opts = append(opts, l)
			dirs[l] = d
		}
	}
	opts = append(opts, chooseFolderLabel)
	c.modelDirs = dirs
	prev := c.model.Selected
	c.model.Options = opts
	if _, ok := dirs[prev]; !ok || prev == chooseFolderLabel {
		prev = defaultModelLabel
	}
	c.model.SetSelected(prev)
}

func (c *composeScreen) modelChosen(label string) {
	switch label {
	case chooseFolderLabel:
		d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
			if u == nil {
				c.refreshModels()
				return
			}
			l := "Folder " + filepath.Base(u.Path())
			c.modelDirs[l] = u.Path()
			c.refreshModels()
			c.model.SetSelected(l)
		}, c.e.win)
		d.Show()
		return
	default:
		c.noModel.SetText("")
		c.noModel.Hide()
	}
}

// request reads the whole form.
func (c *composeScreen) request(newSeed bool) (app.ComposeRequest, error) {
	var r app.ComposeRequest
	a, err := c.chipAttributes()
	if err != nil {
		return r, err
	}
	n := 0 // enough for the bars
	if t := strings.TrimSpace(c.length.Text); t != "" && t != "auto" {
		v, err := strconv.Atoi(t)
		if err != nil || v < 1 || v > 32768 {
			return r, fmt.Errorf("length %q: give tokens, 1–32768, or leave it empty", c.length.Text)
		}
		n = v
	}
	temp, err := strconv.ParseFloat(strings.TrimSpace(c.temperature.Text), 64)
	if err != nil || temp < 0 || temp > 5 {
		return r, fmt.Errorf("temperature %q: give 0–5", c.temperature.Text)
	}
	topP, err := strconv.ParseFloat(strings.TrimSpace(c.topP.Text), 64)
	if err != nil || topP <= 0 || topP > 1 {
		return r, fmt.Errorf("top-p %q: give a share in (0, 1]", c.topP.Text)
	}
	if newSeed {
		c.seed.SetText(strconv.FormatUint(rand.Uint64()%1_000_000, 10))
	}
	seed, err := strconv.ParseUint(strings.TrimSpace(c.seed.Text), 10, 64)
	if err != nil {
		return r, fmt.Errorf("seed %q: give a whole number ≥ 0", c.seed.Text)
	}
	return app.ComposeRequest{Project: c.e.project, Prompt: c.prompt.Text, Attrs: &a, ModelDir: c.modelDirs[c.model.Selected],
		SampleSettings: app.SampleSettings{MaxTokens: n, Temperature: temp, TopP: topP, Seed: seed}}, nil
}

// startGenerate runs one generation in the background (regenerate: the
// same request with a new seed).
func (c *composeScreen) startGenerate(regenerate bool) {
	if c.e.studio == nil {
		c.e.setStatus("Cannot generate: no data directory")
		return
	}
	c.mu.Lock()
	busy := c.running != nil
	c.mu.Unlock()
	if busy {
		return
	}
	req, err := c.request(regenerate)
	if err != nil {
		c.e.setStatus("Cannot generate: " + err.Error())
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	c.running = cancel
	c.last = req
	c.mu.Unlock()
	c.generate.Disable()
	c.cancel.Enable()
	c.progress.SetValue(0)
	c.progressRow.Show()
	c.e.setStatus("Generating…")
	req.Progress = func(done, total int) {
		c.e.bridge.Post("compose.progress", func() { c.progress.SetValue(float64(done) / float64(total)) })
	}
	go func() {
		res, err := c.e.studio.Compose(ctx, req)
		cancel()
		c.e.bridge.Post("compose.done", func() {
			defer func() {
				c.mu.Lock()
				c.running = nil
				c.mu.Unlock()
				c.generate.Enable()
				c.cancel.Disable()
			}()
			if err != nil {
				c.progress.SetValue(0)
				if ctx.Err() != nil {
					c.e.status.SetText("Generation cancelled")
				} else if errors.Is(err, app.ErrNoModel) {
					c.e.status.SetText(err.Error())
					c.noModel.SetText(err.Error() + ".")
					c.noModel.Show()
				} else {
					c.e.status.SetText("Generation failed: " + err.Error())
				}
				return
			}
			c.progress.SetValue(1)
			c.refreshHistory()
			c.showResult(res)
			c.e.status.SetText(fmt.Sprintf("Generated piece %d: %d notes, %d tokens in %.2f s", res.Piece.ID, res.Score.NoteCount(), res.Tokens, res.Seconds))
		})
	}()
}

func (c *composeScreen) cancelGenerate() {
	c.mu.Lock()
	if c.running != nil {
		c.running()
	}
	c.mu.Unlock()
}

func (c *composeScreen) showResult(res *app.ComposeResult) {
	c.pb.stop()
	c.current, c.currentName = res.Score, filepath.Base(res.Piece.Abs)
	c.roll.SetScore(res.Score)
	c.title.SetText(pieceTitle(res.Piece))
	c.evalText.SetText(evaluationText(res.Metrics, res.Adherence))
}

func pieceTitle(p app.PieceRow) string {
	prompt := p.Prompt
	if prompt == "" {
		prompt = "(no prompt)"
	}
	return fmt.Sprintf("#%d  %s  ·  seed %d", p.ID, prompt, p.Seed)
}

// openPiece shows a stored piece with its evaluation.
func (c *composeScreen) openPiece(p app.PieceRow) {
	sc, err := c.e.studio.OpenPiece(p)
	if err != nil {
		c.e.setStatus("Cannot open piece: " + err.Error())
		return
	}
	c.pb.stop()
	c.prompt.SetText(p.Prompt)
	c.setChips(p.Attrs)
	c.current, c.currentName = sc, filepath.Base(p.Abs)
	c.roll.SetScore(sc)
	c.title.SetText(pieceTitle(p))
	m, ad := app.EvaluatePiece(sc, p.Attrs)
	c.evalText.SetText(evaluationText(m, ad))
}

func (c *composeScreen) togglePlay() {
	if c.pb.playing() {
		c.pb.stop()
		return
	}
	c.pb.play(c.current, c.currentName, c.roll)
}

func (c *composeScreen) exportMIDI() {
	if c.current == nil {
		c.e.setStatus("Nothing to export yet")
		return
	}
	sc := c.current
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if w == nil {
			return
		}
		path := w.URI().Path()
		w.Close()
		if err := app.WriteMIDI(path, sc); err != nil {
			c.e.setStatus("Export failed: " + err.Error())
			return
		}
		c.e.setStatus("Exported " + path)
	}, c.e.win)
	d.SetFileName(strings.TrimSuffix(c.currentName, ".mid") + ".mid")
	d.SetFilter(storage.NewExtensionFileFilter([]string{".mid"}))
	d.Show()
}

func (c *composeScreen) exportWAV() {
	if c.current == nil {
		c.e.setStatus("Nothing to export yet")
		return
	}
	sc, sf := c.current, c.soundFont()
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if w == nil {
			return
		}
		path := w.URI().Path()
		w.Close()
		c.e.setStatus("Rendering " + path + "…")
		go func() {
			res, err := app.RenderScore(context.Background(), sc, app.RenderOptions{Input: c.currentName, Output: path, SoundFont: sf})
			if err != nil {
				c.e.setStatus("Export failed: " + err.Error())
				return
			}
			c.e.setStatus(fmt.Sprintf("Exported %s (%.1f s of audio, %s)", path, res.AudioSeconds, res.SoundFont))
		}()
	}, c.e.win)
	d.SetFileName(strings.TrimSuffix(c.currentName, ".mid") + ".wav")
	d.Show()
}

func (c *composeScreen) refreshHistory() {
	if c.e.studio == nil {
		return
	}
	ps, err := c.e.studio.Pieces(c.e.project)
	if err != nil {
		c.e.setStatus("History: " + err.Error())
		return
	}
	c.pieces = ps
	c.history.Refresh()
}

func (c *composeScreen) newHistoryRow() fyne.CanvasObject {
	l := widget.NewLabel("prompt")
	l.Truncation = fyne.TextTruncateEllipsis
	rating := widget.NewSelect([]string{"–", "1", "2", "3", "4", "5"}, nil)
	play := widget.NewButtonWithIcon("", theme.MediaPlayIcon(), nil)
	del := widget.NewButtonWithIcon("", theme.DeleteIcon(), nil)
	return container.NewBorder(nil, nil, nil, container.NewHBox(rating, play, del), l)
}

func (c *composeScreen) updateHistoryRow(id widget.ListItemID, o fyne.CanvasObject) {
	if id >= len(c.pieces) {
		return
	}
	p := c.pieces[id]
	b := o.(*fyne.Container)
	l := b.Objects[0].(*widget.Label)
	box := b.Objects[1].(*fyne.Container)
	rating := box.Objects[0].(*widget.Select)
	play := box.Objects[1].(*widget.Button)
	del := box.Objects[2].(*widget.Button)
	prompt := p.Prompt
	if prompt == "" {
		prompt = "(no prompt)"
	}
	l.SetText(fmt.Sprintf("#%d %s · %s", p.ID, p.Created.Local().Format("Jan 2 15:04"), prompt))
	rating.OnChanged = nil
	if p.Rating > 0 {
		rating.SetSelected(strconv.Itoa(p.Rating))
	} else {
		rating.SetSelected("–")
	}
	rating.OnChanged = func(v string) {
		r, _ := strconv.Atoi(v)
		if err := c.e.studio.RatePiece(p.ID, r); err != nil {
			c.e.setStatus("Rating: " + err.Error())
			return
		}
		if id < len(c.pieces) && c.pieces[id].ID == p.ID {
			c.pieces[id].Rating = r
		}
	}
	play.OnTapped = func() {
		c.openPiece(p)
		c.pb.play(c.current, c.currentName, c.roll)
	}
	del.OnTapped = func() { c.confirmDelete(p) }
}

// confirmDelete asks before deleting a piece (its record and MIDI file).
func (c *composeScreen) confirmDelete(p app.PieceRow) {
	prompt := p.Prompt
	if prompt == "" {
		prompt = "(no prompt)"
	}
	c.deleteDialog = dialog.NewConfirm("Delete piece", fmt.Sprintf("Delete piece #%d “%s” and its MIDI file?", p.ID, prompt),
		func(ok bool) {
			c.deleteDialog = nil
			if ok {
				c.deletePiece(p)
			}
		}, c.e.win)
	c.deleteDialog.SetConfirmImportance(widget.DangerImportance)
	c.deleteDialog.Show()
}

// deletePiece deletes a piece; the shown piece is cleared if it was that
// one.
func (c *composeScreen) deletePiece(p app.PieceRow) {
	if err := c.e.studio.DeletePiece(p.ID); err != nil {
		c.e.setStatus("Delete: " + err.Error())
		return
	}
	if c.currentName == filepath.Base(p.Abs) {
		c.pb.stop()
		c.current, c.currentName = nil, ""
		c.roll.SetScore(nil)
		c.title.SetText(fmt.Sprintf("Piece #%d deleted", p.ID))
		c.evalText.SetText("")
	}
	c.history.UnselectAll()
	c.refreshHistory()
	c.e.setStatus(fmt.Sprintf("Deleted piece #%d", p.ID))
}

// evaluationText is the evaluation of one piece in a few lines.
func evaluationText(m *app.Metrics, ad *app.Adherence) string {
	if m == nil {
		return "Evaluation: the piece could not be measured."
	}
	var b strings.Builder
	if ad != nil && ad.Checked > 0 {
		fmt.Fprintf(&b, "Adherence: %d of %d requested attributes met (%s)", ad.Met, ad.Checked, adherenceChecks(ad))
	} else {
		b.WriteString("Adherence: nothing was requested")
	}
	fmt.Fprintf(&b, "\nMeasured: %s, %.0f bpm, %d/%d, %.1f bars, %.1f s, %d notes · pitch-class entropy %.2f bits · scale consistency %.2f · groove %.2f · polyphony %.2f · %.1f notes/s",
		m.Key.String(), m.TempoBPM, m.MeterNum, m.MeterDen, m.Bars, m.DurationSeconds, m.Notes,
		m.PitchClassEntropy, m.ScaleConsistency, m.GrooveConsistency, m.Polyphony, m.NotesPerSecond)
	return b.String()
}

func adherenceChecks(ad *app.Adherence) string {
	var parts []string
	add := func(name string, ok *bool) {
		if ok == nil {
			return
		}
		mark := "✗"
		if *ok {
			mark = "✓"
		}
		parts = append(parts, name+" "+mark)
	}
	add("tempo", ad.TB)
	add("key", ad.CK)
	add("meter", ad.Meter)
	if ad.Instruments != nil {
		parts = append(parts, fmt.Sprintf("instruments recall %.2f", ad.Instruments.Recall))
	}
	add("drums", ad.Drums)
	add("length", ad.Length)
	return strings.Join(parts, ", ")
}

func (c *composeScreen) close() {
	c.cancelGenerate()
	c.pb.stop()
}
