package app

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/audio"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/internal/testscore"
)

func TestBarStartsFollowsMeterMap(t *testing.T) {
	// Two bars of 3/4 (3×96 ticks), then 6/8 (6×48), with the piece ending
	// inside the fourth bar.
	s := &midi.Score{TicksPerBeat: 96, EndTick: 288*2 + 288 + 100,
		Meters: []midi.MeterChange{{Num: 3, Den: 4}, {Tick: 576, Num: 6, Den: 8}}}
	want := []int64{0, 288, 576, 864, 1152}
	got := BarStarts(s)
	if len(got) != len(want) {
		t.Fatalf("bars %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("bars %v, want %v", got, want)
		}
	}
	// A meter change inside a bar takes effect at the next bar line, as
	// the tokenizer reads it (midi.BarLines).
	s = &midi.Score{TicksPerBeat: 100, EndTick: 900, Meters: []midi.MeterChange{{Num: 4, Den: 4}, {Tick: 500, Num: 2, Den: 4}}}
	if got := BarStarts(s); len(got) != 4 || got[1] != 400 || got[2] != 800 || got[3] != 1000 {
		t.Errorf("bars across a mid-bar change: %v, want [0 400 800 1000]", got)
	}
	// A long piece: 300 bars of 4/4 (past the first lengths tried).
	s = &midi.Score{TicksPerBeat: 10, EndTick: 300 * 40}
	if got := BarStarts(s); len(got) != 301 || got[300] != 12000 {
		t.Errorf("300 bars: %d starts, last %d", len(got), got[len(got)-1])
	}
}

func TestMixScore(t *testing.T) {
	s := testscore.Quartet()
	mix := DefaultMix(s)
	same, err := MixScore(s, mix)
	if err != nil || len(same.Tracks) != 3 || same.Tracks[0].Notes[0].Velocity != 100 {
		t.Fatalf("default mix changed the piece: %v", err)
	}
	mix[0].Volume = 0.5
	mix[1].Volume = 1.5
	mix[2].Mute = true
	m, err := MixScore(s, mix)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tracks) != 2 || m.Tracks[0].Notes[3].Velocity != 50 || m.Tracks[1].Notes[0].Velocity != 127 {
		t.Fatalf("mixed: %d tracks, piano velocity %d (want 50), bass %d (want 90×1.5 capped at 127)",
			len(m.Tracks), m.Tracks[0].Notes[3].Velocity, m.Tracks[1].Notes[0].Velocity)
	}
	if s.Tracks[0].Notes[3].Velocity != 100 || len(s.Tracks) != 3 {
		t.Fatal("MixScore changed its input")
	}
	// A solo leaves the others out, even unmuted ones.
	mix = DefaultMix(s)
	mix[1].Solo = true
	if m, _ := MixScore(s, mix); len(m.Tracks) != 1 || m.Tracks[0].Program != 32 {
		t.Fatalf("solo bass: %d tracks", len(m.Tracks))
	}
	// A tiny volume keeps notes audible (velocity 1, never 0, which a
	// synthesizer reads as a default velocity).
	mix = DefaultMix(s)
	mix[0].Volume = 0.001
	if m, _ := MixScore(s, mix); m.Tracks[0].Notes[0].Velocity != 1 {
		t.Errorf("velocity at volume 0.001: %d, want 1", m.Tracks[0].Notes[0].Velocity)
	}
	if _, err := MixScore(s, DefaultMix(s)[:2]); err == nil {
		t.Error("a mix of 2 tracks for 3 accepted")
	}
	mix = DefaultMix(s)
	mix[2].Volume = 2
	if _, err := MixScore(s, mix); err == nil || !strings.Contains(err.Error(), "track 3: volume 2") {
		t.Errorf("volume 2: %v", err)
	}
}

func TestSetProgram(t *testing.T) {
	s := testscore.Quartet()
	v, err := SetProgram(s, 1, 40)
	if err != nil {
		t.Fatal(err)
	}
	if v.Tracks[1].Program != 40 || s.Tracks[1].Program != 32 || TrackLabel(v, 1) != midi.ProgramName(40) {
		t.Fatalf("program %d (input %d), label %q", v.Tracks[1].Program, s.Tracks[1].Program, TrackLabel(v, 1))
	}
	if _, err := SetProgram(s, 2, 40); err == nil || !strings.Contains(err.Error(), "drum") {
		t.Errorf("drum track: %v", err)
	}
	if _, err := SetProgram(s, 0, 128); err == nil {
		t.Error("program 128 accepted")
	}
	if _, err := SetProgram(s, 3, 1); err == nil {
		t.Error("track 4 of 3 accepted")
	}
}

func TestExportStems(t *testing.T) {
	s := testscore.Quartet()
	mix := DefaultMix(s)
	mix[1].Mute = true
	dir := t.TempDir()
	files, err := ExportStems(context.Background(), s, dir, "song", StemOptions{Mix: mix, WAV: true, Render: RenderOptions{Builtin: true}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"song-01-acoustic-grand-piano.mid", "song-01-acoustic-grand-piano.wav", "song-03-drums.mid", "song-03-drums.wav"}
	if len(files) != len(want) {
		t.Fatalf("files %v, want %v", files, want)
	}
	for i, f := range files {
		if filepath.Base(f) != want[i] {
			t.Errorf("file %d: %s, want %s", i, filepath.Base(f), want[i])
		}
	}
	piano, err := midi.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if piano.NoteCount() != 16 || len(piano.Tracks) != 1 || piano.Tracks[0].Notes[15].Pitch != 75 || piano.TempoAt(0) != 500000 {
		t.Fatalf("piano stem: %d notes in %d tracks", piano.NoteCount(), len(piano.Tracks))
	}
	pcm, err := audio.ReadWAV(files[3])
	if err != nil {
		t.Fatal(err)
	}
	// The last drum hit is at 6 s.
	if pcm.Seconds() < 6 || pcm.Peak() <= 0 {
		t.Errorf("drum stem WAV: %.2f s, peak %.3f", pcm.Seconds(), pcm.Peak())
	}
	mix = DefaultMix(s)
	for i := range mix {
		mix[i].Mute = true
	}
	if _, err := ExportStems(context.Background(), s, dir, "x", StemOptions{Mix: mix}); !errors.Is(err, ErrNoNotes) {
		t.Errorf("all muted: %v, want ErrNoNotes", err)
	}
}

// A loop of bars 2–3 at double speed: the clip holds those bars' notes
// from the loop's start, repeated, each pass cut at the loop's end; its
// tempo is twice the piece's; and the playhead maps back into bars 2–3.
func TestPlayClipLoopAndTempo(t *testing.T) {
	s := testscore.Quartet()
	clip, back, err := playClip(s, PlayOptions{LoopFrom: 2, LoopTo: 3, Tempo: 2})
	if err != nil {
		t.Fatal(err)
	}
	if clip.Tempos[0].MicrosPerBeat != 250000 {
		t.Fatalf("tempo %d µs/beat, want 250000", clip.Tempos[0].MicrosPerBeat)
	}
	span := int64(2 * 1920)
	piano := clip.Tracks[0].Notes
	if len(piano) < 16 || len(piano)%8 != 0 {
		t.Fatalf("%d piano notes, want passes of 8", len(piano))
	}
	for i, n := range piano {
		pass, k := int64(i/8), i%8
		if n.Tick != pass*span+int64(k*480) || n.Pitch != uint8(64+k) {
			t.Fatalf("note %d: tick %d pitch %d, want %d and %d", i, n.Tick, n.Pitch, pass*span+int64(k*480), 64+k)
		}
	}
	// At 240 bpm a beat lasts 0.25 s: clip second 0 is bar 2's start (2 s
	// into the piece), 0.5 s is two beats later (3 s); one pass (8 beats,
	// 2 s) later the playhead is back at 2 s.
	for _, c := range []struct{ clip, piece float64 }{{0, 2}, {0.5, 3}, {1.75, 5.5}, {2, 2}, {2.5, 3}} {
		if got := back(c.clip); math.Abs(got-c.piece) > 1e-6 {
			t.Errorf("clip %.2f s → piece %.4f s, want %.2f", c.clip, got, c.piece)
		}
	}
	// Starting inside the loop plays the rest of the pass first.
	clip, back, err = playClip(s, PlayOptions{LoopFrom: 2, LoopTo: 3, Start: 5})
	if err != nil {
		t.Fatal(err)
	}
	if n := clip.Tracks[0].Notes[0]; n.Pitch != 70 || n.Tick != 0 {
		t.Errorf("first note from 5 s: pitch %d at %d, want 70 at 0", n.Pitch, n.Tick)
	}
	if got := back(1); math.Abs(got-2) > 1e-6 { // 5 s → 6 s is the loop's end → bar 2
		t.Errorf("one second after 5 s in a loop of 2–6 s: %.3f, want 2", got)
	}
	// The bass's whole-bar notes are cut at the loop's end, never rung on.
	whole, _, _ := playClip(s, PlayOptions{LoopFrom: 3, LoopTo: 3})
	for _, n := range whole.Tracks[1].Notes {
		if n.Tick%1920+n.Dur > 1920 {
			t.Fatalf("bass note at %d lasts %d, past the loop's end", n.Tick, n.Dur)
		}
	}
	// Without a loop, from 3 s to the end.
	clip, back, _ = playClip(s, PlayOptions{Start: 3})
	if clip.NoteCount() != 10+2+2 || math.Abs(back(1)-4) > 1e-6 {
		t.Errorf("from 3 s: %d notes, back(1) = %.3f; want 14 and 4", clip.NoteCount(), back(1))
	}
	for _, o := range []PlayOptions{{LoopFrom: 4, LoopTo: 5}, {LoopFrom: 0, LoopTo: 2}, {LoopFrom: 3, LoopTo: 2}, {Tempo: 5}, {Tempo: -1}} {
		if _, _, err := playClip(s, o); !errors.Is(err, ErrUsage) {
			t.Errorf("%+v: %v, want a usage error", o, err)
		}
	}
}

// On a machine with no sound device PlayScore says so at once; bad
// options are reported first.
func TestPlayScoreWithoutDevice(t *testing.T) {
	s := testscore.Quartet()
	if _, err := PlayScore(context.Background(), s, PlayOptions{LoopFrom: 7, LoopTo: 9}, nil); !errors.Is(err, ErrUsage) {
		t.Errorf("bad loop: %v", err)
	}
	if AudioAvailable() == nil {
		t.Skip("this machine has a sound device")
	}
	if _, err := PlayScore(context.Background(), s, PlayOptions{}, nil); !errors.Is(err, audio.ErrNoDevice) {
		t.Errorf("no device: %v", err)
	}
}
