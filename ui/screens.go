package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// placeholder is the body of a screen that is still to be built: its title
// and what it will hold.
func placeholder(title, what string) fyne.CanvasObject {
	h := widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	body := widget.NewLabel(what)
	body.Wrapping = fyne.TextWrapWord
	return container.NewPadded(container.NewVBox(h, body))
}

func newComposeScreen() fyne.CanvasObject {
	return placeholder("Compose", "Type a prompt such as \"calm piano waltz in D minor, 90 bpm, 32 bars\", generate, listen, export.")
}

func newDatasetsScreen() fyne.CanvasObject {
	return placeholder("Datasets", "Import a folder of MIDI files into a project and see how the ingestion went.")
}

func newTrainingScreen() fyne.CanvasObject {
	return placeholder("Training", "Train the music model on your own dataset and watch it learn.")
}

func newSettingsScreen() fyne.CanvasObject {
	return placeholder("Settings", "SoundFont, audio output, data directory, workers and theme.")
}
