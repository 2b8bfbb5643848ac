package ui

import (
	"errors"
	"fmt"
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

// CheckDisplay reports why the window cannot open here: on Linux and the
// BSDs the window needs an X11 or Wayland session, and without one GLFW
// panics deep inside Fyne instead of saying so. getenv is os.Getenv (a
// parameter for tests).
func CheckDisplay(goos string, getenv func(string) string) error {
	switch goos {
	case "darwin", "windows", "android", "ios", "js":
		return nil
	}
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no display: DISPLAY and WAYLAND_DISPLAY are unset, so the window cannot open here; " +
			"run amt in a desktop session (or under xvfb-run), or use the command line: amt help")
	}
	return nil
}

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
				shell = fillShell(a, w, st, err, false)
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
		if s, ok := <-sig; ok {
			app.Stop(fmt.Errorf("stopped by %v", s)) // every job's work sees it at once
			fyne.Do(a.Quit)
		}
	}()
	w.ShowAndRun()
	signal.Stop(sig)
	close(sig)
	// Closing stops the jobs as Cancel does (each screen cancels its job
	// and waits for it); what has not stopped after app.CloseGrace is
	// abandoned, its temporary files removed, and the store is left to
	// the process's exit (bbolt keeps what was committed).
	stopped := app.FinishWithin(app.CloseGrace, func() {
		if shell != nil {
			shell.Close()
		}
	})
	if started && stopped {
		if st := <-opened; st != nil {
			st.Close()
		}
	}
}
