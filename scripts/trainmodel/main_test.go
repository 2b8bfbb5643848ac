package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/nn/cuda"
	"github.com/amtstudio/amt/engine/pipeline"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/engine/train/condition"
)

// testShards writes a token shard of real pieces (the first Nottingham
// tunes when ../shared/data is there, else engine/midi/testdata's files)
// encoded with measured attributes, as `amt datasets --export` writes them.
func testShards(t *testing.T) string {
	t.Helper()
	var files []string
	if corpus.Dir() != "" {
		if all, err := corpus.List(filepath.Join(corpus.Dir(), corpus.Nottingham)); err == nil && len(all) >= 12 {
			files = all[:12]
		}
	}
	made := files == nil
	if made {
		files, _ = filepath.Glob(filepath.Join("..", "..", "engine", "midi", "testdata", "*.mid"))
		t.Logf("real corpora absent: %d MIDI files of engine/midi/testdata", len(files))
	}
	v := token.DefaultVocab()
	var scores []*midi.Score
	for _, f := range files {
		s, err := midi.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		scores = append(scores, s)
	}
	if made {
		// engine/midi's files are a few bars each, shorter than a window
		// of the tiny config: twelve made tunes of 16 bars join them.
		for i := 0; i < 12; i++ {
			scores = append(scores, madeTune(i))
		}
	}
	var pieces [][]uint16
	for _, s := range scores {
		toks, _, err := v.AppendEncodeMeasured(nil, s, midi.Analyze(s))
		if err == nil {
			pieces = append(pieces, toks)
		}
	}
	if len(pieces) < 3 {
		t.Fatalf("only %d pieces encode", len(pieces))
	}
	dir := filepath.Join(t.TempDir(), "data")
	if _, err := pipeline.WriteShard(dir, "shard-00000", pieces); err != nil {
		t.Fatal(err)
	}
	return dir
}

// madeTune is tune i of a made corpus: 16 bars of 4/4, a melody of
// eighth notes over a bass in half notes, key and programs varying with i.
func madeTune(i int) *midi.Score {
	s := &midi.Score{Format: 1, TicksPerBeat: 96,
		Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 400000 + 25000*(i%8)}},
		Meters: []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}}}
	lead := midi.Track{Name: "lead", Channel: 0, Program: (i * 11) % 80}
	bass := midi.Track{Name: "bass", Channel: 1, Program: 32 + i%8}
	scale := []int{0, 2, 4, 5, 7, 9, 11, 12}
	for k := 0; k < 16*8; k++ {
		p := 60 + i%5 + scale[(k*3+k/8+i)%len(scale)]
		lead.Notes = append(lead.Notes, midi.Note{Tick: int64(k * 48), Dur: 44, Pitch: uint8(p), Velocity: uint8(70 + (k%4)*8)})
	}
	for k := 0; k < 16*2; k++ {
		bass.Notes = append(bass.Notes, midi.Note{Tick: int64(k * 192), Dur: 180, Pitch: uint8(36 + i%5 + scale[(k*4)%5]), Velocity: 80})
	}
	s.Tracks = []midi.Track{lead, bass}
	s.EndTick = 16 * 4 * 96
	return s
}

// tinyConfig is the default model's second-run recipe (tonic frame, window
// keys, split seed 1) on the tiny preset, a few short steps.
func tinyConfig(t *testing.T, data, device string) config {
	co := condition.DefaultOptions()
	if err := co.SetKeyLabels("window"); err != nil {
		t.Fatal(err)
	}
	if err := co.SetKeyFrame("tonic"); err != nil {
		t.Fatal(err)
	}
	return config{Data: data, Out: filepath.Join(t.TempDir(), "run"), Preset: "tiny", Device: device, Cond: co,
		Train: train.Options{Steps: 4, Batch: 3, Context: 96, LR: 1e-3, Warmup: 2, WeightDecay: 0.1, Clip: 1,
			ValEvery: 2, ValFrac: valFrac, ValBatches: 2, Checkpoint: 0, Seed: 4, SplitSeed: 1}}
}

// recorder keeps every batch the loader builds, by batch number.
type recorder struct {
	train.Examples
	mu      sync.Mutex
	batches map[uint64][]int32
}

func (r *recorder) Fill(s *train.Split, k, seed uint64, B, T int, in, tg []int32) error {
	err := r.Examples.Fill(s, k, seed, B, T, in, tg)
	if seed == 4 { // training batches (validation's seed is 4 ^ 0x5bd1e995)
		r.mu.Lock()
		r.batches[k] = append(slices.Clone(in), tg...)
		r.mu.Unlock()
	}
	return err
}

// Loader workers on the trainmodel path, conditioning included: any number
// of workers and any queue depth build the same batches bit for bit and
// the run consumes them in order (same losses, bit for bit).
func TestLoaderWorkersKeepTheConditionedRun(t *testing.T) {
	data := testShards(t)
	run1 := func(workers, prefetch int) (train.Result, map[uint64][]int32) {
		c := tinyConfig(t, data, "cpu")
		c.Train.LoaderWorkers, c.Train.Prefetch = workers, prefetch
		rec := &recorder{batches: map[uint64][]int32{}}
		c.wrap = func(e train.Examples) train.Examples { rec.Examples = e; return rec }
		res, err := run(context.Background(), c, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		return res, rec.batches
	}
	want, wantB := run1(1, 1)
	if len(want.Losses) != 4 || math.IsNaN(want.ValLoss) {
		t.Fatalf("losses %v, val %v", want.Losses, want.ValLoss)
	}
	for _, c := range [][2]int{{4, 7}, {3, 2}, {2, 1}} {
		got, gotB := run1(c[0], c[1])
		for k := uint64(0); k < 4; k++ {
			if gotB[k] == nil || !slices.Equal(gotB[k], wantB[k]) {
				t.Errorf("%d workers, prefetch %d: batch %d differs from one worker's", c[0], c[1], k)
			}
		}
		if !slices.Equal(got.Losses, want.Losses) || got.ValLoss != want.ValLoss {
			t.Errorf("%d workers, prefetch %d: losses %v val %v, one worker %v val %v", c[0], c[1], got.Losses, got.ValLoss, want.Losses, want.ValLoss)
		}
	}
}

func TestLoaderDefaults(t *testing.T) {
	for _, c := range []struct {
		gpu                       bool
		cores, workers, prefetch  int
		wantWorkers, wantPrefetch int
	}{
		{false, 16, 0, 0, 1, 2},
		{true, 16, 0, 0, 12, 12}, // the H100 machine's run
		{true, 2, 0, 0, 1, 2},
		{true, 1, 0, 0, 1, 2},
		{true, 16, 5, 0, 5, 5},
		{true, 16, 0, 3, 12, 3},
		{false, 16, 4, 9, 4, 9},
		{true, 192, 0, 0, 64, 64}, // cores*3/4 would be 144: more than train.MaxLoaderWorkers
	} {
		w, p := loaderDefaults(c.gpu, c.cores, c.workers, c.prefetch)
		if w != c.wantWorkers || p != c.wantPrefetch {
			t.Errorf("%+v: %d workers, prefetch %d", c, w, p)
		}
	}
}

// --device cuda without a GPU is an error naming the cause, not a silent
// CPU run; a precision with the CPU is refused.
func TestDeviceChoice(t *testing.T) {
	t.Setenv("AMT_CUDA_DRIVER", "/nonexistent/libcuda.so.1")
	data := testShards(t)
	c := tinyConfig(t, data, "cuda")
	if _, err := run(context.Background(), c, io.Discard); !errors.Is(err, cuda.ErrNoDriver) {
		t.Errorf("cuda without a driver: %v", err)
	}
	c = tinyConfig(t, data, "cpu")
	c.Precision = "bf16"
	if _, err := run(context.Background(), c, io.Discard); err == nil {
		t.Error("cpu with bf16: no error")
	}
	c = tinyConfig(t, data, "auto")
	c.Train.Steps = 1
	var out bytes.Buffer
	if _, err := run(context.Background(), c, &out); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "device: cpu (cuda unavailable: ") || !strings.Contains(s, "loader workers 1, prefetch 2") {
		t.Errorf("auto without a GPU printed %q", s)
	}
}
