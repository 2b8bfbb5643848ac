package synth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/amtstudio/amt/engine/midi"
)

// PCM is interleaved float32 audio.
type PCM struct {
	SampleRate int
	Channels   int       // 2 for everything the synthesizers render
	Samples    []float32 // frame-major: L, R, L, R, …
}

// Frames returns the number of frames.
func (p *PCM) Frames() int {
	if p.Channels <= 0 {
		return 0
	}
	return len(p.Samples) / p.Channels
}

// Seconds returns the duration.
func (p *PCM) Seconds() float64 {
	if p.SampleRate <= 0 {
		return 0
	}
	return float64(p.Frames()) / float64(p.SampleRate)
}

// Peak returns the largest absolute sample value.
func (p *PCM) Peak() float64 {
	var m float32
	for _, v := range p.Samples {
		if v < 0 {
			v = -v
		}
		if v > m {
			m = v
		}
	}
	return float64(m)
}

// RMS returns the root mean square over all samples.
func (p *PCM) RMS() float64 {
	if len(p.Samples) == 0 {
		return 0
	}
	var s float64
	for _, v := range p.Samples {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(len(p.Samples)))
}

// Synth is a live instrument: MIDI-like events in, stereo samples out.
// Channels are small integers (a Score's track index when rendering a
// Score); each keeps its own program, controllers and pitch bend. A Synth
// is not safe for concurrent use.
type Synth interface {
	SampleRate() int
	// Program selects the instrument of a channel: a General MIDI program
	// 0–127, or a drum kit when drum is true (SoundFont bank 128).
	Program(ch, program int, drum bool)
	NoteOn(ch, key, velocity int)
	NoteOff(ch, key int)
	// Control applies a MIDI controller: 1 modulation wheel, 7 volume,
	// 10 pan, 11 expression, 64 sustain pedal, 91 reverb and 93 chorus
	// send, 120 all sound off, 121 reset controllers, 123 all notes off.
	Control(ch, cc, value int)
	// PitchBend sets a channel's bend, −8192…8191 (± 2 semitones by default).
	PitchBend(ch, bend int)
	// Process renders the next len(dst)/2 frames (L, R interleaved),
	// overwriting dst.
	Process(dst []float32)
	// Active returns the number of sounding voices.
	Active() int
	// Reset silences everything and restores every channel's defaults.
	Reset()
}

// Renderer turns Scores into audio with one synthesizer. A Renderer is safe
// for concurrent use: every Render or Stream gets its own Synth.
type Renderer interface {
	// Name describes the synthesizer ("TimGM6mb (SoundFont)" or "built-in").
	Name() string
	SampleRate() int
	// NewSynth returns a fresh instrument for live events.
	NewSynth() Synth
	// Render renders a whole Score, release tails included; a Score
	// CheckScore refuses is an error.
	Render(ctx context.Context, s *midi.Score) (*PCM, error)
	// Stream prepares block-by-block rendering of a Score for playback.
	Stream(s *midi.Score) *Stream
}

// MaxTail bounds the rendering after the last note-off while voices ring.
const MaxTail = 4.0

// MaxSeconds bounds a render: the last note of a Score must end by then
// (48 hours; the stream runs up to MaxTail longer). A piece is hours at
// most, and a WAV file holds under 7 at 44.1 kHz; a note days in is a
// tick or tempo gone wrong. CheckScore applies it before any work: a note
// at 10⁶ s used to be dropped by NewStream without a word (a 0:00 WAV,
// exit 0) where one at 9×10⁵ s was refused.
const MaxSeconds = 48 * 3600

// ErrTooLong is returned (wrapped) by CheckScore and Render for a Score
// whose last note ends after MaxSeconds.
var ErrTooLong = errors.New("too long to render")

// ErrNoteTime is returned (wrapped) by CheckScore and Render for a note
// whose start is negative or not a number (only a Score built in memory
// can have one).
var ErrNoteTime = errors.New("a note's time is not a time")

// CheckScore returns an error naming the first note that NewStream could
// not schedule: one that ends after MaxSeconds (ErrTooLong, with its time
// and the bound), or whose start is negative or not finite (ErrNoteTime). Callers check before building a Stream; NewStream leaves
// such notes out.
func CheckScore(s *midi.Score) error {
	if s == nil {
		return nil
	}
	times := noteTimes(s)
	worst, wt, wn := 0.0, 0, 0
	for ti := range s.Tracks {
		for ni, n := range s.Tracks[ti].Notes {
			start, dur := times(n)
			if !(start >= 0) || math.IsInf(start, 0) {
				return fmt.Errorf("track %d note %d (pitch %d) starts at %g s: %w", ti+1, ni+1, n.Pitch, start, ErrNoteTime)
			}
			if end := start + dur; end > worst {
				worst, wt, wn = end, ti, ni
			}
		}
	}
	if worst > MaxSeconds {
		return fmt.Errorf("track %d note %d (pitch %d) ends at %.0f s (%.1f h): %w: a render lasts at most %d s (%d h)",
			wt+1, wn+1, s.Tracks[wt].Notes[wn].Pitch, worst, worst/3600, ErrTooLong, MaxSeconds, MaxSeconds/3600)
	}
	return nil
}

// noteTimes returns how NewStream times a Score's notes, start and length
// in seconds: from Note.Start and Note.Duration, or from the ticks and
// tempo map when the Score has no times filled in. A length that is not
// positive is 0.01 s: zero-length notes still sound briefly.
func noteTimes(s *midi.Score) func(n midi.Note) (start, dur float64) {
	useTicks := s.TicksPerBeat > 0
	for i := range s.Tracks {
		for _, n := range s.Tracks[i].Notes {
			if n.Start != 0 || n.Duration != 0 {
				useTicks = false
				break
			}
		}
	}
	c := *s
	c.Tracks = nil
	return func(n midi.Note) (float64, float64) {
		start, dur := n.Start, n.Duration
		if useTicks {
			start = c.TickToSeconds(n.Tick)
			dur = c.TickToSeconds(n.Tick+n.Dur) - start
		}
		if !(dur > 0) {
			dur = 0.01
		}
		return start, dur
	}
}

// event is one scheduled synth call.
type event struct {
	frame int64
	kind  uint8 // evOff sorts before evOn at the same frame
	ch    int32
	key   uint8
	vel   uint8
}

const (
	evOff = iota
	evOn
)

type chanSetup struct {
	program int
	drum    bool
	notes   int
}

// Stream renders a Score block by block. Read fills the next frames; SeekFrame
// moves anywhere (notes sounding across the seek point restart at their
// next onset). A Stream is not safe for concurrent use.
type Stream struct {
	synth  Synth
	rate   int
	chans  []chanSetup
	events []event
	next   int
	pos    int64   // frames rendered
	last   int64   // frame of the last note-off
	limit  int64   // hard end: last + MaxTail
	env    float32 // the limiter's peak envelope
}

// Limit is the output ceiling: the stream's peak limiter keeps every sample
// within ±Limit. Many notes at full velocity on one onset (a pile-up the
// model writes, a dense chord on several tracks) otherwise sum past full
// scale and clip in the WAV and the sound card. Audio that stays below the
// ceiling passes unchanged, bit for bit.
const Limit = 0.95

// limiterRelease is how fast the limiter's gain recovers (time constant).
const limiterRelease = 0.08 // seconds

// limitPeaks applies the peak limiter to interleaved stereo frames: the envelope
// follows the louder channel at once and falls back with limiterRelease;
// the gain is min(1, Limit/envelope), the same on both channels.
func (st *Stream) limitPeaks(buf []float32) {
	rel := float32(math.Exp(-1 / (limiterRelease * float64(st.rate))))
	env := st.env
	for i := 0; i+1 < len(buf); i += 2 {
		a := max(abs32(buf[i]), abs32(buf[i+1]))
		env = max(a, env*rel)
		if env > Limit {
			g := Limit / env
			buf[i] *= g
			buf[i+1] *= g
		}
	}
	st.env = env
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// NewStream schedules s on synth. Note times come from Note.Start and
// Note.Duration (seconds), or from the ticks and tempo map when the Score
// has no times filled in. Notes CheckScore refuses (ending after
// MaxSeconds, a time that is not one) are left out: callers check first.
func NewStream(synth Synth, s *midi.Score) *Stream {
	st := &Stream{synth: synth, rate: synth.SampleRate()}
	if s == nil {
		return st
	}
	times := noteTimes(s)
	rate := float64(st.rate)
	for ti := range s.Tracks {
		tr := &s.Tracks[ti]
		st.chans = append(st.chans, chanSetup{program: tr.Program, drum: tr.IsDrum, notes: len(tr.Notes)})
		for _, n := range tr.Notes {
			start, dur := times(n)
			if !(start >= 0) || !(start+dur <= MaxSeconds) || n.Pitch > 127 {
				continue
			}
			on := int64(start * rate)
			off := int64((start + dur) * rate)
			if off <= on {
				off = on + 1
			}
			vel := n.Velocity
			if vel == 0 {
				vel = 64
			}
			st.events = append(st.events,
				event{frame: on, kind: evOn, ch: int32(ti), key: n.Pitch, vel: min(vel, 127)},
				event{frame: off, kind: evOff, ch: int32(ti), key: n.Pitch})
			st.last = max(st.last, off)
		}
	}
	sort.SliceStable(st.events, func(i, j int) bool {
		a, b := st.events[i], st.events[j]
		if a.frame != b.frame {
			return a.frame < b.frame
		}
		return a.kind < b.kind
	})
	st.limit = st.last + int64(MaxTail*rate)
	st.setup()
	return st
}

func (st *Stream) setup() {
	st.synth.Reset()
	st.env = 0
	sounding := 0
	for _, c := range st.chans {
		if c.notes > 0 {
			sounding++
		}
	}
	vol := mixVolume(sounding)
	for ch, c := range st.chans {
		st.synth.Program(ch, c.program, c.drum)
		st.synth.Control(ch, 7, vol)
	}
}

// mixVolume is the channel volume (CC7) given to every track of a Score
// with n sounding tracks: 100 (the GM default) up to three tracks, lower
// beyond, so a dense arrangement keeps about the headroom of a piano trio
// (CC7 is a square law: amplitude ∝ (v/127)², here ∝ (3/n)^0.75).
func mixVolume(n int) int {
	if n <= 3 {
		return 100
	}
	return int(math.Round(100 * math.Pow(3/float64(n), 0.375)))
}

// SampleRate returns the output rate.
func (st *Stream) SampleRate() int { return st.rate }

// Position returns the frames rendered so far.
func (st *Stream) Position() int64 { return st.pos }

// Length returns the frame of the last note-off: the music's length
// without release tails (the stream may run up to MaxTail longer).
func (st *Stream) Length() int64 { return st.last }

// SeekFrame moves to frame, silencing whatever sounds.
func (st *Stream) SeekFrame(frame int64) {
	frame = max(0, frame)
	st.setup()
	st.pos = frame
	st.next = sort.Search(len(st.events), func(i int) bool { return st.events[i].frame >= frame })
}

// blockFrames is the largest span rendered between event checks.
const blockFrames = 256

// Read renders the next len(dst)/2 frames into dst (stereo interleaved) and
// returns the number of frames written. At the end it returns io.EOF: once
// every event is played and the voices are silent (or MaxTail has passed).
func (st *Stream) Read(dst []float32) (int, error) {
	want := len(dst) / 2
	done := 0
	for done < want {
		if st.next >= len(st.events) && (st.synth.Active() == 0 || st.pos >= st.limit) {
			return done, io.EOF
		}
		for st.next < len(st.events) && st.events[st.next].frame <= st.pos {
			e := st.events[st.next]
			if e.kind == evOn {
				st.synth.NoteOn(int(e.ch), int(e.key), int(e.vel))
			} else {
				st.synth.NoteOff(int(e.ch), int(e.key))
			}
			st.next++
		}
		n := int64(min(want-done, blockFrames))
		if st.next < len(st.events) {
			n = min(n, st.events[st.next].frame-st.pos)
		}
		if st.next >= len(st.events) {
			n = min(n, st.limit-st.pos)
		}
		if n <= 0 {
			n = 1
		}
		st.synth.Process(dst[2*done : 2*(done+int(n))])
		st.limitPeaks(dst[2*done : 2*(done+int(n))])
		done += int(n)
		st.pos += n
	}
	return done, nil
}

// MaxFrames returns an upper bound of the frames still to come: to the
// last note-off plus MaxTail. A caller checks it against its own limit
// (memory, the WAV format) before rendering.
func (st *Stream) MaxFrames() int64 { return max(0, st.limit-st.pos) }

// RenderTo renders a Stream to its end in blocks of at most 8,192 frames,
// passing each to sink (the slice is reused: sink copies what it keeps), so
// memory stays constant however long the piece. progress (if not nil) is
// called about every second of audio with the frames done and Length. It
// returns the frames rendered; it stops with ctx.Err() when cancelled and
// with sink's error when sink fails.
func RenderTo(ctx context.Context, st *Stream, sink func(block []float32) error, progress func(done, total int64)) (int64, error) {
	buf := make([]float32, 2*8192)
	var frames int64
	for i := 0; ; i++ {
		if i%8 == 0 {
			if err := ctx.Err(); err != nil {
				return frames, fmt.Errorf("synth: render: %w", err)
			}
			if progress != nil {
				progress(st.pos, st.last)
			}
		}
		n, err := st.Read(buf)
		if n > 0 {
			if serr := sink(buf[:2*n]); serr != nil {
				return frames, serr
			}
			frames += int64(n)
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if progress != nil {
		progress(st.last, st.last)
	}
	return frames, nil
}

// RenderStream renders a Stream to its end into memory (see RenderTo for
// progress and cancellation). Memory grows with the piece's length, 8
// bytes a frame: callers bound MaxFrames first, or use RenderTo.
func RenderStream(ctx context.Context, st *Stream, progress func(done, total int64)) (*PCM, error) {
	est := st.last - st.pos + int64(st.rate)
	if est < 0 || est > 1<<31 {
		est = 0
	}
	out := &PCM{SampleRate: st.rate, Channels: 2, Samples: make([]float32, 0, 2*est)}
	_, err := RenderTo(ctx, st, func(b []float32) error {
		out.Samples = append(out.Samples, b...)
		return nil
	}, progress)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// base implements Render and Stream on top of a Synth factory.
type base struct {
	name   string
	rate   int
	newSyn func() Synth
}

func (b *base) Name() string                 { return b.name }
func (b *base) SampleRate() int              { return b.rate }
func (b *base) NewSynth() Synth              { return b.newSyn() }
func (b *base) Stream(s *midi.Score) *Stream { return NewStream(b.newSyn(), s) }
func (b *base) Render(ctx context.Context, s *midi.Score) (*PCM, error) {
	if err := CheckScore(s); err != nil {
		return nil, fmt.Errorf("synth: render: %w", err)
	}
	return RenderStream(ctx, b.Stream(s), nil)
}

// validRate checks an output sample rate.
func validRate(rate int) int {
	if rate <= 0 {
		return 44100
	}
	return min(max(rate, 8000), 192000)
}

// controls is the controller state both synthesizers keep per MIDI channel
// (CC 1, 7, 10, 11, 64); each synthesizer adds what its voices need.
type controls struct {
	volume     int  // CC7
	expression int  // CC11
	pan        int  // CC10
	modWheel   int  // CC1
	sustain    bool // CC64 ≥ 64
}

// resetControls sets the General MIDI defaults (CC121, reset all controllers).
func (c *controls) resetControls() {
	*c = controls{volume: 100, expression: 127, pan: 64}
}

// set stores controller cc (value already clamped to 0–127) when it is one
// of these and reports whether it was.
func (c *controls) set(cc, value int) bool {
	switch cc {
	case 1:
		c.modWheel = value
	case 7:
		c.volume = value
	case 10:
		c.pan = value
	case 11:
		c.expression = value
	case 64:
		c.sustain = value >= 64
	default:
		return false
	}
	return true
}
