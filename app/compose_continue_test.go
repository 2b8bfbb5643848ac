package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// userPiece is a 4/4 piece of n bars at 480 ticks a beat (not the
// vocabulary's resolution), piano on the beats and drums on 1 and 3: few
// enough tokens a bar for the tiny test model's 128-token window.
func userPiece(n int) *midi.Score {
	s := &midi.Score{Format: 1, TicksPerBeat: 480, Tempos: []midi.TempoChange{{MicrosPerBeat: 600000}},
		Meters: []midi.MeterChange{{Num: 4, Den: 4}}}
	pno := midi.Track{Name: "my piano", Channel: 0, Program: 0}
	drm := midi.Track{Name: "my drums", Channel: 9, IsDrum: true}
	for k := 0; k < 4*n; k++ {
		pno.Notes = append(pno.Notes, midi.Note{Tick: int64(480 * k), Dur: 400, Pitch: uint8(60 + []int{0, 4, 7, 12, 7, 4, 2, 5}[k%8]), Velocity: 90})
		if k%2 == 0 {
			drm.Notes = append(drm.Notes, midi.Note{Tick: int64(480 * k), Dur: 60, Pitch: uint8([]int{36, 38}[(k/2)%2]), Velocity: 100})
		}
	}
	s.Tracks = []midi.Track{pno, drm}
	s.EndTick = int64(1920 * n)
	s.ComputeSeconds()
	return s
}

type noteKey struct {
	track       string
	tick, dur   int64
	pitch, velo uint8
}

func notesOf(s *midi.Score, keep func(midi.Note) bool) []noteKey {
	var out []noteKey
	for _, tr := range s.Tracks {
		for _, n := range tr.Notes {
			if keep(n) {
				out = append(out, noteKey{fmt.Sprint(tr.IsDrum, tr.Program), n.Tick, n.Dur, n.Pitch, n.Velocity})
			}
		}
	}
	slices.SortFunc(out, func(a, b noteKey) int {
		return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
	})
	return out
}

func TestContinueKeepsTheOriginalAndAddsBars(t *testing.T) {
	m, _ := randomModel(t, 3)
	src := userPiece(4)
	end := int64(4 * 1920)
	r, err := ContinueScore(context.Background(), m, src, "mine.mid", 3, SampleSettings{Temperature: 1, Seed: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	old := func(n midi.Note) bool { return n.Tick < end }
	if got, want := notesOf(r.Score, old), notesOf(src, old); !slices.Equal(got, want) {
		t.Fatalf("the original's notes changed: %d notes before bar 5, want %d", len(got), len(want))
	}
	if r.Score.TicksPerBeat != 480 || len(r.Score.Tempos) != 1 || r.Score.Tracks[0].Name != "my piano" {
		t.Errorf("the file's resolution, tempo map or track names changed")
	}
	added := notesOf(r.Score, func(n midi.Note) bool { return n.Tick >= end })
	if len(added) == 0 {
		t.Fatal("no new notes")
	}
	for _, n := range added {
		if n.tick+n.dur > end+3*1920 {
			t.Errorf("new note at tick %d (duration %d), past the 3 bars added (end %d)", n.tick, n.dur, end+3*1920)
		}
	}
	if r.Requested.Bars != 7 || r.Requested.TempoBPM < 99 || r.Requested.TempoBPM > 101 {
		t.Errorf("prefix attributes %+v: want 7 bars at 100 bpm", r.Requested)
	}
	// A piece longer than the window: the context is its last bars, the
	// new bars still start after its end.
	long := userPiece(20)
	r, err = ContinueScore(context.Background(), m, long, "long.mid", 2, SampleSettings{Temperature: 1, Seed: 6}, nil)
	if err != nil {
		t.Fatal(err)
	}
	end = 20 * 1920
	if got, want := notesOf(r.Score, old), notesOf(long, old); !slices.Equal(got, want) {
		t.Fatal("the long original's notes changed")
	}
	for _, n := range notesOf(r.Score, func(n midi.Note) bool { return n.Tick >= 4*1920 }) {
		if n.tick >= end+2*1920 {
			t.Errorf("long: new note at tick %d, past the 2 bars added", n.tick)
		}
	}
	if len(notesOf(r.Score, func(n midi.Note) bool { return n.Tick >= end })) == 0 {
		t.Error("long: no new notes after bar 20")
	}
}

func TestRegenerateReplacesOnlyTheRange(t *testing.T) {
	m, _ := randomModel(t, 4)
	src := userPiece(6)
	lo, hi := int64(2*1920), int64(4*1920) // bars 3-4
	r, err := RegenerateScore(context.Background(), m, src, "mine.mid", 3, 4, SampleSettings{Temperature: 1, Seed: 9}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	outside := func(n midi.Note) bool { return n.Tick < lo || n.Tick >= hi }
	if got, want := notesOf(r.Score, outside), notesOf(src, outside); !slices.Equal(got, want) {
		t.Fatalf("notes outside bars 3-4 changed: %d, want %d", len(got), len(want))
	}
	inside := notesOf(r.Score, func(n midi.Note) bool { return !outside(n) })
	if slices.Equal(inside, notesOf(src, func(n midi.Note) bool { return !outside(n) })) {
		t.Error("bars 3-4 are the original's")
	}
}

func TestContinueErrorsNameTheFile(t *testing.T) {
	m, _ := randomModel(t, 3)
	empty := &midi.Score{Format: 1, TicksPerBeat: 480}
	_, err := ContinueScore(context.Background(), m, empty, "empty.mid", 4, SampleSettings{}, nil)
	if !errors.Is(err, ErrNoMusic) || !strings.Contains(err.Error(), "empty.mid") {
		t.Errorf("empty file: %v", err)
	}
	_, err = RegenerateScore(context.Background(), m, userPiece(4), "four.mid", 3, 9, SampleSettings{}, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "four.mid") || !strings.Contains(err.Error(), "1-4") {
		t.Errorf("range past the end: %v", err)
	}
	if _, err = ContinueScore(context.Background(), m, userPiece(2), "two.mid", 0, SampleSettings{}, nil); err == nil {
		t.Error("0 bars: no error")
	}
	for _, r := range []string{"0-2", "3-1", "x"} {
		if _, _, err := ParseBarRange(r); err == nil {
			t.Errorf("bar range %q accepted", r)
		}
	}
}

// randomModel writes a tiny random model (v2 vocabulary) and loads it.
func randomModel(t *testing.T, seed uint64) (*Model, string) {
	t.Helper()
	dir := t.TempDir()
	if err := WriteRandomModel(dir, "tiny", seed); err != nil {
		t.Fatal(err)
	}
	m, err := LoadModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m, dir
}

func bars(v *token.Vocab, toks []uint16) int {
	n := 0
	for _, t := range toks {
		if t == v.Bar {
			n++
		}
	}
	return n
}

// A piece whose last note sounds to its final bar line (as every generated
// piece clipped to its bars does) encodes an empty bar at that line; it is
// not a bar of the file: 4 bars continued by 3 are 7, and regeneration
// counts 4.
func TestContinueAfterANoteToTheBarLine(t *testing.T) {
	m, _ := randomModel(t, 3)
	v := m.Vocab
	var src *midi.Score
	// A long last note whose duration the vocabulary's coarse bins round up
	// past the bar line (a generated piece clipped to its bars has such
	// notes): the encoding then has a fifth, empty bar.
	for d := int64(1920); d < 7000 && src == nil; d += 40 {
		s := userPiece(4)
		last := &s.Tracks[0].Notes[len(s.Tracks[0].Notes)-1]
		last.Tick, last.Dur = s.EndTick-d, d
		toks, _, err := v.AppendEncodeMeasured(nil, s, midi.Analyze(s))
		if err != nil {
			t.Fatal(err)
		}
		if n := slices.Index(toks, v.EOS) - slices.Index(toks, v.SEP); n > 0 && bars(v, toks) == 5 {
			src = s
		}
	}
	if src == nil {
		t.Skip("no duration tried rounds past the bar line with this vocabulary")
	}
	p, err := prime(v, src, "full.mid")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.barAt) != 4 {
		t.Fatalf("%d bars primed, want 4", len(p.barAt))
	}
	r, err := ContinueScore(context.Background(), m, src, "full.mid", 3, SampleSettings{Temperature: 1, Seed: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Requested.Bars != 7 || r.Score.EndTick > 7*1920 {
		t.Fatalf("4 bars + 3: %d bars, end tick %d (want 7 bars, at most %d)", r.Requested.Bars, r.Score.EndTick, 7*1920)
	}
	if _, err := RegenerateScore(context.Background(), m, src, "full.mid", 5, 5, SampleSettings{Temperature: 1, Seed: 5}, 1, nil); err == nil || !strings.Contains(err.Error(), "bars 1-4") {
		t.Fatalf("regenerating bar 5 of 4: %v", err)
	}
}
