package eval

import (
	"github.com/amtstudio/amt/engine/midi"
)

// midiKey is the key type of Metrics (midi.Key).
type midiKey = midi.Key

// fillFacts sets the facts midi.Analyze also reports, with the same
// definitions (a test holds them equal on the real corpora) but without
// Analyze's polyphony sweep, which cost more than all the metrics here:
// initial tempo and meter (tick 0; 120 bpm and 4/4 by default), length in
// bars (to EndTick through the meter map) and seconds, drums. The key is
// the estimate from the notes (midi.EstimateKey), never a declared key
// signature, so a generated file that writes the requested key as a meta
// event cannot pass the key check by that alone; Tonic is −1 without
// pitched notes. Programs are those of pitched tracks that hold notes.
func fillFacts(m *Metrics, s *midi.Score) {
	m.TempoBPM = 60e6 / float64(s.TempoAt(0))
	m.MeterNum, m.MeterDen = 4, 4
	for _, mc := range s.Meters {
		if mc.Tick > 0 {
			break
		}
		m.MeterNum, m.MeterDen = mc.Num, mc.Den
	}
	m.Bars = bars(s)
	m.DurationSeconds = s.Seconds()
	var progs [128]bool
	pitched := false
	for ti := range s.Tracks {
		t := &s.Tracks[ti]
		if len(t.Notes) == 0 {
			continue
		}
		if t.IsDrum {
			m.HasDrums = true
			continue
		}
		pitched = true
		if t.Program >= 0 && t.Program < 128 {
			progs[t.Program] = true
		}
	}
	m.Key = midi.Key{Tonic: -1}
	if pitched {
		m.Key = midi.EstimateKey(s)
	}
	for p, ok := range progs {
		if ok {
			m.Programs = append(m.Programs, p)
		}
	}
}

// bars is the length to EndTick in bars through the meter map (4/4 before
// the first meter), as midi.Metadata.Bars.
func bars(s *midi.Score) float64 {
	if s.TicksPerBeat <= 0 || s.EndTick <= 0 {
		return 0
	}
	barTicks := func(num, den int) float64 { return float64(s.TicksPerBeat) * 4 * float64(num) / float64(den) }
	num, den := 4, 4
	var last int64
	b := 0.0
	for _, mc := range s.Meters {
		t := min(max(mc.Tick, 0), s.EndTick)
		b += float64(t-last) / barTicks(num, den)
		last = t
		if mc.Num > 0 && mc.Den > 0 {
			num, den = mc.Num, mc.Den
		}
	}
	return b + float64(s.EndTick-last)/barTicks(num, den)
}
