package midi

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
)

// richScore exercises everything the writer handles: several tracks and
// channels, drums, tempo/meter/key changes, chords, overlapping notes of one
// pitch that end in the order they start, a zero-length note, a long gap.
func richScore() *Score {
	s := &Score{
		Format: 1, TicksPerBeat: 480, Title: "Round trip",
		Tempos: []TempoChange{{0, 500000}, {1920, 400000}, {1920, 450000}, {5000, 600000}},
		Meters: []MeterChange{{0, 4, 4}, {3840, 6, 8}},
		Keys:   []KeyChange{{0, -3, true}, {3840, 2, false}},
		Tracks: []Track{
			{Name: "Melody", Channel: 0, Program: 73, Notes: []Note{
				{Tick: 0, Dur: 480, Pitch: 72, Velocity: 90},
				{Tick: 240, Dur: 480, Pitch: 72, Velocity: 91}, // overlaps the previous C5
				{Tick: 960, Dur: 0, Pitch: 74, Velocity: 1},
				{Tick: 960, Dur: 240, Pitch: 76, Velocity: 127},
				{Tick: 100000, Dur: 10, Pitch: 127, Velocity: 64},
			}},
			{Name: "Chords", Channel: 1, Program: 0, Notes: []Note{
				{Tick: 0, Dur: 1920, Pitch: 48, Velocity: 60},
				{Tick: 0, Dur: 1920, Pitch: 52, Velocity: 61},
				{Tick: 0, Dur: 1920, Pitch: 55, Velocity: 62},
				{Tick: 1920, Dur: 1920, Pitch: 0, Velocity: 63},
			}},
			{Name: "", Channel: 9, Program: 0, IsDrum: true, Notes: []Note{
				{Tick: 0, Dur: 60, Pitch: 36, Velocity: 100},
				{Tick: 480, Dur: 60, Pitch: 38, Velocity: 100},
			}},
			{Name: "Same channel, other program", Channel: 1, Program: 48, Notes: []Note{
				{Tick: 3840, Dur: 960, Pitch: 60, Velocity: 70},
			}},
		},
		EndTick: 100100,
	}
	s.ComputeSeconds()
	return s
}

// expectAfterWrite is what Parse returns for a written score: format 1, a
// conductor track first, each track's Source one past its position.
func expectAfterWrite(s *Score) *Score {
	w := *s
	w.Format, w.SMFTracks = 1, len(s.Tracks)+1
	w.Tracks = append([]Track(nil), s.Tracks...)
	for i := range w.Tracks {
		w.Tracks[i].Source = i + 1
	}
	return &w
}

func TestWriteRoundTrip(t *testing.T) {
	s := richScore()
	var buf bytes.Buffer
	if err := s.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Parse("rt.mid", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if want := expectAfterWrite(s); !reflect.DeepEqual(back, want) {
		t.Errorf("round trip differs\n got %+v\nwant %+v", back, want)
	}
	// Writing again gives the same bytes.
	var again bytes.Buffer
	if err := back.Write(&again); err != nil || !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Errorf("second write differs (%v)", err)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.mid")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, richScore()); err != nil {
		t.Fatal(err)
	}
	s, err := ReadFile(p)
	if err != nil || s.NoteCount() != richScore().NoteCount() {
		t.Fatalf("read back: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	// A bad score leaves the old file alone.
	bad := richScore()
	bad.Tracks[0].Channel = 16
	if err := WriteFile(p, bad); !errors.Is(err, ErrInvalidScore) {
		t.Errorf("error %v", err)
	}
	if s2, err := ReadFile(p); err != nil || s2.NoteCount() != s.NoteCount() {
		t.Errorf("file damaged: %v", err)
	}
}

func TestWriteInvalid(t *testing.T) {
	mods := map[string]func(s *Score){
		"ticks per beat": func(s *Score) { s.TicksPerBeat = 0 },
		"channel":        func(s *Score) { s.Tracks[1].Channel = -1 },
		"program":        func(s *Score) { s.Tracks[1].Program = 128 },
		"pitch":          func(s *Score) { s.Tracks[0].Notes[0].Pitch = 128 },
		"negative dur":   func(s *Score) { s.Tracks[0].Notes[0].Dur = -1 },
		"tempo":          func(s *Score) { s.Tempos[0].MicrosPerBeat = 0 },
		"meter":          func(s *Score) { s.Meters[1].Den = 6 },
		"key":            func(s *Score) { s.Keys[0].Sharps = 8 },
		"gap":            func(s *Score) { s.Tracks[0].Notes[4].Tick = 1 << 30 },
	}
	for name, mod := range mods {
		s := richScore()
		mod(s)
		if err := s.Write(&bytes.Buffer{}); !errors.Is(err, ErrInvalidScore) {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

// TestWriteRoundTripCorpora writes every corpus file back and parses it
// again: the scores must be identical (up to the conductor track the writer
// adds), which checks the writer and the reader's pairing on real music.
func TestWriteRoundTripCorpora(t *testing.T) {
	for _, c := range []string{corpus.POP909, corpus.Nottingham, corpus.OpenMSX} {
		files := corpus.MIDIFiles(t, c)
		failed := 0
		for _, f := range files {
			s, err := ReadFile(f)
			if err != nil {
				t.Errorf("%v", err)
				continue
			}
			var buf bytes.Buffer
			if err := s.Write(&buf); err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			back, err := Parse(f, buf.Bytes())
			if err != nil {
				t.Errorf("%s: re-read: %v", f, err)
				continue
			}
			want := expectAfterWrite(s)
			if !reflect.DeepEqual(back, want) {
				failed++
				if failed <= 3 {
					t.Errorf("%s: round trip differs", f)
				}
			}
		}
		t.Logf("%s: %d files written and re-read, %d differ", c, len(files), failed)
	}
}
