package token

import (
	"fmt"
	"strconv"

	"github.com/amtstudio/amt/engine/midi"
)

// DecodeTicksPerBeat is the resolution of decoded scores: a multiple of the
// grid so every position is a whole number of ticks.
func (v *Vocab) DecodeTicksPerBeat() int {
	p := v.cfg.PositionsPerBeat
	if 480%p == 0 {
		return 480
	}
	return p * 40
}

// Decode turns a token sequence back into a Score and the attributes its
// prefix states (unset ones as in Unspecified; METER_OTHER reports the first
// TimeSig of the body). The sequence must follow the Grammar; it may stop
// early (no EOS, as when generation hits its length limit): a note cut
// short is dropped. PAD tokens after EOS are ignored. The score has one
// track per program (drums on channel 10), the body's tempo and meter
// changes, the KEY as a key signature, and ends at the end of its last bar.
func (v *Vocab) Decode(toks []uint16) (*midi.Score, Attributes, error) {
	a := Unspecified()
	tpb := v.DecodeTicksPerBeat()
	unit := int64(tpb / v.cfg.PositionsPerBeat)
	s := &midi.Score{Format: 1, TicksPerBeat: tpb}
	g := v.NewGrammar()

	var trackOf [DrumProgram + 1]int
	for i := range trackOf {
		trackOf[i] = -1
	}
	var (
		barStart, barLen int64 = 0, 0
		bars             int
		pos              int64
		prog             int
		pitch, vel       int
		instruments      bool
		nextChannel      int
		meterOther       bool
	)
	for i, t := range toks {
		if g.Done() {
			if t == v.PAD {
				continue
			}
			return nil, a, fmt.Errorf("token: decode: %s (id %d) at index %d after EOS: %w", v.Name(t), t, i, ErrNotAllowed)
		}
		if err := g.Push(t); err != nil {
			return nil, a, fmt.Errorf("token: decode: %w", err)
		}
		k, x := v.Kind(t)
		switch k {
		case KindTempoAttr:
			a.TempoBPM = v.TempoBPM(x)
		case KindKeyAttr:
			a.KeyTonic, a.KeyMinor = x%12, x >= 12
			s.Keys = append(s.Keys, midi.KeyChange{Tick: 0, Sharps: keySharps(x%12, x >= 12), Minor: x >= 12})
		case KindMeterAttr:
			if x < len(v.cfg.Meters) {
				a.MeterNum, a.MeterDen = v.cfg.Meters[x].Num, v.cfg.Meters[x].Den
			} else {
				meterOther = true
			}
		case KindGenreAttr:
			a.Genre = v.cfg.Genres[x]
		case KindInstrumentAttr:
			if !instruments {
				instruments = true
				a.Programs = []int{}
				f := false
				a.Drums = &f
			}
			if x == DrumProgram {
				tr := true
				a.Drums = &tr
			} else {
				a.Programs = append(a.Programs, x)
			}
		case KindDensityAttr:
			a.Density = x
		case KindLengthAttr:
			a.Bars, _ = v.LengthRange(x)
		case KindStyleAttr:
			if t != v.StyleNone {
				a.Style = x
			}
		case KindBar:
			if bars > 0 {
				barStart += barLen
			}
			bars++
			pos = 0
		case KindTimeSig:
			m := v.cfg.BodyMeters[x]
			barLen = int64(v.bodyBarLen[x])
			if meterOther && len(s.Meters) == 0 {
				a.MeterNum, a.MeterDen = m.Num, m.Den
			}
			if n := len(s.Meters); n == 0 || s.Meters[n-1].Num != m.Num || s.Meters[n-1].Den != m.Den {
				s.Meters = append(s.Meters, midi.MeterChange{Tick: barStart * unit, Num: m.Num, Den: m.Den})
			}
		case KindTempo:
			tick := (barStart + pos) * unit
			mpb := int(60e6/v.TempoBPM(x) + 0.5)
			if n := len(s.Tempos); n > 0 && s.Tempos[n-1].Tick == tick {
				s.Tempos[n-1].MicrosPerBeat = mpb
			} else {
				s.Tempos = append(s.Tempos, midi.TempoChange{Tick: tick, MicrosPerBeat: mpb})
			}
		case KindPosition:
			pos = int64(x)
		case KindProgram:
			prog = x
		case KindPitch:
			pitch = x
		case KindVelocity:
			vel = v.Velocity(x)
		case KindDuration:
			ti := trackOf[prog]
			if ti < 0 {
				ti = len(s.Tracks)
				trackOf[prog] = ti
				tr := midi.Track{Name: trackName(prog), Source: ti, Program: prog}
				if prog == DrumProgram {
					tr.Program, tr.IsDrum, tr.Channel = 0, true, 9
				} else {
					tr.Channel = nextChannel
					nextChannel++
					if nextChannel == 9 {
						nextChannel++
					}
					if nextChannel > 15 {
						nextChannel = 0
					}
				}
				s.Tracks = append(s.Tracks, tr)
			}
			tr := &s.Tracks[ti]
			tr.Notes = append(tr.Notes, midi.Note{
				Tick:     (barStart + pos) * unit,
				Dur:      int64(v.durUnits[x]) * unit,
				Pitch:    uint8(pitch),
				Velocity: uint8(vel),
			})
			if end := (barStart+pos)*unit + int64(v.durUnits[x])*unit; end > s.EndTick {
				s.EndTick = end
			}
		}
	}
	if bars > 0 {
		s.EndTick = max(s.EndTick, (barStart+barLen)*unit)
	}
	s.ComputeSeconds()
	return s, a, nil
}

func trackName(prog int) string {
	if prog == DrumProgram {
		return "Drums"
	}
	return "Program " + strconv.Itoa(prog)
}

// keySharps returns the key signature (sharps, negative for flats, −6..6)
// of a tonic pitch class and mode.
func keySharps(tonic int, minor bool) int {
	if minor {
		tonic = (tonic + 3) % 12 // relative major
	}
	sh := (tonic * 7) % 12 // C=0, G=1, D=2, … F=11 → -1
	if sh > 6 {
		sh -= 12
	}
	return sh
}
