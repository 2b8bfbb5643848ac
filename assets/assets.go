// Package assets holds what is embedded in the binary: the application icon
// and (later) the default model with its vocabulary and card.
//
// It imports nothing of the project: ui/ turns these bytes into Fyne
// resources, app/ loads the model.
package assets

import _ "embed"

// IconPNG is the 512×512 application icon (drawn by scripts/mkicon).
//
//go:embed icon.png
var IconPNG []byte
