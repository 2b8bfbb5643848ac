package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/amtstudio/amt/assets"
	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/engine/train/condition"
	"github.com/amtstudio/amt/storage"
)

// Fine-tuning (issue 34): `amt train --from default|DIR` and the Training
// screen's "Start from" teach a trained model a user's dataset. The base's
// folder (or the embedded default model) is only read; the tuned model is
// written to the run's own folder, whose model files are the best
// validated weights (train.Options.KeepBest), with the latest weights in
// its latest/ folder for a "Listen" while it trains, and its lineage
// (lineage.json, and the run's record in a project) once it finished.
// The examples are the default model's (engine/train/condition, in the
// base's key frame), so the prompt prefix keeps working. Defaults:
// engine/train/finetune.go; why: docs/MODEL.md, "Fine-tuning".

// FromDefault names the embedded default model as a fine-tune's base
// (--from default).
const FromDefault = "default"

// The fine-tune defaults the front ends show (engine/train/finetune.go):
// Patience (--patience), the batch and the learning rate.
const (
	FineTunePatience = train.FineTunePatience
	FineTuneBatch    = train.FineTuneBatch
	FineTuneLR       = train.FineTuneLR
)

// FineTuneLevers are the decoding levers a finished fine-tune uses unless
// a request names its own (Model.levers): the canonical lever alone (no
// pitch doubled at one onset in one program, at most 6 pitches a chord).
// Why: the default levers steer toward what the default model's corpora
// do. On the Irish tunes' held-out pieces (40, the same prompts and
// seeds) the tuned model's answers were told from the real tunes 94.6%
// of the time (forest; 97.5% linear) with the default levers, 89.2% /
// 87.6% with none and 89.4% / 85.8% with canonical alone: the line lever
// made their top lines move by step (0.77 of intervals against the
// tunes' 0.50) and the strains' varied restatements removed the tunes'
// repeated strains (exact bar repeats 0.07 against 0.53; 0.33 without).
// docs/MODEL.md, "Fine-tuning".
const FineTuneLevers = LeverCanonical

// DefaultModelName is how a lineage names the embedded default model.
const DefaultModelName = "default model"

// LineageFile is the lineage of a fine-tuned model, in its folder.
const LineageFile = "lineage.json"

// Lineage is where a fine-tuned model came from (storage.Lineage).
type Lineage = storage.Lineage

// ErrNotFineTuned: a model folder without a lineage (a model trained from
// random weights, or a fine-tune that did not finish).
var ErrNotFineTuned = errors.New("not a finished fine-tune (no " + LineageFile + ")")

// ReadLineage reads the lineage of a fine-tuned model folder.
func ReadLineage(dir string) (*Lineage, error) {
	data, err := os.ReadFile(filepath.Join(dir, LineageFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("model %s: %w", dir, ErrNotFineTuned)
	}
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	var l Lineage
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("model %s: %s: %w", dir, LineageFile, err)
	}
	return &l, nil
}

// writeLineage writes l into dir atomically.
func writeLineage(dir string, l *Lineage) error {
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, LineageFile), append(data, '\n'))
}

// baseModel is a fine-tune's starting point, loaded on the training
// device.
type baseModel struct {
	m    *gpt.Model
	v    *token.Vocab
	name string // DefaultModelName or the folder
	dir  string // "" for the embedded model
	hash string // hex SHA-256 of the weights
}

// openBase loads the base model from (FromDefault or a model folder) onto
// be. A folder a training run is writing is refused by name: its weights
// and config may be of different steps for a moment.
func openBase(be nn.Backend, from string) (*baseModel, error) {
	if from == FromDefault {
		m, v, err := embeddedOnto(be)
		if err != nil {
			return nil, fmt.Errorf("train: --from default: %w", err)
		}
		return &baseModel{m: m, v: v, name: DefaultModelName, hash: embeddedHash()}, nil
	}
	dir, err := filepath.Abs(from)
	if err != nil {
		return nil, fmt.Errorf("train: --from %s: %w", from, err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: --from %s: not a model folder (config.json, model.safetensors, vocab.json) nor %q", ErrUsage, from, FromDefault)
	}
	if pid, busy := train.Busy(dir); busy {
		who := "a training run"
		if pid != "" {
			who += " (PID " + pid + ")"
		}
		return nil, fmt.Errorf("train: --from %s: %s is writing this folder: wait until it finishes, or start from a finished model", from, who)
	}
	var missing []string
	for _, f := range []string{gpt.ConfigFile, gpt.WeightsFile, gpt.VocabFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("train: --from %s: not a model folder: no %s", from, strings.Join(missing, ", "))
	}
	v, err := token.LoadVocab(filepath.Join(dir, gpt.VocabFile))
	if err != nil {
		return nil, fmt.Errorf("train: --from %s: %w", from, err)
	}
	m, err := gpt.Load(be, dir)
	if err != nil {
		return nil, fmt.Errorf("train: --from %s: %w", from, err)
	}
	if m.Config.VocabSize != v.Size() {
		return nil, fmt.Errorf("train: --from %s: the model has %d tokens, its vocab.json %d", from, m.Config.VocabSize, v.Size())
	}
	if c := m.Config; c.BOS != int(v.BOS) || c.EOS != int(v.EOS) {
		return nil, fmt.Errorf("train: --from %s: BOS/EOS %d/%d, its vocabulary's are %d/%d", from, c.BOS, c.EOS, v.BOS, v.EOS)
	}
	hash, err := fileSHA256(filepath.Join(dir, gpt.WeightsFile))
	if err != nil {
		return nil, fmt.Errorf("train: --from %s: %w", from, err)
	}
	return &baseModel{m: m, v: v, name: dir, dir: dir, hash: hash}, nil
}

// embeddedHash is the hex SHA-256 of the embedded default model's
// weights, as a lineage names it.
func embeddedHash() string {
	sum := sha256.Sum256(assets.ModelWeights)
	return hex.EncodeToString(sum[:])
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sameVocab checks that the data's vocabulary (its vocab.json, for token
// shards) is the base's: a token id must mean the same thing to both.
func sameVocab(base *baseModel, data string) error {
	p := filepath.Join(data, gpt.VocabFile)
	if _, err := os.Stat(p); err != nil {
		return nil // MIDI files: tokenized with the base's vocabulary
	}
	dv, err := token.LoadVocab(p)
	if err != nil {
		return fmt.Errorf("train: --data %s: %w", data, err)
	}
	a, _ := base.v.MarshalJSON()
	b, _ := dv.MarshalJSON()
	if bytes.Equal(a, b) {
		return nil
	}
	return fmt.Errorf("%w: the base model %s has vocabulary version %d of %d tokens, the data %s version %d of %d tokens%s: a fine-tune needs the same vocabulary (import the data again with the base's build, or start from a model of the data's vocabulary)",
		ErrUsage, base.name, base.v.Version(), base.v.Size(), data, dv.Version(), dv.Size(), sameSizeNote(base.v, dv))
}

func sameSizeNote(a, b *token.Vocab) string {
	if a.Size() == b.Size() && a.Version() == b.Version() {
		return " (the same size and version, other tokens)"
	}
	return ""
}

// ErrTooFewPieces: a fine-tune needs pieces to learn from and pieces held
// out to measure it.
var ErrTooFewPieces = errors.New("too few pieces to fine-tune")

// MinFineTunePieces is the fewest pieces a fine-tune takes: at least one
// to learn from and one held out, without which neither the best weights
// nor the moment to stop can be told.
const MinFineTunePieces = 2

// fineTuneContext is the context of a fine-tune: asked (checked against
// the base's positions and the held-out tokens) or the base's training
// context, halved while the smaller split cannot fill a window (a dataset of
// a few short tunes).
func fineTuneContext(asked int, c gpt.Config, trainTokens, valTokens int) (int, error) {
	fit := min(trainTokens, valTokens) - 1
	if asked > 0 {
		if asked > c.NPositions {
			return 0, fmt.Errorf("%w: --context %d: the base model has %d positions", ErrUsage, asked, c.NPositions)
		}
		if asked > fit {
			return 0, fmt.Errorf("%w: --context %d: the held-out pieces hold %d tokens and the training pieces %d; a window needs one more than the context (give a smaller --context or more pieces)", ErrUsage, asked, valTokens, trainTokens)
		}
		return asked, nil
	}
	T := c.TrainContext
	if T <= 0 {
		T = min(DefaultTrainContext, c.NPositions)
	}
	if fit < T && fit >= 2 {
		T = 1 << (bits.Len(uint(fit)) - 1) // the largest power of two that fits
	}
	if T > fit || T < 2 {
		return 0, fmt.Errorf("%w: the pieces are too short: %d tokens held out and %d to learn from", ErrTooFewPieces, valTokens, trainTokens)
	}
	return T, nil
}

// FineTunePlan is what a fine-tune will do, known once the data is read.
type FineTunePlan struct {
	Base        string `json:"base"`
	Steps       int    `json:"steps"`
	Batch       int    `json:"batch"`
	Context     int    `json:"context"`
	TrainPieces int    `json:"train_pieces"`
	ValPieces   int    `json:"val_pieces"`
	TrainTokens int    `json:"train_tokens"`
}

// fineTune is TrainModel for a spec with From: see the file comment.
func fineTune(ctx context.Context, spec TrainSpec, onStart func(TrainStart), onStep func(train.Event)) (*TrainResult, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := CheckOutputDir(spec.Out); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	if spec.From != FromDefault && within(spec.Out, spec.From) {
		return nil, fmt.Errorf("%w: --out %s is the base model's folder or inside it: a fine-tune never writes into its base (choose another folder)", ErrUsage, spec.Out)
	}
	if abs, err := filepath.Abs(spec.Data); err == nil { // the lineage names files a report reads from anywhere
		spec.Data = abs
	}
	be, choice, err := OpenDeviceWith(spec.Device, spec.Workers, spec.Precision)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	defer be.Close()
	base, err := openBase(be, spec.From)
	if err != nil {
		return nil, err
	}
	if err := sameVocab(base, spec.Data); err != nil {
		return nil, err
	}
	ds, err := train.OpenDir(spec.Data, base.v.Size(), midiTokenizer(base.v))
	if err != nil {
		return nil, err
	}
	defer ds.Close()
	if ds.Pieces() < MinFineTunePieces {
		return nil, fmt.Errorf("train: %w: %s holds %d piece(s) with notes; a fine-tune needs at least %d, one or more to learn from and one held out to measure it", ErrTooFewPieces, spec.Data, ds.Pieces(), MinFineTunePieces)
	}
	valFrac := spec.ValFrac
	if valFrac == 0 {
		valFrac = train.FineTuneValFrac
	}
	trSplit, valSplit := ds.Split(valFrac, train.FineTuneSplitSeed)
	T, err := fineTuneContext(spec.Context, base.m.Config, trSplit.Tokens(), valSplit.Tokens())
	if err != nil {
		return nil, fmt.Errorf("train: %s: %w", spec.Data, err)
	}
	B := spec.Batch
	if B == 0 {
		B = train.FineTuneBatch
	}
	steps := spec.Steps
	if steps == 0 {
		steps = train.FineTuneSteps(trSplit.Tokens(), B, T)
	}
	spec.Steps, spec.Context, spec.Batch = steps, T, B
	claim := spec.claim
	if claim == nil {
		c, err := claimOut(spec)
		if err != nil {
			return nil, err
		}
		defer c.Release()
		claim = c
	}
	need := train.LoaderBytes(B, T, spec.LoaderWorkers, spec.Prefetch)
	if choice.Name == "cpu" {
		need += base.m.Config.TrainBytes(B, T)
	}
	if err := checkMemory(fmt.Sprintf("fine-tuning at batch %d × context %d", B, T), need); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	for _, d := range []string{spec.Out, filepath.Join(spec.Out, train.LatestDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
		if err := base.v.Save(filepath.Join(d, gpt.VocabFile)); err != nil {
			return nil, err
		}
	}
	o := train.FineTuneOptions(steps)
	o.Batch, o.Context, o.Seed, o.OutDir, o.Resume, o.Overwrite, o.Claim = B, T, spec.Seed, spec.Out, spec.Resume, spec.Overwrite, claim
	o.ValFrac, o.Prefetch, o.LoaderWorkers, o.OnStep = valFrac, spec.Prefetch, spec.LoaderWorkers, onStep
	o.WeightDecay, o.Clip = spec.WeightDecay, spec.Clip
	if spec.Accum > 0 {
		o.Accum = spec.Accum
	}
	if spec.LR > 0 {
		o.LR, o.MinLR = spec.LR, spec.LR/10
	}
	if spec.MinLR > 0 {
		o.MinLR = spec.MinLR
	}
	if spec.Warmup > 0 {
		o.Warmup = spec.Warmup
	}
	if spec.ValEvery > 0 {
		o.ValEvery = spec.ValEvery
	}
	if spec.CheckpointEvery > 0 {
		o.Checkpoint = spec.CheckpointEvery
	}
	switch {
	case spec.Patience > 0:
		o.Patience = spec.Patience
	case spec.Patience < 0:
		o.Patience = 0 // never stop early
	}
	co := condition.DefaultOptions()
	co.TonicFrame = base.m.Config.KeyFrame == gpt.KeyFrameTonic
	o.Examples = condition.New(base.v, co)
	if onStart != nil {
		onStart(TrainStart{Device: choice.Reason, Params: base.m.NumParams(), Preset: "fine-tune of the " + baseLabel(base), Pieces: ds.Pieces(),
			Tokens: ds.Tokens(), Skipped: len(ds.Skipped), FineTune: &FineTunePlan{Base: base.name, Steps: steps, Batch: B, Context: T,
				TrainPieces: trSplit.Pieces(), ValPieces: valSplit.Pieces(), TrainTokens: trSplit.Tokens()}})
	}
	res, runErr := train.Run(ctx, base.m, ds, o)
	if runErr != nil && res.Steps == 0 && !(errors.Is(runErr, context.Canceled) && !math.IsNaN(res.BaseValLoss)) {
		return nil, runErr
	}
	tr := &TrainResult{Params: res.Params, Preset: "fine-tune", From: base.name, Steps: res.StartStep + res.Steps, StartStep: res.StartStep,
		TokensPerSecond: res.TokensPerSecond, TrainLoss: res.TrainLoss, PeakRSSMB: PeakRSSMB(), StageSeconds: res.Stage,
		Seconds: res.Seconds, TrainPieces: res.TrainPieces, ValPieces: res.ValPieces, Skipped: len(ds.Skipped), Out: spec.Out,
		BestStep: res.BestStep, EarlyStopped: res.EarlyStopped}
	if !math.IsNaN(res.ValLoss) {
		tr.ValLoss = &res.ValLoss
	}
	if !math.IsInf(res.BestValLoss, 0) && !math.IsNaN(res.BestValLoss) {
		tr.BestValLoss = &res.BestValLoss
	}
	if !math.IsNaN(res.BaseValLoss) {
		tr.BaseValLoss = &res.BaseValLoss
	}
	if runErr != nil {
		return tr, runErr
	}
	// Finished: the lineage says what the model folder now holds.
	l := &Lineage{Base: base.name, BaseSHA256: base.hash, Dataset: spec.DatasetName, Data: spec.Data, Steps: tr.Steps,
		PlannedSteps: steps, BestStep: res.BestStep, EarlyStopped: res.EarlyStopped, Date: time.Now().UTC(), ValFrac: valFrac,
		SplitSeed: train.FineTuneSplitSeed, TrainPieces: res.TrainPieces, HeldOut: []string{}}
	if l.Dataset == "" {
		l.Dataset = filepath.Base(filepath.Clean(spec.Data))
	}
	if tr.BaseValLoss != nil {
		l.BaseValLoss = *tr.BaseValLoss
	}
	if tr.BestValLoss != nil {
		l.BestValLoss = *tr.BestValLoss
	}
	for _, og := range valSplit.Origins() {
		l.HeldOut = append(l.HeldOut, originName(og))
	}
	if spec.heldOutFiles != nil {
		l.HeldOut = spec.heldOutFiles(valSplit.Origins())
	}
	if err := writeLineage(spec.Out, l); err != nil {
		return tr, fmt.Errorf("train: %w", err)
	}
	tr.Lineage = l
	return tr, nil
}

// originName names a piece's origin: its MIDI file, or SHARD@OFFSET.
func originName(o train.Origin) string {
	if o.File != "" {
		return o.File
	}
	return fmt.Sprintf("%s@%d", o.Shard, o.Offset)
}

func baseLabel(b *baseModel) string {
	if b.dir == "" {
		return DefaultModelName
	}
	return "model " + b.dir
}

// within reports whether path is the folder dir or inside it (symbolic
// links and other names of dir found through os.SameFile on path and its
// parents).
func within(path, dir string) bool {
	fd, err := os.Stat(dir)
	if err != nil {
		return false
	}
	p, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for {
		if fp, err := os.Stat(p); err == nil && os.SameFile(fp, fd) {
			return true
		}
		up := filepath.Dir(p)
		if up == p {
			return false
		}
		p = up
	}
}

// IsFineTune reports whether a model folder is a finished fine-tune.
func IsFineTune(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, LineageFile))
	return err == nil
}

// LatestModelDir is the folder a "Listen" while training samples: the
// latest weights of a fine-tune (its folder's model is the best so far),
// else the run's folder itself.
func LatestModelDir(dir string) string {
	l := filepath.Join(dir, train.LatestDir)
	if HasModelWeights(l) {
		return l
	}
	return dir
}

// FineTuneLabel is how a finished fine-tune is listed for Compose.
func FineTuneLabel(l *Lineage, runID uint64) string {
	base := l.Base
	if base != DefaultModelName {
		base = filepath.Base(base)
	}
	return fmt.Sprintf("%s · tuned from %s (run %d, %d steps, %s)", l.Dataset, strings.TrimSpace(base), runID, l.BestStep, l.Date.Local().Format("Jan 2"))
}
