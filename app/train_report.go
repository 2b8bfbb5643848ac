package app

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/train"
)

// The report a musician reads after a fine-tune (issue 34, `amt
// train-report --model DIR`): did the model move toward the dataset, and
// did it keep what the default model does?
//
//   - held-out loss before and after: the run's own validations of the
//     base and of the weights kept, on the same batches of the held-out
//     pieces (the lineage);
//   - the two-sample test (eval_twosample.go) between the held-out pieces
//     and the model's answers to prompts stating each one's own attributes,
//     for the base and for the tuned model: the closer to 50%, the less a
//     classifier can tell them from the dataset's own music;
//   - adherence (tempo, key, meter, instruments) of those same answers,
//     before and after;
//   - copying: each answer's longest run of bars copied from the pieces
//     the model learned from (eval_copies.go), with the held-out real
//     pieces against the same pieces as the baseline (a dataset of
//     formulaic tunes shares bars between its own pieces);
//   - piano rolls of generated pieces beside held-out ones, before and
//     after.

// FineTuneReportOptions control FineTuneReport.
type FineTuneReportOptions struct {
	Model    string // the fine-tuned model's folder (with its lineage.json)
	PerGroup int    // held-out pieces answered (0: 40)
	Bars     int    // bars compared (0: 16)
	Seed     uint64 // the i-th piece is generated with seed Seed+i
	// Request is the decoding (the default prompt path's when zero).
	Request        PromptRequest
	Folds, Repeats int
	// Rolls, when set, is a folder for piano rolls: before/ and after/,
	// RollCount pieces each (0: 8).
	Rolls     string
	RollCount int
}

// FineTuneReport is what `amt train-report` prints and saves.
type FineTuneReport struct {
	Kind    string   `json:"kind"` // "fine-tune"
	Model   string   `json:"model"`
	Base    string   `json:"base"`
	Lineage *Lineage `json:"lineage"`
	// BaseChanged: the base's weights are not those the fine-tune started
	// from (their hash differs from the lineage's); "before" is then not
	// the model the run started from.
	BaseChanged bool `json:"base_changed,omitempty"`
	// SplitChanged: the data folder does not split into the held-out
	// pieces the lineage names (files were added or removed since), so the
	// pieces copies are looked for in are today's training split.
	SplitChanged bool `json:"split_changed,omitempty"`
	// Held-out loss (nats a token) of the base and of the tuned model.
	ValLossBefore float64 `json:"val_loss_before"`
	ValLossAfter  float64 `json:"val_loss_after"`
	// The two-sample tests against the held-out pieces, before (the base)
	// and after (the tuned model).
	Before *TwoSampleReport `json:"before"`
	After  *TwoSampleReport `json:"after"`
	// Copying from the pieces learned from: the base's answers, the tuned
	// model's, and the held-out real pieces themselves (the baseline).
	CopiesBefore *CopyReport `json:"copies_before"`
	CopiesAfter  *CopyReport `json:"copies_after"`
	CopiesReal   *CopyReport `json:"copies_real"`
	Floors       []Floor     `json:"floors"`
	Seconds      float64     `json:"seconds"`
}

// Issue 34's floors on a fine-tune.
const (
	// FloorTwoSampleFall: the two-sample accuracy falls by at least this
	// much from the base to the tuned model.
	FloorTwoSampleFall = 0.10
	// FloorAdherenceDrop: TB, CK, meter and instrument F1 stay within this
	// of the base's.
	FloorAdherenceDrop = 0.05
)

// FineTuneReportOf measures a fine-tuned model against its base on the
// dataset's held-out pieces. progress (may be nil) sees what is being
// done.
func FineTuneReportOf(ctx context.Context, o FineTuneReportOptions, progress func(stage string, done, total int)) (*FineTuneReport, error) {
	l, err := ReadLineage(o.Model)
	if err != nil {
		return nil, err
	}
	tuned, err := LoadModel(o.Model)
	if err != nil {
		return nil, err
	}
	defer tuned.Close()
	rep := &FineTuneReport{Kind: "fine-tune", Model: o.Model, Base: l.Base, Lineage: l, ValLossBefore: l.BaseValLoss, ValLossAfter: l.BestValLoss}
	var base *Model
	if l.Base == DefaultModelName {
		if base, err = DefaultModel(); err != nil {
			return nil, err
		}
		rep.BaseChanged = embeddedHash() != l.BaseSHA256
	} else {
		if base, err = LoadModel(l.Base); err != nil {
			return nil, fmt.Errorf("train-report: the base model: %w", err)
		}
		defer base.Close()
		h, _ := fileSHA256(filepath.Join(l.Base, gpt.WeightsFile))
		rep.BaseChanged = h != l.BaseSHA256
	}
	var files []string
	for _, f := range l.HeldOut {
		if filepath.Ext(f) != "" && !isShardOrigin(f) {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("train-report: %s: none of the %d held-out pieces is a MIDI file to compare with", o.Model, len(l.HeldOut))
	}
	req := o.Request
	if req.Candidates == 0 && req.KeyBias == 0 {
		req.KeyBias, req.RhythmBias, req.Candidates = DefaultKeyBias, DefaultRhythmBias, DefaultCandidates
	}
	ts := TwoSampleOptions{RealFiles: files, RealGroup: l.Dataset, PerGroup: o.PerGroup, Bars: o.Bars, Seed: o.Seed,
		Request: req, Folds: o.Folds, Repeats: o.Repeats}
	step := func(stage string) func(int, int) {
		return func(done, total int) {
			if progress != nil {
				progress(stage, done, total)
			}
		}
	}
	base.genMu().Lock()
	rep.Before, err = TwoSample(ctx, base, ts, step("before"))
	base.genMu().Unlock()
	if err != nil {
		return nil, fmt.Errorf("train-report: the base: %w", err)
	}
	if rep.After, err = TwoSample(ctx, tuned, ts, step("after")); err != nil {
		return nil, fmt.Errorf("train-report: the tuned model: %w", err)
	}
	// The pieces it learned from, as it saw them: the training split.
	ds, err := train.OpenDir(l.Data, tuned.Vocab.Size(), midiTokenizer(tuned.Vocab))
	if err != nil {
		return nil, fmt.Errorf("train-report: the data it learned from: %w", err)
	}
	defer ds.Close()
	tr, val := ds.Split(l.ValFrac, l.SplitSeed)
	if vo := val.Origins(); len(vo) != len(l.HeldOut) {
		rep.SplitChanged = true
	} else {
		for i, o := range vo {
			rep.SplitChanged = rep.SplitChanged || (originName(o) != l.HeldOut[i] && o.Shard == "")
		}
	}
	if progress != nil {
		progress("copies", 0, tr.Pieces())
	}
	x, err := copyIndexOfSplit(ctx, tuned.Vocab, tr)
	if err != nil {
		return nil, err
	}
	what := fmt.Sprintf("the %d pieces of %s it learned from", tr.Pieces(), l.Dataset)
	names, scores := rep.Before.generated()
	rep.CopiesBefore = measureCopies(x, what, names, scores)
	names, scores = rep.After.generated()
	rep.CopiesAfter = measureCopies(x, what, names, scores)
	names, scores = rep.After.realExcerpts()
	rep.CopiesReal = measureCopies(x, what, names, scores)
	if o.Rolls != "" {
		n := o.RollCount
		if n <= 0 {
			n = 8
		}
		for dir, r := range map[string]*TwoSampleReport{"before": rep.Before, "after": rep.After} {
			if err := WriteTwoSampleRolls(filepath.Join(o.Rolls, dir), r, n); err != nil {
				return nil, err
			}
		}
	}
	rep.judge()
	for _, r := range []*TwoSampleReport{rep.Before, rep.After} {
		rep.Seconds += r.Seconds
	}
	return rep, nil
}

// realExcerpts lists the report's real excerpts with their names.
func (rep *TwoSampleReport) realExcerpts() ([]string, []*midi.Score) {
	names := make([]string, len(rep.Pieces))
	scores := make([]*midi.Score, len(rep.Pieces))
	for i, p := range rep.Pieces {
		names[i], scores[i] = p.File, p.realScore
	}
	return names, scores
}

// isShardOrigin reports a held-out piece named SHARD.bin@OFFSET.
func isShardOrigin(name string) bool {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '@' {
			return filepath.Ext(name[:i]) == ".bin"
		}
	}
	return false
}

// judge sets the floors of issue 34.
func (r *FineTuneReport) judge() {
	b, a := r.Before, r.After
	r.Floors = append(r.Floors,
		judgeFloor("two-sample fall", fmt.Sprintf("two-sample accuracy %.1f%% → %.1f%%: falls by ≥ 10 points", 100*b.Accuracy, 100*a.Accuracy),
			roundFloor(b.Accuracy-a.Accuracy), ">=", FloorTwoSampleFall, a.Pairs),
		judgeFloor("held-out loss", fmt.Sprintf("held-out loss %.4f → %.4f: falls", r.ValLossBefore, r.ValLossAfter),
			r.ValLossAfter-r.ValLossBefore, "<", 0, 1))
	ba, aa := b.Adherence, a.Adherence
	for _, x := range []struct {
		name          string
		before, after float64
	}{{"TB", float64(ba.TB.Rate), float64(aa.TB.Rate)}, {"CK", float64(ba.CK.Rate), float64(aa.CK.Rate)},
		{"meter", float64(ba.Meter.Rate), float64(aa.Meter.Rate)}, {"instrument F1", float64(ba.F1), float64(aa.F1)}} {
		d := roundFloor(x.after - x.before)
		r.Floors = append(r.Floors, judgeFloor(x.name+" kept", fmt.Sprintf("%s %.1f%% → %.1f%%: within 5 points of the base (or above)", x.name, 100*x.before, 100*x.after),
			d, ">=", -FloorAdherenceDrop, aa.Pieces))
	}
	c := r.CopiesAfter
	r.Floors = append(r.Floors, judgeFloor("copying", fmt.Sprintf("share of pieces whose longest copied run is ≤ %d bars (longest %d)", MaxCopyRun, c.Longest.Bars),
		c.AtMost, ">=", CopyFloorShare, c.Measured))
}

// roundFloor rounds a difference of shares to a millionth before it is
// judged: 0.95 − 1.0 is −0.0500000000000000044 in floating point, and a
// fall of 5 points is within 5 points.
func roundFloor(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// Save writes the report as JSON (atomically).
func (r *FineTuneReport) Save(path string) error {
	data, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'))
}
