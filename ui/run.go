package ui

import (
	"os"
	"os/signal"
	"syscall"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/amtstudio/amt/app"
)

// Run opens the main window and blocks until it is closed. SIGINT and
// SIGTERM close it as the window's close button would. Closing pauses a
// training run (its checkpoint is written); the Training screen offers to
// resume it on the next start.
func Run() {
	a := fyneapp.NewWithID(AppID)
	a.SetIcon(Icon)
	st, err := app.OpenStudio("")
	s := NewShell(a, st, err)
	if st != nil {
		if set, err := st.Settings(); err == nil {
			applyTheme(a, set.Theme)
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-sig; ok {
			fyne.Do(a.Quit)
		}
	}()
	s.Window.ShowAndRun()
	signal.Stop(sig)
	close(sig)
	s.Close()
	if st != nil {
		st.Close()
	}
}
