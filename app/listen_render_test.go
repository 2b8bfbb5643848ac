package app

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/engine/audio"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/synth"
)

// TestRenderStreamsToWAV: rendering a long piece to a WAV allocates a
// bounded amount, not the piece's length: one note at 60 s (2.6 M frames,
// 21 MB as float PCM, which the renderer used to hold whole, plus its
// integer copy) costs under 4 MB of allocation in all, and the WAV read
// back has every frame.
func TestRenderStreamsToWAV(t *testing.T) {
	in := testfiles.Score(t, "late.mid", testfiles.LateNote(60))
	out := filepath.Join(t.TempDir(), "late.wav")
	s, err := midi.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := RenderScore(context.Background(), s, RenderOptions{Input: in, Output: out, Builtin: true})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("rendering %.0f s allocated %.1f MB; want under 4 MB (streamed in blocks)", res.AudioSeconds, float64(alloc)/(1<<20))
	}
	if res.PCM != nil {
		t.Error("the PCM was kept in memory")
	}
	pcm, err := audio.ReadWAV(out)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(pcm.Seconds()-res.AudioSeconds) > 1e-6 || res.AudioSeconds < 60.5 || math.Abs(pcm.Peak()-res.Peak) > 1e-4 || res.Peak == 0 {
		t.Errorf("WAV %.3f s peak %.4f; result %.3f s peak %.4f", pcm.Seconds(), pcm.Peak(), res.AudioSeconds, res.Peak)
	}
	if math.Abs(pcm.RMS()-res.RMS) > 1e-4 {
		t.Errorf("WAV rms %.5f, result %.5f", pcm.RMS(), res.RMS)
	}
}

// TestRenderRefusesPastMaxSeconds (issue 37): a MIDI file whose later note
// ends after synth.MaxSeconds is refused by that one bound, before any
// work, for a WAV, in memory and for playback alike, naming the file, the
// note's time and the bound; nothing is written. A note at 10⁶ s used to
// be dropped (a 0:00 WAV, exit 0) where one at 9×10⁵ s was refused by the
// WAV's size.
func TestRenderRefusesPastMaxSeconds(t *testing.T) {
	// The slowest tempo an SMF holds, one tick a beat: 16.78 s a tick, so
	// a late note is a delta the format allows.
	const mpb = 1<<24 - 1
	for _, sec := range []float64{synth.MaxSeconds, 9e5, 1e6 + 1, 1.5e6, 1e9} {
		tick := int64(math.Ceil(sec / (mpb / 1e6)))
		s := &midi.Score{Format: 1, TicksPerBeat: 1, EndTick: tick + 1,
			Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: mpb}},
			Tracks: []midi.Track{{Notes: []midi.Note{{Tick: 0, Dur: 1, Pitch: 60, Velocity: 90}, {Tick: tick, Dur: 1, Pitch: 69, Velocity: 100}}}}}
		in := testfiles.Score(t, "late.mid", s)
		out := filepath.Join(t.TempDir(), "late.wav")
		for _, o := range []string{out, ""} {
			_, err := RenderFile(context.Background(), RenderOptions{Input: in, Output: o, Builtin: true})
			if !errors.Is(err, synth.ErrTooLong) || !strings.Contains(err.Error(), "late.mid") || !strings.Contains(err.Error(), "at most 172800 s") {
				t.Errorf("a note at %g s, output %q: %v; want synth.ErrTooLong naming the file and the bound", sec, o, err)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("a note at %g s: a WAV was written", sec)
		}
		read, err := midi.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := StreamScore(read, RenderOptions{Input: in, Builtin: true}); !errors.Is(err, synth.ErrTooLong) {
			t.Errorf("a note at %g s, playback: %v; want synth.ErrTooLong", sec, err)
		}
	}
	// Just within the bound, playback schedules the note (a WAV would be
	// refused by its 4 GiB, in memory by MaxInMemorySeconds).
	s := testfiles.LateNote(synth.MaxSeconds - 1)
	st, res, err := StreamScore(s, RenderOptions{Input: "within", Builtin: true})
	if err != nil || st == nil || res.AudioSeconds < synth.MaxSeconds-1 {
		t.Errorf("a note ending within the bound: %v, %+v", err, res)
	}
}
