package arrange

import (
	"github.com/amtstudio/amt/engine/midi"
)

// CheckResult is what Check finds in an arranged piece.
type CheckResult struct {
	Bars             int  // bars of the source
	BarsWithoutDrums int  // bars after the pickup with no drum onset
	TempoSame        bool // the tempo map is the source's
	MeterSame        bool // one meter, the source's, and the source's bar count
	SourceKey, Key   midi.Key
	KeySame          bool // the estimated key is the source's estimate
	KeyClose         bool // same, relative major/minor, or a fifth away in the same mode
}

// Check compares an arranged piece (as read back from its file) with its
// source: drums in every bar after the pickup, the same tempo map, meter
// and length, and the key estimate (midi.EstimateKey, Krumhansl–Schmuckler)
// of the whole piece against that of the source's own parts.
func Check(out *midi.Score, s *Source) CheckResult {
	r := CheckResult{Bars: s.Bars}
	ratio := float64(out.TicksPerBeat) / float64(s.Score.TicksPerBeat)
	barTicks := int64(float64(s.BarTicks) * ratio)
	hit := make([]bool, s.Bars)
	for _, t := range out.Tracks {
		if !t.IsDrum {
			continue
		}
		for _, n := range t.Notes {
			if b := int(n.Tick / barTicks); b >= 0 && b < len(hit) {
				hit[b] = true
			}
		}
	}
	for b := s.Pickup; b < s.Bars; b++ {
		if !hit[b] {
			r.BarsWithoutDrums++
		}
	}
	r.TempoSame = len(out.Tempos) == len(s.Score.Tempos) && ratio == 1
	if r.TempoSame {
		for i, t := range out.Tempos {
			if t != s.Score.Tempos[i] {
				r.TempoSame = false
			}
		}
	}
	r.MeterSame = len(out.Meters) == 1 && out.Meters[0].Num == s.Num && out.Meters[0].Den == s.Den &&
		out.Meters[0].Tick == 0 && int(ceilDiv(out.EndTick, barTicks)) == s.Bars
	r.SourceKey = midi.EstimateKey(s.Score)
	r.Key = midi.EstimateKey(out)
	r.KeySame = r.Key.Same(r.SourceKey)
	r.KeyClose = keysClose(r.Key, r.SourceKey)
	return r
}

// keysClose reports the same key, the relative major/minor, or a key a
// fifth above or below in the same mode.
func keysClose(a, b midi.Key) bool {
	if a.Same(b) {
		return true
	}
	if a.Minor != b.Minor {
		maj, min := a, b
		if a.Minor {
			maj, min = b, a
		}
		return (maj.Tonic+9)%12 == min.Tonic
	}
	d := ((a.Tonic-b.Tonic)%12 + 12) % 12
	return d == 5 || d == 7
}
