package storage

import (
	"reflect"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestTrainRunLineage: a fine-tune's lineage is stored with its run and
// read back whole; a run record written before lineages existed (the JSON
// of a schema-3 build, put as that build put it) reads with none, so the
// field needs no migration.
func TestTrainRunLineage(t *testing.T) {
	s := openTemp(t)
	l := &Lineage{Base: "default model", BaseSHA256: "ab12", Dataset: "irish", DatasetID: 3, Data: "/d/irish", Steps: 230,
		PlannedSteps: 230, BestStep: 207, EarlyStopped: true, Date: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), ValFrac: 0.2,
		SplitSeed: 1, BaseValLoss: 1.078, BestValLoss: 0.702, TrainPieces: 964, HeldOut: []string{"/d/irish/a.mid", "/d/irish/b.mid"}}
	run := &TrainRun{ProjectID: 1, DatasetID: 3, Status: RunDone, Lineage: l}
	old := []byte(`{"id":0,"project_id":1,"dataset_id":3,"status":"done","started":"2026-11-27T10:00:00Z","model_dir":"models/run-000002"}`)
	var oldID uint64
	if err := s.Update(func(tx *bolt.Tx) error {
		if err := PutTrainRun(tx, run); err != nil {
			return err
		}
		b := tx.Bucket(bucketTrainRuns)
		id, _ := b.NextSequence()
		oldID = id
		return b.Put(itob(id), append([]byte{recordVersion}, old...))
	}); err != nil {
		t.Fatal(err)
	}
	s.View(func(tx *bolt.Tx) error {
		got, err := GetTrainRun(tx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Lineage, l) {
			t.Errorf("lineage read back %+v\nwant %+v", got.Lineage, l)
		}
		prev, err := GetTrainRun(tx, oldID)
		if err != nil {
			t.Fatal(err)
		}
		if prev.Lineage != nil || prev.ModelDir != "models/run-000002" {
			t.Errorf("an older record: lineage %+v, model dir %q", prev.Lineage, prev.ModelDir)
		}
		return nil
	})
}
