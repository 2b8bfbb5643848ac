// Package widgets owns the reusable Fyne widgets of AMT Studio's screens:
// LineChart (named series, nice axes, legend, live appends, optional log-y),
// ResourceGraph (rolling 0–100% samples with an alert threshold),
// StageChart (busy vs waiting per pipeline stage), Histogram (labelled bins)
// and PianoRoll (a *midi.Score as coloured note rectangles with bar lines,
// drum lane, zoom, scroll and a playhead).
//
// Everything is drawn with Fyne canvas primitives (lines, rectangles, text)
// in theme colours, so light and dark themes both work. Renderers keep
// their canvas objects in pools and reuse them on every refresh, so a
// widget updated 20 times a second does not allocate new objects.
//
// Threading: like all Fyne widgets, setters must run on the UI goroutine;
// background goroutines call them inside fyne.Do. Widget data is also
// guarded by a mutex, so a renderer never sees a half-written update.
// PianoRoll.PostPlayhead may be called from any goroutine.
//
// This package may import engine/midi (the Score model) but never app/,
// storage/ or the ui screens.
package widgets
