package midi

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// overlapping builds one track of n same-pitch note-ons at tick 0, then
// their n note-offs one tick apart: the case that made the parser quadratic
// (1 M notes, 6 MB: 76 s, all of it moving a queue's tail per note-off).
func overlapping(n int) []byte {
	ev := []byte{0x00, 0x90, 0x3C, 0x40}
	for i := 1; i < n; i++ {
		ev = append(ev, 0x00, 0x3C, 0x40)
	}
	for i := 0; i < n; i++ {
		ev = append(ev, 0x01, 0x3C, 0x00)
	}
	ev = append(ev, 0x00, 0xFF, 0x2F, 0x00)
	return smf(0, 96, ev)
}

// manyGroups builds tracks each holding one note on every (channel,
// program) pair: 2,048 Score tracks per SMF track.
func manyGroups(tracks int) []byte {
	var ev []byte
	for ch := byte(0); ch < 16; ch++ {
		for pg := byte(0); pg < 128; pg++ {
			ev = append(ev, 0, 0xC0|ch, pg, 0, 0x90|ch, 0x3C, 0x40)
		}
	}
	ev = append(ev, 0x00, 0xFF, 0x2F, 0x00)
	trs := make([][]byte, tracks)
	for i := range trs {
		trs[i] = ev
	}
	return smf(1, 96, trs...)
}

// probesFor parses data with a fresh parser and returns its count of loop
// steps beyond one per event, after checking the notes came out.
func probesFor(t *testing.T, data []byte, wantNotes int) int {
	t.Helper()
	p := new(parser)
	s, err := p.parse("x.mid", data)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.NoteCount(); got != wantNotes {
		t.Fatalf("%d notes, want %d", got, wantNotes)
	}
	return p.probes
}

// TestParseLinearOverlap proves the work per note is bounded: the parser's
// search steps stay under a constant per note at two sizes (before the
// per-key queue they grew with n², 5,000 notes taking 12.5 M steps).
func TestParseLinearOverlap(t *testing.T) {
	for _, n := range []int{1000, 5000} {
		if got := probesFor(t, overlapping(n), n); got > 2*n+16 {
			t.Errorf("%d overlapping notes: %d search steps, want at most %d (linear)", n, got, 2*n+16)
		}
	}
}

// TestParseLinearGroups: notes spread over every (channel, program) pair of
// many SMF tracks cost a bounded number of steps each (the group lookup and
// merge used to scan every group of the track: 2,048 per note).
func TestParseLinearGroups(t *testing.T) {
	for _, tracks := range []int{2, 8} {
		n := tracks * 16 * 128
		s, err := Parse("g.mid", manyGroups(tracks))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Tracks) != n {
			t.Fatalf("%d Score tracks, want %d", len(s.Tracks), n)
		}
		if got := probesFor(t, manyGroups(tracks), n); got > 3*n {
			t.Errorf("%d SMF tracks: %d search steps for %d notes, want at most %d", tracks, got, n, 3*n)
		}
	}
}

// TestParseFIFOInterleaved: two pitches overlapping themselves and each
// other pair FIFO per pitch (worked out by hand).
func TestParseFIFOInterleaved(t *testing.T) {
	// ticks: A on 0, B on 0, A on 10, B on 10, A off 20, B off 30, A off 40, B off 50, A off 60 (nothing sounding).
	data := smf(0, 96, hx(t, `00 90 3C 40 00 3E 41 0A 3C 42 00 3E 43 0A 3C 00 0A 3E 00 0A 3C 00 0A 3E 00 0A 3C 00 00 FF 2F 00`))
	s, err := Parse("x.mid", data)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Tracks[0].Notes
	want := []Note{{Tick: 0, Dur: 20, Pitch: 0x3C, Velocity: 0x40}, {Tick: 0, Dur: 30, Pitch: 0x3E, Velocity: 0x41},
		{Tick: 10, Dur: 30, Pitch: 0x3C, Velocity: 0x42}, {Tick: 10, Dur: 40, Pitch: 0x3E, Velocity: 0x43}}
	if len(got) != len(want) {
		t.Fatalf("notes %+v", got)
	}
	for i := range want {
		if got[i].Tick != want[i].Tick || got[i].Dur != want[i].Dur || got[i].Pitch != want[i].Pitch || got[i].Velocity != want[i].Velocity {
			t.Errorf("note %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestParseLimits: more Score tracks than MaxTracks, or a file over
// MaxFileSize, is ErrUnsupported naming the limit, before memory follows
// what the file asks (4.5 M one-note tracks in 31 MB took 1.4 GB).
func TestParseLimits(t *testing.T) {
	_, err := Parse("many.mid", manyGroups(MaxTracks/2048+1))
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "more than 65536 instrument tracks") {
		t.Errorf("too many tracks: %v", err)
	}
	big := filepath.Join(t.TempDir(), "big.mid")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(manyGroups(1))
	f.Truncate(MaxFileSize + 1) // sparse: nothing is written
	f.Close()
	_, err = ReadFile(big)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "big.mid") || !strings.Contains(err.Error(), "64 MB") {
		t.Errorf("too large: %v", err)
	}
}

// BenchmarkParseOverlap parses n overlapping same-pitch notes: ns/op per
// note must stay flat from 10 k to 100 k notes (it grew tenfold per
// tenfold before the per-key queue).
func BenchmarkParseOverlap(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		data := overlapping(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if _, err := Parse("x.mid", data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/note")
		})
	}
}
