package train

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/nn/cpu"
	"github.com/amtstudio/amt/internal/splitmix"
)

// noiseVal fills training batches as Split.Batch does and validation
// batches (the small split) with uniformly random tokens: no model beats
// a uniform guess on those (ln V nats), so a model that learns the
// training pieces' patterns grows more confident and its held-out loss
// rises from the start. The fake held-out set of a run that memorises.
type noiseVal struct{ vocab int }

func (n noiseVal) Fill(s *Split, k, seed uint64, B, T int, in, tg []int32) error {
	if len(s.pieces) >= 10 {
		return s.Batch(k, seed, B, T, in, tg, make([]int32, T+1))
	}
	z := seed ^ k
	for i := range in {
		z = splitmix.Mix64(z + splitmix.Gamma)
		in[i] = int32(z % uint64(n.vocab))
		z = splitmix.Mix64(z + splitmix.Gamma)
		tg[i] = int32(z % uint64(n.vocab))
	}
	return nil
}

// snapshots records the model's weights at each validation (OnStep runs
// after the step's update and its validation, before the next step).
func snapshots(m *gpt.Model, o *Options) (map[int][]float32, *[]Event) {
	snap := map[int][]float32{}
	var evs []Event
	o.OnStep = func(e Event) {
		evs = append(evs, e)
		if e.ValLoss != nil {
			p := make([]float32, m.NumParams())
			m.Backend().Download(p, m.Params())
			snap[e.Step] = p
		}
	}
	return snap, &evs
}

func loadParams(t *testing.T, dir string) []float32 {
	t.Helper()
	be := cpu.NewWorkers(1)
	defer be.Close()
	m, err := gpt.Load(be, dir)
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float32, m.NumParams())
	be.Download(p, m.Params())
	return p
}

// TestKeepBestStopsWhenHeldOutLossRises: the starting model's loss comes
// first (an event of step 0), the held-out loss only rises, so the run
// stops after Patience validations, the model folder holds the starting
// weights and latest/ the last ones; resuming the stopped run is refused.
func TestKeepBestStopsWhenHeldOutLossRises(t *testing.T) {
	ds := NewDataset(patterned(40, 64, 24))
	m := tiny(t, 24)
	dir := t.TempDir()
	o := Options{Steps: 40, Batch: 4, Context: 32, LR: 1e-2, Warmup: 2, Seed: 5, OutDir: dir, ValEvery: 4, Checkpoint: 4,
		ValFrac: 0.1, ValBatches: 2, Examples: noiseVal{24}, ValidateFirst: true, KeepBest: true, Patience: 2}
	snap, evs := snapshots(m, &o)
	res, err := Run(context.Background(), m, ds, o)
	if err != nil {
		t.Fatal(err)
	}
	first := (*evs)[0]
	if first.Step != 0 || first.ValLoss == nil || *first.ValLoss != res.BaseValLoss {
		t.Fatalf("first event %+v, base loss %v: want step 0 carrying the base's loss", first, res.BaseValLoss)
	}
	// ln 24 = 3.178: an initialised model is about uniform.
	if math.Abs(res.BaseValLoss-math.Log(24)) > 0.1 {
		t.Fatalf("base loss on uniform noise %.3f, want about ln 24 = %.3f", res.BaseValLoss, math.Log(24))
	}
	var vals []int
	for _, e := range *evs {
		if e.ValLoss != nil {
			vals = append(vals, e.Step)
		}
	}
	if !res.EarlyStopped || res.BestStep != 0 || res.BestValLoss != res.BaseValLoss || !slices.Equal(vals, []int{0, 4, 8}) || res.Steps != 8 {
		t.Fatalf("early stopped %v at step %d, best step %d (%.4f, base %.4f), validations at %v: want stopped at 8 after validations 0, 4, 8 with the base best",
			res.EarlyStopped, res.Steps, res.BestStep, res.BestValLoss, res.BaseValLoss, vals)
	}
	if !slices.Equal(loadParams(t, dir), snap[0]) {
		t.Fatal("the model folder does not hold the best (starting) weights")
	}
	if !slices.Equal(loadParams(t, filepath.Join(dir, LatestDir)), snap[8]) {
		t.Fatal("latest/ does not hold the weights of the last step")
	}
	o.Resume, o.OnStep = true, nil
	if _, err := Run(context.Background(), tiny(t, 24), ds, o); !errors.Is(err, ErrNoStepsLeft) {
		t.Fatalf("resuming a run that stopped early: %v, want ErrNoStepsLeft", err)
	}
}

// TestKeepBestFollowsFallingLoss: when the held-out pieces are like the
// training pieces the loss falls, the best is a late validation, and the
// model folder holds exactly the weights of that step.
func TestKeepBestFollowsFallingLoss(t *testing.T) {
	ds := NewDataset(patterned(30, 64, 24))
	m := tiny(t, 24)
	dir := t.TempDir()
	o := Options{Steps: 24, Batch: 4, Context: 32, LR: 1e-2, Warmup: 2, Seed: 5, OutDir: dir, ValEvery: 6, Checkpoint: 6,
		ValFrac: 0.2, ValBatches: 2, ValidateFirst: true, KeepBest: true, Patience: 2}
	snap, evs := snapshots(m, &o)
	res, err := Run(context.Background(), m, ds, o)
	if err != nil {
		t.Fatal(err)
	}
	best, at := math.Inf(1), -1
	for _, e := range *evs {
		if e.ValLoss != nil && *e.ValLoss < best {
			best, at = *e.ValLoss, e.Step
		}
	}
	if res.EarlyStopped || res.BestStep != at || res.BestValLoss != best || at < 12 || !(best < res.BaseValLoss-0.5) {
		t.Fatalf("best %.4f at step %d (events: %.4f at %d), base %.4f, early stop %v: want a late best well below the base",
			res.BestValLoss, res.BestStep, best, at, res.BaseValLoss, res.EarlyStopped)
	}
	if !slices.Equal(loadParams(t, dir), snap[at]) {
		t.Fatalf("the model folder does not hold step %d's weights", at)
	}
}

func TestFineTuneSteps(t *testing.T) {
	cases := []struct{ tokens, want int }{
		{1_000, FineTuneMinSteps},      // 0.24 steps of data: the floor
		{4096 * 100, 100},              // one pass over 100 batches
		{4096*100 + 4095, 100},         // a partial batch is not a step
		{1_179_331 * 4 / 5, 230},       // the Irish tunes' training split: 943,464 / 4,096
		{10_000_000, FineTuneMaxSteps}, // a large dataset: the ceiling
		{math.MaxInt32, FineTuneMaxSteps},
	}
	for _, c := range cases {
		if got := FineTuneSteps(c.tokens, 4, 1024); got != c.want {
			t.Errorf("FineTuneSteps(%d, 4, 1024) = %d, want %d", c.tokens, got, c.want)
		}
	}
	o := FineTuneOptions(230)
	if o.ValEvery != 23 || o.Checkpoint != 23 || !o.KeepBest || !o.ValidateFirst || o.Patience != FineTunePatience || o.ValFrac != FineTuneValFrac {
		t.Fatalf("FineTuneOptions(230) = %+v", o)
	}
}

// TestBusy: a folder held by a run is busy, naming its PID; once released
// it is not, and asking creates nothing in the folder.
func TestBusy(t *testing.T) {
	dir := t.TempDir()
	if _, busy := Busy(dir); busy {
		t.Fatal("an empty folder is busy")
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !os.IsNotExist(err) {
		t.Fatalf("Busy created %s (%v)", LockFile, err)
	}
	c, err := ClaimDir(dir, 10, false, false)
	if err != nil {
		t.Fatal(err)
	}
	pid, busy := Busy(dir)
	if !busy || pid != strconv.Itoa(os.Getpid()) {
		t.Fatalf("claimed folder: busy %v, PID %q; want true, %d", busy, pid, os.Getpid())
	}
	c.Release()
	if _, busy := Busy(dir); busy {
		t.Fatal("released folder still busy")
	}
}
