// Package ui is the Fyne face of AMT Studio: one file per screen (compose,
// datasets, training, settings), each a constructor returning a
// fyne.CanvasObject, the shell that holds them, and the bridge that turns
// background job events into widget changes.
//
// ui only presents: every action goes through app/ (a *app.Studio the
// window owns), which the command line uses too. Background events reach
// widgets only through the bridge (fyne.Do, at most ~20 redraws a second).
// Under Fyne's software test driver (the tests, `amt snapshot`) the shell
// is drained: the bridge applies updates only when the goroutine driving
// the window asks (Shell.drain, the tests' waitFor), because that driver
// has no UI goroutine of its own. Never change a widget from another
// goroutine; `make race` checks the tests for it.
//
// ui imports app/, ui/widgets and, for the scores and attributes it
// draws, engine/midi and engine/token: no other engine package and not
// storage (layers_test.go checks it). What the window needs of the layers
// below (the player, the resource sampler, stored records) app offers as
// calls and aliases (app/frontend.go), so every action the window offers
// is an app call the command line makes too. Nothing imports ui but main.
package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/assets"
	_ "github.com/amtstudio/amt/ui/internal/locale" // before Fyne reads the locale
)

// AppID is the application's unique ID (also in FyneApp.toml).
const AppID = "studio.amt.desktop"

// Title is the window title.
const Title = "AMT Studio"

// Icon is the application icon as a Fyne resource.
var Icon = fyne.NewStaticResource("icon.png", assets.IconPNG)

// Screen names, in tab order; `amt snapshot --screen NAME` takes these.
var ScreenNames = []string{"compose", "datasets", "training", "settings"}

// Shell is the main window's content: the four screens as tabs and a status
// line under them.
type Shell struct {
	Window fyne.Window
	Tabs   *container.AppTabs
	Status *widget.Label

	env      *env
	Compose  *composeScreen
	Datasets *datasetsScreen
	Training *trainingScreen
	Settings *settingsScreen
}

// env is what every screen shares: the window, the studio (nil when the
// store could not be opened), the status line and the bridge.
type env struct {
	app    fyne.App
	win    fyne.Window
	studio *app.Studio
	err    error // why studio is nil
	bridge *bridge
	status *widget.Label
	// project is the project the screens work in.
	project string
	// onDatasetsChanged and onRunsChanged let one screen tell the others.
	onDatasetsChanged []func()
	onRunsChanged     []func()
}

// setStatus shows text in the status line; safe from any goroutine.
func (e *env) setStatus(text string) {
	e.bridge.Post("status", func() { e.status.SetText(text) })
}

func (e *env) datasetsChanged() {
	for _, f := range e.onDatasetsChanged {
		f()
	}
}

func (e *env) runsChanged() {
	for _, f := range e.onRunsChanged {
		f()
	}
}

// NewShell builds the main window of application a over studio st (nil
// with openErr when the store could not be opened: the screens then say
// why).
func NewShell(a fyne.App, st *app.Studio, openErr error) *Shell {
	return fillShell(a, newWindow(a), st, openErr, false)
}

// newDrainedShell is NewShell for Fyne's software test driver (the tests,
// `amt snapshot`): updates from background work wait until s.drain
// applies them on the caller's goroutine (see bridge).
func newDrainedShell(a fyne.App, st *app.Studio, openErr error) *Shell {
	return fillShell(a, newWindow(a), st, openErr, true)
}

// drain applies the updates background work has posted, on the calling
// goroutine (a drained shell; see bridge); it returns how many.
func (s *Shell) drain() int { return s.env.bridge.drain() }

// newWindow is the main window at its start size, before any screen.
func newWindow(a fyne.App) fyne.Window {
	w := a.NewWindow(Title)
	w.SetIcon(Icon)
	w.Resize(fyne.NewSize(1100, 720))
	return w
}

// fillShell builds the screens over st into w; drained picks the
// bridge's mode.
func fillShell(a fyne.App, w fyne.Window, st *app.Studio, openErr error, drained bool) *Shell {
	s := &Shell{Window: w, Status: widget.NewLabel("Ready")}
	s.Status.Truncation = fyne.TextTruncateEllipsis
	e := &env{app: a, win: w, studio: st, err: openErr, bridge: newBridge(drained), status: s.Status, project: app.DefaultProject}
	s.env = e
	if st == nil && openErr != nil {
		s.Status.SetText("No data directory: " + openErr.Error())
	}
	s.Settings = newSettingsScreen(e)
	s.Compose = newComposeScreen(e)
	s.Datasets = newDatasetsScreen(e)
	s.Training = newTrainingScreen(e)
	s.Tabs = container.NewAppTabs(
		container.NewTabItem("Compose", holdMinSize(s.Compose.root)),
		container.NewTabItem("Datasets", holdMinSize(s.Datasets.root)),
		container.NewTabItem("Training", holdMinSize(s.Training.root)),
		container.NewTabItem("Settings", holdMinSize(s.Settings.root)),
	)
	s.Tabs.SetTabLocation(container.TabLocationTop)
	s.Tabs.OnSelected = func(*container.TabItem) { s.Training.setVisible(s.Tabs.SelectedIndex() == 2) }
	// The status line is opaque: in a window shorter than a screen, Fyne's
	// software painter (`amt snapshot`) clips a scrolled entry or table to
	// its own bounds, not the screen's, and drew it under the status text.
	status := container.NewStack(newBackground(), container.NewVBox(widget.NewSeparator(), s.Status))
	w.SetContent(container.NewBorder(nil, status, nil, nil, s.Tabs))
	w.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) { s.dropped(uris) })
	w.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeySpace && s.Tabs.SelectedIndex() == 0 {
			s.Compose.togglePlay()
		}
	})
	// Ctrl+Z / Ctrl+Shift+Z (Cmd on macOS) undo and redo changes to the
	// piece on Compose (a focused entry keeps its own).
	for _, sc := range []struct {
		mod fyne.KeyModifier
		do  func()
	}{{fyne.KeyModifierShortcutDefault, s.Compose.undo}, {fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift, s.Compose.redo}} {
		do := sc.do
		w.Canvas().AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyZ, Modifier: sc.mod}, func(fyne.Shortcut) {
			if s.Tabs.SelectedIndex() == 0 {
				do()
			}
		})
	}
	return s
}

// holdMinSize puts a screen in a scroll container: in a window smaller
// than the screen's minimum size the screen keeps that size and scrolls.
// Fyne's layouts hand a container smaller than its minimum negative sizes
// (at 600 pixels Compose gave its Instruments entry -2.5), and the
// software painter panics drawing a rounded rectangle of negative width
// (`amt snapshot --width 600`). The scroll also lets the window itself
// be narrow: its minimum is the tab bar's and the status line's, not the
// widest screen's (1007 × 598 before).
func holdMinSize(screen fyne.CanvasObject) fyne.CanvasObject {
	return container.NewScroll(screen)
}

// background fills its space with the theme's background colour, and the
// window's padding beside and below it (the status line's place), so
// nothing drawn past a screen's clip shows there. It follows a change of
// theme (a plain rectangle keeps the colour it was made with).
type background struct{ widget.BaseWidget }

func newBackground() *background {
	b := &background{}
	b.ExtendBaseWidget(b)
	return b
}

func (b *background) CreateRenderer() fyne.WidgetRenderer {
	r := &backgroundRenderer{b: b, rect: canvas.NewRectangle(nil)}
	r.Refresh()
	return r
}

type backgroundRenderer struct {
	b    *background
	rect *canvas.Rectangle
}

func (r *backgroundRenderer) Layout(size fyne.Size) {
	p := theme.Padding()
	r.rect.Move(fyne.NewPos(-p, 0))
	r.rect.Resize(size.AddWidthHeight(2*p, p))
}

func (r *backgroundRenderer) MinSize() fyne.Size           { return fyne.Size{} }
func (r *backgroundRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.rect} }
func (r *backgroundRenderer) Destroy()                     {}
func (r *backgroundRenderer) Refresh() {
	r.rect.FillColor = theme.ColorForWidget(theme.ColorNameBackground, r.b)
	r.rect.Refresh()
}

// dropped opens what was dropped on the window: a MIDI file on Compose
// (to continue it or regenerate its bars), a folder as a dataset import.
func (s *Shell) dropped(uris []fyne.URI) {
	for _, u := range uris {
		if isMIDIFile(u.Path()) {
			s.Tabs.SelectIndex(0)
			s.Compose.openMIDIFile(u.Path())
			return
		}
		if s.Datasets.importDropped(u.Path()) {
			s.Tabs.SelectIndex(1)
			return
		}
	}
}

// Close stops what the screens run (a training run is paused with a
// checkpoint, playback stops, the sampler ends).
func (s *Shell) Close() {
	s.Training.close()
	s.Compose.close()
	s.Datasets.close()
	s.env.bridge.Close()
}

// Select shows the named screen (one of ScreenNames).
func (s *Shell) Select(name string) error {
	for i, n := range ScreenNames {
		if n == strings.ToLower(name) {
			s.Tabs.SelectIndex(i)
			s.Training.setVisible(i == 2)
			return nil
		}
	}
	return fmt.Errorf("unknown screen %q (one of %s)", name, strings.Join(ScreenNames, ", "))
}

// SetStatus shows text in the status line; safe from any goroutine.
func (s *Shell) SetStatus(text string) { s.env.setStatus(text) }
