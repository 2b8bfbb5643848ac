package train

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/nn/cpu"
)

func writeShard(t *testing.T, dir, name string, pieces [][]uint16) {
	t.Helper()
	var bin []byte
	var idx []byte
	off := uint64(0)
	for _, p := range pieces {
		idx = binary.LittleEndian.AppendUint64(idx, off)
		for _, tok := range p {
			bin = binary.LittleEndian.AppendUint16(bin, tok)
		}
		off += uint64(len(p))
	}
	idx = binary.LittleEndian.AppendUint64(idx, off)
	if err := os.WriteFile(filepath.Join(dir, name+".bin"), bin, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".idx"), idx, 0o644); err != nil {
		t.Fatal(err)
	}
}

// patterned pieces: piece i repeats a short motif, learnable by a tiny model.
func patterned(n, length, vocab int) [][]uint16 {
	out := make([][]uint16, n)
	for i := range out {
		p := make([]uint16, length)
		p[0] = 1 // BOS
		for j := 1; j < length; j++ {
			p[j] = uint16(3 + (j*(i%3+1))%(vocab-3))
		}
		p[length-1] = 2 // EOS
		out[i] = p
	}
	return out
}

func TestShardsOpenAndValidate(t *testing.T) {
	dir := t.TempDir()
	writeShard(t, dir, "a", [][]uint16{{1, 5, 6, 2}, {1, 7, 2}})
	writeShard(t, dir, "b", [][]uint16{{1, 9, 9, 9, 2}, {}})
	ds, err := OpenDir(dir, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if ds.Pieces() != 3 || ds.Tokens() != 12 {
		t.Fatalf("%d pieces, %d tokens; want 3 (the empty one skipped) and 12", ds.Pieces(), ds.Tokens())
	}

	bad := []struct {
		name  string
		setup func(d string)
		want  error
	}{
		{"token outside vocab", func(d string) { writeShard(t, d, "x", [][]uint16{{1, 10}}) }, ErrBadShard},
		{"idx total wrong", func(d string) {
			writeShard(t, d, "x", [][]uint16{{1, 2}})
			os.WriteFile(filepath.Join(d, "x.idx"), binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 0), 3), 0o644)
		}, ErrBadShard},
		{"decreasing offsets", func(d string) {
			writeShard(t, d, "x", [][]uint16{{1, 2, 3, 4}})
			var idx []byte
			for _, v := range []uint64{0, 3, 1, 4} {
				idx = binary.LittleEndian.AppendUint64(idx, v)
			}
			os.WriteFile(filepath.Join(d, "x.idx"), idx, 0o644)
		}, ErrBadShard},
		{"odd bin", func(d string) {
			writeShard(t, d, "x", [][]uint16{{1}})
			os.WriteFile(filepath.Join(d, "x.bin"), []byte{1, 0, 0}, 0o644)
		}, ErrBadShard},
		{"short idx", func(d string) {
			writeShard(t, d, "x", [][]uint16{{1}})
			os.WriteFile(filepath.Join(d, "x.idx"), []byte{0, 0, 0}, 0o644)
		}, ErrBadShard},
		{"empty folder", func(d string) {}, ErrNoData},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			c.setup(d)
			_, err := OpenDir(d, 10, nil)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
}

func TestSplitAndBatches(t *testing.T) {
	ds := NewDataset(patterned(40, 30, 20))
	tr, va := ds.Split(0.2, 7)
	if tr.Pieces()+va.Pieces() != 40 || va.Pieces() == 0 || tr.Pieces() == 0 {
		t.Fatalf("split %d/%d", tr.Pieces(), va.Pieces())
	}
	tr2, _ := ds.Split(0.2, 7)
	if tr2.Pieces() != tr.Pieces() {
		t.Fatalf("split not deterministic")
	}
	B, T := 3, 16
	in, tg, sc := make([]int32, B*T), make([]int32, B*T), make([]int32, T+1)
	if err := tr.Batch(5, 1, B, T, in, tg, sc); err != nil {
		t.Fatal(err)
	}
	for b := 0; b < B; b++ {
		if !slices.Equal(in[b*T+1:(b+1)*T], tg[b*T:(b+1)*T-1]) {
			t.Fatalf("targets are not the inputs shifted by one")
		}
	}
	in2, tg2 := make([]int32, B*T), make([]int32, B*T)
	tr.Batch(5, 1, B, T, in2, tg2, sc)
	if !slices.Equal(in, in2) || !slices.Equal(tg, tg2) {
		t.Fatalf("batch 5 differs between calls")
	}
	tr.Batch(6, 1, B, T, in2, tg2, sc)
	if slices.Equal(in, in2) {
		t.Fatalf("batches 5 and 6 are equal")
	}
	// A window crossing pieces reads the concatenation.
	s := &Split{}
	for _, p := range NewDataset([][]uint16{{1, 2, 3}, {4, 5}, {6, 7, 8}}).pieces {
		s.add(p, nil, Origin{})
	}
	w := make([]int32, 5)
	s.window(w, 2)
	if !slices.Equal(w, []int32{3, 4, 5, 6, 7}) {
		t.Fatalf("window at 2 = %v", w)
	}
}

func TestLRSchedule(t *testing.T) {
	o := Options{LR: 1, MinLR: 0.1, Warmup: 10, Steps: 110}
	cases := map[int]float64{1: 0.1, 10: 1, 60: 0.55, 110: 0.1}
	for step, want := range cases {
		if got := o.LRAt(step); math.Abs(got-want) > 1e-12 {
			t.Errorf("lr(%d) = %g, want %g", step, got, want)
		}
	}
}

func tiny(t *testing.T, vocab int) *gpt.Model {
	be := cpu.NewWorkers(2)
	t.Cleanup(be.Close)
	c, _ := gpt.Preset("tiny", vocab)
	m, err := gpt.New(be, c)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(3)
	return m
}

func baseOpts(dir string) Options {
	return Options{Steps: 6, Batch: 2, Context: 16, Accum: 2, LR: 3e-3, Warmup: 2, WeightDecay: 0.1, Clip: 1,
		ValEvery: 2, Seed: 11, OutDir: dir}
}

// TestResumeContinuesTheSameCurve: a run cancelled after step 3 and resumed
// gives the same losses, bit for bit, as an uninterrupted run.
func TestResumeContinuesTheSameCurve(t *testing.T) {
	ds := NewDataset(patterned(20, 40, 24))
	full, err := Run(context.Background(), tiny(t, 24), ds, baseOpts(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	o := baseOpts(dir)
	o.OnStep = func(e Event) {
		if e.Step == 3 {
			cancel()
		}
	}
	first, err := Run(ctx, tiny(t, 24), ds, o)
	if !errors.Is(err, context.Canceled) || first.Steps != 3 {
		t.Fatalf("cancelled run: %d steps, err %v", first.Steps, err)
	}
	o = baseOpts(dir)
	o.Resume = true
	rest, err := Run(context.Background(), tiny(t, 24), ds, o) // fresh init: weights must come from the checkpoint
	if err != nil {
		t.Fatal(err)
	}
	got := append(append([]float64(nil), first.Losses...), rest.Losses...)
	if rest.StartStep != 3 || !slices.Equal(got, full.Losses) {
		t.Fatalf("resumed curve (from %d) %v\nuninterrupted       %v", rest.StartStep, got, full.Losses)
	}
	if rest.ValLoss != full.ValLoss {
		t.Fatalf("val loss %v, uninterrupted %v", rest.ValLoss, full.ValLoss)
	}
	// The model folder loads and matches.
	be := cpu.NewWorkers(1)
	defer be.Close()
	m, err := gpt.Load(be, dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.TrainContext != 16 {
		t.Fatalf("saved train context %d", m.Config.TrainContext)
	}
	// A resume with other settings is refused.
	o.Batch = 3
	if _, err := Run(context.Background(), tiny(t, 24), ds, o); err == nil {
		t.Fatalf("resume with another batch size accepted")
	}
}

func TestTrainingLowersLossAndReportsStages(t *testing.T) {
	ds := NewDataset(patterned(12, 64, 24))
	o := Options{Steps: 60, Batch: 4, Context: 32, LR: 1e-2, Warmup: 5, Seed: 1, OutDir: t.TempDir(), ValEvery: 20}
	var events []Event
	o.OnStep = func(e Event) { events = append(events, e) }
	res, err := Run(context.Background(), tiny(t, 24), ds, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 60 || events[19].ValLoss == nil || events[18].ValLoss != nil {
		t.Fatalf("%d events; validation at step 20: %v", len(events), events[19].ValLoss)
	}
	if !(res.TrainLoss < 0.5*res.Losses[0]) || math.IsNaN(res.ValLoss) {
		t.Fatalf("loss %v → %v, val %v", res.Losses[0], res.TrainLoss, res.ValLoss)
	}
	if res.Stage.Forward <= 0 || res.Stage.Backward <= 0 || res.Stage.Optimizer <= 0 || res.TokensPerSecond <= 0 {
		t.Fatalf("stages %+v, tokens/s %v", res.Stage, res.TokensPerSecond)
	}
	if _, err := os.Stat(filepath.Join(o.OutDir, CheckpointFile)); err != nil {
		t.Fatal(err)
	}
	t.Logf("loss %.3f → %.3f (val %.3f), %.0f tokens/s", res.Losses[0], res.TrainLoss, res.ValLoss, res.TokensPerSecond)
}

// valRecorder is an Examples that fills batches as Split.Batch does and
// records the pieces of the split that validation draws from. Like every
// Examples it is safe for concurrent use (the loader's workers and
// validation call Fill at once): each call has its own scratch.
type valRecorder struct {
	mu  sync.Mutex
	val map[string]bool
}

func (r *valRecorder) Fill(s *Split, k, seed uint64, B, T int, in, tg []int32) error {
	if len(s.pieces) < 10 { // the small split: validation
		r.mu.Lock()
		for i := range s.pieces {
			r.val[fmt.Sprint(s.AppendPiece(nil, i))] = true
		}
		r.mu.Unlock()
	}
	return s.Batch(k, seed, B, T, in, tg, make([]int32, T+1))
}

// A run continuing with a new Seed and the first run's SplitSeed validates
// on the first run's pieces; with the new Seed alone, on others.
func TestSplitSeedKeepsValidationPieces(t *testing.T) {
	ps := patterned(60, 40, 24)
	for i, p := range ps { // 60 distinct pieces
		p[1], p[2] = uint16(3+i%20), uint16(3+i/20)
	}
	ds := NewDataset(ps)
	valPieces := func(seed, split uint64) map[string]bool {
		o := baseOpts(t.TempDir())
		o.Steps, o.ValFrac, o.ValBatches = 2, 0.1, 1
		o.Seed, o.SplitSeed = seed, split
		r := &valRecorder{val: map[string]bool{}}
		o.Examples = r
		if _, err := Run(context.Background(), tiny(t, 24), ds, o); err != nil {
			t.Fatal(err)
		}
		if len(r.val) == 0 {
			t.Fatal("no validation pieces seen")
		}
		return r.val
	}
	first := valPieces(11, 0)
	if got := valPieces(12, 11); !maps.Equal(got, first) {
		t.Fatalf("seed 12 with split seed 11 validates on %d other pieces", len(got))
	}
	if got := valPieces(12, 0); maps.Equal(got, first) {
		t.Fatalf("seed 12 alone validates on seed 11's pieces: the test cannot tell the split seed apart")
	}
}
