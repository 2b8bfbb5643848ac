package train

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/cpu"
)

// deviceLike is the CPU backend dressed as a device: it records Prefetch
// calls and the ids the embedding kernel receives, answers StageSeconds
// with fixed times, and can start failing like a GPU whose work went wrong.
type deviceLike struct {
	nn.Backend
	prefetched [][]int32
	encoded    [][]int32
	stages     []string // Begin/End calls, in order
	timing     bool
	failAfter  int // AdamW calls before Err reports a failure (0: never)
	adamw      int
}

var errDevice = errors.New("device work failed")

func (d *deviceLike) Prefetch(tokens, targets []int32) {
	d.prefetched = append(d.prefetched, slices.Clone(tokens))
}

func (d *deviceLike) EncoderForward(out, wte, wpe nn.Buffer, tokens []int32, B, T, C int) {
	d.encoded = append(d.encoded, slices.Clone(tokens[:B*T]))
	d.Backend.EncoderForward(out, wte, wpe, tokens, B, T, C)
}

func (d *deviceLike) AdamWUpdate(p, g, m, v nn.Buffer, hp nn.AdamW) {
	d.adamw++
	d.Backend.AdamWUpdate(p, g, m, v, hp)
}

func (d *deviceLike) EnableStageTiming(on bool) { d.timing = on }
func (d *deviceLike) BeginStage(name string)    { d.stages = append(d.stages, "+"+name) }
func (d *deviceLike) EndStage(name string)      { d.stages = append(d.stages, "-"+name) }
func (d *deviceLike) StageSeconds() map[string]float64 {
	return map[string]float64{"h2d": 0.001, "forward": 0.5, "backward": 0.25, "optimizer": 0.125}
}
func (d *deviceLike) Err() error {
	if d.failAfter > 0 && d.adamw >= 2*d.failAfter { // two AdamW calls a step (decay, no decay)
		return errDevice
	}
	return nil
}

func deviceModel(t *testing.T, d *deviceLike) *gpt.Model {
	c, _ := gpt.Preset("tiny", 24)
	m, err := gpt.New(d, c)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(3)
	return m
}

// Each batch but the first is handed to Prefetch during the micro-step
// before it, and the embedding then receives exactly those ids; the stage
// times come from the backend's events, forward and backward bracketed per
// micro-step and the optimizer per step.
func TestTrainPrefetchesAndTimesOnDevice(t *testing.T) {
	d := &deviceLike{Backend: cpu.NewWorkers(2)}
	defer d.Close()
	ds := NewDataset(patterned(20, 40, 24))
	o := baseOpts(t.TempDir())
	o.ValEvery = 0 // validation only after the last step: every training forward is a batch
	var events []Event
	o.OnStep = func(e Event) { events = append(events, e) }
	res, err := Run(context.Background(), deviceModel(t, d), ds, o)
	if err != nil {
		t.Fatal(err)
	}
	micro := o.Steps * o.Accum
	if len(d.prefetched) != micro-1 {
		t.Fatalf("%d prefetches for %d micro-batches, want %d", len(d.prefetched), micro, micro-1)
	}
	for i, p := range d.prefetched {
		if !slices.Equal(d.encoded[i+1], p) {
			t.Fatalf("micro-batch %d: the embedding got other ids than were prefetched", i+1)
		}
	}
	for _, e := range events {
		want := StageSeconds{H2D: 0.001, Forward: 0.5, Backward: 0.25, Optimizer: 0.125, Device: true}
		got := e.Stage
		got.Data = 0
		if got != want {
			t.Fatalf("step %d stages %+v, want the device's %+v", e.Step, e.Stage, want)
		}
	}
	if !res.Stage.Device || res.Stage.Forward != 0.5*float64(o.Steps) {
		t.Errorf("result stages %+v", res.Stage)
	}
	var step []string
	for range o.Accum {
		step = append(step, "+forward", "-forward", "+backward", "-backward")
	}
	step = append(step, "+optimizer", "-optimizer")
	// Validation (after the last step) brackets nothing.
	if want := slices.Repeat(step, o.Steps); !slices.Equal(d.stages, want) {
		t.Errorf("stage brackets %v,\nwant %v", d.stages, want)
	}
	if d.timing {
		t.Error("stage timing left on after the run")
	}
}

// A failure of device work stops the run at that step with the device's
// error, and no checkpoint is written from the suspect weights.
func TestTrainStopsOnDeviceError(t *testing.T) {
	d := &deviceLike{Backend: cpu.NewWorkers(2), failAfter: 3}
	defer d.Close()
	dir := t.TempDir()
	o := baseOpts(dir)
	o.Checkpoint = 2
	res, err := Run(context.Background(), deviceModel(t, d), NewDataset(patterned(20, 40, 24)), o)
	if !errors.Is(err, errDevice) || res.Steps != 2 {
		t.Fatalf("err %v after %d steps; want the device error at step 3", err, res.Steps)
	}
	_, meta, rerr := gpt.ReadSafetensors(filepath.Join(dir, CheckpointFile))
	if rerr != nil {
		t.Fatal(rerr)
	}
	var st state
	if err := json.Unmarshal([]byte(meta["amt_checkpoint"]), &st); err != nil || st.Step != 2 {
		t.Errorf("checkpoint at step %d (%v), want the one of step 2", st.Step, err)
	}
}

// Batches come from (seed, k): any number of loader workers and any queue
// depth give the same run, bit for bit.
func TestLoaderWorkersKeepTheRun(t *testing.T) {
	ds := NewDataset(patterned(20, 40, 24))
	run := func(workers, prefetch int) []float64 {
		o := baseOpts(t.TempDir())
		o.LoaderWorkers, o.Prefetch = workers, prefetch
		res, err := Run(context.Background(), tiny(t, 24), ds, o)
		if err != nil {
			t.Fatal(err)
		}
		return res.Losses
	}
	want := run(1, 2)
	for _, c := range [][2]int{{3, 2}, {2, 5}, {4, 1}} {
		if got := run(c[0], c[1]); !slices.Equal(got, want) {
			t.Errorf("%d workers, prefetch %d: %v, want %v", c[0], c[1], got, want)
		}
	}
}
