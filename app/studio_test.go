package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/storage"
)

func TestStudioSettingsRoundTrip(t *testing.T) {
	s, err := OpenStudio(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if got.OnlineText || got.Workers != 0 || got.SoundFont != "" {
		t.Fatalf("defaults = %+v, want online text off, no workers, no SoundFont", got)
	}
	want := StudioSettings{Workers: 3, OnlineText: true, Theme: "dark"}
	if err := s.SaveSettings(want); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.Settings(); got != want {
		t.Fatalf("settings = %+v, want %+v", got, want)
	}
	if err := s.SaveSettings(StudioSettings{Theme: "purple"}); err == nil {
		t.Error("theme purple accepted")
	}
	if err := s.SaveSettings(StudioSettings{SoundFont: filepath.Join(t.TempDir(), "none.sf2")}); err == nil {
		t.Error("missing SoundFont accepted")
	}
	home := s.Home
	s.Close()
	s2, err := OpenStudio(home)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got, _ = s2.Settings(); got != want {
		t.Fatalf("after reopen settings = %+v, want %+v", got, want)
	}
}

func TestComposeStoresEvaluatedPiece(t *testing.T) {
	model := t.TempDir()
	if err := WriteRandomModel(model, "tiny", 3); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStudio(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	calls := 0
	req := ComposeRequest{Prompt: "calm piano waltz in D minor, 90 bpm", ModelDir: model,
		SampleSettings: SampleSettings{MaxTokens: 300, Temperature: 1, TopP: 0.95, Seed: 7},
		Progress:       func(done, total int) { calls++ }}
	res, err := s.Compose(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || calls > 300*DefaultCandidates {
		t.Errorf("progress calls = %d, want 1..%d (300 tokens a candidate)", calls, 300*DefaultCandidates)
	}
	// The prompt's forced attributes are in the decoded prefix.
	if res.Requested.MeterNum != 3 || res.Requested.KeyTonic != 2 || !res.Requested.KeyMinor {
		t.Fatalf("requested = %+v, want 3/4 D minor", res.Requested)
	}
	if res.Decoded.MeterNum != 3 || res.Decoded.MeterDen != 4 || res.Decoded.KeyTonic != 2 || !res.Decoded.KeyMinor {
		t.Errorf("decoded = %+v, want the forced 3/4 D minor", res.Decoded)
	}
	sc, err := midi.ReadFile(res.Piece.Abs)
	if err != nil {
		t.Fatalf("stored MIDI: %v", err)
	}
	if sc.NoteCount() != res.Score.NoteCount() {
		t.Errorf("stored notes %d, generated %d", sc.NoteCount(), res.Score.NoteCount())
	}
	if h, _ := storage.HashFile(res.Piece.Abs); h != res.Piece.Hash {
		t.Errorf("hash %s, recorded %s", h, res.Piece.Hash)
	}
	if res.Adherence == nil || res.Adherence.Meter == nil {
		t.Errorf("adherence = %+v, want a meter check", res.Adherence)
	}
	// Same seed, same piece; a second piece lists first.
	res2, err := s.Compose(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Score.NoteCount() != res.Score.NoteCount() {
		t.Errorf("same seed: %d notes then %d", res.Score.NoteCount(), res2.Score.NoteCount())
	}
	if err := s.RatePiece(res.Piece.ID, 4); err != nil {
		t.Fatal(err)
	}
	if err := s.RatePiece(res.Piece.ID, 6); err == nil {
		t.Error("rating 6 accepted")
	}
	ps, err := s.Pieces(DefaultProject)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].ID != res2.Piece.ID || ps[1].ID != res.Piece.ID || ps[1].Rating != 4 || ps[0].Rating != 0 {
		t.Fatalf("pieces = %+v, want newest first with the rating", ps)
	}
	// Deleting a piece removes its record and file; the other stays.
	if err := s.DeletePiece(res.Piece.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(res.Piece.Abs); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("deleted piece's MIDI file: %v", err)
	}
	if ps, _ := s.Pieces(DefaultProject); len(ps) != 1 || ps[0].ID != res2.Piece.ID {
		t.Errorf("pieces after delete = %+v", ps)
	}
	if err := s.DeletePiece(res.Piece.ID); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("second delete: %v, want ErrNotFound", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Compose(ctx, req); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled compose: err = %v", err)
	}
}

func TestTrainJobRecordsPausesAndResumes(t *testing.T) {
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
	spec.Preset, spec.Steps, spec.Batch, spec.Context, spec.ValEvery, spec.CheckpointEvery = "tiny", 40, 2, 32, 2, 2
	if ok, _ := GPUAvailable(); !ok {
		spec.Device = "gpu"
		if _, err := s.StartTraining(TrainJobConfig{Dataset: ing.Dataset, Spec: spec}); !errors.Is(err, ErrNoGPUBackend) {
			t.Fatalf("gpu without CUDA: err = %v, want ErrNoGPUBackend", err)
		}
	}
	spec.Device = "tpu"
	if _, err := s.StartTraining(TrainJobConfig{Dataset: ing.Dataset, Spec: spec}); !errors.Is(err, ErrBadDevice) {
		t.Fatalf("tpu: err = %v, want ErrBadDevice", err)
	}
	spec.Device = "cpu"
	if _, err := s.StartTraining(TrainJobConfig{Dataset: "nope", Spec: spec}); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("missing dataset: err = %v", err)
	}
	j, err := s.StartTraining(TrainJobConfig{Dataset: ing.Dataset, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	steps, end := 0, TrainUpdate{}
	for u := range j.Events() {
		if u.Kind == "step" {
			steps++
			if steps == 2 {
				j.Pause() // returns once the checkpoint is written
			}
		}
		if u.Kind != "step" && u.Kind != "start" {
			end = u
			break
		}
	}
	if end.Kind != RunPaused || end.Err != nil {
		t.Fatalf("end = %+v, want paused", end)
	}
	runs, _ := s.TrainRuns(DefaultProject)
	if len(runs) != 1 || runs[0].Status != RunPaused || !Resumable(runs[0]) {
		t.Fatalf("runs = %+v, want one paused", runs)
	}
	if len(j.Checkpoints()) == 0 {
		t.Fatal("no checkpoint after pause")
	}
	paused := end.Result.Steps
	if err := j.Resume(); err != nil {
		t.Fatal(err)
	}
	for u := range j.Events() {
		if u.Kind != "step" && u.Kind != "start" {
			end = u
			break
		}
	}
	if end.Kind != storage.RunDone || end.Result.Steps != 40 || end.Result.StartStep != paused {
		t.Fatalf("end = %+v (result %+v), want done at 40 from %d", end, end.Result, paused)
	}
	ms, err := s.RunMetrics(j.RunID)
	if err != nil {
		t.Fatal(err)
	}
	loss := ms["train_loss"]
	if len(loss[0]) < 40 || loss[0][len(loss[0])-1] != 40 {
		t.Fatalf("train_loss steps = %v, want through step 40", loss[0])
	}
	if len(ms["val_loss"][0]) == 0 {
		t.Error("no val_loss recorded")
	}
	runs, _ = s.TrainRuns(DefaultProject)
	if runs[0].Status != storage.RunDone || len(runs[0].Stages) != 4 {
		t.Fatalf("run = %+v, want done with 4 stages", runs[0])
	}
	// Listen: a sample from the run's model folder.
	res, err := s.Compose(context.Background(), ComposeRequest{ModelDir: j.ModelDir, SampleSettings: SampleSettings{MaxTokens: 64, Seed: 1, Temperature: 1}})
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	if res.Piece.Model != j.ModelDir {
		t.Errorf("piece model = %q", res.Piece.Model)
	}
}
