package ui

import fyneapp "fyne.io/fyne/v2/app"

// Run opens the main window and blocks until it is closed.
func Run() {
	useReadableLocale()
	a := fyneapp.NewWithID(AppID)
	a.SetIcon(Icon)
	NewShell(a).Window.ShowAndRun()
}
