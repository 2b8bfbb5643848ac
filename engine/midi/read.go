package midi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/amtstudio/amt/engine/userfile"
)

// Limits of what Parse takes. Real files are far below them (POP909's
// largest is 64 KB with 8 tracks); they bound the memory a hostile file can
// ask for (a 31 MB file of 4.5 M one-note tracks took 1.4 GB to hold).
const (
	// MaxFileSize is the largest file Parse reads.
	MaxFileSize = 64 << 20
	// MaxTracks is the most Score tracks (SMF track × channel × program)
	// a file may make.
	MaxTracks = 1 << 16
)

// ReadFile reads and parses the Standard MIDI File at path. Errors name the
// path (see Parse). A file over MaxFileSize is refused before it is read.
// It is ReadFileContext without a way to stop.
func ReadFile(path string) (*Score, error) { return ReadFileContext(context.Background(), path) }

// ReadFileContext reads and parses the Standard MIDI File at path: a
// regular file, or a stream (a named pipe, /dev/stdin, a terminal) read to
// its end. It never waits on the open (userfile.Open: a FIFO with no writer
// reads as empty), reads at most MaxFileSize bytes (a larger regular file
// is refused before it is read, a stream that goes on is cut off: both
// ErrUnsupported), and returns ctx's error when ctx ends while a stream
// waits for data. Folders and block devices are refused.
func ReadFileContext(ctx context.Context, path string) (*Score, error) {
	f, fi, err := userfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("midi: %w", err)
	}
	defer f.Close()
	if fi.Mode().IsRegular() && fi.Size() > MaxFileSize {
		return nil, &Error{File: path, Track: -1, Offset: -1, Err: fmt.Errorf("%w: %d bytes, more than the %d MB a MIDI file may have", ErrUnsupported, fi.Size(), MaxFileSize>>20)}
	}
	data, err := userfile.ReadAll(ctx, f, path, MaxFileSize)
	if errors.Is(err, userfile.ErrTooLarge) {
		return nil, &Error{File: path, Track: -1, Offset: -1, Err: fmt.Errorf("%w: a %s of more than the %d MB a MIDI file may have", ErrUnsupported, userfile.Kind(fi.Mode()), MaxFileSize>>20)}
	}
	if err != nil {
		return nil, fmt.Errorf("midi: %w", err)
	}
	return Parse(path, data)
}

// Parse decodes a Standard MIDI File (format 0 or 1, metrical time division)
// into a Score. name is used in errors only. Parse never panics and never
// allocates from a declared length: every length is checked against the
// bytes actually present first. It does not keep a reference to data.
//
// What it reads, in one pass over each track chunk:
//   - channel messages with running status (meta and sysex events cancel it,
//     as the SMF specification says); sysex (F0 and F7) and unknown meta
//     events are skipped; unknown chunk types are skipped;
//   - tempo, time-signature and key-signature meta events from every track,
//     sorted by tick (stable: of events at one tick, track order is kept).
//     Malformed ones (tempo 0, a meter with numerator 0 or a denominator
//     above 2^7, a key beyond ±7 accidentals) are ignored;
//   - program changes per channel and track. Notes go to one Score Track per
//     (SMF track, channel, program in force at the note-on). A channel that
//     plays before any program change in its own track takes the earliest
//     program change for that channel anywhere in the file (lowest tick,
//     then lowest track) if it comes no later than the channel's first note
//     there, else program 0. Channel 9 is drums;
//   - note pairing: a note-on with velocity 0 is a note-off. Overlapping
//     notes of one pitch on one channel pair FIFO: each note-off ends the
//     oldest sounding note of that (channel, pitch) in the same SMF track.
//     Note-offs with nothing sounding are ignored; notes still sounding at
//     the end of their track end there.
//
// A track chunk must hold at least one event; one that ends without an
// end-of-track event is accepted when its last event ends exactly at the
// chunk's end. Bytes after an end-of-track event inside the chunk are
// ignored.
//
// Parse runs in time linear in the file: each event costs O(1) however many
// notes of one key overlap or however many (channel, program) tracks an SMF
// track opens (TestParseLinear* count the steps), and it allocates at most
// a constant times the file's size.
//
// Tracks are ordered by SMF track, then by their first note; each track's
// notes are sorted by onset (ties keep file order). Tracks without notes are
// not kept. Start and Duration are filled through the tempo map.
func Parse(name string, data []byte) (*Score, error) {
	p := parserPool.Get().(*parser)
	s, err := p.parse(name, data)
	p.release()
	return s, err
}

// rawNote is a note while its file is being read.
type rawNote struct {
	tick  int64
	dur   int64 // -1 while sounding
	group int32
	key   uint16 // channel<<7 | pitch
	vel   uint8
}

// noteGroup is one future Score Track: the notes of one SMF track, channel
// and program.
type noteGroup struct {
	source  int
	channel int
	program int   // -1: no program change in its track before its first note
	first   int64 // tick of its first note
	final   int   // index of the Score Track after merging
	name    string
}

type parser struct {
	name   string
	data   []byte
	notes  []rawNote
	groups []noteGroup
	// extra holds the sounding notes beyond the oldest of their key, as one
	// FIFO queue per key linked through next; qhead and qtail hold, per
	// key, 1 + the index in extra of the queue's first and last entry (0:
	// empty). A note-on and a note-off each cost O(1) however many notes of
	// one key overlap (a front-deleting slice made 1 M overlapping notes
	// quadratic: 76 s).
	extra  []queued
	qhead  [16 * 128]int32
	qtail  [16 * 128]int32
	counts []int
	fin    []int32
	// open holds, per channel<<7|pitch, 1 + the index in notes of the oldest
	// sounding note of that key (0: none). All zero between tracks.
	open [16 * 128]int32
	// gidx holds, per channel and program (128: none yet), 1 + the index
	// in groups of that group of the current SMF track (0: none). All zero
	// between tracks.
	gidx      [16][129]int32
	probes    int // search steps and moved elements (tests check they stay linear in the events)
	firstProg [16]struct {
		tick int64
		prog int
		set  bool
	}
}

// queued is one entry of a key's queue of overlapping sounding notes.
type queued struct {
	note int32 // index in notes
	next int32 // 1 + index in extra of the next entry of the key (0: last)
}

var parserPool = sync.Pool{New: func() any { return new(parser) }}

func (p *parser) release() {
	p.name, p.data = "", nil
	if cap(p.notes) > 1<<20 {
		p.notes = nil // do not keep a giant buffer alive in the pool
	}
	p.notes = p.notes[:0]
	clear(p.groups) // drop name strings
	p.groups = p.groups[:0]
	p.extra = p.extra[:0]
	p.firstProg = [16]struct {
		tick int64
		prog int
		set  bool
	}{}
	parserPool.Put(p)
}

func (p *parser) fail(track int, off int, err error) error {
	clear(p.open[:])
	clear(p.qhead[:])
	clear(p.qtail[:])
	clear(p.gidx[:])
	return &Error{File: p.name, Track: track, Offset: int64(off), Err: err}
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
func be16(b []byte) int { return int(b[0])<<8 | int(b[1]) }

func (p *parser) parse(name string, data []byte) (*Score, error) {
	p.name, p.data = name, data
	p.probes = 0
	if len(data) < 4 || string(data[:4]) != "MThd" {
		return nil, p.fail(-1, -1, ErrNotSMF)
	}
	if len(data) > MaxFileSize {
		return nil, p.fail(-1, -1, fmt.Errorf("%w: %d bytes, more than the %d MB a MIDI file may have", ErrUnsupported, len(data), MaxFileSize>>20))
	}
	if len(data) < 14 {
		return nil, p.fail(-1, len(data), fmt.Errorf("%w header (%d bytes, need 14)", ErrTruncated, len(data)))
	}
	hlen := be32(data[4:])
	if hlen < 6 {
		return nil, p.fail(-1, 4, fmt.Errorf("%w: header chunk length %d (need at least 6)", ErrMalformed, hlen))
	}
	if uint64(hlen) > uint64(len(data)-8) {
		return nil, p.fail(-1, 4, fmt.Errorf("%w header: chunk declares %d bytes, %d left", ErrTruncated, hlen, len(data)-8))
	}
	format, ntrk, div := be16(data[8:]), be16(data[10:]), be16(data[12:])
	switch format {
	case 0, 1:
	case 2:
		return nil, p.fail(-1, 8, fmt.Errorf("%w: SMF format 2 (independent sequences)", ErrUnsupported))
	default:
		return nil, p.fail(-1, 8, fmt.Errorf("%w: unknown SMF format %d", ErrMalformed, format))
	}
	if div&0x8000 != 0 {
		return nil, p.fail(-1, 12, fmt.Errorf("%w: SMPTE time division (%d frames/s × %d)", ErrUnsupported, -int(int8(div>>8)), div&0xFF))
	}
	if div == 0 {
		return nil, p.fail(-1, 12, fmt.Errorf("%w: time division of 0 ticks per beat", ErrMalformed))
	}
	s := &Score{Format: format, SMFTracks: ntrk, TicksPerBeat: div}
	// A note takes at least 6 bytes (onset and release with running
	// status), so this capacity is never outgrown.
	if want := len(data)/6 + 16; cap(p.notes) < want {
		p.notes = make([]rawNote, 0, want)
	}
	pos := 8 + int(hlen)
	for tr := 0; tr < ntrk; {
		if len(data)-pos < 8 {
			return nil, p.fail(tr, pos, fmt.Errorf("%w file: header declares %d tracks, chunk header of track %d missing", ErrTruncated, ntrk, tr))
		}
		clen := be32(data[pos+4:])
		body := pos + 8
		if uint64(clen) > uint64(len(data)-body) {
			return nil, p.fail(tr, pos, fmt.Errorf("%w chunk: declares %d bytes, %d left", ErrTruncated, clen, len(data)-body))
		}
		end := body + int(clen)
		if string(data[pos:pos+4]) != "MTrk" {
			for _, c := range data[pos : pos+4] {
				if c < 0x20 || c > 0x7E {
					return nil, p.fail(tr, pos, fmt.Errorf("%w: expected a chunk, found bytes % X", ErrMalformed, data[pos:pos+4]))
				}
			}
			pos = end // an unknown chunk type: skip it, as the specification says
			continue
		}
		if err := p.track(s, tr, body, end); err != nil {
			return nil, err
		}
		tr++
		pos = end
	}
	p.finish(s)
	return s, nil
}

// track reads one MTrk chunk body data[start:end].
func (p *parser) track(s *Score, tr, start, end int) error {
	d := p.data[:end]
	pos := start
	var tick int64
	var status byte
	var prog [16]int16
	var cur [16]int32
	for i := range prog {
		prog[i], cur[i] = -1, -1
	}
	firstGroup := int32(len(p.groups))
	notes := p.notes // local copy for the hot loop; written back below
	defer func() { p.notes = notes }()
	open := &p.open
	firstNote := len(notes)
	sounding := 0
	name, named := "", false

	if start == end {
		return p.fail(tr, start-8, fmt.Errorf("%w: empty track chunk (not even an end-of-track event)", ErrMalformed))
	}
	for pos < end {
		ev := pos
		// Delta time: a variable-length quantity of at most 4 bytes.
		if c := d[pos]; c < 0x80 {
			tick += int64(c)
			pos++
		} else {
			v, np, err := vlq(d, pos)
			if err != nil {
				return p.fail(tr, ev, err)
			}
			tick += int64(v)
			pos = np
		}
		if pos >= end {
			return p.fail(tr, ev, fmt.Errorf("%w event", ErrTruncated))
		}
		st := d[pos]
		if st >= 0x80 {
			pos++
			if st >= 0xF0 {
				status = 0
				switch st {
				case 0xFF:
					if pos >= end {
						return p.fail(tr, ev, fmt.Errorf("%w event", ErrTruncated))
					}
					typ := d[pos]
					n, np, err := vlq(d, pos+1)
					if err != nil {
						return p.fail(tr, ev, err)
					}
					if uint64(n) > uint64(end-np) {
						return p.fail(tr, ev, fmt.Errorf("%w event: meta event declares %d bytes, %d left in track", ErrTruncated, n, end-np))
					}
					m := d[np : np+int(n)]
					pos = np + int(n)
					switch typ {
					case 0x2F: // end of track: anything after it in the chunk is ignored
						end = pos
					case 0x51:
						if len(m) >= 3 {
							if mpb := int(m[0])<<16 | int(m[1])<<8 | int(m[2]); mpb > 0 {
								s.Tempos = append(s.Tempos, TempoChange{Tick: tick, MicrosPerBeat: mpb})
							}
						}
					case 0x58:
						if len(m) == 4 && m[0] > 0 && m[1] <= 7 {
							s.Meters = append(s.Meters, MeterChange{Tick: tick, Num: int(m[0]), Den: 1 << m[1]})
						}
					case 0x59:
						if sf := int(int8(m0(m))); len(m) == 2 && sf >= -7 && sf <= 7 && m[1] <= 1 {
							s.Keys = append(s.Keys, KeyChange{Tick: tick, Sharps: sf, Minor: m[1] == 1})
						}
					case 0x03:
						if !named {
							name, named = string(m), true
						}
						if tr == 0 && s.Title == "" {
							s.Title = name
						}
					case 0x01:
						if tr == 0 && s.Title == "" && len(m) > 0 {
							s.Title = string(m)
						}
					}
				case 0xF0, 0xF7:
					n, np, err := vlq(d, pos)
					if err != nil {
						return p.fail(tr, ev, err)
					}
					if uint64(n) > uint64(end-np) {
						return p.fail(tr, ev, fmt.Errorf("%w event: sysex declares %d bytes, %d left in track", ErrTruncated, n, end-np))
					}
					pos = np + int(n)
				default:
					return p.fail(tr, ev, fmt.Errorf("%w: status byte 0x%02X is not allowed in a track", ErrMalformed, st))
				}
				continue
			}
			status = st
		} else if status == 0 {
			return p.fail(tr, ev, fmt.Errorf("%w: data byte 0x%02X without running status", ErrMalformed, st))
		} else {
			st = status
		}
		ch := st & 0x0F
		switch st >> 4 {
		case 0x8, 0x9:
			if pos+2 > end {
				return p.fail(tr, ev, fmt.Errorf("%w event", ErrTruncated))
			}
			k, v := d[pos], d[pos+1]
			pos += 2
			if (k|v)&0x80 != 0 {
				return p.fail(tr, ev, fmt.Errorf("%w: data byte above 0x7F in note message % X", ErrMalformed, []byte{st, k, v}))
			}
			key := uint16(ch)<<7 | uint16(k)
			if st>>4 == 0x9 && v > 0 {
				g := cur[ch]
				if g < 0 {
					if g = p.group(tr, int(ch), int(prog[ch]), firstGroup, tick); g < 0 {
						return p.fail(tr, ev, fmt.Errorf("%w: more than %d instrument tracks (track × channel × program)", ErrUnsupported, MaxTracks))
					}
					cur[ch] = g
				}
				idx := int32(len(notes))
				notes = append(notes, rawNote{tick: tick, dur: -1, group: g, key: key, vel: v})
				if open[key] == 0 {
					open[key] = idx + 1
				} else {
					p.enqueue(key, idx)
				}
				sounding++
			} else if o := open[key]; o != 0 {
				n := &notes[o-1]
				n.dur = tick - n.tick
				open[key] = 0
				sounding--
				if p.qhead[key] != 0 {
					p.promote(key)
				}
			}
		case 0xA, 0xB, 0xE:
			if pos+2 > end {
				return p.fail(tr, ev, fmt.Errorf("%w event", ErrTruncated))
			}
			if (d[pos]|d[pos+1])&0x80 != 0 {
				return p.fail(tr, ev, fmt.Errorf("%w: data byte above 0x7F in channel message % X", ErrMalformed, []byte{st, d[pos], d[pos+1]}))
			}
			pos += 2
		case 0xC, 0xD:
			if pos+1 > end {
				return p.fail(tr, ev, fmt.Errorf("%w event", ErrTruncated))
			}
			v := d[pos]
			pos++
			if v&0x80 != 0 {
				return p.fail(tr, ev, fmt.Errorf("%w: data byte above 0x7F in channel message % X", ErrMalformed, []byte{st, v}))
			}
			if st>>4 == 0xC {
				prog[ch], cur[ch] = int16(v), -1
				if fp := &p.firstProg[ch]; !fp.set || tick < fp.tick {
					fp.tick, fp.prog, fp.set = tick, int(v), true
				}
			}
		}
	}
	// Notes still sounding end with the track.
	if sounding > 0 {
		for i := firstNote; i < len(notes); i++ {
			if n := &notes[i]; n.dur < 0 {
				n.dur = tick - n.tick
				open[n.key] = 0
			}
		}
		for _, e := range p.extra {
			k := notes[e.note].key
			p.qhead[k], p.qtail[k] = 0, 0
		}
		p.extra = p.extra[:0]
	}
	for g := int(firstGroup); g < len(p.groups); g++ {
		x := &p.groups[g]
		x.name = name
		p.gidx[x.channel][progSlot(x.program)] = 0
	}
	s.EndTick = max(s.EndTick, tick)
	return nil
}

func m0(m []byte) byte {
	if len(m) == 0 {
		return 0
	}
	return m[0]
}

// vlq reads a variable-length quantity (at most 4 bytes) at d[pos:].
func vlq(d []byte, pos int) (v uint32, next int, err error) {
	for i := 0; i < 4; i++ {
		if pos >= len(d) {
			return 0, pos, fmt.Errorf("%w event", ErrTruncated)
		}
		c := d[pos]
		pos++
		v = v<<7 | uint32(c&0x7F)
		if c < 0x80 {
			return v, pos, nil
		}
	}
	return 0, pos, fmt.Errorf("%w variable-length quantity (more than 4 bytes)", ErrMalformed)
}

// enqueue appends note idx to the queue of key's overlapping notes.
func (p *parser) enqueue(key uint16, idx int32) {
	p.extra = append(p.extra, queued{note: idx})
	e := int32(len(p.extra))
	if t := p.qtail[key]; t != 0 {
		p.extra[t-1].next = e
	} else {
		p.qhead[key] = e
	}
	p.qtail[key] = e
}

// promote makes the oldest queued sounding note of key the open one (FIFO).
func (p *parser) promote(key uint16) {
	p.probes++
	e := p.extra[p.qhead[key]-1]
	p.open[key] = e.note + 1
	p.qhead[key] = e.next
	if e.next == 0 {
		p.qtail[key] = 0
	}
}

// progSlot is the gidx column of a program (-1, none yet, is 128).
func progSlot(prog int) int {
	if prog < 0 {
		return 128
	}
	return prog
}

// group returns the group for (track, channel, program), creating it; -1
// when that would make more than MaxTracks.
func (p *parser) group(tr, ch, prog int, first int32, tick int64) int32 {
	p.probes++
	slot := &p.gidx[ch][progSlot(prog)]
	if *slot != 0 {
		return *slot - 1
	}
	if len(p.groups) >= MaxTracks {
		return -1
	}
	p.groups = append(p.groups, noteGroup{source: tr, channel: ch, program: prog, first: tick})
	*slot = int32(len(p.groups))
	return *slot - 1
}

// finish resolves programs, merges groups into Score Tracks, lays the notes
// out in one allocation and computes seconds.
func (p *parser) finish(s *Score) {
	gs := p.groups
	for i := range gs {
		if gs[i].program < 0 {
			gs[i].program = 0
			if fp := p.firstProg[gs[i].channel]; fp.set && fp.tick <= gs[i].first {
				gs[i].program = fp.prog
			}
		}
	}
	// Groups of one SMF track are contiguous; after resolving programs two
	// of them may share (channel, program) and merge. gidx (all zero
	// between tracks) maps (channel, program) to 1 + the final track within
	// the current SMF track, and is cleared again for the next one.
	nt := 0
	for lo := 0; lo < len(gs); {
		hi := lo
		for hi < len(gs) && gs[hi].source == gs[lo].source {
			g := &gs[hi]
			p.probes++
			slot := &p.gidx[g.channel][g.program]
			if *slot == 0 {
				*slot = int32(nt + 1)
				nt++
			}
			g.final = int(*slot - 1)
			hi++
		}
		for i := lo; i < hi; i++ {
			p.gidx[gs[i].channel][gs[i].program] = 0
		}
		lo = hi
	}
	if nt > 0 {
		// fin: final track per group; pos: next free slot per final track.
		fin := p.fin[:0]
		for i := range gs {
			fin = append(fin, int32(gs[i].final))
		}
		pos := p.counts[:0]
		for range nt + 1 {
			pos = append(pos, 0)
		}
		p.fin, p.counts = fin, pos
		notes := p.notes
		for i := range notes {
			pos[fin[notes[i].group]+1]++
		}
		for i := 1; i <= nt; i++ {
			pos[i] += pos[i-1]
		}
		s.Tracks = make([]Track, nt)
		all := make([]Note, len(notes))
		for i := range gs {
			g := &gs[i]
			if t := &s.Tracks[g.final]; t.Notes == nil {
				a, b := pos[g.final], pos[g.final+1]
				*t = Track{Name: g.name, Source: g.source, Channel: g.channel, Program: g.program,
					IsDrum: g.channel == 9, Notes: all[a:b:b]}
			}
		}
		for i := range notes {
			n := &notes[i]
			f := fin[n.group]
			j := pos[f]
			pos[f] = j + 1
			all[j] = Note{Tick: n.tick, Dur: n.dur, Pitch: uint8(n.key & 0x7F), Velocity: n.vel}
		}
	}
	byTick := func(a, b int64) int { return cmp.Compare(a, b) }
	if !slices.IsSortedFunc(s.Tempos, func(a, b TempoChange) int { return byTick(a.Tick, b.Tick) }) {
		slices.SortStableFunc(s.Tempos, func(a, b TempoChange) int { return byTick(a.Tick, b.Tick) })
	}
	if !slices.IsSortedFunc(s.Meters, func(a, b MeterChange) int { return byTick(a.Tick, b.Tick) }) {
		slices.SortStableFunc(s.Meters, func(a, b MeterChange) int { return byTick(a.Tick, b.Tick) })
	}
	if !slices.IsSortedFunc(s.Keys, func(a, b KeyChange) int { return byTick(a.Tick, b.Tick) }) {
		slices.SortStableFunc(s.Keys, func(a, b KeyChange) int { return byTick(a.Tick, b.Tick) })
	}
	s.ComputeSeconds()
}
