package arrange

import (
	"math"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

// TestMeasureDrumFeel measures two bars of kick and snare at 120 bpm, one
// kick 24 ticks (25 ms) late in bar 0 and one moved to beat 2½ in bar 1,
// against values worked by hand.
func TestMeasureDrumFeel(t *testing.T) {
	const q = 480
	var notes []midi.Note
	for b := int64(0); b < 2; b++ {
		for i, p := range []uint8{36, 38, 36, 38} {
			tick := b*4*q + int64(i)*q
			if b == 0 && i == 2 {
				tick += 24 // late: the same position
			}
			if b == 1 && i == 2 {
				tick += q / 2 // another position: a change of pattern
			}
			vel := uint8(100)
			if p == 38 {
				vel = 80
			}
			notes = append(notes, midi.Note{Tick: tick, Dur: 60, Pitch: p, Velocity: vel})
		}
	}
	sc := &midi.Score{TicksPerBeat: q, Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}},
		Meters: []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}}, EndTick: 8 * q,
		Tracks: []midi.Track{{Channel: 0, Program: 0, Notes: []midi.Note{{Tick: 0, Dur: 8 * q, Pitch: 60, Velocity: 1}}},
			{Channel: 9, IsDrum: true, Notes: notes}}}
	f, ok := MeasureDrumFeel(sc)
	if !ok {
		t.Fatal("no drums found")
	}
	// Velocities 100, 80, … : mean 90, spread 10. One hit of 8 is 0.05
	// beats (25 ms) from the grid: 3.125 ms a hit. 4 hits a bar. Bar 0's
	// late kick counts on beat 2 (step 12); bar 1's kick on 2½ (step 15):
	// 3 of the 5 (drum, step) pairs are shared, a change of 0.4.
	want := DrumFeel{Hits: 8, Bars: 2, VelSpread: 10, OnsetDevMS: 3.125, HitsPerBar: 4, BarChange: 0.4}
	if f.Hits != want.Hits || f.Bars != want.Bars || math.Abs(f.VelSpread-want.VelSpread) > 1e-9 ||
		math.Abs(f.OnsetDevMS-want.OnsetDevMS) > 1e-9 || f.HitsPerBar != want.HitsPerBar ||
		math.Abs(f.BarChange-want.BarChange) > 1e-9 {
		t.Fatalf("got %+v\nwant %+v", f, want)
	}
	// Without drums there is nothing to measure.
	sc.Tracks = sc.Tracks[:1]
	if _, ok := MeasureDrumFeel(sc); ok {
		t.Fatal("measured a piece without drums")
	}
}
