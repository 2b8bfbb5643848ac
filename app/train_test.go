package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/storage"
)

// TestTrainTokenizerRebars: the MIDI-folder tokenizer of `amt train
// --data` encodes a waltz declared in 1/4 re-barred in 3/4, as ingestion
// does.
func TestTrainTokenizerRebars(t *testing.T) {
	dir := t.TempDir()
	testfiles.MeterPieces(t, dir)
	v := token.DefaultVocab()
	toks, err := midiTokenizer(v)(filepath.Join(dir, "waltz.mid"))
	if err != nil {
		t.Fatal(err)
	}
	if names := strings.Join(v.Names(toks[:12]), " "); !strings.Contains(names, "METER_3/4") {
		t.Errorf("train tokenizer prefix %s has no METER_3/4", names)
	}
}

// TestTrainJobFolderClaimed: the Training screen's jobs hold their run's
// folder too. Resuming a run that is training now is refused (ErrInUse)
// and the running run keeps its status; a new run whose folder holds a
// checkpoint (left by a store that was lost) is refused before it is
// recorded, and the checkpoint stays. Both used to start and replace it.
func TestTrainJobFolderClaimed(t *testing.T) {
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
	spec := DefaultTrainSpec()
	spec.Preset, spec.Steps, spec.Batch, spec.Context, spec.ValEvery, spec.CheckpointEvery = "tiny", 1_000_000, 2, 32, 0, 2
	j, err := s.StartTraining(TrainJobConfig{Dataset: ing.Dataset, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Stop()
	for u := range j.Events() { // the checkpoint of step 2 is written before step 3
		if u.Kind == "step" && u.Step.Step >= 3 {
			break
		}
		if u.Kind != "step" && u.Kind != "start" {
			t.Fatalf("the run ended: %+v", u)
		}
	}
	if j2, err := s.ResumeTraining(j.RunID); !errors.Is(err, train.ErrInUse) {
		if j2 != nil {
			j2.Stop()
		}
		t.Fatalf("resume of a running run: %v, want ErrInUse", err)
	}
	if runs, _ := s.TrainRuns(DefaultProject); len(runs) != 1 || runs[0].Status != storage.RunRunning {
		t.Fatalf("runs after the refused resume: %+v", runs)
	}
	j.Stop()
	ck, err := os.ReadFile(filepath.Join(j.ModelDir, train.CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(filepath.Dir(j.ModelDir), fmt.Sprintf("run-%06d", j.RunID+1))
	if err := os.MkdirAll(next, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(next, train.CheckpointFile), ck, 0o644); err != nil {
		t.Fatal(err)
	}
	if j3, err := s.StartTraining(TrainJobConfig{Dataset: ing.Dataset, Spec: spec}); !errors.Is(err, ErrUsage) || !errors.Is(err, train.ErrCheckpointExists) || !strings.Contains(err.Error(), next) {
		if j3 != nil {
			j3.Stop()
		}
		t.Fatalf("new run over a checkpoint: %v, want a usage error naming %s", err, next)
	}
	if runs, _ := s.TrainRuns(DefaultProject); len(runs) != 1 {
		t.Fatalf("the refused run was recorded: %+v", runs)
	}
	if got, _ := os.ReadFile(filepath.Join(next, train.CheckpointFile)); !bytes.Equal(got, ck) {
		t.Fatal("the refused run changed the checkpoint")
	}
}
