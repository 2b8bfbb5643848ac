package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"time"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/nn"
)

// Options of a training run.
type Options struct {
	Steps   int // optimizer steps in all (a resumed run counts the earlier ones)
	Batch   int // B
	Context int // T
	Accum   int // micro-batches per step (≥ 1)

	LR, MinLR   float64 // peak and final learning rate (cosine from LR to MinLR)
	Warmup      int     // linear warm-up steps
	WeightDecay float64
	Beta1       float64
	Beta2       float64
	Eps         float64
	Clip        float64 // global gradient-norm limit; 0: none

	ValFrac    float64 // share of pieces held out for validation
	ValEvery   int     // validate every N steps (0: only at the end)
	ValBatches int     // batches per validation
	Checkpoint int     // checkpoint every N steps (0: only at the end)
	Prefetch   int     // batches queued ahead by the loader (default 2)
	// LoaderWorkers build batches in parallel (default 1); batch k always
	// comes from (seed, k), so the run is the same with any number.
	LoaderWorkers int

	Seed uint64
	// SplitSeed chooses the validation pieces (0: Seed). A run continuing
	// another model's training with a new Seed (new examples) keeps the
	// first run's SplitSeed, so its validation pieces stay unseen.
	SplitSeed uint64
	OutDir    string // checkpoint.safetensors and the model files go here
	Resume    bool   // continue from OutDir/checkpoint.safetensors
	// Overwrite lets a fresh run (not Resume) replace the checkpoint
	// OutDir holds; without it the run is refused (ErrCheckpointExists).
	Overwrite bool
	// Claim is OutDir as the caller claimed it (ClaimDir with these
	// options) to write there before the run; it stays the caller's to
	// release. Nil: Run claims OutDir itself for the run's length.
	Claim *Claim

	// OnStep receives an event after every step (and validations).
	OnStep func(Event)

	// Examples, if set, builds the batches (training and validation)
	// instead of random windows of the token stream; see Examples.
	Examples Examples

	// Fine-tuning: a run from a trained model's weights on a small
	// dataset (see FineTune in finetune.go for the defaults chosen by
	// measurement).
	//
	// ValidateFirst validates before the first step: an Event of step 0
	// carries the starting model's held-out loss (Result.BaseValLoss), the
	// first point of the loss chart.
	ValidateFirst bool
	// KeepBest makes OutDir's model files the best validated weights so
	// far (the starting model's when ValidateFirst and nothing beats it);
	// the latest weights go to OutDir/latest (LatestDir) at each
	// checkpoint, besides the checkpoint itself.
	KeepBest bool
	// Patience stops the run early after this many validations in a row
	// that do not lower the best held-out loss (0: never).
	Patience int
}

// LatestDir is the folder inside OutDir that holds the latest weights of a
// KeepBest run (the model a "Listen" while training samples).
const LatestDir = "latest"

// Defaults fills unset options.
func (o *Options) defaults() {
	def := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	def(&o.LR, 3e-4)
	def(&o.Beta1, 0.9)
	def(&o.Beta2, 0.95)
	def(&o.Eps, 1e-8)
	def(&o.ValFrac, 0.05)
	if o.MinLR == 0 {
		o.MinLR = o.LR / 10
	}
	if o.Accum < 1 {
		o.Accum = 1
	}
	if o.ValBatches < 1 {
		o.ValBatches = 4
	}
	if o.Prefetch < 1 {
		o.Prefetch = 2
	}
	if o.LoaderWorkers < 1 {
		o.LoaderWorkers = 1
	}
}

// Optional backend abstractions the trainer uses when a backend has them
// (engine/nn/cuda does):
//   - prefetcher copies the next batch's ids to the device while the
//     current step computes;
//   - stageTimer times forward, backward, the optimizer and host→device
//     copies with device events (host clocks see only the queueing on a
//     GPU);
//   - errBackend reports a failure of asynchronous device work, which
//     otherwise shows only as NaN.
type (
	prefetcher interface{ Prefetch(tokens, targets []int32) }
	stageTimer interface {
		EnableStageTiming(on bool)
		BeginStage(name string)
		EndStage(name string)
		StageSeconds() map[string]float64
	}
	errBackend interface{ Err() error }
)

// LR is the learning rate of step (1-based): linear warm-up, then cosine.
func (o *Options) LRAt(step int) float64 {
	if step <= o.Warmup {
		return o.LR * float64(step) / float64(max(o.Warmup, 1))
	}
	if o.Steps <= o.Warmup {
		return o.LR
	}
	r := float64(step-o.Warmup) / float64(o.Steps-o.Warmup)
	return o.MinLR + 0.5*(o.LR-o.MinLR)*(1+math.Cos(math.Pi*math.Min(r, 1)))
}

// StageSeconds is time per stage: waiting for data, host→device copies of
// the batches (device backends), forward, backward and the optimizer
// (gradient norm, clipping, AdamW). On a backend with stage timing (the
// GPU) all but Data are device times from events; elsewhere host times.
type StageSeconds struct {
	Data      float64 `json:"data"`
	H2D       float64 `json:"h2d,omitempty"`
	Forward   float64 `json:"forward"`
	Backward  float64 `json:"backward"`
	Optimizer float64 `json:"optimizer"`
	// Device: the times other than Data are the device's own.
	Device bool `json:"device_timed,omitempty"`
}

func (s *StageSeconds) add(o StageSeconds) {
	s.Data += o.Data
	s.H2D += o.H2D
	s.Forward += o.Forward
	s.Backward += o.Backward
	s.Optimizer += o.Optimizer
	s.Device = s.Device || o.Device
}

// Event reports one step. Under Options.ValidateFirst an event of Step 0
// comes first, carrying only ValLoss (the starting model's; Loss is 0).
type Event struct {
	Step            int          `json:"step"`
	Steps           int          `json:"steps"`
	Loss            float64      `json:"loss"`
	LR              float64      `json:"lr"`
	GradNorm        float64      `json:"grad_norm"`
	TokensPerSecond float64      `json:"tokens_per_second"`
	ValLoss         *float64     `json:"val_loss,omitempty"`
	Stage           StageSeconds `json:"stage_seconds"`
}

// Result sums up a run.
type Result struct {
	Params          int          `json:"params"`
	Steps           int          `json:"steps"`
	StartStep       int          `json:"start_step"` // > 0 when resumed
	Tokens          int64        `json:"tokens"`
	Seconds         float64      `json:"seconds"`
	TokensPerSecond float64      `json:"tokens_per_second"`
	TrainLoss       float64      `json:"train_loss"`
	ValLoss         float64      `json:"val_loss"` // NaN without validation pieces
	BestValLoss     float64      `json:"best_val_loss"`
	Losses          []float64    `json:"-"` // train loss per step of this run
	Stage           StageSeconds `json:"stage_seconds"`
	TrainPieces     int          `json:"train_pieces"`
	ValPieces       int          `json:"val_pieces"`
	// BaseValLoss is the held-out loss before the first step
	// (ValidateFirst; NaN otherwise); BestStep the step whose weights gave
	// BestValLoss (0: the starting model's); EarlyStopped says Patience
	// ended the run before Steps.
	BaseValLoss  float64 `json:"base_val_loss"`
	BestStep     int     `json:"best_step"`
	EarlyStopped bool    `json:"early_stopped,omitempty"`
}

// CheckpointFile is the name of the checkpoint inside OutDir.
const CheckpointFile = "checkpoint.safetensors"

// state is the checkpoint's metadata.
type state struct {
	Step        int        `json:"step"`
	Seed        uint64     `json:"seed"`
	NextBatch   uint64     `json:"next_batch"` // the loader's position (its RNG state is (seed, batch))
	BestValLoss float64    `json:"best_val_loss"`
	Config      gpt.Config `json:"config"`
	Batch       int        `json:"batch"`
	Context     int        `json:"context"`
	Accum       int        `json:"accum"`
	// Of fine-tuning runs: the step of the best validation, validations
	// since it without a lower loss, the held-out loss before step 1.
	BestStep    int     `json:"best_step,omitempty"`
	SinceBest   int     `json:"since_best,omitempty"`
	BaseValLoss float64 `json:"base_val_loss,omitempty"`
	// Stopped: Patience ended the run at Step.
	Stopped bool `json:"early_stopped,omitempty"`
}

type batch struct {
	k               uint64
	inputs, targets []int32
	err             error
}

// Run trains m on the dataset. It returns when Steps are done, on error, or
// when ctx is cancelled (after writing a checkpoint, with ctx.Err()).
func Run(ctx context.Context, m *gpt.Model, data *Dataset, o Options) (Result, error) {
	o.defaults()
	B, T := o.Batch, o.Context
	if err := o.validate(); err != nil {
		return Result{}, err
	}
	if T > m.Config.NPositions {
		return Result{}, fmt.Errorf("train: context %d exceeds the model's %d positions", T, m.Config.NPositions)
	}
	if o.OutDir == "" {
		return Result{}, errors.New("train: no output folder")
	}
	if o.Claim == nil { // one run per folder, and none over a checkpoint unasked
		c, err := ClaimDir(o.OutDir, o.Steps, o.Resume, o.Overwrite)
		if err != nil {
			return Result{}, err
		}
		defer c.Release()
	} else if filepath.Clean(o.Claim.Dir) != filepath.Clean(o.OutDir) {
		return Result{}, fmt.Errorf("train: the claim of %s does not cover the output folder %s", o.Claim.Dir, o.OutDir)
	}
	atomicfile.CleanStale(o.OutDir) // checkpoints and model files a killed run left half-written
	splitSeed := o.SplitSeed
	if splitSeed == 0 {
		splitSeed = o.Seed
	}
	trainSplit, valSplit := data.Split(o.ValFrac, splitSeed)
	if trainSplit.Tokens() < T+1 {
		return Result{}, fmt.Errorf("%w: the training pieces hold %d tokens, a window of context %d needs %d", ErrNoData, trainSplit.Tokens(), T, T+1)
	}
	be := m.Backend()
	n := m.NumParams()
	mBuf, vBuf := be.Alloc(n), be.Alloc(n)
	defer be.Free(mBuf)
	defer be.Free(vBuf)
	decayEnd := 0
	for _, t := range m.Config.Tensors() {
		if t.Decay {
			decayEnd = t.Off + t.Size()
		}
	}
	m.Config.TrainContext = T
	st := state{Seed: o.Seed, BestValLoss: math.Inf(1), Config: m.Config, Batch: B, Context: T, Accum: o.Accum}
	if o.Resume {
		if err := loadCheckpoint(filepath.Join(o.OutDir, CheckpointFile), m, mBuf, vBuf, &st, o); err != nil {
			return Result{}, err
		}
		if st.Step >= o.Steps { // a run of no steps would report a loss of 0
			return Result{}, noStepsLeft(o.OutDir, st.Step)
		}
		if st.Stopped {
			return Result{}, fmt.Errorf("%w: %s: the run stopped early at step %d (the held-out loss had not fallen for %d validations); its best model is there", ErrNoStepsLeft, o.OutDir, st.Step, st.SinceBest)
		}
	}
	res := Result{Params: n, StartStep: st.Step, TrainPieces: trainSplit.Pieces(), ValPieces: valSplit.Pieces(), ValLoss: math.NaN(),
		BestValLoss: st.BestValLoss, BestStep: st.BestStep, BaseValLoss: math.NaN()}
	if st.BaseValLoss != 0 {
		res.BaseValLoss = st.BaseValLoss
	}

	// Loader: LoaderWorkers goroutines build batches st.NextBatch, +1, …;
	// worker w builds every W-th one into its own bounded queue and the
	// step loop takes them round-robin, so they arrive in order. Buffers
	// are recycled through free.
	W := o.LoaderWorkers
	per := (o.Prefetch + W - 1) / W
	lctx, stop := context.WithCancel(ctx)
	queues := make([]chan *batch, W)
	nbuf := loaderBuffers(W, o.Prefetch) // queued, being filled, the current batch and the one prefetched
	free := make(chan *batch, nbuf)
	for i := 0; i < nbuf; i++ {
		free <- &batch{inputs: make([]int32, B*T), targets: make([]int32, B*T)}
	}
	var wg sync.WaitGroup
	first := st.NextBatch // read here: the step loop advances st.NextBatch as the workers start
	for w := range W {
		queues[w] = make(chan *batch, per)
		wg.Add(1)
		go func(w int, queue chan<- *batch) {
			defer wg.Done()
			defer close(queue)
			scratch := make([]int32, T+1)
			for k := first + uint64(w); ; k += uint64(W) {
				var b *batch
				select {
				case b = <-free:
				case <-lctx.Done():
					return
				}
				b.k = k
				if o.Examples != nil { // Read: a shard cut short is an error, not SIGBUS
					b.err = trainSplit.Read(func() error { return o.Examples.Fill(trainSplit, k, o.Seed, B, T, b.inputs, b.targets) })
				} else {
					b.err = trainSplit.Batch(k, o.Seed, B, T, b.inputs, b.targets, scratch)
				}
				select {
				case queue <- b:
				case <-lctx.Done():
					return
				}
			}
		}(w, queues[w])
	}
	defer func() { stop(); wg.Wait() }()
	taken := 0 // batches taken from the queues
	// take returns the next batch, nil when ctx ended.
	take := func() *batch {
		select {
		case b := <-queues[taken%W]:
			taken++
			return b
		case <-ctx.Done():
			return nil
		}
	}
	pf, _ := be.(prefetcher)
	var ahead *batch // taken early and prefetched to the device
	timer, _ := be.(stageTimer)
	if timer != nil {
		timer.EnableStageTiming(true)
		defer timer.EnableStageTiming(false)
		timer.StageSeconds() // start from nothing
	}
	deviceErr := func() error {
		if eb, ok := be.(errBackend); ok {
			if err := eb.Err(); err != nil {
				return fmt.Errorf("train: device: %w", err)
			}
		}
		return nil
	}

	valIn, valTg, valScratch := make([]int32, B*T), make([]int32, B*T), make([]int32, T+1)
	validate := func() (float64, error) {
		if valSplit.Tokens() < T+1 {
			return math.NaN(), nil
		}
		sum := 0.0
		for i := 0; i < o.ValBatches; i++ {
			var err error
			if o.Examples != nil {
				err = valSplit.Read(func() error { return o.Examples.Fill(valSplit, uint64(i), o.Seed^0x5bd1e995, B, T, valIn, valTg) })
			} else {
				err = valSplit.Batch(uint64(i), o.Seed^0x5bd1e995, B, T, valIn, valTg, valScratch)
			}
			if err != nil {
				return 0, err
			}
			l, err := m.Forward(valIn, valTg, B, T)
			if err != nil {
				return 0, err
			}
			sum += float64(l)
		}
		return sum / float64(o.ValBatches), nil
	}
	save := func() error {
		if err := deviceErr(); err != nil {
			return err // the weights on the device cannot be trusted: keep the last checkpoint
		}
		if err := saveCheckpoint(filepath.Join(o.OutDir, CheckpointFile), m, mBuf, vBuf, st); err != nil {
			return err
		}
		if o.KeepBest {
			return m.Save(filepath.Join(o.OutDir, LatestDir), "F32")
		}
		return m.Save(o.OutDir, "F32")
	}
	// validated records a held-out loss at step st.Step: the best so far
	// (its weights written as OutDir's model under KeepBest) or one more
	// without improvement. It reports whether Patience ends the run.
	validated := func(vl float64) (bool, error) {
		res.ValLoss = vl
		if vl < st.BestValLoss {
			st.BestValLoss, st.BestStep, st.SinceBest = vl, st.Step, 0
			res.BestValLoss, res.BestStep = vl, st.Step
			if o.KeepBest {
				if err := deviceErr(); err != nil {
					return false, err
				}
				if err := m.Save(o.OutDir, "F32"); err != nil {
					return false, err
				}
			}
			return false, nil
		}
		st.SinceBest++
		return o.Patience > 0 && st.SinceBest >= o.Patience, nil
	}
	if o.ValidateFirst && st.Step == 0 {
		vl, err := validate()
		if err != nil {
			return res, err
		}
		if !math.IsNaN(vl) {
			st.BaseValLoss, res.BaseValLoss = vl, vl
			if _, err := validated(vl); err != nil {
				return res, err
			}
			if o.KeepBest { // Listen samples the latest weights from the start
				if err := m.Save(filepath.Join(o.OutDir, LatestDir), "F32"); err != nil {
					return res, err
				}
			}
			if o.OnStep != nil {
				o.OnStep(Event{Step: 0, Steps: o.Steps, ValLoss: &vl}) // no training loss: nothing trained yet
			}
		}
	}

	start := time.Now()
	tokensPerStep := int64(B * T * o.Accum)
	for st.Step < o.Steps {
		if err := ctx.Err(); err != nil {
			res.finish(start)
			if serr := save(); serr != nil {
				return res, serr
			}
			return res, err
		}
		step := st.Step + 1
		t0 := time.Now()
		var stage StageSeconds
		loss := 0.0
		kStart := st.NextBatch
		m.ZeroGrad()
		for a := 0; a < o.Accum; a++ {
			tw := time.Now()
			b := ahead
			ahead = nil
			if b == nil {
				b = take()
			}
			if b == nil {
				continue // ctx ended
			}
			if b.err != nil {
				return res, b.err
			}
			if pf != nil && (step < o.Steps || a < o.Accum-1) {
				// The following batch goes to the device now, its copy
				// overlapping this one's compute. (Waiting for it here
				// costs nothing the next micro-step would not wait anyway.)
				if nb := take(); nb != nil {
					ahead = nb
					if nb.err == nil {
						pf.Prefetch(nb.inputs, nb.targets)
					}
				}
			}
			tf := time.Now()
			if timer != nil {
				timer.BeginStage("forward")
			}
			l, err := m.Forward(b.inputs, b.targets, B, T)
			if err != nil {
				return res, err
			}
			free <- b
			if timer != nil {
				timer.EndStage("forward")
				timer.BeginStage("backward")
			}
			tb := time.Now()
			if err := m.Backward(1 / float32(o.Accum)); err != nil {
				return res, err
			}
			if timer != nil {
				timer.EndStage("backward")
			}
			te := time.Now()
			stage.Data += tf.Sub(tw).Seconds()
			stage.Forward += tb.Sub(tf).Seconds()
			stage.Backward += te.Sub(tb).Seconds()
			loss += float64(l) / float64(o.Accum)
			st.NextBatch++
		}
		if ctx.Err() != nil {
			st.NextBatch = kStart // the step is dropped; the checkpoint happens at the loop top
			continue
		}
		to := time.Now()
		if timer != nil {
			timer.BeginStage("optimizer")
		}
		norm := math.Sqrt(be.SumSquares(m.Grads()))
		if !finite(loss) || !finite(norm) {
			return res, fmt.Errorf("train: step %d: loss %v, gradient norm %v: %w (the model diverged or the data is corrupt; nothing was written at this step)", step, loss, norm, ErrNonFinite)
		}
		scale := float32(1)
		if o.Clip > 0 && norm > o.Clip {
			scale = float32(o.Clip / norm)
		}
		lr := o.LRAt(step)
		hp := nn.AdamW{LR: float32(lr), Beta1: float32(o.Beta1), Beta2: float32(o.Beta2), Eps: float32(o.Eps), Step: step, GradScale: scale}
		p, g := m.Params(), m.Grads()
		hp.WeightDecay = float32(o.WeightDecay)
		be.AdamWUpdate(p.Slice(0, decayEnd), g.Slice(0, decayEnd), mBuf.Slice(0, decayEnd), vBuf.Slice(0, decayEnd), hp)
		hp.WeightDecay = 0
		be.AdamWUpdate(p.Slice(decayEnd, n-decayEnd), g.Slice(decayEnd, n-decayEnd), mBuf.Slice(decayEnd, n-decayEnd), vBuf.Slice(decayEnd, n-decayEnd), hp)
		if ss := be.SumSquares(p); !finite(ss) {
			return res, fmt.Errorf("train: step %d: the update at learning rate %g made the parameters %v: %w (nothing was written at this step)", step, lr, ss, ErrNonFinite)
		}
		stage.Optimizer = time.Since(to).Seconds()
		if timer != nil {
			timer.EndStage("optimizer")
			d := timer.StageSeconds() // waits for the step's device work
			stage = StageSeconds{Data: stage.Data, H2D: d["h2d"], Forward: d["forward"], Backward: d["backward"], Optimizer: d["optimizer"], Device: true}
		}
		if err := deviceErr(); err != nil {
			return res, fmt.Errorf("step %d: %w", step, err)
		}
		st.Step = step
		res.Steps++
		res.Tokens += tokensPerStep
		res.TrainLoss = loss
		res.Losses = append(res.Losses, loss)
		res.Stage.add(stage)
		ev := Event{Step: step, Steps: o.Steps, Loss: loss, LR: lr, GradNorm: norm,
			TokensPerSecond: float64(tokensPerStep) / time.Since(t0).Seconds(), Stage: stage}
		stopNow := false
		if (o.ValEvery > 0 && step%o.ValEvery == 0) || step == o.Steps {
			vl, err := validate()
			if err != nil {
				return res, err
			}
			if !math.IsNaN(vl) {
				ev.ValLoss = &vl
				if stopNow, err = validated(vl); err != nil {
					return res, err
				}
			}
		}
		if o.OnStep != nil {
			o.OnStep(ev)
		}
		if stopNow {
			st.Stopped = true
			res.EarlyStopped = true
		}
		if (o.Checkpoint > 0 && step%o.Checkpoint == 0) || step == o.Steps || stopNow {
			if err := save(); err != nil {
				return res, err
			}
		}
		if stopNow {
			break
		}
	}
	if o.KeepBest && math.IsInf(st.BestValLoss, 1) { // nothing validated: the latest is the model
		if err := m.Save(o.OutDir, "F32"); err != nil {
			return res, err
		}
	}
	res.finish(start)
	return res, nil
}

func (r *Result) finish(start time.Time) {
	r.Seconds = time.Since(start).Seconds()
	if r.Seconds > 0 {
		r.TokensPerSecond = float64(r.Tokens) / r.Seconds
	}
}

// saveCheckpoint writes parameters (Hugging Face names), the AdamW moments
// and the state in one safetensors file, atomically: a crash leaves the old
// checkpoint or the new one, never a mix.
func saveCheckpoint(path string, m *gpt.Model, mBuf, vBuf nn.Buffer, st state) error {
	if math.IsInf(st.BestValLoss, 1) {
		st.BestValLoss = math.MaxFloat64 // JSON has no infinity; no validation yet
	}
	sj, err := json.Marshal(st)
	if err != nil {
		return err
	}
	ts := m.NamedTensors()
	n := m.NumParams()
	mh, vh := make([]float32, n), make([]float32, n)
	m.Backend().Download(mh, mBuf)
	m.Backend().Download(vh, vBuf)
	ts = append(ts, gpt.STensor{Name: "optimizer.adamw.m", Shape: []int{n}, Data: mh}, gpt.STensor{Name: "optimizer.adamw.v", Shape: []int{n}, Data: vh})
	return gpt.WriteSafetensors(path, ts, map[string]string{"amt_checkpoint": string(sj)}, "F32")
}

func loadCheckpoint(path string, m *gpt.Model, mBuf, vBuf nn.Buffer, st *state, o Options) error {
	ts, meta, err := gpt.ReadSafetensors(path)
	if err != nil {
		return fmt.Errorf("train: resume: %w", err)
	}
	var cs state
	if err := json.Unmarshal([]byte(meta["amt_checkpoint"]), &cs); err != nil {
		return fmt.Errorf("train: resume: %s: no training state in the metadata: %v", path, err)
	}
	cs.Config.TrainContext = st.Config.TrainContext
	if cs.Config != st.Config {
		return fmt.Errorf("train: resume: %s: model %+v differs from this run's %+v", path, cs.Config, st.Config)
	}
	if cs.Batch != o.Batch || cs.Context != o.Context || cs.Accum != o.Accum || cs.Seed != o.Seed {
		return fmt.Errorf("train: resume: %s: batch %d, context %d, accum %d, seed %d differ from this run's %d, %d, %d, %d",
			path, cs.Batch, cs.Context, cs.Accum, cs.Seed, o.Batch, o.Context, o.Accum, o.Seed)
	}
	n := m.NumParams()
	mt, vt := ts["optimizer.adamw.m"], ts["optimizer.adamw.v"]
	if len(mt.Data) != n || len(vt.Data) != n {
		return fmt.Errorf("train: resume: %s: optimizer state of %d/%d values, model has %d", path, len(mt.Data), len(vt.Data), n)
	}
	delete(ts, "optimizer.adamw.m")
	delete(ts, "optimizer.adamw.v")
	if err := m.SetTensors(path, ts); err != nil {
		return fmt.Errorf("train: resume: %w", err)
	}
	m.Backend().Upload(mBuf, mt.Data)
	m.Backend().Upload(vBuf, vt.Data)
	cs.Config = st.Config
	if cs.BestValLoss == math.MaxFloat64 {
		cs.BestValLoss = math.Inf(1)
	}
	*st = cs
	return nil
}
