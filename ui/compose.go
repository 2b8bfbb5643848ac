package ui

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
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

func genreChoices() []string { return append([]string{anyChoice}, token.GenreFamilies...) }

// defaultModelLabel is the model choice of the embedded default model.
const defaultModelLabel = "Default model"
const chooseFolderLabel = "Choose folder…"

// defaultContinueBars is the Continue field's starting value.
const defaultContinueBars = 4

// variationCount is how many pieces "Generate 4" samples.
const variationCount = 4

// composeScreen is the Compose screen: a prompt and its attribute chips,
// sampling settings, the piece worked on (piano roll, track list, play
// with loop and tempo, exports), its changes (continue, regenerate bars,
// undo, redo), variations to choose from, and the history of stored
// pieces. Every action is an app call (Studio.Compose, Variations, Keep,
// Continue, Regenerate, PlayScore, MixScore, ExportStems, …).
type composeScreen struct {
	e    *env
	root fyne.CanvasObject

	prompt                   *widget.Entry
	generate, gen4           *widget.Button
	openB                    *widget.Button
	tempo, bars              *widget.Entry
	instruments              *widget.Entry // GM names (numbers accepted), comma-separated
	instrPick                *widget.Button
	key, meter               *widget.Select
	drums                    *widget.Select
	genre, form              *widget.Select
	mood, ensemble, dynamics *widget.Select // what the words imply (app.Choices)
	density                  *widget.Select // the texture the words imply (app.Choices)
	understood               *widget.RichText
	// understanding is the prompt as last read (app.Understand) and
	// resolved the text each chip was given then: a chip still showing it
	// holds what the words imply, and is left for the request's seed to
	// draw; one the user changed is sent as the user's.
	understanding                   app.Understanding
	resolved                        map[string]string
	settingChips                    bool
	length, temperature, topP, seed *widget.Entry
	model                           *widget.Select
	modelDirs                       map[string]string
	noModel                         *widget.Label

	progress    *widget.ProgressBar
	progressRow *fyne.Container
	cancel      *widget.Button

	roll     *widgets.PianoRoll
	title    *widget.Label
	evalText *widget.Label
	play     *widget.Button
	loop     *widget.Check
	tempoF   *widget.Slider // playback tempo factor
	tempoL   *widget.Label
	exportB  *widget.Button

	contB, regenB, newSeed, undoB, redoB *widget.Button
	contBars                             *widget.Entry
	playRow, editRow                     *fyne.Container // laid out again when a button's text changes
	top                                  *fyne.Container // laid out again when a row shows or hides

	tracksBox *fyne.Container
	tracks    []*trackRow
	mix       []app.TrackMix

	variations *variationsRow

	history     *widget.List
	pieces      []app.PieceRow
	edits       app.Edits
	current     *midi.Score // the version shown (edits' current)
	currentName string
	pb          *playback

	deleteDialog *dialog.ConfirmDialog // open confirmation (tests)
	menu         *widget.PopUpMenu     // the pop-up menu shown last (tests)
	menuSpec     *fyne.Menu            // its items

	mu      sync.Mutex
	running context.CancelFunc
	last    app.ComposeRequest
}

func newComposeScreen(e *env) *composeScreen {
	c := &composeScreen{e: e, modelDirs: map[string]string{}, resolved: map[string]string{}}
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
	c.gen4 = widget.NewButtonWithIcon(fmt.Sprintf("Generate %d", variationCount), theme.GridIcon(), c.startVariations)
	c.openB = widget.NewButtonWithIcon("Open MIDI…", theme.FolderOpenIcon(), c.chooseMIDI)

	c.tempo = widget.NewEntry()
	c.tempo.SetPlaceHolder(anyChoice)
	c.key = widget.NewSelect(keyChoices(), nil)
	c.meter = widget.NewSelect(meterChoices, nil)
	c.genre = widget.NewSelect(genreChoices(), nil)
	c.form = widget.NewSelect(app.Forms, nil)
	c.form.SetSelected("auto")
	c.instruments = widget.NewEntry()
	c.instruments.SetPlaceHolder(anyChoice)
	c.instrPick = widget.NewButtonWithIcon("", theme.ContentAddIcon(), func() {
		c.showInstrumentMenu(c.instrPick, func(p int) {
			names := strings.TrimSpace(c.instruments.Text)
			if names != "" {
				names += ", "
			}
			c.instruments.SetText(names + midi.ProgramName(p))
		})
	})
	c.drums = widget.NewSelect([]string{anyChoice, "yes", "no"}, nil)
	c.bars = widget.NewEntry()
	c.bars.SetPlaceHolder(anyChoice)
	c.mood = widget.NewSelect(append([]string{anyChoice}, app.Moods()...), func(string) { c.choiceChanged() })
	c.ensemble = widget.NewSelect(append([]string{anyChoice}, app.Ensembles()...), func(string) { c.choiceChanged() })
	c.dynamics = widget.NewSelect(append([]string{anyChoice}, app.DynamicsLevels()...), func(string) { c.choiceChanged() })
	c.density = widget.NewSelect(append([]string{anyChoice}, app.DensityLevels()...), func(string) { c.choiceChanged() })
	for _, s := range []*widget.Select{c.mood, c.ensemble, c.dynamics, c.density} {
		s.PlaceHolder = anyChoice // before any prompt: "any", as the other fields say
	}
	c.understood = widget.NewRichText()
	c.understood.Wrapping = fyne.TextWrapWord
	c.setChips(token.Unspecified())

	c.length = widget.NewEntry()
	c.length.SetPlaceHolder("auto")
	c.temperature = widget.NewEntry()
	c.temperature.SetText(strconv.FormatFloat(app.DefaultTemperature, 'g', -1, 64))
	c.topP = widget.NewEntry()
	c.topP.SetText(strconv.FormatFloat(app.DefaultTopP, 'g', -1, 64))
	c.seed = widget.NewEntry()
	c.seed.SetText("1")
	c.seed.OnChanged = func(string) { c.choiceChanged() } // implied values are drawn for the seed
	dice := widget.NewButtonWithIcon("", theme.ViewRefreshIcon(), func() { c.seed.SetText(strconv.FormatUint(rand.Uint64()%1_000_000, 10)) })
	c.model = widget.NewSelect(nil, c.modelChosen)
	c.noModel = widget.NewLabel("")
	c.noModel.Wrapping = fyne.TextWrapWord
	c.noModel.Importance = widget.WarningImportance

	c.progress = widget.NewProgressBar()
	c.cancel = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), c.cancelGenerate)
	c.cancel.Disable()

	c.roll = widgets.NewPianoRoll(nil)
	c.roll.OnSelect = func(int, int) { c.selectionChanged() }
	c.title = widget.NewLabelWithStyle("No piece yet: type a prompt and press Generate (or Enter), or open a MIDI file", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	c.title.Truncation = fyne.TextTruncateEllipsis
	c.evalText = widget.NewLabel("")
	c.evalText.Wrapping = fyne.TextWrapWord
	c.play = widget.NewButtonWithIcon("Play", theme.MediaPlayIcon(), c.togglePlay)
	c.loop = widget.NewCheck("Loop", func(bool) { c.restartPlayback() })
	c.tempoF = widget.NewSlider(0.5, 2)
	c.tempoF.Step = 0.05
	c.tempoF.SetValue(1)
	c.tempoL = widget.NewLabel("")
	c.tempoF.OnChanged = func(v float64) { c.tempoL.SetText(fmt.Sprintf("Tempo ×%.2f", v)) }
	c.tempoF.OnChangeEnded = func(float64) { c.restartPlayback() }
	c.tempoF.OnChanged(1)
	c.exportB = widget.NewButtonWithIcon("Export…", theme.DocumentSaveIcon(), c.showExportMenu)

	c.contBars = widget.NewEntry()
	c.contBars.SetText(strconv.Itoa(defaultContinueBars))
	c.contB = widget.NewButtonWithIcon("Continue", theme.MediaFastForwardIcon(), c.startContinue)
	c.regenB = widget.NewButtonWithIcon("Regenerate bars", theme.ViewRefreshIcon(), c.startRegenerateBars)
	c.newSeed = widget.NewButtonWithIcon("New seed", theme.ViewRefreshIcon(), func() { c.startGenerate(true) })
	// Undo and redo are icons (Ctrl+Z, Ctrl+Shift+Z): the row is full.
	c.undoB = widget.NewButtonWithIcon("", theme.ContentUndoIcon(), c.undo)
	c.redoB = widget.NewButtonWithIcon("", theme.ContentRedoIcon(), c.redo)

	c.tracksBox = container.NewVBox()
	c.variations = newVariationsRow(c)

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
	chips := container.NewGridWithColumns(4,
		chip("Tempo", c.tempo), chip("Key", c.key), chip("Meter", c.meter), chip("Genre", c.genre),
		chip("Instruments", container.NewBorder(nil, nil, nil, c.instrPick, c.instruments)), chip("Drums", c.drums),
		chip("Bars", c.bars), chip("Form", c.form),
		chip("Mood", c.mood), chip("Ensemble", c.ensemble), chip("Dynamics", c.dynamics), chip("Density", c.density))
	settings := container.NewGridWithColumns(5,
		chip("Length", c.length), chip("Temperature", c.temperature), chip("Top-p", c.topP),
		chip("Seed", container.NewBorder(nil, nil, nil, dice, c.seed)), chip("Model", c.model))
	// The progress row is hidden until the first generation: an idle bar at
	// 0% reads as stuck.
	c.progressRow = container.NewBorder(nil, nil, nil, c.cancel, c.progress)
	c.progressRow.Hide()
	c.top = container.NewVBox(
		container.NewBorder(nil, nil, c.openB, container.NewHBox(c.generate, c.gen4), c.prompt),
		widget.NewLabel("Understood from the prompt (edit to change):"),
		chips, c.understood, settings, c.noModel,
		c.progressRow,
		c.variations.box,
	)
	c.playRow = container.NewBorder(nil, nil, container.NewHBox(c.play, c.loop), c.exportB,
		container.NewBorder(nil, nil, c.tempoL, nil, c.tempoF))
	barsBox := container.NewGridWrap(fyne.NewSize(52, c.contBars.MinSize().Height), c.contBars)
	c.editRow = container.NewHBox(c.contB, barsBox, widget.NewLabel("bars"), c.regenB, c.newSeed, layout.NewSpacer(), c.undoB, c.redoB)
	tracksTitle := widget.NewLabelWithStyle("Tracks", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	tracksWidth := canvas.NewRectangle(color.Transparent)
	tracksWidth.SetMinSize(fyne.NewSize(236, 0))
	tracks := container.NewStack(tracksWidth, container.NewBorder(tracksTitle, nil, nil, nil, container.NewVScroll(c.tracksBox)))
	piece := container.NewBorder(container.NewVBox(c.title, c.playRow, c.editRow), nil, tracks, nil, c.roll)
	histTitle := widget.NewLabelWithStyle("History", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	split := container.NewHSplit(piece, container.NewVSplit(container.NewBorder(histTitle, nil, nil, nil, c.history), container.NewVScroll(c.evalText)))
	split.Offset = 0.7
	c.root = container.NewBorder(c.top, nil, nil, nil, split)

	c.refreshModels()
	c.refreshHistory()
	c.syncTracks()
	c.updateEditButtons()
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

// seedValue is the seed field's value (0 when it does not parse).
func (c *composeScreen) seedValue() uint64 {
	v, _ := strconv.ParseUint(strings.TrimSpace(c.seed.Text), 10, 64)
	return v
}

// promptChanged shows what the prompt asks for and implies in the chips
// (the user's choices of mood, ensemble and dynamics start over).
func (c *composeScreen) promptChanged(text string) {
	c.understanding = app.Understand(app.UnderstandRequest{Prompt: text, Seed: c.seedValue()}, nil)
	c.resolved = map[string]string{}
	c.setChips(c.understanding.Attrs)
	c.setChoiceChips(c.understanding)
	c.showUnderstood()
}

// choiceChanged reads the prompt again with the chips the user changed
// (mood, ensemble, dynamics, seed, or an attribute) and refreshes the
// chips that still show what the words imply.
func (c *composeScreen) choiceChanged() {
	if c.settingChips || c.resolved == nil || c.tempo == nil || c.understood == nil {
		return
	}
	given, err := c.chipAttributes()
	if err != nil {
		return
	}
	u := app.Understand(app.UnderstandRequest{Prompt: c.prompt.Text, Seed: c.seedValue(), Attrs: &given, Choices: c.choices()}, nil)
	old := c.resolved
	c.understanding = u
	c.settingChips = true
	c.setChipsWhere(u.Attrs, func(chip, text string) bool { return text == old[chip] })
	c.settingChips = false
	c.setChoiceChipsWhere(u, func(chip, text string) bool { return text == old[chip] })
	c.showUnderstood()
}

func (c *composeScreen) setChips(a token.Attributes) {
	c.settingChips = true
	defer func() { c.settingChips = false }()
	c.setChipsWhere(a, func(string, string) bool { return true })
}

// setChipsWhere sets each attribute chip that ok allows (given the chip's
// name and its current text) to a's value and remembers it as resolved.
func (c *composeScreen) setChipsWhere(a token.Attributes, ok func(chip, text string) bool) {
	entry := func(name string, e *widget.Entry, v string) {
		if ok(name, e.Text) {
			e.SetText(v)
			c.resolved[name] = v
		}
	}
	sel := func(name string, s *widget.Select, v string) {
		if ok(name, s.Selected) {
			s.SetSelected(v)
			c.resolved[name] = v
		}
	}
	t := ""
	if a.TempoBPM > 0 {
		t = tempoText(a.TempoBPM)
	}
	entry("tempo", c.tempo, t)
	k := anyChoice
	if a.KeyTonic >= 0 {
		k = midi.Key{Tonic: a.KeyTonic, Minor: a.KeyMinor}.String()
	}
	sel("key", c.key, k)
	m := anyChoice
	if a.MeterNum > 0 && a.MeterDen > 0 {
		m = fmt.Sprintf("%d/%d", a.MeterNum, a.MeterDen)
	}
	sel("meter", c.meter, m)
	g := anyChoice
	if a.Genre != "" {
		g = a.Genre
	}
	sel("genre", c.genre, g)
	entry("instruments", c.instruments, programNames(a.Programs))
	d := anyChoice
	if a.Drums != nil {
		d = map[bool]string{true: "yes", false: "no"}[*a.Drums]
	}
	sel("drums", c.drums, d)
	b := ""
	if a.Bars > 0 {
		b = strconv.Itoa(a.Bars)
	}
	entry("bars", c.bars, b)
}

// setChoiceChips shows the mood, ensemble, dynamics and density the words
// imply.
func (c *composeScreen) setChoiceChips(u app.Understanding) {
	c.setChoiceChipsWhere(u, func(string, string) bool { return true })
}

func (c *composeScreen) setChoiceChipsWhere(u app.Understanding, ok func(chip, text string) bool) {
	c.settingChips = true
	defer func() { c.settingChips = false }()
	mood := anyChoice
	if u.Mood != "" {
		mood, _, _ = strings.Cut(u.Mood, ", ")
	}
	for _, x := range []struct {
		name string
		s    *widget.Select
		v    string
	}{{"mood", c.mood, mood}, {"ensemble", c.ensemble, orAny(u.Ensemble)}, {"dynamics", c.dynamics, orAny(u.Dynamics)},
		{"density", c.density, orAny(u.Density)}} {
		if ok(x.name, x.s.Selected) {
			x.s.SetSelected(x.v)
			c.resolved[x.name] = x.v
		}
	}
}

func orAny(s string) string {
	if s == "" {
		return anyChoice
	}
	return s
}

// choices are the mood, ensemble, dynamics and density chips the user
// changed.
func (c *composeScreen) choices() app.Choices {
	var ch app.Choices
	pick := func(name string, s *widget.Select) string {
		if s.Selected == c.resolved[name] {
			return ""
		}
		if s.Selected == anyChoice {
			return "none"
		}
		return s.Selected
	}
	ch.Mood = pick("mood", c.mood)
	ch.Ensemble = pick("ensemble", c.ensemble)
	ch.Dynamics = pick("dynamics", c.dynamics)
	ch.Density = pick("density", c.density)
	return ch
}

// showUnderstood writes what the prompt was understood as under the
// chips: where each implied value came from (the chips show the values),
// in the accent colour, and the words not used in the warning colour.
func (c *composeScreen) showUnderstood() {
	u := c.understanding
	var segs []widget.RichTextSegment
	text := func(s string, col fyne.ThemeColorName, italic bool) {
		segs = append(segs, &widget.TextSegment{Text: s, Style: widget.RichTextStyle{Inline: true, ColorName: col,
			TextStyle: fyne.TextStyle{Italic: italic}}})
	}
	n := 0
	for _, it := range u.Items {
		if !it.Implied {
			continue // the chips show it as the prompt said it
		}
		if n > 0 {
			text("  ·  ", theme.ColorNameForeground, false)
		}
		n++
		what := it.Range
		switch {
		case it.Attr == "mood":
			what = u.Mood
		case it.Attr == "dynamics":
			what = u.Dynamics + ", velocity " + it.Range
		case it.Attr == "density":
			level, _, _ := strings.Cut(it.Value, ",")
			what = level + ", " + it.Range + " notes a beat"
		case what == "":
			what = it.Value
		}
		text(it.Attr+" "+what+" from "+strings.Join(it.From, ", "), theme.ColorNamePrimary, true)
	}
	if len(u.Unused) > 0 {
		if n > 0 {
			text("  ·  ", theme.ColorNameForeground, false)
		}
		text("not used: "+strings.Join(quote(u.Unused), ", "), theme.ColorNameWarning, false)
	}
	if len(segs) == 0 {
		text("Moods, scenes and styles imply the rest: try “a soothing bedtime song” or “grunge with fuzzy guitars”.", theme.ColorNamePlaceHolder, true)
	}
	c.understood.Segments = segs
	c.understood.Refresh()
	// A wrapped text learns its height from its width: lay the top out
	// again so the rows below it move.
	if c.top != nil {
		c.top.Refresh()
		if r, ok := c.root.(*fyne.Container); ok {
			r.Refresh()
		}
	}
}

func quote(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = "'" + w + "'"
	}
	return out
}

// implied reports whether the chip of attr still shows what the words
// imply (the user has not changed it): it is left unset in the request,
// for the request's seed to draw.
func (c *composeScreen) implied(attr, chipText string) bool {
	it, ok := c.understanding.Item(attr)
	return ok && it.Implied && chipText == c.resolved[attr]
}

// chipAttributes reads the chips back: what the user set and what the
// prompt names; a chip still showing an implied value is left unset (the
// request's seed draws it, as `amt generate` does), and a tempo chip
// showing the prompt's tempo rounded keeps the prompt's exact value.
func (c *composeScreen) chipAttributes() (token.Attributes, error) {
	a := token.Unspecified()
	promptTempo := c.understanding.Attrs.TempoBPM
	if t := strings.TrimSpace(c.tempo.Text); t != "" && c.implied("tempo", c.tempo.Text) {
	} else if t != "" && promptTempo > 0 && t == tempoText(promptTempo) {
		a.TempoBPM = promptTempo
	} else if t != "" {
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || v < 20 || v > 400 {
			return a, fmt.Errorf("tempo %q: give beats per minute, 20–400", t)
		}
		a.TempoBPM = v
	}
	if !c.implied("key", c.key.Selected) {
		for _, minor := range []bool{false, true} {
			for t := 0; t < 12; t++ {
				if (midi.Key{Tonic: t, Minor: minor}).String() == c.key.Selected {
					a.KeyTonic, a.KeyMinor = t, minor
				}
			}
		}
	}
	if n, d, ok := strings.Cut(c.meter.Selected, "/"); ok && !c.implied("meter", c.meter.Selected) {
		a.MeterNum, _ = strconv.Atoi(n)
		a.MeterDen, _ = strconv.Atoi(d)
	}
	if c.genre.Selected != anyChoice && !c.implied("genre", c.genre.Selected) {
		a.Genre = c.genre.Selected
	}
	if strings.TrimSpace(c.instruments.Text) != "" && !c.implied("instruments", c.instruments.Text) {
		ps, err := parseInstruments(c.instruments.Text)
		if err != nil {
			return a, err
		}
		a.Programs = ps
	}
	if !c.implied("drums", c.drums.Selected) {
		switch c.drums.Selected {
		case "yes":
			t := true
			a.Drums = &t
		case "no":
			f := false
			a.Drums = &f
		}
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

// parseInstruments reads the instruments chip: General MIDI names
// (case-insensitive) or program numbers 0–127, comma-separated.
func parseInstruments(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if v, err := strconv.Atoi(f); err == nil {
			if v < 0 || v > 127 {
				return nil, fmt.Errorf("instruments: program %d outside 0–127", v)
			}
			out = append(out, v)
			continue
		}
		p := programByName(f)
		if p < 0 {
			return nil, fmt.Errorf("instruments: %q is not a General MIDI instrument (pick one with +)", f)
		}
		out = append(out, p)
	}
	return out, nil
}

// programByName is the General MIDI program named name (any case), or -1.
func programByName(name string) int {
	for p := 0; p < 128; p++ {
		if strings.EqualFold(midi.ProgramName(p), name) {
			return p
		}
	}
	return -1
}

func programNames(ps []int) string {
	var names []string
	for _, p := range ps {
		names = append(names, midi.ProgramName(p))
	}
	return strings.Join(names, ", ")
}

// refreshModels lists the model choices: the default model, the
// project's models (finished fine-tunes under their dataset's name, runs
// from random weights: app.ComposeModels), folders chosen before, and
// "Choose folder…".
func (c *composeScreen) refreshModels() {
	opts := []string{defaultModelLabel}
	dirs := map[string]string{defaultModelLabel: ""}
	if c.e.studio != nil {
		models, _ := c.e.studio.ComposeModels(c.e.project)
		for _, m := range models {
			opts = append(opts, m.Label)
			dirs[m.Label] = m.Dir
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
		c.showRow(c.noModel, false)
	}
}

// sampleSettings reads the sampling fields (newSeed: draw a new seed into
// the seed field first).
func (c *composeScreen) sampleSettings(newSeed bool) (app.SampleSettings, error) {
	var s app.SampleSettings
	if t := strings.TrimSpace(c.length.Text); t != "" && t != "auto" {
		v, err := strconv.Atoi(t)
		if err != nil || v < 1 || v > 32768 {
			return s, fmt.Errorf("length %q: give tokens, 1–32768, or leave it empty", c.length.Text)
		}
		s.MaxTokens = v
	}
	var err error
	s.Temperature, err = strconv.ParseFloat(strings.TrimSpace(c.temperature.Text), 64)
	if err != nil || s.Temperature < 0 || s.Temperature > 5 {
		return s, fmt.Errorf("temperature %q: give 0–5", c.temperature.Text)
	}
	s.TopP, err = strconv.ParseFloat(strings.TrimSpace(c.topP.Text), 64)
	if err != nil || s.TopP <= 0 || s.TopP > 1 {
		return s, fmt.Errorf("top-p %q: give a share in (0, 1]", c.topP.Text)
	}
	if newSeed {
		c.seed.SetText(strconv.FormatUint(rand.Uint64()%1_000_000, 10))
	}
	s.Seed, err = strconv.ParseUint(strings.TrimSpace(c.seed.Text), 10, 64)
	if err != nil {
		return s, fmt.Errorf("seed %q: give a whole number ≥ 0", c.seed.Text)
	}
	return s, nil
}

// request reads the whole form.
func (c *composeScreen) request(newSeed bool) (app.ComposeRequest, error) {
	a, err := c.chipAttributes()
	if err != nil {
		return app.ComposeRequest{}, err
	}
	ss, err := c.sampleSettings(newSeed)
	if err != nil {
		return app.ComposeRequest{}, err
	}
	return app.ComposeRequest{Project: c.e.project, Prompt: c.prompt.Text, Attrs: &a, ModelDir: c.modelDirs[c.model.Selected],
		Form: c.form.Selected, Choices: c.choices(), SampleSettings: ss}, nil
}

// busy reports whether a job (generation, variations, an edit) runs.
func (c *composeScreen) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.running != nil
}

// runJob runs work in the background with the progress row and Cancel:
// one job at a time. finish runs on the UI goroutine with work's error
// (the status line already says why a job failed or was cancelled).
func (c *composeScreen) runJob(verb string, work func(ctx context.Context, progress func(done, total int)) error, finish func(err error)) {
	if c.e.studio == nil {
		c.e.setStatus("Cannot " + strings.ToLower(verb) + ": no data directory")
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	if c.running != nil {
		c.mu.Unlock()
		cancel()
		return
	}
	c.running = cancel
	c.mu.Unlock()
	c.setBusy(true)
	c.progress.SetValue(0)
	c.showRow(c.progressRow, true)
	c.e.setStatus(verb + "…")
	progress := func(done, total int) {
		c.e.bridge.Post("compose.progress", func() { c.progress.SetValue(float64(done) / float64(max(total, 1))) })
	}
	go func() {
		err := work(ctx, progress)
		cancel()
		c.e.bridge.Post("compose.done", func() {
			defer func() {
				c.mu.Lock()
				c.running = nil
				c.mu.Unlock()
				c.setBusy(false)
			}()
			switch {
			case err == nil:
				c.progress.SetValue(1)
			case ctx.Err() != nil:
				c.progress.SetValue(0)
				c.e.status.SetText(verb + ": cancelled")
			case errors.Is(err, app.ErrNoModel):
				c.progress.SetValue(0)
				c.e.status.SetText(err.Error())
				c.noModel.SetText(err.Error() + ".")
				c.showRow(c.noModel, true)
			default:
				c.progress.SetValue(0)
				c.e.status.SetText(verb + " failed: " + err.Error())
			}
			finish(err)
		})
	}()
}

// showRow shows or hides a row of the top of the screen and lays the
// screen out again (a container does not follow its children's
// visibility by itself).
func (c *composeScreen) showRow(o fyne.CanvasObject, on bool) {
	if on == o.Visible() {
		return
	}
	if on {
		o.Show()
	} else {
		o.Hide()
	}
	if c.top != nil {
		if r, ok := c.root.(*fyne.Container); ok {
			r.Refresh()
		}
	}
}

// setBusy disables what would start a second job while one runs.
func (c *composeScreen) setBusy(on bool) {
	for _, b := range []*widget.Button{c.generate, c.gen4, c.newSeed} {
		if on {
			b.Disable()
		} else {
			b.Enable()
		}
	}
	if on {
		c.cancel.Enable()
	} else {
		c.cancel.Disable()
	}
	c.updateEditButtons()
}

// startGenerate runs one generation in the background (newSeed: the
// same request with a new seed).
func (c *composeScreen) startGenerate(newSeed bool) {
	if c.e.studio == nil {
		c.e.setStatus("Cannot generate: no data directory")
		return
	}
	if c.busy() {
		return
	}
	req, err := c.request(newSeed)
	if err != nil {
		c.e.setStatus("Cannot generate: " + err.Error())
		return
	}
	c.mu.Lock()
	c.last = req
	c.mu.Unlock()
	var res *app.ComposeResult
	c.runJob("Generating", func(ctx context.Context, progress func(int, int)) error {
		req.Progress = progress
		var err error
		res, err = c.e.studio.Compose(ctx, req)
		return err
	}, func(err error) {
		if err != nil {
			return
		}
		c.refreshHistory()
		c.showResult(res)
		c.e.status.SetText(fmt.Sprintf("Generated piece %d: %d notes, %d tokens in %.2f s", res.Piece.ID, res.Score.NoteCount(), res.Tokens, res.Seconds))
	})
}

func (c *composeScreen) cancelGenerate() {
	c.mu.Lock()
	if c.running != nil {
		c.running()
	}
	c.mu.Unlock()
}

// showResult shows a newly stored piece as a new piece to work on.
func (c *composeScreen) showResult(res *app.ComposeResult) {
	c.edits.Reset(versionOf(res, ""))
	c.showVersion(res.Metrics, res.Adherence)
}

// versionOf is a stored result as a version of the piece worked on.
func versionOf(res *app.ComposeResult, what string) app.PieceVersion {
	return app.PieceVersion{Score: res.Score, Piece: res.Piece, Name: filepath.Base(res.Piece.Abs), What: what}
}

func pieceTitle(p app.PieceRow) string {
	prompt := p.Prompt
	if prompt == "" {
		prompt = "(no prompt)"
	}
	form := ""
	if p.Form != "" && p.Form != "none" {
		form = "  ·  " + p.Form
	}
	return fmt.Sprintf("#%d  %s%s  ·  seed %d", p.ID, prompt, form, p.Seed)
}

// versionTitle is the title line of a version of the piece.
func versionTitle(v app.PieceVersion) string {
	if v.Piece.ID == 0 {
		return v.What
	}
	if v.What == "" {
		return pieceTitle(v.Piece)
	}
	return pieceTitle(v.Piece) + "  ·  " + v.What
}

// showVersion shows the edits' current version: piano roll, title, track
// list, evaluation (m, ad; measured here when nil).
func (c *composeScreen) showVersion(m *app.Metrics, ad *app.Adherence) {
	v, ok := c.edits.Current()
	c.pb.stop()
	if !ok {
		c.current, c.currentName = nil, ""
		c.roll.SetScore(nil)
		c.syncTracks()
		c.updateEditButtons()
		return
	}
	c.current, c.currentName = v.Score, v.Name
	c.roll.SetScore(v.Score)
	c.title.SetText(versionTitle(v))
	if m == nil {
		attrs := token.Unspecified()
		if v.Piece.ID != 0 {
			attrs = v.Piece.Attrs
		}
		m, ad = app.EvaluatePiece(v.Score, attrs)
	}
	c.evalText.SetText(evaluationText(m, ad))
	c.syncTracks()
	c.selectionChanged()
	c.updateEditButtons()
}

// openPiece shows a stored piece with its evaluation, as a new piece to
// work on.
func (c *composeScreen) openPiece(p app.PieceRow) {
	sc, err := c.e.studio.OpenPiece(p)
	if err != nil {
		c.e.setStatus("Cannot open piece: " + err.Error())
		return
	}
	c.prompt.SetText(p.Prompt)
	// The stored request as it was made: every chip the user's.
	c.understanding = app.Understanding{Attrs: p.Attrs}
	c.setChips(p.Attrs)
	c.showUnderstood()
	if p.Form != "" {
		c.form.SetSelected(p.Form)
	}
	c.edits.Reset(app.PieceVersion{Score: sc, Piece: p, Name: filepath.Base(p.Abs)})
	c.showVersion(nil, nil)
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
		c.startPlayback()
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
		c.edits = app.Edits{}
		c.showVersion(nil, nil)
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
	if s := app.PartsSummary(ad); s != "" {
		parts = append(parts, s) // issue 33: who plays a part, who a cameo
	}
	add("drums", ad.Drums)
	add("length", ad.Length)
	return strings.Join(parts, ", ")
}

func (c *composeScreen) close() {
	c.cancelGenerate()
	c.pb.stop()
}

// midiFileFilter is the file filter of the MIDI dialogs.
var midiFileFilter = storage.NewExtensionFileFilter([]string{".mid", ".midi"})
