// Package audio owns hearing and saving sound: playback through oto v2 (one
// lazily opened context for the whole app, suspended while nothing plays)
// with play, pause, stop, seek and a playhead position, and WAV export and
// import (16-, 24- and 32-bit integer PCM; OpenWAV reads block by block
// and checks the header's fields and the data's length against the file
// before anything is allocated). Reading is the package's own, as writing
// always was: go-audio/wav's decoder (ARCHITECTURE's choice) reads whatever
// bytes are there, so a file cut in half passed as half as long and a
// header claiming a rate of 0 or 65,535 channels was accepted (issue 37);
// checking those needs the header's fields before the decoder sees them.
//
// It imports engine/synth for its PCM type, and must never import app/, ui/
// or storage/.
package audio
