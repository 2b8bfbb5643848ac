package midi

import (
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// hx decodes hex bytes written with spaces ("00 FF 2F 00"); a part in
// quotes is taken as text: hx(`00 FF 03 04 "Song"`).
func hx(t testing.TB, s string) []byte {
	t.Helper()
	var out []byte
	for i, part := range strings.Split(s, `"`) {
		if i%2 == 1 {
			out = append(out, part...)
			continue
		}
		b, err := hex.DecodeString(strings.Join(strings.Fields(part), ""))
		if err != nil {
			t.Fatalf("bad hex %q: %v", part, err)
		}
		out = append(out, b...)
	}
	return out
}

// smf assembles a file: the header fields, then each track body wrapped in
// an MTrk chunk with its length.
func smf(format, div int, tracks ...[]byte) []byte {
	b := []byte("MThd")
	b = append(b, 0, 0, 0, 6, byte(format>>8), byte(format), byte(len(tracks)>>8), byte(len(tracks)), byte(div>>8), byte(div))
	for _, tr := range tracks {
		n := len(tr)
		b = append(b, "MTrk"...)
		b = append(b, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
		b = append(b, tr...)
	}
	return b
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// handSong is a format 0 file at 96 ticks per beat whose every value below
// was worked out by hand.
func handSong(t testing.TB) []byte {
	return smf(0, 96, hx(t, `
		00 FF 03 04 "Song"
		00 FF 51 03 07 A1 20
		00 FF 58 04 03 02 18 08
		00 FF 59 02 FF 01
		00 C0 05
		00 90 3C 64
		00 40 50
		60 3C 00
		00 80 40 40
		00 FF 51 03 0F 42 40
		60 99 24 7F
		30 24 00
		30 90 43 20
		81 40 43 00
		00 FF 2F 00`))
	// ticks: tempo 120 bpm (500000 µs) at 0, 60 bpm (1000000 µs) at 96;
	// meter 3/4; key 1 flat minor = D minor; program 5 on channel 0;
	// C4+E4 (running status) 0–96; kick on channel 9 at 192 for 48;
	// G4 at 288 for 192 (delta 0x81 0x40 = 192); end at 480.
}

func TestParseHandBuilt(t *testing.T) {
	s, err := Parse("song.mid", handSong(t))
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != 0 || s.SMFTracks != 1 || s.TicksPerBeat != 96 || s.Title != "Song" || s.EndTick != 480 {
		t.Errorf("header: format %d tracks %d tpb %d title %q end %d", s.Format, s.SMFTracks, s.TicksPerBeat, s.Title, s.EndTick)
	}
	wantTempos := []TempoChange{{0, 500000}, {96, 1000000}}
	if !reflect.DeepEqual(s.Tempos, wantTempos) {
		t.Errorf("tempos %v, want %v", s.Tempos, wantTempos)
	}
	if !reflect.DeepEqual(s.Meters, []MeterChange{{0, 3, 4}}) {
		t.Errorf("meters %v", s.Meters)
	}
	if !reflect.DeepEqual(s.Keys, []KeyChange{{0, -1, true}}) || s.Keys[0].Tonic() != 2 {
		t.Errorf("keys %v", s.Keys)
	}
	if len(s.Tracks) != 2 {
		t.Fatalf("%d tracks, want 2: %+v", len(s.Tracks), s.Tracks)
	}
	piano, drums := s.Tracks[0], s.Tracks[1]
	if piano.Channel != 0 || piano.Program != 5 || piano.IsDrum || piano.Name != "Song" || piano.Source != 0 {
		t.Errorf("track 0: %+v", piano)
	}
	if drums.Channel != 9 || drums.Program != 0 || !drums.IsDrum {
		t.Errorf("track 1: %+v", drums)
	}
	// Seconds by hand: 96 ticks = 0.5 s before tick 96, 1 s after.
	wantPiano := []Note{
		{Tick: 0, Dur: 96, Pitch: 60, Velocity: 100, Start: 0, Duration: 0.5},
		{Tick: 0, Dur: 96, Pitch: 64, Velocity: 80, Start: 0, Duration: 0.5},
		{Tick: 288, Dur: 192, Pitch: 67, Velocity: 32, Start: 2.5, Duration: 2},
	}
	wantDrums := []Note{{Tick: 192, Dur: 48, Pitch: 36, Velocity: 127, Start: 1.5, Duration: 0.5}}
	checkNotes(t, "piano", piano.Notes, wantPiano)
	checkNotes(t, "drums", drums.Notes, wantDrums)
	if !near(s.Seconds(), 4.5) {
		t.Errorf("seconds %v, want 4.5", s.Seconds())
	}
}

func checkNotes(t *testing.T, what string, got, want []Note) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d notes, want %d: %+v", what, len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Tick != w.Tick || g.Dur != w.Dur || g.Pitch != w.Pitch || g.Velocity != w.Velocity ||
			!near(g.Start, w.Start) || !near(g.Duration, w.Duration) {
			t.Errorf("%s note %d: %+v, want %+v", what, i, g, w)
		}
	}
}

func TestParseOverlappingNotesFIFO(t *testing.T) {
	data := smf(0, 96, hx(t, `
		00 90 3C 40
		30 90 3C 50
		30 80 3C 00
		30 80 3C 00
		00 90 3E 40
		60 90 3E 41
		00 80 3E 00
		60 80 3E 00
		00 80 30 00
		00 90 30 22
		60 FF 2F 00`))
	// C4 at 0 (vel 64) and 48 (vel 80), offs at 96 and 144: FIFO gives
	// 0–96 and 48–144 (LIFO would give 0–144 and 48–96).
	// D4 at 144, a repeat written on-before-off at 240, last off at 336:
	// FIFO ends the first at 240 (96) and the second at 336 (96).
	// C3: a stray off is ignored; the on at 336 still sounds at the end
	// of track (432) and ends there.
	s, err := Parse("fifo.mid", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tracks) != 1 {
		t.Fatalf("%d tracks", len(s.Tracks))
	}
	sec := 0.5 / 96
	want := []Note{
		{Tick: 0, Dur: 96, Pitch: 60, Velocity: 64, Start: 0, Duration: 96 * sec},
		{Tick: 48, Dur: 96, Pitch: 60, Velocity: 80, Start: 48 * sec, Duration: 96 * sec},
		{Tick: 144, Dur: 96, Pitch: 62, Velocity: 64, Start: 144 * sec, Duration: 96 * sec},
		{Tick: 240, Dur: 96, Pitch: 62, Velocity: 65, Start: 240 * sec, Duration: 96 * sec},
		{Tick: 336, Dur: 96, Pitch: 48, Velocity: 34, Start: 336 * sec, Duration: 96 * sec},
	}
	checkNotes(t, "fifo", s.Tracks[0].Notes, want)
}

func TestParsePrograms(t *testing.T) {
	conductor := hx(t, `00 FF 03 02 "Hi" 00 C1 28 00 FF 2F 00`)
	// Track 1: channel 0 plays before any program change (it is set only
	// at tick 96, after its first note, so program 0), changes to 10 and
	// back to 0; channel 1 never gets a change here, so the conductor's
	// program 40 at tick 0 applies.
	body := hx(t, `
		00 FF 03 04 "Keys"
		00 90 3C 40
		00 91 48 40
		60 80 3C 00
		00 C0 0A
		00 90 3E 40
		60 80 3E 00
		00 C0 00
		00 90 40 40
		60 80 40 00
		00 81 48 00
		00 FF 2F 00`)
	s, err := Parse("prog.mid", smf(1, 96, conductor, body))
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "Hi" {
		t.Errorf("title %q", s.Title)
	}
	type tk struct {
		name          string
		src, ch, prog int
		pitches       []uint8
	}
	var got []tk
	for _, tr := range s.Tracks {
		var ps []uint8
		for _, n := range tr.Notes {
			ps = append(ps, n.Pitch)
		}
		got = append(got, tk{tr.Name, tr.Source, tr.Channel, tr.Program, ps})
	}
	want := []tk{
		{"Keys", 1, 0, 0, []uint8{60, 64}},
		{"Keys", 1, 1, 40, []uint8{72}},
		{"Keys", 1, 0, 10, []uint8{62}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tracks\n got %+v\nwant %+v", got, want)
	}
}

func TestParseSysexCancelsRunningStatus(t *testing.T) {
	ok := smf(0, 96, hx(t, `00 90 3C 40 00 F0 03 7E 09 F7 60 90 3C 00 00 F7 02 01 02 00 FF 7F 01 00 00 FF 2F 00`))
	s, err := Parse("sysex.mid", ok)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.NoteCount(); n != 1 || s.Tracks[0].Notes[0].Dur != 96 {
		t.Errorf("notes %+v", s.Tracks)
	}
	bad := smf(0, 96, hx(t, `00 90 3C 40 00 F0 01 F7 60 3C 00 00 FF 2F 00`))
	_, err = Parse("sysex.mid", bad)
	want := "midi: read sysex.mid: track 0: malformed: data byte 0x3C without running status at byte 30"
	if err == nil || err.Error() != want || !errors.Is(err, ErrMalformed) {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestParseErrors(t *testing.T) {
	good := handSong(t)
	header := func(format, ntrk, div int) []byte {
		return []byte{'M', 'T', 'h', 'd', 0, 0, 0, 6, byte(format >> 8), byte(format), byte(ntrk >> 8), byte(ntrk), byte(div >> 8), byte(div)}
	}
	absurd := append(header(0, 1, 96), 'M', 'T', 'r', 'k', 0xFF, 0xFF, 0xFF, 0xF0, 0x00)
	missing := smf(1, 96, hx(t, "00 FF 2F 00"))
	missing[11] = 2 // declares 2 tracks
	cases := []struct {
		name string
		data []byte
		is   error
		msg  string
	}{
		{"empty", nil, ErrNotSMF, "midi: read x.mid: not a Standard MIDI File"},
		{"garbage", []byte("RIFF....WAVEfmt "), ErrNotSMF, "midi: read x.mid: not a Standard MIDI File"},
		{"short header", []byte("MThd\x00\x00\x00\x06\x00"), ErrTruncated, "midi: read x.mid: truncated header (9 bytes, need 14) at byte 9"},
		{"header length", append([]byte("MThd\x00\x00\x00\x02"), 0, 0, 0, 1, 0, 96), ErrMalformed, "midi: read x.mid: malformed: header chunk length 2 (need at least 6) at byte 4"},
		{"format 2", header(2, 1, 96), ErrUnsupported, "midi: read x.mid: unsupported: SMF format 2 (independent sequences) at byte 8"},
		{"format 7", header(7, 1, 96), ErrMalformed, "midi: read x.mid: malformed: unknown SMF format 7 at byte 8"},
		{"smpte", header(0, 1, 0xE728), ErrUnsupported, "midi: read x.mid: unsupported: SMPTE time division (25 frames/s × 40) at byte 12"},
		{"zero division", header(0, 1, 0), ErrMalformed, "midi: read x.mid: malformed: time division of 0 ticks per beat at byte 12"},
		{"absurd chunk length", absurd, ErrTruncated, "midi: read x.mid: track 0: truncated chunk: declares 4294967280 bytes, 1 left at byte 14"},
		{"missing track", missing, ErrTruncated, "midi: read x.mid: track 1: truncated file: header declares 2 tracks, chunk header of track 1 missing at byte 26"},
		{"garbage chunk", append(header(0, 1, 96), 0x00, 0x90, 0x3C, 0x40, 0, 0, 0, 0), ErrMalformed, "midi: read x.mid: track 0: malformed: expected a chunk, found bytes 00 90 3C 40 at byte 14"},
		{"empty track", smf(0, 96, nil), ErrMalformed, "midi: read x.mid: track 0: malformed: empty track chunk (not even an end-of-track event) at byte 14"},
		{"truncated note", smf(0, 96, hx(t, "00 90 3C 40 00 90 3C")), ErrTruncated, "midi: read x.mid: track 0: truncated event at byte 26"},
		{"truncated delta", smf(0, 96, hx(t, "00 90 3C 40 81")), ErrTruncated, "midi: read x.mid: track 0: truncated event at byte 26"},
		{"truncated meta", smf(0, 96, hx(t, "00 FF 03 7F 41 42")), ErrTruncated, "midi: read x.mid: track 0: truncated event: meta event declares 127 bytes, 2 left in track at byte 22"},
		{"absurd sysex", smf(0, 96, hx(t, "00 F0 8F FF FF 7F 00")), ErrTruncated, "midi: read x.mid: track 0: truncated event: sysex declares 33554431 bytes, 1 left in track at byte 22"},
		{"long vlq", smf(0, 96, hx(t, "81 81 81 81 01 90 3C 40")), ErrMalformed, "midi: read x.mid: track 0: malformed variable-length quantity (more than 4 bytes) at byte 22"},
		{"system common", smf(0, 96, hx(t, "00 F2 00 00 00 FF 2F 00")), ErrMalformed, "midi: read x.mid: track 0: malformed: status byte 0xF2 is not allowed in a track at byte 22"},
		{"data byte first", smf(0, 96, hx(t, "00 3C 40 00 FF 2F 00")), ErrMalformed, "midi: read x.mid: track 0: malformed: data byte 0x3C without running status at byte 22"},
		{"status in data", smf(0, 96, hx(t, "00 90 3C 90 00 FF 2F 00")), ErrMalformed, "midi: read x.mid: track 0: malformed: data byte above 0x7F in note message 90 3C 90 at byte 22"},
		{"truncated file", good[:len(good)-5], ErrTruncated, "midi: read x.mid: track 0: truncated chunk: declares 72 bytes, 67 left at byte 14"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("x.mid", c.data)
			if err == nil {
				t.Fatalf("no error; score %+v", s)
			}
			if !errors.Is(err, c.is) {
				t.Errorf("error %v is not %v", err, c.is)
			}
			var e *Error
			if !errors.As(err, &e) || e.File != "x.mid" {
				t.Errorf("error %v is not an *Error naming the file", err)
			}
			if err.Error() != c.msg {
				t.Errorf("message\n got %s\nwant %s", err, c.msg)
			}
		})
	}
}

func TestParseLenientCases(t *testing.T) {
	// No end-of-track event but the last event ends at the chunk's end; an
	// unknown chunk before the track; trailing bytes after end of track;
	// an unknown meta event; malformed meters/keys/tempos are ignored.
	track := hx(t, `00 FF 60 02 01 02 00 FF 58 04 00 02 18 08 00 FF 59 02 09 00 00 FF 51 03 00 00 00 00 90 3C 40 60 80 3C 00`)
	data := smf(0, 96, track)
	withJunk := append(append(data[:14:14], hx(t, `"XFIH" 00 00 00 02 AA BB`)...), data[14:]...)
	for name, d := range map[string][]byte{"no EOT": data, "unknown chunk": withJunk} {
		s, err := Parse(name, d)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.NoteCount() != 1 || len(s.Meters)+len(s.Keys)+len(s.Tempos) != 0 || s.EndTick != 96 {
			t.Errorf("%s: %+v", name, s)
		}
	}
	after := smf(0, 96, hx(t, `00 90 3C 40 60 80 3C 00 00 FF 2F 00 00 90 40 40 F3`))
	s, err := Parse("after.mid", after)
	if err != nil || s.NoteCount() != 1 {
		t.Errorf("bytes after end of track: %v %+v", err, s)
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile(t.TempDir() + "/nope.mid")
	if err == nil || !strings.Contains(err.Error(), "nope.mid") {
		t.Errorf("error %v", err)
	}
}
