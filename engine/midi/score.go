// Package midi owns Standard MIDI File reading and writing, the Score model
// (tracks, notes, tempo map, meters, keys, programs, drums) and the metadata
// measured from a Score: Parse/ReadFile (a single-pass reader of its own,
// read.go), Write/WriteFile (write.go), Analyze and EstimateKey
// (metadata.go, key.go), General MIDI names (gm.go). gomidi
// (gitlab.com/gomidi/midi/v2) is used only by the tests, as the oracle the
// reader is checked against on the real corpora.
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
	SMFTracks    int // number of MTrk chunks the score was read from (0 for a score built in memory)
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
// the tempo map, in one pass per track. Notes sorted by tick (as Parse
// returns them) walk the tempo map forward; unsorted notes fall back to a
// binary search, so any order gives the same result.
func (s *Score) ComputeSeconds() {
	if s.TicksPerBeat <= 0 {
		return
	}
	segs := s.tempoSegments()
	for ti := range s.Tracks {
		notes := s.Tracks[ti].Notes
		i := 0 // segment of the previous onset
		for k := range notes {
			n := &notes[k]
			switch {
			case n.Tick < segs[i].tick:
				i = segmentAt(segs, n.Tick)
			default:
				for i+1 < len(segs) && segs[i+1].tick <= n.Tick {
					i++
				}
			}
			st := segs[i].sec + float64(n.Tick-segs[i].tick)*segs[i].spt
			end := n.Tick + n.Dur
			j := i
			for j+1 < len(segs) && segs[j+1].tick <= end {
				j++
			}
			n.Start = st
			n.Duration = segs[j].sec + float64(end-segs[j].tick)*segs[j].spt - st
		}
	}
}

// tempoSegment is a stretch of constant tempo: it starts at tick, sec
// seconds into the piece, and lasts spt seconds per tick.
type tempoSegment struct {
	tick int64
	sec  float64
	spt  float64
}

// tempoSegments returns the tempo map as segments with cumulative seconds;
// the first starts at tick 0 (at the default tempo unless a change is at 0).
// Tempos must be sorted by tick; of several changes at one tick the last wins.
func (s *Score) tempoSegments() []tempoSegment {
	segs := make([]tempoSegment, 0, len(s.Tempos)+1)
	segs = append(segs, tempoSegment{0, 0, float64(DefaultMicrosPerBeat) / 1e6 / float64(s.TicksPerBeat)})
	for _, t := range s.Tempos {
		last := segs[len(segs)-1]
		sp := float64(t.MicrosPerBeat) / 1e6 / float64(s.TicksPerBeat)
		if t.Tick <= last.tick {
			segs[len(segs)-1].spt = sp
			continue
		}
		segs = append(segs, tempoSegment{t.Tick, last.sec + float64(t.Tick-last.tick)*last.spt, sp})
	}
	return segs
}

// segmentAt returns the index of the segment in force at tick.
func segmentAt(segs []tempoSegment, tick int64) int {
	i := sort.Search(len(segs), func(i int) bool { return segs[i].tick > tick }) - 1
	if i < 0 {
		i = 0
	}
	return i
}

// Seconds returns the duration of the score in seconds (to EndTick).
func (s *Score) Seconds() float64 { return s.TickToSeconds(s.EndTick) }
