// Package audio owns hearing and saving sound: playback through oto v2 (one
// lazily opened context for the whole app, suspended while nothing plays)
// with play, pause, stop, seek and a playhead position, and WAV export and
// import (16- and 24-bit PCM) through go-audio/wav.
//
// It imports engine/synth for its PCM type, and must never import app/, ui/
// or storage/.
package audio
