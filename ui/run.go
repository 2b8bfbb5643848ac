package ui

import (
	"os"
	"os/signal"
	"syscall"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
)

// Run opens the main window and blocks until it is closed. SIGINT and
// SIGTERM close it as the window's close button would.
func Run() {
	a := fyneapp.NewWithID(AppID)
	a.SetIcon(Icon)
	s := NewShell(a)
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
}
