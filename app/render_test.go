package app

import (
	"context"
	"math"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/engine/audio"
	"github.com/amtstudio/amt/engine/midi"
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
