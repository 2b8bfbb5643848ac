// Package testscore holds small hand-made scores that tests of several
// packages share, so each test reads the same notes from one place.
package testscore

import "github.com/amtstudio/amt/engine/midi"

// Quartet is four bars of 4/4 at 120 bpm (480 ticks a beat, a bar 2 s):
// a piano playing one quarter note on each beat (pitch 60 + beat index,
// velocity 100), a bass holding each bar's first beat for a whole bar, and
// a drum hit on each bar's first beat.
func Quartet() *midi.Score {
	s := &midi.Score{Format: 1, TicksPerBeat: 480, EndTick: 4 * 1920,
		Tempos: []midi.TempoChange{{MicrosPerBeat: 500000}}, Meters: []midi.MeterChange{{Num: 4, Den: 4}}}
	piano := midi.Track{Name: "piano", Program: 0}
	bass := midi.Track{Name: "bass", Channel: 1, Program: 32}
	drums := midi.Track{Name: "drums", Channel: 9, IsDrum: true}
	for b := 0; b < 16; b++ {
		piano.Notes = append(piano.Notes, midi.Note{Tick: int64(b * 480), Dur: 480, Pitch: uint8(60 + b), Velocity: 100})
	}
	for bar := 0; bar < 4; bar++ {
		bass.Notes = append(bass.Notes, midi.Note{Tick: int64(bar * 1920), Dur: 1920, Pitch: 36, Velocity: 90})
		drums.Notes = append(drums.Notes, midi.Note{Tick: int64(bar * 1920), Dur: 60, Pitch: 36, Velocity: 110})
	}
	s.Tracks = []midi.Track{piano, bass, drums}
	s.ComputeSeconds()
	return s
}
