// Package midi owns Standard MIDI File reading and writing, the Score model
// (tracks, notes, tempo map, meters, keys, programs, drums) and the metadata
// measured from a Score.
//
// It must never import app/, ui/ or storage/: it is part of the engine.
package midi

import "sort"

// DefaultMicrosPerBeat is the SMF default tempo (120 bpm) in force before
// the first tempo event.
const DefaultMicrosPerBeat = 500000

// Score is a parsed piece of music. Ticks are in the file's resolution
// (TicksPerBeat per quarter note). Tempos, Meters and Keys are sorted by
// tick; Tracks hold one instrument each (one channel and program), so an
// SMF track that plays several channels or changes program becomes several
// Tracks that share its Name and Source index.
type Score struct {
	Format       int // SMF format the score was read from (0 or 1); 1 when written
	TicksPerBeat int
	Title        string // first track-name or text meta event of the first track, if any
	Tracks       []Track
	Tempos       []TempoChange
	Meters       []MeterChange
	Keys         []KeyChange
	// EndTick is the tick of the last event of any track (end of track
	// markers included), at least the end of the last note.
	EndTick int64
}

// Track is one instrument's notes.
type Track struct {
	Name    string
	Source  int  // index of the SMF track it came from
	Channel int  // 0–15; 9 is the General MIDI drum channel
	Program int  // General MIDI program 0–127 (for drums: the kit number, usually 0)
	IsDrum  bool // true for channel 10 (index 9)
	Notes   []Note
}

// Note is one sounding note. Start and Duration are in seconds, computed
// from Tick and Dur through the tempo map.
type Note struct {
	Tick     int64 // onset in ticks
	Dur      int64 // duration in ticks (≥ 0)
	Pitch    uint8 // 0–127
	Velocity uint8 // 1–127
	Start    float64
	Duration float64
}

// TempoChange sets the tempo from Tick on.
type TempoChange struct {
	Tick          int64
	MicrosPerBeat int // microseconds per quarter note
}

// BPM is the tempo in quarter notes per minute.
func (t TempoChange) BPM() float64 { return 60e6 / float64(t.MicrosPerBeat) }

// MeterChange sets the time signature from Tick on: Num/Den (e.g. 6/8).
type MeterChange struct {
	Tick int64
	Num  int
	Den  int // a power of two
}

// KeyChange is a key-signature meta event: Sharps in −7..7 (negative for
// flats) and the mode.
type KeyChange struct {
	Tick   int64
	Sharps int
	Minor  bool
}

// Tonic returns the tonic pitch class (0 = C … 11 = B) of the key signature.
func (k KeyChange) Tonic() int {
	// Major tonic moves a fifth (7 semitones) per sharp; relative minor is 3 below.
	pc := ((k.Sharps*7)%12 + 12) % 12
	if k.Minor {
		pc = (pc + 9) % 12
	}
	return pc
}

// NoteCount returns the number of notes over all tracks.
func (s *Score) NoteCount() int {
	n := 0
	for i := range s.Tracks {
		n += len(s.Tracks[i].Notes)
	}
	return n
}

// TempoAt returns the tempo in force at tick.
func (s *Score) TempoAt(tick int64) int {
	mpb := DefaultMicrosPerBeat
	for _, t := range s.Tempos {
		if t.Tick > tick {
			break
		}
		mpb = t.MicrosPerBeat
	}
	return mpb
}

// TickToSeconds converts an absolute tick to seconds through the tempo map.
func (s *Score) TickToSeconds(tick int64) float64 {
	if s.TicksPerBeat <= 0 {
		return 0
	}
	sec := 0.0
	last := int64(0)
	mpb := DefaultMicrosPerBeat
	for _, t := range s.Tempos {
		if t.Tick >= tick {
			break
		}
		sec += float64(t.Tick-last) * float64(mpb) / 1e6 / float64(s.TicksPerBeat)
		last, mpb = t.Tick, t.MicrosPerBeat
	}
	return sec + float64(tick-last)*float64(mpb)/1e6/float64(s.TicksPerBeat)
}

// ComputeSeconds fills Start and Duration of every note from its ticks and
// the tempo map, in one pass per track.
func (s *Score) ComputeSeconds() {
	if s.TicksPerBeat <= 0 {
		return
	}
	// Cumulative seconds at each tempo change.
	type seg struct {
		tick int64
		sec  float64
		spt  float64 // seconds per tick
	}
	segs := make([]seg, 0, len(s.Tempos)+1)
	segs = append(segs, seg{0, 0, float64(DefaultMicrosPerBeat) / 1e6 / float64(s.TicksPerBeat)})
	for _, t := range s.Tempos {
		last := segs[len(segs)-1]
		sec := last.sec + float64(t.Tick-last.tick)*last.spt
		sp := float64(t.MicrosPerBeat) / 1e6 / float64(s.TicksPerBeat)
		if t.Tick == last.tick {
			segs[len(segs)-1] = seg{t.Tick, last.sec, sp}
			continue
		}
		segs = append(segs, seg{t.Tick, sec, sp})
	}
	at := func(tick int64) float64 {
		i := sort.Search(len(segs), func(i int) bool { return segs[i].tick > tick }) - 1
		if i < 0 {
			i = 0
		}
		return segs[i].sec + float64(tick-segs[i].tick)*segs[i].spt
	}
	for ti := range s.Tracks {
		notes := s.Tracks[ti].Notes
		for i := range notes {
			st := at(notes[i].Tick)
			notes[i].Start = st
			notes[i].Duration = at(notes[i].Tick+notes[i].Dur) - st
		}
	}
}

// Seconds returns the duration of the score in seconds (to EndTick).
func (s *Score) Seconds() float64 { return s.TickToSeconds(s.EndTick) }
