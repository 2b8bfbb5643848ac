package ui

import (
	"context"
	"fmt"
	"image/color"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/midi"
)

// variantTheme is the default theme held to one variant (light or dark).
type variantTheme struct {
	fyne.Theme
	v fyne.ThemeVariant
}

func (t variantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.v)
}

// applyTheme sets "light", "dark" or the system's ("" / "system").
func applyTheme(a fyne.App, name string) {
	switch name {
	case "light":
		a.Settings().SetTheme(variantTheme{theme.DefaultTheme(), theme.VariantLight})
	case "dark":
		a.Settings().SetTheme(variantTheme{theme.DefaultTheme(), theme.VariantDark})
	default:
		a.Settings().SetTheme(theme.DefaultTheme())
	}
}

type settingsScreen struct {
	e         *env
	root      fyne.CanvasObject
	soundFont *widget.Entry
	found     *widget.Label
	workers   *widget.Entry
	online    *widget.Check
	theme     *widget.Select
	save      *widget.Button
	testAudio *widget.Button
}

func newSettingsScreen(e *env) *settingsScreen {
	s := &settingsScreen{e: e}
	s.soundFont = widget.NewEntry()
	s.soundFont.SetPlaceHolder("empty: the first SoundFont found, else the built-in synthesizer")
	fonts := app.FindSoundFonts()
	if len(fonts) == 0 {
		s.found = widget.NewLabel("Found in " + app.SoundFontDir + ": none (the built-in synthesizer plays)")
	} else {
		s.found = widget.NewLabel("Found in " + app.SoundFontDir + ": " + strings.Join(fonts, ", "))
	}
	s.found.Wrapping = fyne.TextWrapWord
	browse := widget.NewButton("Choose…", func() {
		d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
			if r != nil {
				s.soundFont.SetText(r.URI().Path())
				r.Close()
			}
		}, e.win)
		d.Show()
	})
	s.workers = widget.NewEntry()
	s.workers.SetPlaceHolder("0: one per core")
	s.online = widget.NewCheck("Fetch text about pieces online (Wikipedia summaries) while importing", nil)
	s.theme = widget.NewSelect([]string{"system", "light", "dark"}, func(v string) { applyTheme(e.app, v) })
	s.testAudio = widget.NewButton("Test audio output", s.playTest)
	s.save = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), s.saveSettings)
	s.save.Importance = widget.HighImportance
	home := "(none)"
	if e.studio != nil {
		home = e.studio.Home
	} else if e.err != nil {
		home = e.err.Error()
	}
	dataDir := widget.NewLabel(home + "\nChange it with AMT_HOME or amt --home; it holds the store, shards, models and pieces.")
	dataDir.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(
		widget.NewFormItem("SoundFont", container.NewBorder(nil, nil, nil, browse, s.soundFont)),
		widget.NewFormItem("", s.found),
		widget.NewFormItem("Audio", container.NewHBox(s.testAudio)),
		widget.NewFormItem("Data directory", dataDir),
		widget.NewFormItem("Workers", s.workers),
		widget.NewFormItem("Online text", s.online),
		widget.NewFormItem("Theme", s.theme),
	)
	s.load()
	title := widget.NewLabelWithStyle("Settings", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.root = container.NewPadded(container.NewBorder(title, container.NewHBox(s.save), nil, nil, container.NewVScroll(form)))
	return s
}

func (s *settingsScreen) load() {
	v := app.StudioSettings{}
	if s.e.studio != nil {
		if got, err := s.e.studio.Settings(); err == nil {
			v = got
		}
	}
	s.soundFont.SetText(v.SoundFont)
	s.workers.SetText(strconv.Itoa(v.Workers))
	s.online.SetChecked(v.OnlineText)
	t := v.Theme
	if t == "" {
		t = "system"
	}
	s.theme.Selected = t
	s.theme.Refresh()
}

// values reads the form.
func (s *settingsScreen) values() (app.StudioSettings, error) {
	w, err := strconv.Atoi(strings.TrimSpace(s.workers.Text))
	if err != nil || w < 0 {
		return app.StudioSettings{}, fmt.Errorf("workers: %q is not a count ≥ 0", s.workers.Text)
	}
	return app.StudioSettings{SoundFont: strings.TrimSpace(s.soundFont.Text), Workers: w, OnlineText: s.online.Checked, Theme: s.theme.Selected}, nil
}

func (s *settingsScreen) saveSettings() {
	if s.e.studio == nil {
		s.e.setStatus("Settings not saved: no data directory")
		return
	}
	v, err := s.values()
	if err == nil {
		err = s.e.studio.SaveSettings(v)
	}
	if err != nil {
		s.e.setStatus("Settings not saved: " + err.Error())
		return
	}
	s.e.setStatus("Settings saved")
}

// soundFont is the SoundFont the screens render with (the form's value).
func (s *settingsScreen) current() app.StudioSettings {
	v, err := s.values()
	if err != nil && s.e.studio != nil {
		v, _ = s.e.studio.Settings()
	}
	return v
}

// playTest renders a one-second C major arpeggio and plays it.
func (s *settingsScreen) playTest() {
	sc := &midi.Score{Format: 1, TicksPerBeat: 480, Tempos: []midi.TempoChange{{MicrosPerBeat: 500000}},
		Meters: []midi.MeterChange{{Num: 4, Den: 4}}}
	tr := midi.Track{Name: "test", Program: 0}
	for i, p := range []uint8{60, 64, 67, 72} {
		tr.Notes = append(tr.Notes, midi.Note{Tick: int64(i * 240), Dur: 240, Pitch: p, Velocity: 90})
	}
	sc.Tracks = []midi.Track{tr}
	sc.EndTick = 4 * 240
	sf := s.current().SoundFont
	go func() {
		var used string
		_, err := app.PlayScore(context.Background(), sc, app.PlayOptions{Render: app.RenderOptions{Input: "test", SoundFont: sf},
			OnStart: func(res *app.RenderResult) {
				used = res.SoundFont
				s.e.setStatus("Playing a test arpeggio with " + used)
			}}, nil)
		if err != nil {
			s.e.setStatus("Audio output: " + err.Error())
			return
		}
		s.e.setStatus("Audio output works (" + used + ")")
	}()
}
