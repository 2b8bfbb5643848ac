package midi

import (
	"cmp"
	"fmt"
	"io"
	"math/bits"
	"slices"

	"github.com/amtstudio/amt/engine/atomicfile"
)

// Write encodes the Score as a format 1 Standard MIDI File: a conductor
// track (the Title as its name, then tempo, time- and key-signature events)
// and one track per Score track (its Name, a program change on its Channel
// at tick 0, then its notes as note-on / note-on velocity 0 pairs with
// running status). Every track ends at max(EndTick, last note end).
//
// Parse(Write(s)) gives back s (with Format 1, SMFTracks len(Tracks)+1 and
// each Track's Source its position+1) when s's notes are sorted by tick,
// have velocities 1–127, and overlapping notes of one pitch in one track end
// in the order they start (the FIFO pairing Parse uses cannot tell them
// apart otherwise). Velocities outside 1–127 are clamped. Drums are written
// on the track's Channel (9 for General MIDI drums).
//
// Write returns an error wrapping ErrInvalidScore for what an SMF cannot
// hold: TicksPerBeat outside 1–32767, a channel outside 0–15, a program or
// pitch above 127, a negative tick or duration, a tempo outside
// 1–16777215 µs per beat, a meter denominator that is not a power of two up
// to 128 or numerator outside 1–255, a key beyond ±7 accidentals.
func (s *Score) Write(w io.Writer) error {
	b, err := s.encode()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// WriteFile writes the Score to path atomically: a temporary file in the
// same folder, fsync, then rename over path.
func WriteFile(path string, s *Score) error {
	b, err := s.encode()
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, b); err != nil {
		return fmt.Errorf("midi: write %s: %w", path, err)
	}
	return nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("midi: write: %w: %s", ErrInvalidScore, fmt.Sprintf(format, args...))
}

// trackBuf builds one MTrk chunk.
type trackBuf struct {
	b       []byte
	last    int64
	status  byte
	tooLong int64 // a delta that does not fit in a 4-byte VLQ, if any
}

// maxDelta is the largest delta time a 4-byte variable-length quantity holds.
const maxDelta = 0x0FFFFFFF

func (t *trackBuf) delta(tick int64) {
	d := tick - t.last
	t.last = tick
	if d > maxDelta {
		t.tooLong = d
	}
	t.b = appendVLQ(t.b, uint32(d))
}

func (t *trackBuf) meta(tick int64, typ byte, data []byte) {
	t.delta(tick)
	t.b = append(t.b, 0xFF, typ)
	t.b = appendVLQ(t.b, uint32(len(data)))
	t.b = append(t.b, data...)
	t.status = 0
}

func (t *trackBuf) channel(tick int64, st byte, data ...byte) {
	t.delta(tick)
	if st != t.status {
		t.b = append(t.b, st)
		t.status = st
	}
	t.b = append(t.b, data...)
}

func appendVLQ(b []byte, v uint32) []byte {
	var tmp [5]byte
	i := len(tmp) - 1
	tmp[i] = byte(v & 0x7F)
	for v >>= 7; v > 0; v >>= 7 {
		i--
		tmp[i] = byte(v&0x7F) | 0x80
	}
	return append(b, tmp[i:]...)
}

func (s *Score) encode() ([]byte, error) {
	if s.TicksPerBeat < 1 || s.TicksPerBeat > 0x7FFF {
		return nil, invalid("ticks per beat %d outside 1–32767", s.TicksPerBeat)
	}
	if len(s.Tracks)+1 > 0xFFFF {
		return nil, invalid("%d tracks (at most 65534)", len(s.Tracks))
	}
	const maxTick = 1 << 40 // far beyond any piece; deltas are checked against maxDelta as they are written
	end := s.EndTick
	for ti := range s.Tracks {
		t := &s.Tracks[ti]
		if t.Channel < 0 || t.Channel > 15 {
			return nil, invalid("track %d: channel %d outside 0–15", ti, t.Channel)
		}
		if t.Program < 0 || t.Program > 127 {
			return nil, invalid("track %d: program %d outside 0–127", ti, t.Program)
		}
		for i, n := range t.Notes {
			if n.Pitch > 127 {
				return nil, invalid("track %d: note %d: pitch %d above 127", ti, i, n.Pitch)
			}
			if n.Tick < 0 || n.Dur < 0 || n.Tick > maxTick || n.Dur > maxTick {
				return nil, invalid("track %d: note %d: tick %d, duration %d", ti, i, n.Tick, n.Dur)
			}
			end = max(end, n.Tick+n.Dur)
		}
	}
	type metaEv struct {
		tick int64
		typ  byte
		data [4]byte
		n    int
	}
	var metas []metaEv
	for i, t := range s.Tempos {
		if t.MicrosPerBeat < 1 || t.MicrosPerBeat > 0xFFFFFF || t.Tick < 0 {
			return nil, invalid("tempo %d: %d µs per beat at tick %d", i, t.MicrosPerBeat, t.Tick)
		}
		m := t.MicrosPerBeat
		metas = append(metas, metaEv{t.Tick, 0x51, [4]byte{byte(m >> 16), byte(m >> 8), byte(m)}, 3})
	}
	for i, mc := range s.Meters {
		if mc.Num < 1 || mc.Num > 255 || mc.Den < 1 || mc.Den > 128 || bits.OnesCount(uint(mc.Den)) != 1 || mc.Tick < 0 {
			return nil, invalid("meter %d: %d/%d at tick %d", i, mc.Num, mc.Den, mc.Tick)
		}
		metas = append(metas, metaEv{mc.Tick, 0x58, [4]byte{byte(mc.Num), byte(bits.TrailingZeros(uint(mc.Den))), 24, 8}, 4})
	}
	for i, k := range s.Keys {
		if k.Sharps < -7 || k.Sharps > 7 || k.Tick < 0 {
			return nil, invalid("key %d: %d sharps at tick %d", i, k.Sharps, k.Tick)
		}
		mi := byte(0)
		if k.Minor {
			mi = 1
		}
		metas = append(metas, metaEv{k.Tick, 0x59, [4]byte{byte(int8(k.Sharps)), mi}, 2})
	}
	for _, m := range metas {
		end = max(end, m.tick)
	}
	slices.SortStableFunc(metas, func(a, b metaEv) int { return cmp.Compare(a.tick, b.tick) })

	out := make([]byte, 0, 64+16*s.NoteCount()+len(metas)*8)
	out = append(out, "MThd"...)
	out = append(out, 0, 0, 0, 6, 0, 1)
	out = append(out, byte((len(s.Tracks)+1)>>8), byte(len(s.Tracks)+1))
	out = append(out, byte(s.TicksPerBeat>>8), byte(s.TicksPerBeat))

	var tb trackBuf
	flush := func() error {
		tb.meta(end, 0x2F, nil)
		if tb.tooLong > 0 {
			return invalid("a gap of %d ticks between events exceeds the SMF maximum delta %d", tb.tooLong, maxDelta)
		}
		if uint64(len(tb.b)) > 0xFFFFFFFF {
			return invalid("track too long")
		}
		n := len(tb.b)
		out = append(out, "MTrk"...)
		out = append(out, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
		out = append(out, tb.b...)
		tb = trackBuf{b: tb.b[:0]}
		return nil
	}
	if s.Title != "" {
		tb.meta(0, 0x03, []byte(s.Title))
	}
	for _, m := range metas {
		tb.meta(m.tick, m.typ, m.data[:m.n])
	}
	if err := flush(); err != nil {
		return nil, err
	}

	type noteEv struct {
		tick  int64
		class int8 // 0: end of a note with duration, 1: onset, 2: end of a zero-length note
		pitch uint8
		vel   uint8
	}
	var evs []noteEv
	for ti := range s.Tracks {
		t := &s.Tracks[ti]
		if t.Name != "" {
			tb.meta(0, 0x03, []byte(t.Name))
		}
		ch := byte(t.Channel)
		tb.channel(0, 0xC0|ch, byte(t.Program))
		evs = evs[:0]
		for _, n := range t.Notes {
			v := min(max(n.Velocity, 1), 127)
			evs = append(evs, noteEv{n.Tick, 1, n.Pitch, v})
			c := int8(0)
			if n.Dur == 0 {
				c = 2
			}
			evs = append(evs, noteEv{n.Tick + n.Dur, c, n.Pitch, 0})
		}
		slices.SortStableFunc(evs, func(a, b noteEv) int {
			if c := cmp.Compare(a.tick, b.tick); c != 0 {
				return c
			}
			return cmp.Compare(a.class, b.class)
		})
		for _, e := range evs {
			tb.channel(e.tick, 0x90|ch, e.pitch, e.vel)
		}
		if err := flush(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
