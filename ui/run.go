package ui

import (
	"os"
	"os/signal"
	"syscall"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/amtstudio/amt/app"
)

// OpeningText is what the window shows until the data directory is open
// and the screens are filled.
const OpeningText = "Opening data…"

// Run opens the main window and blocks until it is closed. SIGINT and
// SIGTERM close it as the window's close button would. Closing pauses a
// training run (its checkpoint is written); the Training screen offers to
// resume it on the next start.
//
// AMT_SCREEN=compose|datasets|training|settings opens on that screen
// (scripts/idle-cpu.sh measures each).
//
// Nothing slow runs before the window shows: it opens with "Opening
// data…", and once the event loop runs the store is opened on another
// goroutine and the screens are built over it on the UI goroutine.
func Run() {
	a := fyneapp.NewWithID(AppID)
	a.SetIcon(Icon)
	w := newWindow(a)
	w.SetContent(container.NewCenter(widget.NewLabel(OpeningText)))

	var shell *Shell // UI goroutine only
	opened := make(chan *app.Studio, 1)
	started := false // the opener runs (set on the UI goroutine)
	a.Lifecycle().SetOnStarted(func() {
		started = true
		go func() {
			st, err := app.OpenStudio("")
			opened <- st
			fyne.Do(func() {
				if st != nil {
					if set, err := st.Settings(); err == nil && set.Theme != "" && set.Theme != "system" {
						applyTheme(a, set.Theme)
					}
				}
				shell = fillShell(a, w, st, err)
				if scr := os.Getenv("AMT_SCREEN"); scr != "" {
					if err := shell.Select(scr); err != nil {
						shell.SetStatus(err.Error())
					}
				}
			})
		}()
	})

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-sig; ok {
			fyne.Do(a.Quit)
		}
	}()
	w.ShowAndRun()
	signal.Stop(sig)
	close(sig)
	if shell != nil {
		shell.Close()
	}
	if started {
		if st := <-opened; st != nil {
			st.Close()
		}
	}
}
