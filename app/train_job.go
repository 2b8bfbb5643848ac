package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/storage"
)

// TrainSpec is one training run: `amt train` and the Training screen both
// fill it.
type TrainSpec struct {
	Data   string `json:"data"` // token shards + vocab.json, or MIDI files
	Out    string `json:"out"`  // model folder: weights, config, vocab, checkpoint
	Preset string `json:"preset"`

	Steps           int     `json:"steps"`
	Batch           int     `json:"batch"`
	Context         int     `json:"context"`
	Accum           int     `json:"accum"`
	LR              float64 `json:"lr"`
	MinLR           float64 `json:"min_lr,omitempty"`
	Warmup          int     `json:"warmup,omitempty"` // 0: steps/20
	WeightDecay     float64 `json:"weight_decay"`
	Clip            float64 `json:"clip"`
	ValEvery        int     `json:"val_every"`
	ValFrac         float64 `json:"val_frac"`
	CheckpointEvery int     `json:"checkpoint_every"`
	Seed            uint64  `json:"seed"`
	Resume          bool    `json:"-"`
	// Overwrite lets a fresh run replace the checkpoint Out holds (else it
	// is refused: ErrUsage wrapping train.ErrCheckpointExists).
	Overwrite bool `json:"-"`
	// Workers of the CPU backend; 0: one per core.
	Workers int `json:"workers"`
	// Device is a --device value (OpenDevice): "cpu" (""), "cuda" ("gpu"),
	// or "auto".
	Device string `json:"device"`
	// Precision of the GPU's matrix products ("" default bf16; OpenDeviceWith).
	Precision string `json:"precision,omitempty"`
	// Prefetch: batches the loader keeps ready; LoaderWorkers: goroutines
	// building them (0: train's defaults, 2 and 1).
	Prefetch      int `json:"prefetch,omitempty"`
	LoaderWorkers int `json:"loader_workers,omitempty"`

	// From starts from a trained model instead of random weights:
	// FromDefault (the embedded default model) or a model folder
	// (app/train_finetune.go). Preset is then the base's; Steps, Batch,
	// Context, LR, Warmup, ValFrac, ValEvery and CheckpointEvery 0 take
	// the fine-tune defaults (engine/train/finetune.go).
	From string `json:"from,omitempty"`
	// Patience: validations without a lower held-out loss before a
	// fine-tune stops (0: the default, < 0: never).
	Patience int `json:"patience,omitempty"`
	// DatasetName names the data in a fine-tune's lineage ("": the data
	// folder's name).
	DatasetName string `json:"dataset_name,omitempty"`

	claim *train.Claim // Out, claimed by a TrainJob before its goroutine starts
	// heldOutFiles names the held-out pieces in a lineage (a TrainJob maps
	// a dataset's shard pieces to their files); nil: originName.
	heldOutFiles func([]train.Origin) []string
}

// Defaults and limits of a training spec besides engine/train's.
const (
	// DefaultTrainContext is the context (tokens per sequence) when none
	// is given, or the preset's positions where fewer (tiny: 128).
	DefaultTrainContext = 256
	// MaxTrainWorkers bounds the CPU backend's workers (--threads of
	// bench train): more goroutines than any workstation has cores.
	MaxTrainWorkers = 1024
	// engine/train's limits, named for the front ends.
	MaxSteps         = train.MaxSteps
	MaxBatch         = train.MaxBatch
	MaxAccum         = train.MaxAccum
	MaxPrefetch      = train.MaxPrefetch
	MaxLoaderWorkers = train.MaxLoaderWorkers
)

// withDefaults fills what a spec may leave 0: the warm-up (steps/20) and
// the context (DefaultTrainContext, or the preset's positions where
// fewer, so that `amt train --preset tiny` needs no --context).
func (s TrainSpec) withDefaults() TrainSpec {
	if s.Warmup == 0 {
		s.Warmup = max(1, s.Steps/20)
	}
	if s.Context == 0 {
		s.Context = DefaultTrainContext
		if p, err := presetPositions(s.Preset); err == nil {
			s.Context = min(s.Context, p)
		}
	}
	return s
}

// presetPositions is the most positions (the longest context) of a model
// preset.
func presetPositions(preset string) (int, error) {
	c, err := gpt.Preset(preset, 1024) // the vocabulary does not change the positions
	if err != nil {
		return 0, fmt.Errorf("%w: --preset: %v", ErrUsage, err)
	}
	return c.NPositions, nil
}

// claimOut takes spec.Out for one run (train.ClaimDir): another run
// writing there is a failure naming its PID; a fresh run over a
// checkpoint and a resume with no steps left are usage errors saying what
// to pass.
func claimOut(spec TrainSpec) (*train.Claim, error) {
	c, err := train.ClaimDir(spec.Out, spec.Steps, spec.Resume, spec.Overwrite)
	switch {
	case errors.Is(err, train.ErrCheckpointExists):
		return nil, fmt.Errorf("%w: %w; --resume continues it, --overwrite starts again", ErrUsage, err)
	case errors.Is(err, train.ErrNoStepsLeft):
		return nil, fmt.Errorf("%w: --steps %d: %w", ErrUsage, spec.Steps, err)
	}
	return c, err
}

// ErrNoGPUBackend is returned when a run asks for the GPU and the CUDA
// backend does not open on this machine (the error says why).
var ErrNoGPUBackend = errors.New("GPU training needs a working CUDA device")

// TrainStart describes a run as it starts.
type TrainStart struct {
	Device  string // the backend opened and why (nn.Choice.Reason)
	Params  int
	Preset  string
	Pieces  int
	Tokens  int
	Skipped int
	// FineTune: what a fine-tune will do (nil for a run from random
	// weights).
	FineTune *FineTunePlan
}

// DefaultTrainSpec is the Training screen's starting form (the CLI's
// defaults).
func DefaultTrainSpec() TrainSpec {
	return TrainSpec{Preset: "small", Steps: 1000, Batch: 8, Context: 256, Accum: 1, LR: 1e-3, WeightDecay: 0.1,
		Clip: 1, ValEvery: 100, ValFrac: 0.05, CheckpointEvery: 100, Seed: 1}
}

// TrainModel trains a model on spec.Data into spec.Out. onStart and onStep
// may be nil. It returns the result (nil when no step ran) and the error
// that ended the run (context.Canceled when stopped; a checkpoint was
// written first).
func TrainModel(ctx context.Context, spec TrainSpec, onStart func(TrainStart), onStep func(train.Event)) (*TrainResult, error) {
	if spec.From != "" {
		return fineTune(ctx, spec, onStart, onStep) // app/train_finetune.go
	}
	spec = spec.withDefaults()
	if err := spec.Validate(); err != nil { // app/limits.go
		return nil, err
	}
	if err := CheckOutputDir(spec.Out); err != nil { // app/output.go: before any work
		return nil, fmt.Errorf("train: %w", err)
	}
	claim := spec.claim
	if claim == nil { // before any work and before vocab.json is written
		c, err := claimOut(spec)
		if err != nil {
			return nil, err
		}
		defer c.Release()
		claim = c
	}
	v, err := trainVocab(spec.Data)
	if err != nil {
		return nil, err
	}
	ds, err := train.OpenDir(spec.Data, v.Size(), midiTokenizer(v))
	if err != nil {
		return nil, err
	}
	defer ds.Close()
	cfg, err := gpt.Preset(spec.Preset, v.Size())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	cfg.BOS, cfg.EOS = int(v.BOS), int(v.EOS)
	be, choice, err := OpenDeviceWith(spec.Device, spec.Workers, spec.Precision)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	defer be.Close()
	need := train.LoaderBytes(spec.Batch, spec.Context, spec.LoaderWorkers, spec.Prefetch) // host memory on any device
	if choice.Name == "cpu" {
		need += cfg.TrainBytes(spec.Batch, spec.Context)
	}
	if err := checkMemory(fmt.Sprintf("training %s at batch %d × context %d", spec.Preset, spec.Batch, spec.Context), need); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	m, err := gpt.New(be, cfg)
	if err != nil {
		return nil, err
	}
	m.Init(spec.Seed)
	if err := v.Save(filepath.Join(spec.Out, gpt.VocabFile)); err != nil {
		return nil, err
	}
	if onStart != nil {
		onStart(TrainStart{Device: choice.Reason, Params: m.NumParams(), Preset: spec.Preset, Pieces: ds.Pieces(), Tokens: ds.Tokens(), Skipped: len(ds.Skipped)})
	}
	opts := train.Options{Steps: spec.Steps, Batch: spec.Batch, Context: spec.Context, Accum: spec.Accum, LR: spec.LR,
		MinLR: spec.MinLR, Warmup: spec.Warmup, WeightDecay: spec.WeightDecay, Clip: spec.Clip, ValEvery: spec.ValEvery,
		ValFrac: spec.ValFrac, Checkpoint: spec.CheckpointEvery, Seed: spec.Seed, OutDir: spec.Out, Resume: spec.Resume,
		Overwrite: spec.Overwrite, Claim: claim, Prefetch: spec.Prefetch, LoaderWorkers: spec.LoaderWorkers, OnStep: onStep}
	res, runErr := train.Run(ctx, m, ds, opts)
	if runErr != nil && res.Steps == 0 {
		return nil, runErr
	}
	tr := &TrainResult{Params: res.Params, Preset: spec.Preset, Steps: res.StartStep + res.Steps, StartStep: res.StartStep,
		TokensPerSecond: res.TokensPerSecond, TrainLoss: res.TrainLoss, PeakRSSMB: PeakRSSMB(), StageSeconds: res.Stage,
		Seconds: res.Seconds, TrainPieces: res.TrainPieces, ValPieces: res.ValPieces, Skipped: len(ds.Skipped), Out: spec.Out}
	if !math.IsNaN(res.ValLoss) {
		tr.ValLoss = &res.ValLoss
	}
	if !math.IsInf(res.BestValLoss, 0) && !math.IsNaN(res.BestValLoss) {
		tr.BestValLoss = &res.BestValLoss
	}
	return tr, runErr
}

// Training run statuses besides storage's.
const RunPaused = "paused"

// TrainUpdate is an event of a TrainJob.
type TrainUpdate struct {
	RunID uint64
	// Kind: "start", "step", or the end: "done", "paused", "cancelled",
	// "failed".
	Kind    string
	Start   TrainStart
	Step    train.Event
	ETA     time.Duration // at "step": remaining steps × mean step time
	Elapsed time.Duration
	Result  *TrainResult
	Err     error
}

// TrainJobConfig is what the Training screen starts.
type TrainJobConfig struct {
	Project string    `json:"project"`
	Dataset string    `json:"dataset"`
	Spec    TrainSpec `json:"spec"`
}

// TrainJob is a training run of the Studio: it trains in its own
// goroutine, records its metrics and status in the store, and can be
// paused (a checkpoint is written), resumed from that checkpoint, or
// stopped.
//
// Closing the window pauses the job (the checkpoint is written as the
// run stops); the run is listed as paused and Resume continues it from
// that checkpoint after a restart (ResumeTraining). A process killed
// outright leaves it "interrupted", resumable from its last periodic
// checkpoint.
type TrainJob struct {
	s        *Studio
	RunID    uint64
	ModelDir string // absolute
	cfg      TrainJobConfig

	events chan TrainUpdate

	mu      sync.Mutex
	cancel  context.CancelFunc
	end     string // requested end: RunPaused or storage.RunCancelled
	running bool
	done    chan struct{}
}

// Events delivers the job's updates. Sends never block: when the reader
// lags, step updates are dropped (metrics are in the store regardless);
// ends are always delivered.
func (j *TrainJob) Events() <-chan TrainUpdate { return j.events }

// Config is the job's configuration.
func (j *TrainJob) Config() TrainJobConfig {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.cfg
}

// StartTraining records a new run of cfg and starts it.
func (s *Studio) StartTraining(cfg TrainJobConfig) (*TrainJob, error) {
	if cfg.Project == "" {
		cfg.Project = DefaultProject
	}
	if err := CheckDevice(cfg.Spec.Device); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	switch d := strings.ToLower(cfg.Spec.Device); d {
	case "cuda", "gpu":
		if ok, why := GPUAvailable(); !ok {
			return nil, fmt.Errorf("train: device %s: %w: %s", d, ErrNoGPUBackend, why)
		}
	}
	list, err := ListDatasets(s.Store, cfg.Project)
	if err != nil {
		return nil, fmt.Errorf("train: project %q: %w", cfg.Project, err)
	}
	var ds *DatasetSummary
	for i := range list {
		if list[i].Name == cfg.Dataset {
			ds = &list[i]
		}
	}
	if ds == nil {
		return nil, fmt.Errorf("train: project %q has no dataset %q: %w", cfg.Project, cfg.Dataset, storage.ErrNotFound)
	}
	if ds.OK == 0 {
		return nil, fmt.Errorf("train: dataset %q has no usable pieces", cfg.Dataset)
	}
	cfg.Spec.Data = ds.ShardDir
	if cfg.Spec.From != "" {
		cfg.Spec.DatasetName = ds.Name
	}
	run := &storage.TrainRun{ProjectID: ds.ProjectID, DatasetID: ds.ID, Status: storage.RunRunning, Started: time.Now().UTC()}
	var claim *train.Claim
	var claimErr error
	err = s.Store.Update(func(tx *bolt.Tx) error {
		if err := storage.PutTrainRun(tx, run); err != nil {
			return err
		}
		run.ModelDir = fmt.Sprintf("%s/run-%06d", storage.ModelsDir, run.ID)
		cfg.Spec.Out = s.Store.Abs(run.ModelDir)
		// The run's folder is claimed before the run is recorded: a
		// folder left by a store that was lost, holding a checkpoint, is
		// refused (the window shows why) and no record is left.
		if claim, claimErr = claimOut(cfg.Spec); claimErr != nil {
			return claimErr
		}
		c, err := json.Marshal(cfg)
		if err != nil {
			return err
		}
		run.Config = c
		return storage.PutTrainRun(tx, run)
	})
	if err != nil {
		claim.Release()
		if claimErr != nil {
			return nil, claimErr
		}
		return nil, fmt.Errorf("train: record run: %w", err)
	}
	j := &TrainJob{s: s, RunID: run.ID, ModelDir: cfg.Spec.Out, cfg: cfg, events: make(chan TrainUpdate, 256)}
	j.start(false, claim)
	return j, nil
}

// ResumeTraining continues a paused or interrupted run from its
// checkpoint.
func (s *Studio) ResumeTraining(runID uint64) (*TrainJob, error) {
	var run *storage.TrainRun
	if err := s.Store.View(func(tx *bolt.Tx) error {
		var err error
		run, err = storage.GetTrainRun(tx, runID)
		return err
	}); err != nil {
		return nil, fmt.Errorf("resume run %d: %w", runID, err)
	}
	var cfg TrainJobConfig
	if err := json.Unmarshal(run.Config, &cfg); err != nil {
		return nil, fmt.Errorf("resume run %d: config: %w", runID, err)
	}
	cfg.Spec.Out = s.Store.Abs(run.ModelDir)
	j := &TrainJob{s: s, RunID: run.ID, ModelDir: cfg.Spec.Out, cfg: cfg, events: make(chan TrainUpdate, 256)}
	claim, err := j.claim()
	if err != nil {
		return nil, err
	}
	j.start(true, claim)
	return j, nil
}

// claim takes the run's folder to resume it from its checkpoint: the
// checkpoint must be there, below the run's steps, and no other run
// (another job of this process, `amt train` in another) may be writing
// the folder.
func (j *TrainJob) claim() (*train.Claim, error) {
	j.mu.Lock()
	spec := j.cfg.Spec
	j.mu.Unlock()
	spec.Resume = true
	c, err := claimOut(spec)
	if err != nil {
		return nil, fmt.Errorf("resume run %d: %w", j.RunID, err)
	}
	return c, nil
}

// Resumable reports whether a stored run can be resumed.
func Resumable(r storage.TrainRun) bool {
	return r.Status == RunPaused || r.Status == storage.RunInterrupted || r.Status == storage.RunCancelled
}

func (j *TrainJob) send(u TrainUpdate, must bool) {
	u.RunID = j.RunID
	if must {
		j.events <- u // the buffer holds it unless 256 ends queued: never
		return
	}
	select {
	case j.events <- u:
	default:
	}
}

func (j *TrainJob) setStatus(status, errText string, res *TrainResult) {
	j.s.Store.Update(func(tx *bolt.Tx) error {
		r, err := storage.GetTrainRun(tx, j.RunID)
		if err != nil {
			return err
		}
		r.Status, r.Error = status, errText
		if status != storage.RunRunning {
			r.Finished = time.Now().UTC()
		} else {
			r.Finished = time.Time{}
		}
		if res != nil {
			r.Stages = RunStages(res)
			if res.Lineage != nil && status == storage.RunDone {
				l := *res.Lineage
				l.DatasetID = r.DatasetID
				r.Lineage = &l
			}
		}
		return storage.PutTrainRun(tx, r)
	})
}

// planned records the steps, batch and context a fine-tune chose from its
// data (its spec's zeros), so a resume claims and continues the same run.
func (j *TrainJob) planned(p *FineTunePlan) {
	j.mu.Lock()
	j.cfg.Spec.Steps, j.cfg.Spec.Batch, j.cfg.Spec.Context = p.Steps, p.Batch, p.Context
	cfg := j.cfg
	j.mu.Unlock()
	c, err := json.Marshal(cfg)
	if err != nil {
		return
	}
	j.s.Store.Update(func(tx *bolt.Tx) error {
		r, err := storage.GetTrainRun(tx, j.RunID)
		if err != nil {
			return err
		}
		r.Config = c
		return storage.PutTrainRun(tx, r)
	})
}

// heldOutFiles maps a dataset's shard pieces to the files they were
// imported from (the dataset's root and each item's path); a piece no
// item names keeps its shard name.
func (s *Studio) heldOutFiles(datasetID uint64) func([]train.Origin) []string {
	return func(origins []train.Origin) []string {
		type at struct {
			shard  string
			offset uint64
		}
		files := map[at]string{}
		s.Store.View(func(tx *bolt.Tx) error {
			ds, err := storage.GetDataset(tx, datasetID)
			if err != nil {
				return err
			}
			shards, err := storage.Shards(tx, datasetID)
			if err != nil {
				return err
			}
			paths := map[uint64]string{}
			for _, sh := range shards {
				paths[sh.ID] = filepath.Clean(s.Store.Abs(sh.Path) + ".bin")
			}
			return storage.Items(tx, datasetID, func(it *storage.Item) bool {
				if it.Status == storage.ItemOK && it.ShardID != 0 {
					files[at{paths[it.ShardID], it.Offset}] = filepath.Join(ds.Root, filepath.FromSlash(it.Path))
				}
				return true
			})
		})
		out := make([]string, 0, len(origins))
		for _, o := range origins {
			if f, ok := files[at{filepath.Clean(o.Shard), o.Offset}]; ok && o.Shard != "" {
				out = append(out, f)
			} else {
				out = append(out, originName(o))
			}
		}
		return out
	}
}

// start runs a segment of the job in its own goroutine on the folder
// claimed for it, which the segment releases as it ends.
func (j *TrainJob) start(resume bool, claim *train.Claim) {
	ctx, cancel := context.WithCancel(context.Background())
	j.mu.Lock()
	j.cancel, j.end, j.running = cancel, "", true
	j.done = make(chan struct{})
	done := j.done
	j.mu.Unlock()
	if resume {
		j.setStatus(storage.RunRunning, "", nil)
	}
	j.mu.Lock()
	spec := j.cfg.Spec
	j.mu.Unlock()
	spec.Resume, spec.claim = resume, claim
	if spec.From != "" {
		var dsID uint64
		j.s.Store.View(func(tx *bolt.Tx) error {
			r, err := storage.GetTrainRun(tx, j.RunID)
			if err == nil {
				dsID = r.DatasetID
			}
			return err
		})
		spec.heldOutFiles = j.s.heldOutFiles(dsID)
	}
	go func() {
		defer close(done)
		defer cancel()
		began := time.Now()
		stepsFrom := began // the ETA counts training steps only (not a fine-tune's first validation)
		var pending []storage.Metric
		lastFlush := time.Now()
		flush := func() {
			if len(pending) == 0 {
				return
			}
			pts := pending
			pending = nil
			j.s.Store.Update(func(tx *bolt.Tx) error { return storage.AppendMetrics(tx, j.RunID, pts) })
		}
		first := -1
		onStart := func(i TrainStart) {
			if i.FineTune != nil {
				j.planned(i.FineTune)
			}
			j.send(TrainUpdate{Kind: "start", Start: i}, false)
		}
		onStep := func(e train.Event) {
			now := time.Now()
			if e.Step == 0 { // a fine-tune's base: its held-out loss, the chart's first point
				if e.ValLoss != nil {
					pending = append(pending, storage.Metric{Step: 0, Name: "val_loss", Value: *e.ValLoss, Time: now})
					stepsFrom = now
				}
				j.send(TrainUpdate{Kind: "step", Step: e, Elapsed: now.Sub(began)}, false)
				return
			}
			if first < 0 {
				first = e.Step - 1
			}
			pending = append(pending, storage.Metric{Step: e.Step, Name: "train_loss", Value: e.Loss, Time: now},
				storage.Metric{Step: e.Step, Name: "tokens_per_s", Value: e.TokensPerSecond, Time: now},
				storage.Metric{Step: e.Step, Name: "lr", Value: e.LR, Time: now})
			if e.ValLoss != nil {
				pending = append(pending, storage.Metric{Step: e.Step, Name: "val_loss", Value: *e.ValLoss, Time: now})
			}
			if now.Sub(lastFlush) >= time.Second {
				flush()
				lastFlush = now
			}
			el := now.Sub(began)
			var eta time.Duration
			if n := e.Step - first; n > 0 {
				eta = time.Duration(float64(now.Sub(stepsFrom)) / float64(n) * float64(e.Steps-e.Step))
			}
			j.send(TrainUpdate{Kind: "step", Step: e, ETA: eta, Elapsed: el}, false)
		}
		res, err := TrainModel(ctx, spec, onStart, onStep)
		claim.Release() // before the end is told: a Resume that follows claims the folder again
		flush()
		ForgetModel(j.ModelDir)
		ForgetModel(filepath.Join(j.ModelDir, train.LatestDir))
		j.mu.Lock()
		end := j.end
		j.running = false
		j.mu.Unlock()
		u := TrainUpdate{Result: res, Err: err, Elapsed: time.Since(began)}
		switch {
		case err == nil:
			u.Kind = storage.RunDone
			u.Err = nil
		case errors.Is(err, context.Canceled) && end != "":
			u.Kind, u.Err = end, nil
		default:
			u.Kind = storage.RunFailed
		}
		errText := ""
		if u.Err != nil {
			errText = u.Err.Error()
		}
		j.setStatus(u.Kind, errText, res)
		j.send(u, true)
	}()
}

func (j *TrainJob) halt(end string) {
	j.mu.Lock()
	if j.running && j.end == "" {
		j.end = end
		j.cancel()
	}
	done := j.done
	j.mu.Unlock()
	<-done
}

// Pause stops the run after writing a checkpoint; Resume continues it.
// It returns when the run has stopped.
func (j *TrainJob) Pause() { j.halt(RunPaused) }

// Stop ends the run for good (its checkpoint and model stay).
func (j *TrainJob) Stop() { j.halt(storage.RunCancelled) }

// Resume continues a paused job from its checkpoint.
func (j *TrainJob) Resume() error {
	j.mu.Lock()
	running := j.running
	j.mu.Unlock()
	if running {
		return errors.New("train: the run is already running")
	}
	claim, err := j.claim()
	if err != nil {
		return err
	}
	j.start(true, claim)
	return nil
}

// Running reports whether the job is training now.
func (j *TrainJob) Running() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.running
}

// Wait blocks until the current run segment ends.
func (j *TrainJob) Wait() {
	j.mu.Lock()
	done := j.done
	j.mu.Unlock()
	<-done
}

// Checkpoints lists the files of the run's model folder that a sample can
// be drawn from, with their times.
func (j *TrainJob) Checkpoints() []CheckpointInfo { return ListCheckpoints(j.ModelDir) }

// ListenDir is the model a "Listen" samples: the run's latest weights
// (a fine-tune's latest/, else its folder).
func (j *TrainJob) ListenDir() string { return LatestModelDir(j.ModelDir) }

// CheckpointInfo is one checkpoint file.
type CheckpointInfo struct {
	Path     string
	Modified time.Time
	Bytes    int64
}

// ListCheckpoints lists the checkpoint and model files of a model folder.
func ListCheckpoints(dir string) []CheckpointInfo {
	var out []CheckpointInfo
	for _, n := range []string{train.CheckpointFile, gpt.WeightsFile} {
		p := filepath.Join(dir, n)
		if fi, err := os.Stat(p); err == nil {
			out = append(out, CheckpointInfo{Path: p, Modified: fi.ModTime(), Bytes: fi.Size()})
		}
	}
	return out
}
