package ui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/app/cli"
	"github.com/amtstudio/amt/engine/midi"
)

// userSong writes the user's music: four bars of 4/4 at 100 bpm, a
// piano melody on every beat, a bass on each bar's first beat and a drum
// hit on every beat.
func userSong(t *testing.T) string {
	t.Helper()
	s := &midi.Score{Format: 1, TicksPerBeat: 480, EndTick: 4 * 1920,
		Tempos: []midi.TempoChange{{MicrosPerBeat: 600000}}, Meters: []midi.MeterChange{{Num: 4, Den: 4}},
		Keys: []midi.KeyChange{{Sharps: 0}}}
	piano := midi.Track{Name: "piano", Program: 0}
	bass := midi.Track{Name: "bass", Channel: 1, Program: 33}
	drums := midi.Track{Name: "drums", Channel: 9, IsDrum: true}
	scale := []uint8{60, 62, 64, 65, 67, 69, 71, 72}
	for b := 0; b < 16; b++ {
		piano.Notes = append(piano.Notes, midi.Note{Tick: int64(b * 480), Dur: 440, Pitch: scale[(b*3)%8], Velocity: 90})
		drums.Notes = append(drums.Notes, midi.Note{Tick: int64(b * 480), Dur: 60, Pitch: []uint8{36, 42, 38, 42}[b%4], Velocity: 100})
	}
	for bar := 0; bar < 4; bar++ {
		bass.Notes = append(bass.Notes, midi.Note{Tick: int64(bar * 1920), Dur: 1800, Pitch: []uint8{36, 41, 43, 36}[bar], Velocity: 85})
	}
	s.Tracks = []midi.Track{piano, bass, drums}
	p := filepath.Join(t.TempDir(), "my song.mid")
	if err := app.WriteMIDI(p, s); err != nil {
		t.Fatal(err)
	}
	return p
}

// captureShell saves the window as testdata/out/name.png for a person to
// look at, with what background work posted applied first (settle).
func captureShell(t *testing.T, s *Shell, name string) {
	t.Helper()
	if err := os.MkdirAll(snapshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	s.settle()
	if err := WritePNG(filepath.Join(snapshotDir, name+".png"), s.Window.Canvas().Capture()); err != nil {
		t.Fatal(err)
	}
}

// fakePlayer stands in for the sound device (the test machine has none):
// it records each PlayOptions, reports the playhead at the positions
// given, and plays until stopped.
type fakePlayer struct {
	mu    sync.Mutex
	calls []app.PlayOptions
	at    []float64
	live  int
}

func (f *fakePlayer) play(ctx context.Context, sc *midi.Score, o app.PlayOptions, progress func(float64)) (*app.RenderResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, o)
	f.live++
	at := f.at
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.live--; f.mu.Unlock() }()
	if o.OnStart != nil {
		o.OnStart(&app.RenderResult{SoundFont: "fake"})
	}
	for _, sec := range at {
		progress(sec)
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

func (f *fakePlayer) last() (app.PlayOptions, int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return app.PlayOptions{}, 0, f.live
	}
	return f.calls[len(f.calls)-1], len(f.calls), f.live
}

// menuItem finds a pop-up menu's item by its label (and, with child, the
// item of its submenu).
func menuItem(t *testing.T, m *fyne.Menu, label, child string) *fyne.MenuItem {
	t.Helper()
	for _, it := range m.Items {
		if it.Label != label {
			continue
		}
		if child == "" {
			return it
		}
		return menuItem(t, it.ChildMenu, child, "")
	}
	t.Fatalf("menu %q has no item %q", m.Label, label)
	return nil
}

// A MIDI file dropped on the window opens on Compose with its tracks
// listed by General MIDI name; an instrument picked from the family menu
// is a change that Undo and Redo step through; mute, solo and volume
// shape what plays and exports; stems are written per audible track.
func TestComposeTracksInstrumentsMixStems(t *testing.T) {
	a := test.NewTempApp(t)
	st := tempStudio(t)
	s := testShell(t, a, st, nil)
	defer s.Close()
	s.Window.Resize(fyne.NewSize(1280, 800))
	c := s.Compose
	song := userSong(t)
	s.Tabs.SelectIndex(2)
	s.dropped([]fyne.URI{storage.NewFileURI(song)})
	if s.Tabs.SelectedIndex() != 0 || c.current == nil || c.currentName != "my song.mid" || c.roll.BarCount() != 4 {
		t.Fatalf("drop: tab %d, piece %q, %d bars", s.Tabs.SelectedIndex(), c.currentName, c.roll.BarCount())
	}
	if len(c.tracks) != 3 || c.tracks[0].instrument.Text != "Acoustic Grand Piano" || c.tracks[1].instrument.Text != "Electric Bass (finger)" ||
		c.tracks[2].instrument.Text != "Drums" || !c.tracks[2].instrument.Disabled() {
		t.Fatalf("track list: %d rows", len(c.tracks))
	}
	if c.undoB.Disabled() == false || !strings.Contains(c.title.Text, "my song.mid") {
		t.Fatalf("a fresh file: undo enabled %v, title %q", !c.undoB.Disabled(), c.title.Text)
	}

	// The instrument picker: families, each with its eight instruments.
	test.Tap(c.tracks[0].instrument)
	if c.menu == nil || len(c.menuSpec.Items) != 16 || c.menuSpec.Items[5].Label != "Strings" || len(c.menuSpec.Items[5].ChildMenu.Items) != 8 {
		t.Fatal("no family menu")
	}
	// Hovering a family opens its instruments.
	strings5 := c.menu.Menu.Items[5]
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(strings5)
	test.MoveMouse(s.Window.Canvas(), at.Add(fyne.NewDelta(20, 10)))
	captureShell(t, s, "compose_tracks_menu")
	menuItem(t, c.menuSpec, "Strings", "Violin").Action()
	c.menu.Hide()
	if c.current.Tracks[0].Program != 40 || c.tracks[0].instrument.Text != "Violin" || c.undoB.Disabled() {
		t.Fatalf("after picking Violin: program %d, row %q", c.current.Tracks[0].Program, c.tracks[0].instrument.Text)
	}
	test.Tap(c.undoB)
	if c.current.Tracks[0].Program != 0 || !c.undoB.Disabled() || c.redoB.Disabled() {
		t.Fatalf("undo: program %d", c.current.Tracks[0].Program)
	}
	test.Tap(c.redoB)
	if c.current.Tracks[0].Program != 40 || !strings.Contains(c.title.Text, "track 1: Violin") {
		t.Fatalf("redo: program %d, title %q", c.current.Tracks[0].Program, c.title.Text)
	}

	// Mute the drums, halve the bass: the export is the mix heard.
	test.Tap(c.tracks[2].mute)
	c.tracks[1].volume.SetValue(50)
	c.tracks[1].volume.OnChangeEnded(50)
	if !c.mix[2].Mute || c.mix[1].Volume != 0.5 {
		t.Fatalf("mix %+v", c.mix)
	}
	captureShell(t, s, "compose_tracks_mixed")
	out := filepath.Join(t.TempDir(), "mix.mid")
	if err := c.exportMIDITo(out); err != nil {
		t.Fatal(err)
	}
	got, err := app.ReadMIDI(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tracks) != 2 || got.Tracks[0].Program != 40 || got.Tracks[1].Notes[0].Velocity != 43 {
		t.Fatalf("exported mix: %d tracks, program %d, bass velocity %d (want 2, 40, round(85×0.5)=43)",
			len(got.Tracks), got.Tracks[0].Program, got.Tracks[1].Notes[0].Velocity)
	}
	// Solo the violin: only it sounds.
	test.Tap(c.tracks[0].solo)
	if m, _ := c.mixed(); len(m.Tracks) != 1 || m.Tracks[0].Program != 40 {
		t.Fatalf("solo: %d tracks", len(m.Tracks))
	}
	test.Tap(c.tracks[0].solo)

	// Stems: one MIDI and one WAV per audible track (the drums are muted).
	dir := t.TempDir()
	done := make(chan []string, 1)
	c.exportStemsTo(dir, func(files []string, err error) {
		if err != nil {
			t.Error(err)
		}
		done <- files
	})
	var files []string
	select {
	case files = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("stems took over two minutes")
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	want := "my song-01-violin.mid my song-01-violin.wav my song-02-electric-bass-finger.mid my song-02-electric-bass-finger.wav"
	if strings.Join(names, " ") != want {
		t.Fatalf("stems %v, want %s", names, want)
	}
	// The export menu offers the mix and the stems.
	test.Tap(c.exportB)
	if c.menu == nil || len(c.menuSpec.Items) != 3 || !strings.HasPrefix(c.menuSpec.Items[2].Label, "Stems") {
		t.Fatal("no export menu")
	}
	c.menu.Hide()
}

// Bars dragged on the ruler loop while playing, at the tempo chosen; Space
// plays and stops; the playhead follows what plays; a change of tempo or
// mix while playing goes on from where the piece is.
func TestComposeLoopTempoSpace(t *testing.T) {
	a := test.NewTempApp(t)
	st := tempStudio(t)
	s := testShell(t, a, st, nil)
	defer s.Close()
	s.Window.Resize(fyne.NewSize(1280, 800))
	c := s.Compose
	fp := &fakePlayer{at: []float64{4.1}}
	c.pb.player = fp.play
	c.openMIDIFile(userSong(t))
	if !c.loop.Disabled() || !c.regenB.Disabled() {
		t.Fatal("loop or regenerate enabled with no bars selected")
	}
	// Drag across the ruler from bar 2 into bar 3 (GLFW's event sequence).
	x2, x3 := c.roll.BarX(2), c.roll.BarX(3)
	start := fyne.NewPos(x2+5, 6)
	c.roll.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: start.Add(fyne.NewDelta(20, 0))}, Dragged: fyne.NewDelta(20, 0)})
	c.roll.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(x3+10, 7)}, Dragged: fyne.NewDelta(x3-x2-15, 1)})
	c.roll.DragEnd()
	if from, to := c.roll.Selection(); from != 2 || to != 3 || c.loop.Disabled() || c.loop.Text != "Loop bars 2–3" || c.regenB.Text != "Regenerate bars 2–3" {
		t.Fatalf("selection %d–%d, loop %q (disabled %v), regenerate %q", from, to, c.loop.Text, c.loop.Disabled(), c.regenB.Text)
	}
	test.Tap(c.loop)
	c.tempoF.SetValue(0.75)
	c.tempoF.OnChangeEnded(0.75)
	s.Window.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeySpace})
	waitFor(t, func() bool { _, n, live := fp.last(); return n == 1 && live == 1 && c.play.Text == "Stop" })
	o, _, _ := fp.last()
	if o.LoopFrom != 2 || o.LoopTo != 3 || o.Tempo != 0.75 || len(o.Mix) != 3 || o.Render.Input != "my song.mid" {
		t.Fatalf("played with %+v; want bars 2–3 at ×0.75", o)
	}
	waitFor(t, func() bool { return c.roll.Playhead() == 4.1 })
	if c.tempoL.Text != "Tempo ×0.75" {
		t.Errorf("tempo label %q", c.tempoL.Text)
	}
	captureShell(t, s, "compose_loop_playing")
	// A change while playing restarts from the playhead.
	test.Tap(c.tracks[2].mute)
	waitFor(t, func() bool { _, n, live := fp.last(); return n == 2 && live == 1 })
	if o, _, _ := fp.last(); o.Start != 4.1 || !o.Mix[2].Mute || o.LoopFrom != 2 {
		t.Fatalf("restart: %+v; want from 4.1 s with the drums muted", o)
	}
	s.Window.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeySpace})
	waitFor(t, func() bool {
		_, _, live := fp.last()
		return live == 0 && c.play.Text == "Play" && c.roll.Playhead() < 0
	})
	// Without the loop the whole piece plays from its start.
	test.Tap(c.loop)
	test.Tap(c.play)
	waitFor(t, func() bool { _, n, live := fp.last(); return n == 3 && live == 1 })
	if o, _, _ := fp.last(); o.LoopFrom != 0 || o.Start != 0 {
		t.Fatalf("no loop: %+v", o)
	}
	test.Tap(c.play)
	waitFor(t, func() bool { _, _, live := fp.last(); return live == 0 })
}

// The genre chip follows the prompt and the form choice goes with the
// request; the stored piece keeps its form, shown in its title.
func TestComposeGenreAndForm(t *testing.T) {
	a := test.NewTempApp(t)
	st := tempStudio(t)
	s := testShell(t, a, st, nil)
	defer s.Close()
	s.Window.Resize(fyne.NewSize(1280, 800))
	c := s.Compose
	test.Type(c.prompt, "upbeat rock song with drums, 8 bars")
	if c.genre.Selected != "rock" || c.form.Selected != "auto" {
		t.Fatalf("genre chip %q, form %q", c.genre.Selected, c.form.Selected)
	}
	c.form.SetSelected("AABB")
	c.genre.SetSelected("funk") // the user's edit overrides the prompt
	req, err := c.request(false)
	if err != nil {
		t.Fatal(err)
	}
	if req.Form != "AABB" || req.Attrs.Genre != "funk" || req.Attrs.Bars != 8 {
		t.Fatalf("request form %q genre %q bars %d", req.Form, req.Attrs.Genre, req.Attrs.Bars)
	}
	test.Tap(c.generate)
	waitFor(t, func() bool { return len(c.pieces) == 1 && !c.busy() })
	if p := c.pieces[0]; p.Form != "AABB" || p.Attrs.Genre != "funk" || !strings.Contains(c.title.Text, "AABB") {
		t.Fatalf("piece form %q genre %q, title %q", p.Form, p.Attrs.Genre, c.title.Text)
	}
	captureShell(t, s, "compose_genre_form")
	// Opening the piece again restores its chips and form.
	c.form.SetSelected("none")
	c.genre.SetSelected(anyChoice)
	c.openPiece(c.pieces[0])
	if c.form.Selected != "AABB" || c.genre.Selected != "funk" {
		t.Errorf("reopened: form %q genre %q", c.form.Selected, c.genre.Selected)
	}
}

// "Generate 4" samples four pieces for one request and stores none; one
// auditioned and kept enters the history with its request and seed.
func TestComposeVariationsKeep(t *testing.T) {
	a := test.NewTempApp(t)
	st := tempStudio(t)
	s := testShell(t, a, st, nil)
	defer s.Close()
	s.Window.Resize(fyne.NewSize(1280, 800))
	c := s.Compose
	fp := &fakePlayer{}
	c.pb.player = fp.play
	test.Type(c.prompt, "gentle piano waltz, 4 bars")
	c.seed.SetText("70")
	c.form.SetSelected("none")
	test.Tap(c.gen4)
	waitFor(t, func() bool {
		return !c.busy() && c.variations.box.Visible() && len(c.variations.list) == 4 && c.variations.list[3] != nil
	})
	if len(c.pieces) != 0 {
		t.Fatalf("%d pieces stored before keeping", len(c.pieces))
	}
	for i, vc := range c.variations.cards {
		if vc.roll.BarCount() == 0 || !strings.HasPrefix(vc.label.Text, fmt.Sprintf("Seed %d · ", 70+i)) || vc.keep.Disabled() {
			t.Fatalf("card %d: %d bars, label %q", i, vc.roll.BarCount(), vc.label.Text)
		}
	}
	captureShell(t, s, "compose_variations")
	test.Tap(c.variations.cards[2].play)
	waitFor(t, func() bool { _, n, live := fp.last(); return n == 1 && live == 1 })
	if c.current != c.variations.list[2].Result.Score || !strings.Contains(c.title.Text, "seed 72 (not kept)") {
		t.Fatalf("audition: title %q", c.title.Text)
	}
	test.Tap(c.variations.cards[2].keep)
	if len(c.pieces) != 1 || c.pieces[0].Seed != 72 || c.pieces[0].Prompt != "gentle piano waltz, 4 bars" || !c.variations.cards[2].keep.Disabled() ||
		!strings.HasPrefix(c.variations.cards[2].keep.Text, "Kept #") {
		t.Fatalf("after keep: %d pieces, keep button %q", len(c.pieces), c.variations.cards[2].keep.Text)
	}
	if !strings.HasPrefix(c.title.Text, "#") || !strings.Contains(c.title.Text, "seed 72") {
		t.Errorf("kept piece title %q", c.title.Text)
	}
	// The kept piece is the one Generate makes with seed 72.
	c.seed.SetText("72")
	test.Tap(c.generate)
	waitFor(t, func() bool { return len(c.pieces) == 2 && !c.busy() })
	k, g := c.pieces[1], c.pieces[0]
	kb, err1 := os.ReadFile(k.Abs)
	gb, err2 := os.ReadFile(g.Abs)
	if err1 != nil || err2 != nil || !bytes.Equal(kb, gb) {
		t.Fatalf("kept variation differs from Generate with its seed (%v, %v)", err1, err2)
	}
	test.Tap(c.play)
	test.Tap(c.play)
	waitFor(t, func() bool { _, _, live := fp.last(); return live == 0 })
}

// Continue extends the user's file with the engine's continuation, stored
// as a piece, byte for byte what `amt generate --continue` writes; bars
// selected on the ruler are regenerated with the rest kept; Undo and Redo
// step through both changes; the joined piece exports.
func TestComposeContinueRegenerateUndo(t *testing.T) {
	a := test.NewTempApp(t)
	st := tempStudio(t)
	s := testShell(t, a, st, nil)
	defer s.Close()
	s.Window.Resize(fyne.NewSize(1280, 800))
	c := s.Compose
	song := userSong(t)
	c.openMIDIFile(song)
	orig := c.current
	c.seed.SetText("5")
	c.contBars.SetText("2")
	test.Tap(c.contB)
	waitFor(t, func() bool { return !c.busy() && len(c.pieces) == 1 })
	if c.roll.BarCount() != 6 {
		t.Fatalf("continued piece has %d bars, want 6", c.roll.BarCount())
	}
	if from, to := c.roll.Selection(); from != 5 || to != 6 {
		t.Errorf("new bars not selected: %d–%d", from, to)
	}
	continued := c.current
	for i, tr := range orig.Tracks {
		for k, n := range tr.Notes {
			if m := continued.Tracks[i].Notes[k]; m.Tick != n.Tick || m.Pitch != n.Pitch || m.Dur != n.Dur {
				t.Fatalf("track %d note %d changed by the continuation", i, k)
			}
		}
	}
	captureShell(t, s, "compose_continued")
	gui, err := os.ReadFile(c.pieces[0].Abs)
	if err != nil {
		t.Fatal(err)
	}
	cliOut := filepath.Join(t.TempDir(), "cli.mid")
	var so, se bytes.Buffer
	if code := cli.Main(context.Background(), &cli.Env{Stdout: &so, Stderr: &se}, []string{"generate", "--continue", song, "--bars", "2", "--seed", "5", "-o", cliOut}); code != 0 {
		t.Fatalf("amt generate --continue: exit %d: %s", code, se.String())
	}
	if cli, err := os.ReadFile(cliOut); err != nil || !bytes.Equal(gui, cli) {
		t.Fatalf("the window's continuation (%d bytes) differs from amt generate --continue's (%d bytes, %v)", len(gui), len(cli), err)
	}

	// Regenerate bars 3–4: notes starting there change, the rest stay.
	c.roll.SetSelection(3, 4)
	c.selectionChanged()
	if c.regenB.Disabled() || c.regenB.Text != "Regenerate bars 3–4" {
		t.Fatalf("regenerate button %q disabled %v", c.regenB.Text, c.regenB.Disabled())
	}
	test.Tap(c.regenB)
	waitFor(t, func() bool { return !c.busy() && len(c.pieces) == 2 })
	regen := c.current
	bars := app.BarStarts(continued)
	outside := func(sc *midi.Score) (n int) {
		for _, tr := range sc.Tracks {
			for _, nt := range tr.Notes {
				if nt.Tick < bars[2] || nt.Tick >= bars[4] {
					n++
				}
			}
		}
		return n
	}
	if regen == continued || outside(regen) != outside(continued) {
		t.Fatalf("regeneration: %d notes outside bars 3–4, want %d as before", outside(regen), outside(continued))
	}
	if from, to := c.roll.Selection(); from != 3 || to != 4 || !strings.Contains(c.title.Text, "regenerate bars 3-4 of 000001.mid") {
		t.Errorf("after regenerating: selection %d–%d, title %q", from, to, c.title.Text)
	}
	captureShell(t, s, "compose_regenerated")

	// Undo twice: back to the continuation, then to the file as opened.
	test.Tap(c.undoB)
	if c.current != continued {
		t.Fatal("undo did not return to the continuation")
	}
	test.Tap(c.undoB)
	if c.current != orig || !c.undoB.Disabled() || c.roll.BarCount() != 4 {
		t.Fatalf("second undo: %d bars", c.roll.BarCount())
	}
	test.Tap(c.redoB)
	test.Tap(c.redoB)
	if c.current != regen || !c.redoB.Disabled() {
		t.Fatal("redo did not return to the regenerated piece")
	}
	// The joined piece exports whole.
	out := filepath.Join(t.TempDir(), "joined.mid")
	if err := c.exportMIDITo(out); err != nil {
		t.Fatal(err)
	}
	if got, err := app.ReadMIDI(out); err != nil || len(app.BarStarts(got)) != 7 || got.NoteCount() != regen.NoteCount() {
		t.Fatalf("exported joined piece: %v", err)
	}
	// Continue needs a count of bars it can make.
	c.contBars.SetText("0")
	test.Tap(c.contB)
	waitFor(t, func() bool { return strings.Contains(s.Status.Text, "Cannot continue: bars \"0\"") })
}
