// Package testfiles writes the small inputs the tests of app and app/cli
// share: token shards, a synthetic MIDI corpus, hand-made MIDI files. Only
// tests import it.
package testfiles

import (
	"encoding/binary"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// Shard writes dir/s.bin and dir/s.idx: a shard of 12 pseudo-random pieces
// of the default vocabulary (BOS, 60 tokens, EOS).
func Shard(t testing.TB, dir string) {
	t.Helper()
	v := token.DefaultVocab()
	var bin, idx []byte
	off, x := uint64(0), uint32(7)
	for p := 0; p < 12; p++ {
		idx = binary.LittleEndian.AppendUint64(idx, off)
		toks := []uint16{v.BOS}
		for i := 0; i < 60; i++ {
			x = x*1664525 + 1013904223
			toks = append(toks, uint16(x>>16)%uint16(v.Size()))
		}
		toks = append(toks, v.EOS)
		for _, tk := range toks {
			bin = binary.LittleEndian.AppendUint16(bin, tk)
		}
		off += uint64(len(toks))
	}
	idx = binary.LittleEndian.AppendUint64(idx, off)
	os.WriteFile(filepath.Join(dir, "s.bin"), bin, 0o644)
	os.WriteFile(filepath.Join(dir, "s.idx"), idx, 0o644)
}

// Corpus writes n small MIDI files (a scale over a few bars, varying
// tempo, program and title) and one corrupt file under dir, with a
// metadata table naming them.
func Corpus(t testing.TB, dir string, n int) {
	t.Helper()
	var csv strings.Builder
	csv.WriteString("file,title,genre\n")
	for i := 0; i < n; i++ {
		s := &midi.Score{Format: 1, TicksPerBeat: 96, Title: fmt.Sprintf("Tune %d", i),
			Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 400000 + 20000*(i%10)}},
			Meters: []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}}}
		tr := midi.Track{Name: "lead", Channel: 0, Program: (i * 7) % 128}
		bars := 2 + i%5
		for k := 0; k < bars*4; k++ {
			tr.Notes = append(tr.Notes, midi.Note{Tick: int64(k * 96), Dur: 90, Pitch: uint8(60 + (k*2+i)%12), Velocity: uint8(60 + i%40)})
		}
		s.Tracks = []midi.Track{tr}
		s.EndTick = int64(bars * 4 * 96)
		name := fmt.Sprintf("set%d/tune%03d.mid", i%4, i)
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := midi.WriteFile(p, s); err != nil {
			t.Fatal(err)
		}
		genre := []string{"jig", "reel", "waltz", "ballad"}[i%4]
		fmt.Fprintf(&csv, "%s,Tune %d,%s\n", path.Base(name), i, genre)
	}
	os.WriteFile(filepath.Join(dir, "broken.mid"), []byte("MThd\x00\x00\x00\x06\x00\x01"), 0o644)
	os.WriteFile(filepath.Join(dir, "index.csv"), []byte(csv.String()), 0o644)
}

// Scale writes a format-0 Standard MIDI File by hand (not through
// engine/midi): 96 ticks per beat, the given tempo and 4/4, program 0 on
// channel 0, and the eight notes of a scale starting at root as quarter
// notes.
func Scale(t testing.TB, path string, microsPerBeat int, root uint8) {
	t.Helper()
	var trk []byte
	ev := func(delta int, b ...byte) {
		// Deltas here are below 128·128: at most two VLQ bytes.
		if delta >= 128 {
			trk = append(trk, byte(0x80|delta>>7))
		}
		trk = append(trk, byte(delta&0x7f))
		trk = append(trk, b...)
	}
	ev(0, 0xFF, 0x51, 3, byte(microsPerBeat>>16), byte(microsPerBeat>>8), byte(microsPerBeat))
	ev(0, 0xFF, 0x58, 4, 4, 2, 24, 8) // 4/4
	ev(0, 0xC0, 0)                    // program 0
	for _, iv := range []uint8{0, 2, 4, 5, 7, 9, 11, 12} {
		ev(0, 0x90, root+iv, 80)
		ev(96, 0x80, root+iv, 0)
	}
	ev(0, 0xFF, 0x2F, 0)
	data := []byte("MThd\x00\x00\x00\x06\x00\x00\x00\x01\x00\x60MTrk")
	data = binary.BigEndian.AppendUint32(data, uint32(len(trk)))
	data = append(data, trk...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Score writes s to a .mid file called name in a temporary folder and
// returns its path.
func Score(t testing.TB, name string, s *midi.Score) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := midi.WriteFile(p, s); err != nil {
		t.Fatal(err)
	}
	return p
}

// LateNote is one quarter note that starts at sec seconds (120 bpm).
func LateNote(sec float64) *midi.Score {
	tick := int64(sec * 2 * 480)
	return &midi.Score{Format: 1, TicksPerBeat: 480, EndTick: tick + 480,
		Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}},
		Tracks: []midi.Track{{Notes: []midi.Note{{Tick: tick, Dur: 480, Pitch: 69, Velocity: 100}}}}}
}

// MeterPieces writes two pieces into dir: waltz.mid, a waltz (bass on
// 1, chords on 2 and 3) declared in 1/4 as most POP909 files are, and
// groove.mid, a 4/4 groove with drums declared 4/4 on the file's grid.
func MeterPieces(t testing.TB, dir string) {
	t.Helper()
	roots := []uint8{0, 5, 7, 0, 9, 5, 7, 0}
	const tpb = 480
	note := func(beat, dur float64, p, v uint8) midi.Note {
		return midi.Note{Tick: int64(beat * tpb), Dur: int64(dur * tpb), Pitch: p, Velocity: v}
	}
	var w []midi.Note
	for b := 0; b < 16; b++ {
		r, t0 := roots[b%8], 3*float64(b)
		w = append(w, note(t0, 1, 36+r, 96), note(t0, 2, 79+r, 90))
		for _, beat := range []float64{1, 2} {
			w = append(w, note(t0+beat, 0.9, 56+r, 70), note(t0+beat, 0.9, 59+r, 70))
		}
		w = append(w, note(t0+2, 1, 76+r, 80))
	}
	var g, d []midi.Note
	for b := 0; b < 16; b++ {
		r, t0 := roots[b%8], 4*float64(b)
		g = append(g, note(t0, 2, 36+r, 100), note(t0+2, 2, 43+r, 85), note(t0, 4, 55+r, 75), note(t0, 4, 59+r, 75),
			note(t0, 1.5, 72+r, 95), note(t0+1.5, 0.5, 76+r, 80), note(t0+2, 1, 79+r, 85), note(t0+3, 1, 76+r, 80))
		for k := 0; k < 8; k++ {
			d = append(d, note(t0+float64(k)/2, 0.25, 42, 70))
		}
		d = append(d, note(t0, 0.5, 36, 110), note(t0+1, 0.5, 38, 100), note(t0+2, 0.5, 36, 100), note(t0+3, 0.5, 38, 100))
	}
	byTick := func(a, b midi.Note) int { return int(a.Tick - b.Tick) }
	for _, p := range []struct {
		name   string
		meter  midi.MeterChange
		tracks []midi.Track
		end    int64
	}{
		{"waltz.mid", midi.MeterChange{Num: 1, Den: 4}, []midi.Track{{Name: "piano", Notes: w}}, 48 * tpb},
		{"groove.mid", midi.MeterChange{Num: 4, Den: 4}, []midi.Track{{Name: "band", Notes: g},
			{Name: "drums", Channel: 9, IsDrum: true, Notes: d}}, 64 * tpb},
	} {
		for i := range p.tracks {
			slices.SortStableFunc(p.tracks[i].Notes, byTick)
		}
		s := &midi.Score{Format: 1, TicksPerBeat: tpb, Tracks: p.tracks, EndTick: p.end,
			Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}}, Meters: []midi.MeterChange{p.meter}}
		if err := midi.WriteFile(filepath.Join(dir, p.name), s); err != nil {
			t.Fatal(err)
		}
	}
}
