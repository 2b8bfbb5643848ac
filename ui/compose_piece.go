package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/midi"
)

// The piece worked on in Compose: its tracks (instrument, mute, solo,
// volume), playback (loop of the selected bars, tempo), exports, and the
// changes made to it (open a MIDI file, continue, regenerate bars, undo,
// redo).

// trackRow is one track in the track list.
type trackRow struct {
	box        fyne.CanvasObject
	swatch     *canvas.Rectangle
	instrument *widget.Button
	mute, solo *widget.Check
	volume     *widget.Slider
}

// syncTracks rebuilds the track list for the current score, keeping the
// mix when the tracks are the same count (a continuation, an undo).
func (c *composeScreen) syncTracks() {
	n := 0
	if c.current != nil {
		n = len(c.current.Tracks)
	}
	if len(c.mix) != n {
		c.mix = app.DefaultMix(c.current)
	}
	c.tracks = c.tracks[:0]
	var objs []fyne.CanvasObject
	for i := 0; i < n; i++ {
		r := c.newTrackRow(i)
		c.tracks = append(c.tracks, r)
		objs = append(objs, r.box)
	}
	if n == 0 {
		objs = append(objs, widget.NewLabel("No piece"))
	}
	c.tracksBox.Objects = objs
	c.tracksBox.Refresh()
}

func (c *composeScreen) newTrackRow(i int) *trackRow {
	t := c.current.Tracks[i]
	r := &trackRow{}
	r.swatch = canvas.NewRectangle(c.roll.TrackColor(i))
	r.swatch.SetMinSize(fyne.NewSize(10, 10))
	r.swatch.CornerRadius = 2
	label := app.TrackLabel(c.current, i)
	if t.IsDrum {
		r.instrument = widget.NewButton(label, nil)
		r.instrument.Disable()
	} else {
		r.instrument = widget.NewButtonWithIcon(label, theme.MenuDropDownIcon(), nil)
		r.instrument.IconPlacement = widget.ButtonIconTrailingText
		r.instrument.OnTapped = func() { c.showInstrumentMenu(r.instrument, func(p int) { c.setInstrument(i, p) }) }
	}
	r.instrument.Alignment = widget.ButtonAlignLeading
	m := c.mix[i]
	r.mute = widget.NewCheck("Mute", nil)
	r.mute.SetChecked(m.Mute)
	r.mute.OnChanged = func(on bool) { c.mix[i].Mute = on; c.restartPlayback() }
	r.solo = widget.NewCheck("Solo", nil)
	r.solo.SetChecked(m.Solo)
	r.solo.OnChanged = func(on bool) { c.mix[i].Solo = on; c.restartPlayback() }
	r.volume = widget.NewSlider(0, app.MaxTrackVolume*100)
	r.volume.Step = 5
	r.volume.SetValue(m.Volume * 100)
	r.volume.OnChangeEnded = func(v float64) { c.mix[i].Volume = v / 100; c.restartPlayback() }
	name := widget.NewLabel(fmt.Sprintf("%d", i+1))
	head := container.NewBorder(nil, nil, container.NewHBox(name, container.NewCenter(r.swatch)), nil, r.instrument)
	controls := container.NewBorder(nil, nil, container.NewHBox(r.mute, r.solo), nil, r.volume)
	r.box = container.NewVBox(head, controls, widget.NewSeparator())
	return r
}

// instrumentMenu is the General MIDI instruments grouped by family: a
// submenu of eight names per family.
func instrumentMenu(pick func(program int)) *fyne.Menu {
	fams := midi.GMFamilies()
	items := make([]*fyne.MenuItem, len(fams))
	for f, fam := range fams {
		sub := make([]*fyne.MenuItem, 8)
		for k := range sub {
			p := f*8 + k
			sub[k] = fyne.NewMenuItem(midi.ProgramName(p), func() { pick(p) })
		}
		items[f] = fyne.NewMenuItem(fam, nil)
		items[f].ChildMenu = fyne.NewMenu("", sub...)
	}
	return fyne.NewMenu("Instruments", items...)
}

// showInstrumentMenu pops the instrument picker up under b.
func (c *composeScreen) showInstrumentMenu(b fyne.CanvasObject, pick func(program int)) {
	c.popUpMenu(instrumentMenu(pick), b)
}

// popUpMenu shows menu under the object o.
func (c *composeScreen) popUpMenu(menu *fyne.Menu, o fyne.CanvasObject) {
	cv := c.e.win.Canvas()
	m := widget.NewPopUpMenu(menu, cv)
	m.ShowAtRelativePosition(fyne.NewPos(0, o.Size().Height), o)
	c.menu, c.menuSpec = m, menu
}

// setInstrument gives track i another instrument: a new version of the
// piece (undoable), played and exported with it.
func (c *composeScreen) setInstrument(i, program int) {
	v, ok := c.edits.Current()
	if !ok {
		return
	}
	sc, err := app.SetProgram(v.Score, i, program)
	if err != nil {
		c.e.setStatus(err.Error())
		return
	}
	base := versionTitle(v)
	if v.Piece.ID != 0 {
		base = fmt.Sprintf("#%d", v.Piece.ID)
	}
	base, _, _ = strings.Cut(base, "  ·  track ")
	c.edits.Do(app.PieceVersion{Score: sc, Name: v.Name,
		What: fmt.Sprintf("%s  ·  track %d: %s (not stored)", base, i+1, midi.ProgramName(program))})
	playing := c.pb.playing()
	pos := c.pb.position()
	c.showVersion(nil, nil)
	if playing {
		c.startPlaybackAt(pos)
	}
	c.e.setStatus(fmt.Sprintf("Track %d now plays %s", i+1, midi.ProgramName(program)))
}

// selectionChanged follows the bars selected on the roll: the loop and
// the Regenerate button name them.
func (c *composeScreen) selectionChanged() {
	from, to := c.roll.Selection()
	if from > 0 {
		c.loop.Text = "Loop " + barsText(from, to)
		c.regenB.SetText("Regenerate " + barsText(from, to))
	} else {
		c.loop.Text = "Loop (select bars)"
		c.regenB.SetText("Regenerate bars")
	}
	c.loop.Refresh()
	c.playRow.Refresh() // the texts' widths changed
	c.editRow.Refresh()
	c.updateEditButtons()
	if c.loop.Checked {
		c.restartPlayback()
	}
}

func barsText(from, to int) string {
	if from == to {
		return fmt.Sprintf("bar %d", from)
	}
	return fmt.Sprintf("bars %d–%d", from, to)
}

// updateEditButtons enables what the current piece and job allow.
func (c *composeScreen) updateEditButtons() {
	busy := c.busy()
	has := c.current != nil
	from, _ := c.roll.Selection()
	set := func(b *widget.Button, on bool) {
		if on {
			b.Enable()
		} else {
			b.Disable()
		}
	}
	set(c.contB, has && !busy)
	set(c.regenB, has && !busy && from > 0)
	set(c.undoB, !busy && c.edits.CanUndo())
	set(c.redoB, !busy && c.edits.CanRedo())
	set(c.exportB, has)
	set(c.play, has)
	if has && from > 0 {
		c.loop.Enable()
	} else {
		c.loop.Disable()
	}
}

// playOptions are the screen's playback settings, from start seconds.
func (c *composeScreen) playOptions(start float64) app.PlayOptions {
	o := app.PlayOptions{Mix: c.mix, Tempo: c.tempoF.Value, Start: start}
	if from, to := c.roll.Selection(); c.loop.Checked && from > 0 {
		o.LoopFrom, o.LoopTo = from, to
	}
	return o
}

func (c *composeScreen) togglePlay() {
	if c.pb.playing() {
		c.pb.stop()
		return
	}
	c.startPlayback()
}

// startPlayback plays the current piece from its start (or its loop's).
func (c *composeScreen) startPlayback() { c.startPlaybackAt(0) }

func (c *composeScreen) startPlaybackAt(sec float64) {
	if c.current == nil {
		return
	}
	c.pb.playWith(c.current, c.currentName, c.roll, c.playOptions(sec))
}

// restartPlayback applies changed settings (mix, loop, tempo) to a piece
// that plays, from where it is.
func (c *composeScreen) restartPlayback() {
	if c.pb.playing() {
		c.startPlaybackAt(c.pb.position())
	}
}

// exportName is the current piece's file name without extension.
func (c *composeScreen) exportName() string {
	n := strings.TrimSuffix(c.currentName, filepath.Ext(c.currentName))
	if n == "" {
		n = "piece"
	}
	return n
}

func (c *composeScreen) showExportMenu() {
	if c.current == nil {
		c.e.setStatus("Nothing to export yet")
		return
	}
	c.popUpMenu(fyne.NewMenu("Export",
		fyne.NewMenuItem("MIDI (all tracks, as mixed)…", c.exportMIDI),
		fyne.NewMenuItem("WAV (all tracks, as mixed)…", c.exportWAV),
		fyne.NewMenuItem("Stems (a MIDI and a WAV per track)…", c.exportStems),
	), c.exportB)
}

// mixed is the current piece as the track list makes it sound.
func (c *composeScreen) mixed() (*midi.Score, error) { return app.MixScore(c.current, c.mix) }

func (c *composeScreen) exportMIDI() {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if w == nil {
			return
		}
		path := w.URI().Path()
		w.Close()
		c.exportMIDITo(path)
	}, c.e.win)
	d.SetFileName(c.exportName() + ".mid")
	d.SetFilter(midiFileFilter)
	d.Show()
}

// exportMIDITo writes the mixed piece to path.
func (c *composeScreen) exportMIDITo(path string) error {
	sc, err := c.mixed()
	if err == nil {
		err = app.WriteMIDI(path, sc)
	}
	if err != nil {
		c.e.setStatus("Export failed: " + err.Error())
		return err
	}
	c.e.setStatus("Exported " + path)
	return nil
}

func (c *composeScreen) exportWAV() {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if w == nil {
			return
		}
		path := w.URI().Path()
		w.Close()
		c.exportWAVTo(path, nil)
	}, c.e.win)
	d.SetFileName(c.exportName() + ".wav")
	d.Show()
}

// exportWAVTo renders the mixed piece to path in the background; done
// (may be nil) hears the result.
func (c *composeScreen) exportWAVTo(path string, done func(error)) {
	sc, err := c.mixed()
	if err != nil {
		c.e.setStatus("Export failed: " + err.Error())
		if done != nil {
			done(err)
		}
		return
	}
	name, sf := c.currentName, c.soundFont()
	c.e.setStatus("Rendering " + path + "…")
	go func() {
		res, err := app.RenderScore(context.Background(), sc, app.RenderOptions{Input: name, Output: path, SoundFont: sf})
		if err != nil {
			c.e.setStatus("Export failed: " + err.Error())
		} else {
			c.e.setStatus(fmt.Sprintf("Exported %s (%.1f s of audio, %s)", path, res.AudioSeconds, res.SoundFont))
		}
		if done != nil {
			done(err)
		}
	}()
}

func (c *composeScreen) exportStems() {
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if u != nil {
			c.exportStemsTo(u.Path(), nil)
		}
	}, c.e.win)
	d.Show()
}

// exportStemsTo writes each audible track alone (MIDI and WAV) into dir
// in the background; done (may be nil) hears the files.
func (c *composeScreen) exportStemsTo(dir string, done func([]string, error)) {
	sc, mix, base, sf := c.current, append([]app.TrackMix(nil), c.mix...), c.exportName(), c.soundFont()
	c.e.setStatus("Writing stems into " + dir + "…")
	go func() {
		files, err := app.ExportStems(context.Background(), sc, dir, base, app.StemOptions{Mix: mix, WAV: true, Render: app.RenderOptions{SoundFont: sf}})
		if err != nil {
			c.e.setStatus("Stems: " + err.Error())
		} else {
			c.e.setStatus(fmt.Sprintf("Exported %d stem files into %s", len(files), dir))
		}
		if done != nil {
			done(files, err)
		}
	}()
}

// chooseMIDI asks for a MIDI file to open.
func (c *composeScreen) chooseMIDI() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if r == nil {
			return
		}
		path := r.URI().Path()
		r.Close()
		c.openMIDIFile(path)
	}, c.e.win)
	d.SetFilter(midiFileFilter)
	d.Show()
}

// isMIDIFile reports whether path names a MIDI file (by extension).
func isMIDIFile(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".mid" || ext == ".midi"
}

// openMIDIFile opens the user's MIDI file as a new piece to work on
// (continue it, regenerate its bars); it is not stored until changed.
func (c *composeScreen) openMIDIFile(path string) {
	sc, err := app.ReadMIDI(path) // as it is: `amt generate --continue` reads it so
	if err != nil {
		c.e.setStatus("Cannot open: " + err.Error())
		return
	}
	name := filepath.Base(path)
	c.history.UnselectAll()
	c.edits.Reset(app.PieceVersion{Score: sc, Name: name, What: name + " (opened)"})
	c.showVersion(nil, nil)
	c.e.setStatus(fmt.Sprintf("Opened %s: %d tracks, %d bars, %d notes; Continue and Regenerate store what they make in the history",
		name, len(sc.Tracks), c.roll.BarCount(), sc.NoteCount()))
}

// editRequest is the request of Continue and Regenerate for the current
// piece (newSeed: draw a new seed first).
func (c *composeScreen) editRequest(newSeed bool) (app.ContinueRequest, error) {
	ss, err := c.sampleSettings(newSeed)
	if err != nil {
		return app.ContinueRequest{}, err
	}
	return app.ContinueRequest{Project: c.e.project, ModelDir: c.modelDirs[c.model.Selected], Score: c.current,
		Source: c.currentName, SampleSettings: ss}, nil
}

// startContinue extends the current piece by the Continue field's bars.
func (c *composeScreen) startContinue() {
	if c.current == nil || c.busy() {
		return
	}
	n, err := strconv.Atoi(strings.TrimSpace(c.contBars.Text))
	if err != nil || n < 1 || n > app.MaxContinueBars {
		c.e.setStatus(fmt.Sprintf("Cannot continue: bars %q: give 1–%d", c.contBars.Text, app.MaxContinueBars))
		return
	}
	req, err := c.editRequest(false)
	if err != nil {
		c.e.setStatus("Cannot continue: " + err.Error())
		return
	}
	req.Bars = n
	before := c.roll.BarCount()
	var res *app.ComposeResult
	c.runJob("Continuing", func(ctx context.Context, progress func(int, int)) error {
		req.Progress = progress
		var err error
		res, err = c.e.studio.Continue(ctx, req)
		return err
	}, func(err error) {
		if err != nil {
			return
		}
		c.edits.Do(versionOf(res, "")) // the stored piece's prompt says what it is
		c.refreshHistory()
		c.showVersion(res.Metrics, res.Adherence)
		if after := c.roll.BarCount(); after > before {
			c.roll.SetSelection(before+1, after) // the new bars, ready to loop or regenerate
			c.selectionChanged()
		}
		c.e.status.SetText(fmt.Sprintf("Continued by %d bars: piece %d, %d notes", n, res.Piece.ID, res.Score.NoteCount()))
	})
}

// startRegenerateBars re-samples the selected bars (a new seed each time).
func (c *composeScreen) startRegenerateBars() {
	from, to := c.roll.Selection()
	if c.current == nil || from == 0 || c.busy() {
		return
	}
	req, err := c.editRequest(true)
	if err != nil {
		c.e.setStatus("Cannot regenerate: " + err.Error())
		return
	}
	req.From, req.To = from, to
	var res *app.ComposeResult
	c.runJob("Regenerating "+barsText(from, to), func(ctx context.Context, progress func(int, int)) error {
		req.Progress = progress
		var err error
		res, err = c.e.studio.Regenerate(ctx, req)
		return err
	}, func(err error) {
		if err != nil {
			return
		}
		c.edits.Do(versionOf(res, ""))
		c.refreshHistory()
		c.showVersion(res.Metrics, res.Adherence)
		c.roll.SetSelection(from, to)
		c.selectionChanged()
		c.e.status.SetText(fmt.Sprintf("Regenerated %s: piece %d", barsText(from, to), res.Piece.ID))
	})
}

// undo and redo step through the changes to the piece.
func (c *composeScreen) undo() {
	if c.busy() {
		return
	}
	if _, ok := c.edits.Undo(); ok {
		c.showVersion(nil, nil)
		c.e.setStatus("Undone: back to " + c.title.Text)
	}
}

func (c *composeScreen) redo() {
	if c.busy() {
		return
	}
	if _, ok := c.edits.Redo(); ok {
		c.showVersion(nil, nil)
		c.e.setStatus("Redone: " + c.title.Text)
	}
}
