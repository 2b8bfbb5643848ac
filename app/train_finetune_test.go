package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/assets"
	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/storage"
)

// tinyFineTune is a fine-tune small enough for a test: 4 steps of 2
// sequences, a validation every 2.
func tinyFineTune(data, out string) TrainSpec {
	return TrainSpec{From: FromDefault, Data: data, Out: out, Steps: 4, Batch: 2, ValEvery: 2, Seed: 1, WeightDecay: 0.1, Clip: 1}
}

// midiFiles lists the .mid files under dir.
func midiFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".mid") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestFineTuneFromDefault: `amt train --from default` on a folder of MIDI
// files reports the base's held-out loss first, keeps the best weights as
// the model (the base's key frame and vocabulary), writes the latest to
// latest/, and a lineage naming the embedded model by its weights' hash
// and the held-out files, which are a fifth of the pieces, none of them
// learned from. The tuned model composes down the prompt path.
func TestFineTuneFromDefault(t *testing.T) {
	data, out := t.TempDir(), filepath.Join(t.TempDir(), "tuned")
	testfiles.Corpus(t, data, 24)
	var events []TrainEvent
	var start TrainStart
	res, err := TrainModel(context.Background(), tinyFineTune(data, out), func(s TrainStart) { start = s }, func(e TrainEvent) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	if len(events) == 0 || events[0].Step != 0 || events[0].ValLoss == nil || res.BaseValLoss == nil || *events[0].ValLoss != *res.BaseValLoss {
		t.Fatalf("first event %+v, base loss %v: want step 0 with the base's held-out loss", events[0], res.BaseValLoss)
	}
	if start.FineTune == nil || start.FineTune.Steps != 4 || start.FineTune.Context != 256 || start.Pieces != 24 {
		// 24 pieces of 2–6 bars: about 2,000 tokens, a fifth held out: the
		// base's 1,024 is halved until the held-out pieces fill a window.
		t.Fatalf("start %+v, plan %+v: want 24 pieces, 4 steps, context 256", start, start.FineTune)
	}
	l := res.Lineage
	sum := sha256.Sum256(assets.ModelWeights)
	if l == nil || l.Base != DefaultModelName || l.BaseSHA256 != hex.EncodeToString(sum[:]) || l.Dataset != filepath.Base(data) || l.Steps != 4 {
		t.Fatalf("lineage %+v", l)
	}
	if *res.BestValLoss > l.BaseValLoss || l.BestValLoss != *res.BestValLoss {
		t.Fatalf("best %.4f, base %.4f, lineage best %.4f", *res.BestValLoss, l.BaseValLoss, l.BestValLoss)
	}
	all := midiFiles(t, data)
	if len(l.HeldOut) != res.ValPieces || res.ValPieces+res.TrainPieces != 24 || res.ValPieces < 2 || res.ValPieces > 9 {
		t.Fatalf("%d held out (%d in the lineage), %d to learn from, of 24", res.ValPieces, len(l.HeldOut), res.TrainPieces)
	}
	for _, f := range l.HeldOut {
		if !slices.Contains(all, f) {
			t.Fatalf("held-out %q is not one of the data's files", f)
		}
	}
	// The held-out pieces are the split's: the same split of the same
	// data names the same files (the report rebuilds it).
	v := token.DefaultVocab()
	ds, err := train.OpenDir(data, v.Size(), midiTokenizer(v))
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	_, val := ds.Split(l.ValFrac, l.SplitSeed)
	var names []string
	for _, o := range val.Origins() {
		names = append(names, o.File)
	}
	if !slices.Equal(names, l.HeldOut) {
		t.Fatalf("split again: %v\nlineage: %v", names, l.HeldOut)
	}
	read, err := ReadLineage(out)
	if err != nil || read.BaseSHA256 != l.BaseSHA256 || !slices.Equal(read.HeldOut, l.HeldOut) {
		t.Fatalf("lineage.json: %+v, %v", read, err)
	}
	m, err := LoadModel(out)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Net.Config.KeyFrame != gpt.KeyFrameTonic || m.Net.Config.TrainContext != 256 || m.Vocab.Size() != v.Size() {
		t.Fatalf("tuned model: key frame %q, context %d, vocabulary %d", m.Net.Config.KeyFrame, m.Net.Config.TrainContext, m.Vocab.Size())
	}
	if !HasModelWeights(filepath.Join(out, train.LatestDir)) || LatestModelDir(out) != filepath.Join(out, train.LatestDir) {
		t.Fatal("no latest weights for Listen")
	}
	gen, err := GenerateFromPrompt(context.Background(), m, PromptRequest{Prompt: "a reel in D major, 120 bpm, piano, 4 bars", Seed: 3, Candidates: 1})
	if err != nil {
		t.Fatal(err)
	}
	if gen.Requested.TempoBPM != 120 || gen.Requested.KeyTonic != 2 || gen.Score.NoteCount() == 0 {
		t.Fatalf("tuned model's piece: %d notes, requested %+v", gen.Score.NoteCount(), gen.Requested)
	}
	// A finished fine-tune decodes with its own levers unless asked for others.
	if gen.Levers != FineTuneLevers|LeversSet {
		t.Errorf("tuned model decoded with levers %v, want %v", gen.Levers, FineTuneLevers)
	}
	asked := DefaultLevers | LeversSet
	if g2, err := GenerateFromPrompt(context.Background(), m, PromptRequest{Prompt: "a reel in D major, 120 bpm, piano, 4 bars", Seed: 3, Candidates: 1, Levers: asked}); err != nil || g2.Levers != asked {
		t.Errorf("levers asked %v: decoded with %v (%v)", asked, g2.Levers, err)
	}
}

// TestFineTuneRefuses: bad input gets a clear error, the base is left as
// it was, and no lineage is written.
func TestFineTuneRefuses(t *testing.T) {
	data := t.TempDir()
	testfiles.Corpus(t, data, 24)
	// A base folder: a model trained from random weights.
	baseDir := t.TempDir()
	if err := WriteRandomModel(baseDir, "tiny", 1); err != nil {
		t.Fatal(err)
	}
	snapshot := func() map[string][]byte {
		m := map[string][]byte{}
		ents, _ := os.ReadDir(baseDir)
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(baseDir, e.Name()))
			m[e.Name()] = b
		}
		return m
	}
	before := snapshot()
	one := t.TempDir()
	testfiles.Corpus(t, one, 1)
	v1, err := token.NewVocab(token.ConfigV1())
	if err != nil {
		t.Fatal(err)
	}
	otherVocab := t.TempDir()
	testfiles.Shard(t, otherVocab)
	if err := v1.Save(filepath.Join(otherVocab, gpt.VocabFile)); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		spec  func(out string) TrainSpec
		setup func() func()
		want  []string
		is    error
	}{
		{"no pieces", func(out string) TrainSpec { return tinyFineTune(t.TempDir(), out) }, nil, []string{"no token shards"}, train.ErrNoData},
		{"one piece", func(out string) TrainSpec { return tinyFineTune(one, out) }, nil, []string{one, "1 piece", "at least 2"}, ErrTooFewPieces},
		{"another vocabulary", func(out string) TrainSpec { return tinyFineTune(otherVocab, out) }, nil,
			[]string{"vocabulary version 2 of 1050 tokens", otherVocab, "version 1 of"}, ErrUsage},
		{"base being written", func(out string) TrainSpec { s := tinyFineTune(data, out); s.From = baseDir; return s },
			func() func() {
				c, err := train.ClaimDir(baseDir, 10, false, true)
				if err != nil {
					t.Fatal(err)
				}
				return c.Release
			}, []string{baseDir, "is writing this folder", "PID"}, nil},
		{"out is the base", func(string) TrainSpec { s := tinyFineTune(data, baseDir); s.From = baseDir; return s }, nil,
			[]string{"is the base model's folder"}, ErrUsage},
		{"out inside the base", func(string) TrainSpec {
			s := tinyFineTune(data, filepath.Join(baseDir, "sub"))
			s.From = baseDir
			return s
		}, nil,
			[]string{"or inside it"}, ErrUsage},
		{"not a model folder", func(out string) TrainSpec { s := tinyFineTune(data, out); s.From = data; return s }, nil,
			[]string{data, gpt.ConfigFile}, nil},
		{"context past the held-out pieces", func(out string) TrainSpec { s := tinyFineTune(data, out); s.Context = 1024; return s }, nil,
			[]string{"--context 1024", "held-out pieces hold"}, ErrUsage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.setup != nil {
				defer c.setup()()
			}
			out := filepath.Join(t.TempDir(), "out")
			_, err := TrainModel(context.Background(), c.spec(out), nil, nil)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v is not %v", err, c.is)
			}
			if IsFineTune(out) {
				t.Error("a lineage was written")
			}
		})
	}
	after := snapshot()
	for name, b := range before {
		if !bytes.Equal(after[name], b) {
			t.Errorf("the base's %s changed", name)
		}
	}
	if len(after) != len(before) {
		t.Errorf("the base folder holds %d files, %d before", len(after), len(before))
	}
}

// TestFineTuneJobListedForCompose: the Training screen's fine-tune of a
// project's dataset records the base's loss at step 0, stores its lineage
// in the run (held-out pieces named by their imported files), and only
// then does Compose list it, under the dataset's name, and compose from
// it. A fine-tune stopped midway is not listed.
func TestFineTuneJobListedForCompose(t *testing.T) {
	corpus := t.TempDir()
	testfiles.Corpus(t, corpus, 24)
	s, err := OpenStudio(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ing, err := Ingest(context.Background(), s.Store, IngestOptions{Project: DefaultProject, Dir: corpus})
	if err != nil {
		t.Fatal(err)
	}
	spec := TrainSpec{From: FromDefault, Steps: 4, Batch: 2, ValEvery: 2, Seed: 1, WeightDecay: 0.1, Clip: 1, Device: "cpu"}
	j, err := s.StartTraining(TrainJobConfig{Dataset: ing.Dataset, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	var end TrainUpdate
	for u := range j.Events() {
		if u.Kind != "step" && u.Kind != "start" {
			end = u
			break
		}
		if models, _ := s.ComposeModels(DefaultProject); len(models) != 0 {
			t.Fatalf("listed while training: %+v", models)
		}
	}
	if end.Kind != storage.RunDone {
		t.Fatalf("the fine-tune ended %s: %v", end.Kind, end.Err)
	}
	ms, err := s.RunMetrics(j.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if vl := ms["val_loss"]; len(vl[0]) == 0 || vl[0][0] != 0 || end.Result.BaseValLoss == nil || vl[1][0] != *end.Result.BaseValLoss {
		t.Fatalf("val_loss series %v, base %v: want the base's loss at step 0 first", vl, end.Result.BaseValLoss)
	}
	if tl := ms["train_loss"]; len(tl[0]) != 4 || tl[0][0] != 1 {
		t.Fatalf("train_loss steps %v: want 1–4 (no step 0)", tl[0])
	}
	if cfg := j.Config(); cfg.Spec.Steps != 4 || cfg.Spec.Context != 256 || cfg.Spec.Batch != 2 {
		t.Fatalf("stored plan: steps %d, context %d, batch %d", cfg.Spec.Steps, cfg.Spec.Context, cfg.Spec.Batch)
	}
	models, err := s.ComposeModels(DefaultProject)
	if err != nil || len(models) != 1 {
		t.Fatalf("Compose's models: %+v, %v", models, err)
	}
	mc := models[0]
	if !strings.HasPrefix(mc.Label, ing.Dataset+" · tuned from default model") || mc.Dir != j.ModelDir || mc.Lineage == nil {
		t.Fatalf("listed as %+v", mc)
	}
	all := midiFiles(t, corpus)
	if len(mc.Lineage.HeldOut) == 0 || mc.Lineage.Dataset != ing.Dataset || mc.Lineage.DatasetID == 0 {
		t.Fatalf("lineage %+v", mc.Lineage)
	}
	for _, f := range mc.Lineage.HeldOut {
		if !slices.Contains(all, f) {
			t.Fatalf("held-out %q is not an imported file", f)
		}
	}
	res, err := s.Compose(context.Background(), ComposeRequest{Prompt: "a waltz in A minor, 4 bars", ModelDir: mc.Dir, SampleSettings: SampleSettings{Seed: 2, Temperature: 1, TopP: 0.95}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Score.NoteCount() == 0 || res.Piece.Model != mc.Dir {
		t.Fatalf("composed %d notes with %q", res.Score.NoteCount(), res.Piece.Model)
	}
	// Every Compose feature takes it: continue, regenerate bars, variations.
	ss := SampleSettings{Seed: 4, Temperature: 1, TopP: 0.95}
	cont, err := s.Continue(context.Background(), ContinueRequest{ModelDir: mc.Dir, Score: res.Score, Source: "piece", Bars: 2, SampleSettings: ss})
	if err != nil || cont.Piece.Model != mc.Dir || cont.Score.NoteCount() < res.Score.NoteCount() {
		t.Fatalf("continue: %v", err)
	}
	if _, err := s.Regenerate(context.Background(), ContinueRequest{ModelDir: mc.Dir, Score: cont.Score, Source: "piece", From: 2, To: 3, SampleSettings: ss, Candidates: 1}); err != nil {
		t.Fatalf("regenerate: %v", err)
	}
	vars, err := s.Variations(context.Background(), ComposeRequest{Prompt: "a waltz in A minor, 4 bars", ModelDir: mc.Dir, SampleSettings: ss}, 2, nil)
	if err != nil || len(vars) != 2 {
		t.Fatalf("variations: %d, %v", len(vars), err)
	}

	// A second fine-tune, paused after its first step: not listed while
	// paused; resumed, it finishes on the same base loss and is listed.
	spec.Steps, spec.ValEvery = 6, 3
	j2, err := s.StartTraining(TrainJobConfig{Dataset: ing.Dataset, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	var base2 float64
	for u := range j2.Events() {
		if u.Kind == "step" && u.Step.Step == 0 {
			base2 = *u.Step.ValLoss
		}
		if u.Kind == "step" && u.Step.Step >= 1 {
			break
		}
	}
	j2.Pause()
	if models, _ := s.ComposeModels(DefaultProject); len(models) != 1 || models[0].RunID != j.RunID || IsFineTune(j2.ModelDir) {
		t.Fatalf("after a paused fine-tune Compose lists %+v (lineage written: %v)", models, IsFineTune(j2.ModelDir))
	}
	if err := j2.Resume(); err != nil {
		t.Fatal(err)
	}
	for u := range j2.Events() {
		if u.Kind != "step" && u.Kind != "start" && u.Kind != RunPaused { // the first segment's end is queued before the second's
			if u.Kind != storage.RunDone || u.Result.Lineage == nil || u.Result.StartStep == 0 || u.Result.Lineage.BaseValLoss != base2 || u.Result.Lineage.Steps != 6 {
				t.Fatalf("resumed fine-tune ended %s (%v): %+v", u.Kind, u.Err, u.Result)
			}
			break
		}
	}
	if models, _ := s.ComposeModels(DefaultProject); len(models) != 2 || models[0].RunID != j2.RunID {
		t.Fatalf("after the resumed fine-tune Compose lists %+v", models)
	}

	// A third, stopped after its first step: not listed, no lineage.
	spec.Steps = 50
	j3, err := s.StartTraining(TrainJobConfig{Dataset: ing.Dataset, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	for u := range j3.Events() {
		if u.Kind == "step" && u.Step.Step >= 1 {
			break
		}
	}
	j3.Stop()
	if models, _ := s.ComposeModels(DefaultProject); len(models) != 2 {
		t.Fatalf("after a stopped fine-tune Compose lists %+v", models)
	}
	if IsFineTune(j3.ModelDir) {
		t.Fatal("the stopped fine-tune wrote a lineage")
	}
}
