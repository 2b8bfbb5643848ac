package widgets

import (
	"image"
	"math"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/midi"
)

const tpb = 480

// oneNote is four bars of 4/4 at 120 bpm with a piano C4 (pitch 60) on
// the first beat of bar 1, one beat long.
func oneNote() *midi.Score {
	return &midi.Score{
		TicksPerBeat: tpb,
		Tracks:       []midi.Track{{Name: "piano", Program: 0, Notes: []midi.Note{{Tick: 0, Dur: tpb, Pitch: 60, Velocity: 127}}}},
		Tempos:       []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}},
		Meters:       []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}},
		EndTick:      4 * 4 * tpb,
	}
}

func findRect(objs []*canvas.Rectangle, x, y, w, h float32) bool {
	for _, r := range objs {
		p, s := r.Position(), r.Size()
		if math.Abs(float64(p.X-x)) < 0.6 && math.Abs(float64(p.Y-y)) < 1.1 && math.Abs(float64(s.Width-w)) < 0.6 && math.Abs(float64(s.Height-h)) < 1.1 {
			return true
		}
	}
	return false
}

func TestPianoRollOneNote(t *testing.T) {
	for _, th := range themes {
		t.Run(th.name, func(t *testing.T) {
			newApp(t, th.v)
			pr := NewPianoRoll(oneNote())
			win := show(t, pr, 400, 200)
			img := capture(t, win, "pianoroll_one_"+th.name)

			// Hand-computed from the documented geometry: 16 beats fitted
			// into 400−36 units; pitch 60 used → rows 58..62 widened to 24
			// rows: 49..72, so C4 is 12 rows below the header.
			zoom := float32(400-PianoKeyWidth) / 16
			rowH := float32(200-PianoHeaderHeight) / 24
			x, y := float32(PianoKeyWidth), float32(PianoHeaderHeight)+12*rowH
			if got := pr.Zoom(); math.Abs(float64(got-zoom)) > 1e-3 {
				t.Fatalf("zoom = %v, want %v", got, zoom)
			}
			r := rendererOf(pr).(*pianoRenderer)
			if !findRect(r.notes.active(), x, y+0.5, zoom, rowH-1) {
				for _, n := range r.notes.active() {
					t.Logf("note rect at %v size %v", n.Position(), n.Size())
				}
				t.Fatalf("no note rectangle at (%v,%v) size %vx%v", x, y, zoom, rowH)
			}
			// The capture has the piano colour in the middle of that rectangle.
			want := FamilyColor(0, paletteFor(pr).dark)
			cx, cy := int(x+zoom/2), int(y+rowH/2)
			if !near(img.At(cx, cy), want, 12) {
				t.Errorf("pixel at note centre (%d,%d) = %v, want %v", cx, cy, img.At(cx, cy), want)
			}
			// Four bars → four bar lines, at beats 0, 4, 8, 12.
			if pr.BarCount() != 4 || r.barLines != 4 {
				t.Errorf("bars %d, bar lines %d, want 4", pr.BarCount(), r.barLines)
			}
			bar2 := x + 4*zoom
			found := false
			for _, l := range r.vlines.active() {
				found = found || math.Abs(float64(l.Position1.X-bar2)) < 0.01
			}
			if !found {
				t.Errorf("no bar line at x=%v", bar2)
			}
		})
	}
}

func TestBarTicksFollowMeterMap(t *testing.T) {
	s := oneNote()
	// Two bars of 3/4, then 6/8 (3 beats a bar) from tick 1440*2.
	s.Meters = []midi.MeterChange{{Tick: 0, Num: 3, Den: 4}, {Tick: 2 * 3 * tpb, Num: 6, Den: 8}}
	s.EndTick = 2*3*tpb + 2*3*tpb + 10
	got, end := barTicks(nil, s)
	want := []int64{0, 1440, 2880, 4320, 5760}
	if end != 7200 {
		t.Errorf("end of the last bar %d, want 7200", end)
	}
	if len(got) != len(want) {
		t.Fatalf("bars %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("bars %v, want %v", got, want)
		}
	}
	// No meter at all: 4/4.
	s.Meters = nil
	s.EndTick = 3 * 4 * tpb
	if got, _ := barTicks(nil, s); len(got) != 3 || got[1] != 1920 {
		t.Errorf("default meter bars %v", got)
	}
}

func TestPianoRollDrumLane(t *testing.T) {
	newApp(t, themes[1].v)
	s := oneNote()
	s.Tracks = append(s.Tracks, midi.Track{Name: "drums", Channel: 9, IsDrum: true, Notes: []midi.Note{
		{Tick: 0, Dur: 60, Pitch: 36, Velocity: 100}, {Tick: tpb, Dur: 60, Pitch: 38, Velocity: 100}, {Tick: 2 * tpb, Dur: 60, Pitch: 42, Velocity: 100},
	}})
	s.Tracks = append(s.Tracks, midi.Track{Name: "strings", Program: 48, Notes: []midi.Note{{Tick: 4 * tpb, Dur: 8 * tpb, Pitch: 67, Velocity: 64}}})
	pr := NewPianoRoll(s)
	win := show(t, pr, 400, 240)
	capture(t, win, "pianoroll_drums")
	lane := float32(PianoHeaderHeight) + (240-PianoHeaderHeight)*(1-PianoDrumFraction)
	r := rendererOf(pr).(*pianoRenderer)
	var drums, pitched int
	for _, n := range r.notes.active() {
		if n.Position().Y >= lane-1 {
			drums++
		} else {
			pitched++
		}
	}
	if drums != 3 || pitched != 2 {
		t.Errorf("drum-lane notes %d (want 3), pitched %d (want 2)", drums, pitched)
	}
	if near(pr.TrackColor(0), pr.TrackColor(2), 20) {
		t.Error("piano and strings share a colour")
	}
}

func TestPianoRollZoomScrollDrag(t *testing.T) {
	newApp(t, themes[0].v)
	s := oneNote()
	s.Tracks[0].Notes = append(s.Tracks[0].Notes, midi.Note{Tick: 3 * tpb, Dur: tpb, Pitch: 64, Velocity: 90})
	pr := NewPianoRoll(s)
	win := show(t, pr, 400, 200)
	pr.SetZoom(100)
	pr.SetOffset(2)
	capture(t, win, "pianoroll_zoomed")
	r := rendererOf(pr).(*pianoRenderer)
	// Note at beat 3 is one beat right of the left edge; beat-0 note hidden.
	var xs []float32
	for _, n := range r.notes.active() {
		xs = append(xs, n.Position().X)
	}
	if len(xs) != 1 || math.Abs(float64(xs[0]-(PianoKeyWidth+100))) > 0.01 {
		t.Errorf("visible notes at %v, want one at %v", xs, PianoKeyWidth+100)
	}
	// Offset clamps to the end: 16 beats, 3.64 visible.
	pr.SetOffset(100)
	if got, want := pr.Offset(), 16-float64(400-PianoKeyWidth)/100; math.Abs(got-want) > 1e-6 {
		t.Errorf("offset clamped to %v, want %v", got, want)
	}
	pr.SetOffset(4)
	// Wheel down (negative DY) scrolls right by DY/zoom beats.
	test.Scroll(win.Canvas(), fyne.NewPos(200, 100), 0, -50)
	if got := pr.Offset(); math.Abs(got-4.5) > 1e-6 {
		t.Errorf("after scroll offset = %v, want 4.5", got)
	}
	// Dragging right by 100 units moves back one beat.
	pr.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: 100}})
	if got := pr.Offset(); math.Abs(got-3.5) > 1e-6 {
		t.Errorf("after drag offset = %v, want 3.5", got)
	}
	pr.SetZoom(0) // back to fit
	if got := pr.Zoom(); math.Abs(float64(got)-float64(400-PianoKeyWidth)/16) > 1e-3 {
		t.Errorf("fit zoom = %v", got)
	}
}

func TestPianoRollPlayheadFromGoroutine(t *testing.T) {
	newApp(t, themes[1].v)
	s := oneNote()
	// 120 bpm for 2 beats, then 60 bpm: 1 s = beat 2, 2 s = beat 3.
	s.Tempos = append(s.Tempos, midi.TempoChange{Tick: 2 * tpb, MicrosPerBeat: 1000000})
	pr := NewPianoRoll(s)
	win := show(t, pr, 400, 200)
	pr.SetFollow(false)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i <= 20; i++ {
			pr.PostPlayhead(float64(i) / 10)
			time.Sleep(time.Millisecond)
		}
	}()
	<-done
	deadline := time.Now().Add(5 * time.Second)
	for {
		var ph float64
		fyne.DoAndWait(func() { ph = pr.Playhead() })
		if ph == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	img := capture(t, win, "pianoroll_playhead")
	r := rendererOf(pr).(*pianoRenderer)
	zoom := float32(400-PianoKeyWidth) / 16
	want := PianoKeyWidth + 3*zoom
	if !r.play.Visible() || math.Abs(float64(r.play.Position1.X-want)) > 0.01 {
		t.Fatalf("playhead visible=%v at x=%v, want %v", r.play.Visible(), r.play.Position1.X, want)
	}
	if pixelsNear(img, image.Rect(int(want)-1, 100, int(want)+2, 101), paletteFor(pr).alert, 30) == 0 {
		t.Error("playhead not drawn in the capture")
	}
	if b := secondsToBeats(s, 0.5); math.Abs(b-1) > 1e-9 {
		t.Errorf("0.5 s = beat %v, want 1", b)
	}
	pr.SetPlayhead(-1)
	if r.play.Visible() {
		t.Error("negative position should hide the playhead")
	}
}

func TestPianoRollEmpty(t *testing.T) {
	newApp(t, themes[0].v)
	pr := NewPianoRoll(nil)
	win := show(t, pr, 300, 150)
	capture(t, win, "pianoroll_empty")
	pr.SetPlayhead(3)
	pr.SetScore(&midi.Score{TicksPerBeat: 0})
	pr.SetScore(&midi.Score{TicksPerBeat: 480, Tracks: []midi.Track{{}}})
	test.Scroll(win.Canvas(), fyne.NewPos(100, 50), 0, -10)
	if pr.BarCount() != 0 {
		t.Errorf("bars %d", pr.BarCount())
	}
	show(t, NewPianoRoll(oneNote()), 2, 2)
}

// TestPianoRollRealFile renders a POP909 piece for a person to look at and
// checks every note of the first bars is drawn.
func TestPianoRollRealFile(t *testing.T) {
	files := corpus.MIDIFiles(t, "pop909")
	s, err := midi.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range themes {
		newApp(t, th.v)
		pr := NewPianoRoll(s)
		win := show(t, pr, 900, 360)
		capture(t, win, "pianoroll_pop909_"+th.name)
		pr.SetZoom(40)
		capture(t, win, "pianoroll_pop909_zoom_"+th.name)
		r := rendererOf(pr).(*pianoRenderer)
		visEnd := float64(900-PianoKeyWidth) / 40
		want := 0
		for _, tr := range s.Tracks {
			for _, n := range tr.Notes {
				if float64(n.Tick)/float64(s.TicksPerBeat) <= visEnd {
					want++
				}
			}
		}
		if got := len(r.notes.active()); got != want {
			t.Errorf("%s: %d notes drawn in the first %.1f beats, want %d", filepath.Base(files[0]), got, visEnd, want)
		}
	}
}

// drag sends the events the GLFW driver sends for a pointer moved with the
// button held from one point to another in steps: each event's Position is
// where the pointer now is, Dragged the move since the previous event.
func drag(d fyne.Draggable, from fyne.Position, steps ...fyne.Delta) {
	at := from
	for _, st := range steps {
		at = at.Add(st)
		d.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: at}, Dragged: st})
	}
	d.DragEnd()
}

// A drag across the bar ruler selects the bars it crosses (shaded over the
// notes and on the ruler) and tells OnSelect; a drag over the notes
// scrolls and leaves the selection; a tap on the ruler selects one bar and
// a second tap clears it.
func TestPianoRollSelectsBarsOnRuler(t *testing.T) {
	newApp(t, themes[0].v)
	pr := NewPianoRoll(oneNote())
	var got [][2]int
	pr.OnSelect = func(from, to int) { got = append(got, [2]int{from, to}) }
	win := show(t, pr, 400, 200)
	// 16 beats in 364 units: a bar is 91 units, bar b starts at 36+91(b−1).
	bar := float32(400-PianoKeyWidth) / 4
	if x := pr.BarX(3); math.Abs(float64(x-(PianoKeyWidth+2*bar))) > 1e-3 {
		t.Fatalf("BarX(3) = %v, want %v", x, PianoKeyWidth+2*bar)
	}
	drag(pr, fyne.NewPos(PianoKeyWidth+bar+10, 8), fyne.NewDelta(60, 0), fyne.NewDelta(60, 3))
	if from, to := pr.Selection(); from != 2 || to != 3 || len(got) != 1 || got[0] != [2]int{2, 3} {
		t.Fatalf("selection %d–%d, OnSelect %v; want bars 2–3 once", from, to, got)
	}
	capture(t, win, "pianoroll_selection")
	r := rendererOf(pr).(*pianoRenderer)
	if !r.sel.Visible() || math.Abs(float64(r.sel.Position().X-(PianoKeyWidth+bar))) > 0.6 || math.Abs(float64(r.sel.Size().Width-2*bar)) > 0.6 {
		t.Fatalf("selection shade at %v size %v, want x %v width %v", r.sel.Position(), r.sel.Size(), PianoKeyWidth+bar, 2*bar)
	}
	// Dragging backwards from bar 4 to bar 1 selects 1–4.
	drag(pr, fyne.NewPos(PianoKeyWidth+3*bar+5, 4), fyne.NewDelta(-3*bar, 0))
	if from, to := pr.Selection(); from != 1 || to != 4 {
		t.Fatalf("backward drag: %d–%d, want 1–4", from, to)
	}
	// A drag over the notes scrolls (zoomed in) and keeps the selection.
	pr.SetZoom(40)
	drag(pr, fyne.NewPos(200, 100), fyne.NewDelta(-80, 0))
	if pr.Offset() != 2 || len(got) != 2 {
		t.Fatalf("note-area drag: offset %v (want 2 beats), OnSelect calls %d (want 2)", pr.Offset(), len(got))
	}
	if from, to := pr.Selection(); from != 1 || to != 4 {
		t.Fatalf("note-area drag changed the selection to %d–%d", from, to)
	}
	pr.SetZoom(0)
	test.TapAt(pr, fyne.NewPos(PianoKeyWidth+3*bar+5, 5))
	if from, to := pr.Selection(); from != 4 || to != 4 {
		t.Fatalf("tap on bar 4: %d–%d", from, to)
	}
	test.TapAt(pr, fyne.NewPos(PianoKeyWidth+3*bar+5, 5))
	if from, _ := pr.Selection(); from != 0 || r.sel.Visible() {
		t.Fatalf("second tap did not clear: from %d, shade visible %v", from, r.sel.Visible())
	}
	test.TapAt(pr, fyne.NewPos(200, 100)) // a tap in the notes does nothing
	if len(got) != 4 {
		t.Errorf("OnSelect calls %d, want 4", len(got))
	}
	pr.SetSelection(3, 9)
	if from, to := pr.Selection(); from != 3 || to != 4 {
		t.Errorf("SetSelection(3, 9) = %d–%d, want 3–4 (clamped)", from, to)
	}
	pr.SetScore(oneNote())
	if from, _ := pr.Selection(); from != 0 {
		t.Error("a new score kept the selection")
	}
}
