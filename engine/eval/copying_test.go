package eval

import (
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

// copyTPB is the resolution of the hand-made pieces: a grid step
// (GridPerBeat = 12 a quarter note) is 40 ticks.
const copyTPB = 480

// copyShapes are eight bars of 4/4, each four (beat, pitch) notes, no two
// alike under any transposition (their intervals from the lowest note
// differ).
var copyShapes = [8][4][2]int{
	{{0, 60}, {1, 62}, {2, 64}, {3, 65}},
	{{0, 60}, {1, 67}, {2, 64}, {3, 60}},
	{{0, 62}, {1, 66}, {2, 69}, {3, 74}},
	{{0, 60}, {1, 61}, {2, 63}, {3, 66}},
	{{0, 64}, {1, 71}, {2, 68}, {3, 65}},
	{{0, 60}, {1, 70}, {2, 63}, {3, 67}},
	{{0, 59}, {1, 62}, {2, 67}, {3, 71}},
	{{0, 60}, {2, 72}, {2, 67}, {3, 64}},
}

// bar returns the notes of copyShapes[i] in bar b, moved by t semitones.
func copyBar(i, b, t int) []midi.Note {
	var out []midi.Note
	for _, n := range copyShapes[i] {
		out = append(out, midi.Note{Tick: int64(b*4+n[0]) * copyTPB, Dur: copyTPB / 2, Pitch: uint8(n[1] + t), Velocity: 80})
	}
	return out
}

func copyScore(tracks ...midi.Track) *midi.Score {
	s := &midi.Score{TicksPerBeat: copyTPB, Tracks: tracks, Meters: []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}}}
	for _, tr := range tracks {
		for _, n := range tr.Notes {
			s.EndTick = max(s.EndTick, n.Tick+n.Dur)
		}
	}
	return s
}

// training is copyShapes 0–7 in bars 0–7 of one piano track.
func copyTraining() *midi.Score {
	var notes []midi.Note
	for i := range copyShapes {
		notes = append(notes, copyBar(i, i, 0)...)
	}
	return copyScore(midi.Track{Program: 0, Notes: notes})
}

// TestLongestCopyHandMade: a piece whose bars 1–3 are the training piece's
// bars 4–6 two semitones up, and whose bar 4 is training bar 7 three
// semitones up, copies a run of 3 bars (the fourth, at another
// transposition, is a run of its own); the changes below each break or
// keep the run as the definition says.
func TestLongestCopyHandMade(t *testing.T) {
	x := NewCopyIndex()
	x.Add("train.mid", copyTraining())
	if x.Pieces() != 1 || x.Bars() != 8 {
		t.Fatalf("index holds %d pieces, %d bars; want 1 and 8", x.Pieces(), x.Bars())
	}
	// A bar of its own: no training bar has four notes a semitone apart.
	own := func(b int) []midi.Note {
		var out []midi.Note
		for k := 0; k < 4; k++ {
			out = append(out, midi.Note{Tick: int64(b*4+k) * copyTPB, Dur: copyTPB, Pitch: uint8(70 + k), Velocity: 80})
		}
		return out
	}
	build := func(edit func(notes []midi.Note) []midi.Note) *midi.Score {
		var notes []midi.Note
		notes = append(notes, own(0)...)
		notes = append(notes, copyBar(4, 1, 2)...)
		notes = append(notes, copyBar(5, 2, 2)...)
		notes = append(notes, copyBar(6, 3, 2)...)
		notes = append(notes, copyBar(7, 4, 3)...)
		notes = append(notes, own(5)...)
		if edit != nil {
			notes = edit(notes)
		}
		return copyScore(midi.Track{Program: 40, Notes: notes})
	}
	got := x.LongestCopy(build(nil))
	want := Copy{Bars: 3, Piece: "train.mid", Bar: 1, FromBar: 4, Transpose: 2}
	if got != want {
		t.Fatalf("LongestCopy = %+v, want %+v", got, want)
	}

	// Note 9 is bar 2's second note (beat 1 of training bar 5).
	moved := func(ticks int64) func([]midi.Note) []midi.Note {
		return func(n []midi.Note) []midi.Note { n[9].Tick += ticks; return n }
	}
	// One grid step (40 ticks) later: bar 2 no longer matches, runs of 1.
	if got := x.LongestCopy(build(moved(40))); got.Bars != 1 {
		t.Errorf("a note moved one grid step: longest run %d bars (%+v), want 1", got.Bars, got)
	}
	// 10 ticks (a quarter of a step) rounds to the same onset: still 3.
	if got := x.LongestCopy(build(moved(10))); got != want {
		t.Errorf("a note moved 10 ticks: %+v, want %+v", got, want)
	}
	// Another pitch in bar 3 (72 → 73): bars 1–2 stay a run of 2.
	if got := x.LongestCopy(build(func(n []midi.Note) []midi.Note { n[13].Pitch++; return n })); got.Bars != 2 || got.Bar != 1 || got.FromBar != 4 {
		t.Errorf("a pitch changed in bar 3: %+v, want 2 bars from bar 1", got)
	}
	// Bar 4 at the run's own transposition (+2 instead of +3) extends it.
	ext := build(func(n []midi.Note) []midi.Note {
		for i := 16; i < 20; i++ {
			n[i].Pitch--
		}
		return n
	})
	if got := x.LongestCopy(ext); got.Bars != 4 || got.Transpose != 2 {
		t.Errorf("bar 4 at +2: %+v, want 4 bars at +2", got)
	}
	// The copy split over two tracks and other programs, a doubled note,
	// and drums on top: still the same 3 bars.
	sc := build(nil)
	var low, high []midi.Note
	for i, n := range sc.Tracks[0].Notes {
		if i%2 == 0 {
			low = append(low, n)
		} else {
			high = append(high, n)
		}
	}
	high = append(high, sc.Tracks[0].Notes[4]) // doubled in both tracks
	drums := midi.Track{Channel: 9, IsDrum: true}
	for b := 0; b < 6; b++ {
		drums.Notes = append(drums.Notes, midi.Note{Tick: int64(b*4+1) * copyTPB, Dur: 60, Pitch: 38, Velocity: 100})
	}
	split := copyScore(midi.Track{Program: 32, Notes: low}, midi.Track{Program: 73, Notes: high}, drums)
	if got := x.LongestCopy(split); got != want {
		t.Errorf("split over two tracks with drums: %+v, want %+v", got, want)
	}
}

// TestLongestCopyNothing: empty bars, drums alone and a piece of other
// bars copy nothing; a bar in 3/4 does not match the same notes in 4/4.
func TestLongestCopyNothing(t *testing.T) {
	x := NewCopyIndex()
	x.Add("train.mid", copyTraining())
	drumsOnly := copyScore(midi.Track{Channel: 9, IsDrum: true, Notes: []midi.Note{{Tick: 0, Dur: 60, Pitch: 36, Velocity: 90}, {Tick: 8 * copyTPB, Dur: 60, Pitch: 36, Velocity: 90}}})
	if got := x.LongestCopy(drumsOnly); got.Bars != 0 {
		t.Errorf("drums only: %+v, want no copy", got)
	}
	if got := x.LongestCopy(copyScore()); got.Bars != 0 {
		t.Errorf("empty piece: %+v, want no copy", got)
	}
	// Training bar 0's notes in a 3/4 bar: the bar's length differs.
	waltz := copyScore(midi.Track{Notes: []midi.Note{{Tick: 0, Dur: 240, Pitch: 60, Velocity: 80}, {Tick: 480, Dur: 240, Pitch: 62, Velocity: 80},
		{Tick: 960, Dur: 240, Pitch: 64, Velocity: 80}, {Tick: 1440, Dur: 240, Pitch: 65, Velocity: 80}}})
	waltz.Meters = []midi.MeterChange{{Tick: 0, Num: 3, Den: 4}}
	if got := x.LongestCopy(waltz); got.Bars != 0 {
		t.Errorf("3/4 bars against 4/4 training bars: %+v, want no copy", got)
	}
	// The same notes in 4/4 match bar 0 (and the rest, in 3/4 at tick
	// 1,440, is the second bar's first note: it does not match bar 1).
	waltz.Meters = nil
	if got := x.LongestCopy(waltz); got.Bars != 1 || got.FromBar != 0 || got.Transpose != 0 {
		t.Errorf("4/4: %+v, want bar 0 at +0", got)
	}
	// An empty bar between two copied bars breaks the run: rests are
	// not copies.
	gap := copyScore(midi.Track{Notes: append(copyBar(2, 0, -5), copyBar(3, 2, -5)...)})
	trainGap := copyScore(midi.Track{Notes: append(copyBar(2, 0, 0), copyBar(3, 2, 0)...)})
	y := NewCopyIndex()
	y.Add("gap.mid", trainGap)
	if got := y.LongestCopy(gap); got.Bars != 1 || got.Transpose != -5 {
		t.Errorf("empty bar between: %+v, want runs of 1 bar at -5", got)
	}
}
