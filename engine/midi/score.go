// Package midi owns Standard MIDI File reading and writing, the Score model
// (tracks, notes, tempo map, meters, keys, programs, drums) and the metadata
// measured from a Score: Parse/ReadFile (a single-pass reader of its own,
// read.go), Write/WriteFile (write.go), Analyze and EstimateKey
// (metadata.go, key.go), General MIDI names (gm.go). gomidi
// (gitlab.com/gomidi/midi/v2) is used only by the tests, as the oracle the
// reader is checked against on the real corpora.
//
// # Meter and downbeats (meter.go)
//
// Files often declare a meter that is not the music's: POP909 declares 1/4
// in 693 of 909 songs, many files declare none, and POP909's notes sit a
// fraction of a beat off the file's tick grid. Prepare, which every path
// from a MIDI file to tokens calls (ingestion, amt tokenize, the MIDI-folder
// tokenizer of amt train, amt inspect), runs InferMeter, re-bars the score
// with Rebar when the declared meter gives way, and measures it with
// Analyze; the Metadata keeps the declared and the inferred meter.
//
// InferMeter works from the notes alone, in time linear in the notes and
// the piece's length (at most maxCells eighth notes, else it keeps the
// declared meter):
//
//   - the grid: eighth-note cells from the busiest onset residue (the
//     file's own grid unless at least twice as many onsets sit elsewhere);
//   - per cell: onsets, the deepest, longest and loudest onset, pitch-class
//     change (sounding notes, Jaccard, half- and whole-note windows), best
//     triad change (quarter and half notes), bass and snare drum;
//   - an emission per metrical level (bar line, half bar, other beats;
//     off-beat eighths 0) weighing those features, the weights tuned on
//     half of POP909 and half of Nottingham (TestMeterTune);
//   - the meter of the candidates 4/4, 3/4, 6/8 and 9/8 whose regular bars
//     (one phase per 48-cell window) collect the most emission, plus how
//     much the music repeats at its bar length, plus a prior per bar. 2/4,
//     2/2, 6/4 and 12/8 cannot be told from 4/4, 4/4, 3/4 and 6/8 by the
//     notes alone and are not inferred; 4/4 stands for duple time;
//   - the bar lines: a Viterbi path over the cells (state: position in the
//     bar) that may cut a bar short on a beat at a cost (Irregular), so a
//     2/4 bar inside a 4/4 song keeps the bar lines on the downbeats after it.
//
// The trust rule (decide): the declared meter gives way when it is
// implausible (no time signature, one-beat bars, a bar that is not a whole
// number of ticks, numerator or denominator above 16), when the notes are
// off its grid (a sub-beat offset), or when the notes contradict it: its bar
// lines do not coincide with the inferred ones (≥ 80% either way) and
// either the music repeats markedly better at the inferred bar length
// (repeatMargin) or the declared bar lines collect no more than 40% of what
// the inferred ones gain over bar lines laid at random (contradictShare) —
// in a piece without chords (a tune alone, a drum groove), whose notes mark
// the bar faintly, only when they also lose a clear amount to the inferred
// ones (contradictLoss).
// Otherwise the declared meter is kept, even where inference disagrees:
// on Nottingham, OpenMSX and Freedoom, whose declared meters are right,
// the rule re-bars 5 of 1,034, 1 of 25 and 4 of 36 files. A contradicted
// declared meter gets a second look (keepDeclared): exports from notation
// drop the pickup bar, so when the declared meter laid a pickup later
// agrees with the inferred bar lines, or a map's own changes say where its
// bar lines are, the declared meter stays with that pickup (the OpenScore
// Lieder keep their 2/4 and 12/8; TestMeterLieder checks the bar lines
// against the words).
//
// Rebar sets Meters to the inferred meter map and, when the first downbeat
// is not at tick 0, moves every event later by (bar − phase) mod bar, so a
// pickup becomes a first bar that starts with a rest.
//
// POP909's annotations: beat_midi.txt's beats lie on the file's tick grid
// (plus the offset); index.csv gives 2 beats per measure for 880 songs and
// 3 for 29. The meter inference aims at is 4/4 with bar lines on column 3
// (every other 2-beat downbeat) for the first, 3/4 with bar lines on column
// 2 for the second: the model should learn four-beat grouping. The
// annotations change bar length inside 775 songs (2-, 3-, 5-, 6-beat
// gaps between column-3 downbeats), so no single phase follows them, and in
// about one song in eight they put the downbeat one beat before the one the
// notes show (the bass and the piano onsets fall on annotated beat 2). See
// docs/METER.md for the measured rates and ceilings.
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
