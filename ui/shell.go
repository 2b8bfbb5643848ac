// Package ui is the Fyne face of AMT Studio: one file per screen (compose,
// datasets, training, settings), each a constructor returning a
// fyne.CanvasObject, and the shell that holds them.
//
// ui only presents: every action goes through app/, which the command line
// uses too. Background events reach widgets only through fyne.Do.
package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

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
}

// NewShell builds the main window of application a.
func NewShell(a fyne.App) *Shell {
	w := a.NewWindow(Title)
	w.SetIcon(Icon)
	s := &Shell{Window: w, Status: widget.NewLabel("Ready")}
	s.Tabs = container.NewAppTabs(
		container.NewTabItem("Compose", newComposeScreen()),
		container.NewTabItem("Datasets", newDatasetsScreen()),
		container.NewTabItem("Training", newTrainingScreen()),
		container.NewTabItem("Settings", newSettingsScreen()),
	)
	s.Tabs.SetTabLocation(container.TabLocationTop)
	w.SetContent(container.NewBorder(nil, container.NewVBox(widget.NewSeparator(), s.Status), nil, nil, s.Tabs))
	w.Resize(fyne.NewSize(1100, 720))
	return s
}

// Select shows the named screen (one of ScreenNames).
func (s *Shell) Select(name string) error {
	for i, n := range ScreenNames {
		if n == strings.ToLower(name) {
			s.Tabs.SelectIndex(i)
			return nil
		}
	}
	return fmt.Errorf("unknown screen %q (one of %s)", name, strings.Join(ScreenNames, ", "))
}

// SetStatus shows text in the status line; safe from any goroutine.
func (s *Shell) SetStatus(text string) {
	fyne.Do(func() { s.Status.SetText(text) })
}
