package eval

import (
	"github.com/amtstudio/amt/engine/midi"
)

// midiKey is the key type of Metrics (midi.Key).
type midiKey = midi.Key

// fillFacts sets what midi.Analyze measures: initial tempo, initial meter,
// length in bars and seconds (to EndTick), drums; the key is the estimate
// from the notes (midi.EstimateKey), never a declared key signature, so a
// generated file that writes the requested key as a meta event cannot pass
// the key check by that alone. Tonic is −1 without pitched notes. Programs
// are those of pitched tracks that hold notes.
func fillFacts(m *Metrics, s *midi.Score) {
	md := midi.Analyze(s)
	m.TempoBPM = md.TempoBPM
	m.MeterNum, m.MeterDen = md.MeterNum, md.MeterDen
	m.Bars = md.Bars
	m.DurationSeconds = md.DurationSeconds
	m.HasDrums = md.HasDrums
	m.Key = md.EstimatedKey
	var progs [128]bool
	pitched := false
	for ti := range s.Tracks {
		t := &s.Tracks[ti]
		if t.IsDrum || len(t.Notes) == 0 {
			continue
		}
		pitched = true
		if t.Program >= 0 && t.Program < 128 {
			progs[t.Program] = true
		}
	}
	if !pitched {
		m.Key = midi.Key{Tonic: -1}
	}
	m.Programs = m.Programs[:0]
	for p, ok := range progs {
		if ok {
			m.Programs = append(m.Programs, p)
		}
	}
}
