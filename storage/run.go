package storage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Run statuses.
const (
	RunRunning   = "running"
	RunDone      = "done"
	RunFailed    = "failed"
	RunCancelled = "cancelled"
	// RunInterrupted: found "running" at open, its process died; Open
	// counts the items it committed into OK, Failed and Processed.
	RunInterrupted = "interrupted"
)

// StageStat is one pipeline stage's measurements in a run.
type StageStat struct {
	Name        string  `json:"name"`
	Workers     int     `json:"workers"`
	BusySeconds float64 `json:"busy_seconds"`
	WaitSeconds float64 `json:"wait_seconds"`
	Items       int     `json:"items"`
	Bytes       int64   `json:"bytes"`
	QueueMean   float64 `json:"queue_mean"`
	QueueMax    int     `json:"queue_max"`
}

// IngestRun is one ingestion of a dataset's folder.
type IngestRun struct {
	ID          uint64         `json:"id"`
	ProjectID   uint64         `json:"project_id"`
	DatasetID   uint64         `json:"dataset_id"`
	Status      string         `json:"status"`
	Error       string         `json:"error,omitempty"`
	Started     time.Time      `json:"started"`
	Finished    time.Time      `json:"finished,omitzero"`
	Mode        string         `json:"mode"`
	Workers     map[string]int `json:"workers,omitempty"`
	Files       int            `json:"files"`     // files found
	Processed   int            `json:"processed"` // new or changed files worked on
	OK          int            `json:"ok"`
	Failed      int            `json:"failed"`
	Unchanged   int            `json:"unchanged"`
	Removed     int            `json:"removed"`
	Seconds     float64        `json:"seconds"`
	Stages      []StageStat    `json:"stages,omitempty"`
	Bottleneck  string         `json:"bottleneck,omitempty"`
	Suggestions []string       `json:"suggestions,omitempty"`

	// Rebarred counts the processed files whose declared meter gave way to
	// the one inferred from their notes; RebarredFiles lists the first of
	// them (see pipeline.Report).
	Rebarred      int      `json:"rebarred,omitempty"`
	RebarredFiles []string `json:"rebarred_files,omitempty"`

	// CacheRebuilt counts the mmap-cache entries found damaged and rebuilt
	// from their files; CacheNotes says what was wrong (pipeline.Report).
	CacheRebuilt int      `json:"cache_rebuilt,omitempty"`
	CacheNotes   []string `json:"cache_notes,omitempty"`
}

// PutIngestRun inserts r (ID 0) or updates it.
func PutIngestRun(tx *bolt.Tx, r *IngestRun) error {
	return upsert(tx, bucketIngestRuns, &r.ID, r)
}

// GetIngestRun reads one ingestion run.
func GetIngestRun(tx *bolt.Tx, id uint64) (*IngestRun, error) {
	return get[IngestRun](tx, bucketIngestRuns, id)
}

// IngestRuns lists a project's ingestion runs, oldest first.
func IngestRuns(tx *bolt.Tx, projectID uint64) ([]IngestRun, error) {
	return filter(tx, bucketIngestRuns, func(r *IngestRun) bool { return r.ProjectID == projectID })
}

// TrainRun is one training run; Config is the training configuration as
// the training engineer encodes it.
type TrainRun struct {
	ID        uint64          `json:"id"`
	ProjectID uint64          `json:"project_id"`
	DatasetID uint64          `json:"dataset_id"`
	Status    string          `json:"status"`
	Error     string          `json:"error,omitempty"`
	Started   time.Time       `json:"started"`
	Finished  time.Time       `json:"finished,omitzero"`
	Config    json.RawMessage `json:"config,omitempty"`
	ModelDir  string          `json:"model_dir,omitempty"` // relative to the store
	Stages    []StageStat     `json:"stages,omitempty"`
	// Lineage is set when a fine-tune finished: what it started from and
	// learned on. Runs from random weights, and records written before
	// fine-tuning existed, have none (an absent field: no migration).
	Lineage *Lineage `json:"lineage,omitempty"`
}

// Lineage is where a fine-tuned model came from: the base model it started
// from, the dataset it learned on, how far it trained and when, and the
// pieces held out from it (the report compares the model with those).
type Lineage struct {
	Base       string `json:"base"`        // "default model" or the base model's folder
	BaseSHA256 string `json:"base_sha256"` // of the base's weights
	Dataset    string `json:"dataset"`     // the dataset's name
	DatasetID  uint64 `json:"dataset_id,omitempty"`
	Data       string `json:"data"` // the folder trained on (MIDI files or token shards)
	// Steps trained; BestStep is the step whose weights the model holds
	// (0: none beat the base); EarlyStopped: the held-out loss stopped
	// falling before the planned steps.
	Steps        int       `json:"steps"`
	PlannedSteps int       `json:"planned_steps"`
	BestStep     int       `json:"best_step"`
	EarlyStopped bool      `json:"early_stopped,omitempty"`
	Date         time.Time `json:"date"` // when it finished
	// The split: share of pieces held out and its seed (train.Dataset.Split).
	ValFrac   float64 `json:"val_frac"`
	SplitSeed uint64  `json:"split_seed"`
	// Held-out loss (nats a token) of the base and of the kept weights, on
	// the same batches of the held-out pieces.
	BaseValLoss float64 `json:"base_val_loss"`
	BestValLoss float64 `json:"best_val_loss"`
	TrainPieces int     `json:"train_pieces"`
	// HeldOut names the held-out pieces' files (where a piece's file is
	// known; a shard piece without one is "SHARD.bin@OFFSET").
	HeldOut []string `json:"held_out"`
}

// PutTrainRun inserts r (ID 0) or updates it.
func PutTrainRun(tx *bolt.Tx, r *TrainRun) error {
	return upsert(tx, bucketTrainRuns, &r.ID, r)
}

// GetTrainRun reads one training run.
func GetTrainRun(tx *bolt.Tx, id uint64) (*TrainRun, error) {
	return get[TrainRun](tx, bucketTrainRuns, id)
}

// TrainRuns lists a project's training runs, oldest first.
func TrainRuns(tx *bolt.Tx, projectID uint64) ([]TrainRun, error) {
	return filter(tx, bucketTrainRuns, func(r *TrainRun) bool { return r.ProjectID == projectID })
}

// Metric is one point of a run's metric series.
type Metric struct {
	Step  int       `json:"step"`
	Name  string    `json:"name"` // "train_loss", "val_loss", "lr", "tokens_per_s", …
	Value float64   `json:"value"`
	Time  time.Time `json:"time"`
}

// AppendMetrics adds points to a run's series (in the order given).
func AppendMetrics(tx *bolt.Tx, runID uint64, pts []Metric) error {
	b := tx.Bucket(bucketMetrics)
	for _, p := range pts {
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		v, err := encode(p)
		if err != nil {
			return err
		}
		if err := b.Put(append(itob(runID), itob(seq)...), v); err != nil {
			return err
		}
	}
	return nil
}

// Metrics returns a run's points named name ("" for all), in append order.
func Metrics(tx *bolt.Tx, runID uint64, name string) ([]Metric, error) {
	var out []Metric
	prefix := itob(runID)
	c := tx.Bucket(bucketMetrics).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var m Metric
		if err := decode(v, &m); err != nil {
			return nil, fmt.Errorf("storage: metric of run %d: %w", runID, err)
		}
		if name == "" || m.Name == name {
			out = append(out, m)
		}
	}
	return out, nil
}

// interruptRuns marks runs a killed process left "running".
func interruptRuns(tx *bolt.Tx) error {
	var ingest []IngestRun
	if err := each(tx, bucketIngestRuns, func(_ uint64, r *IngestRun) bool {
		if r.Status == RunRunning {
			ingest = append(ingest, *r)
		}
		return true
	}); err != nil {
		return err
	}
	for i := range ingest {
		r := &ingest[i]
		r.Status = RunInterrupted
		// Its counts were to be written at the end: what it committed is
		// the items still stamped with it (nothing ran since it died). Best
		// effort: a dataset that cannot be walked must not stop the open.
		var ok, failed int
		if Items(tx, r.DatasetID, func(it *Item) bool {
			if it.RunID == r.ID {
				if it.Status == ItemOK {
					ok++
				} else {
					failed++
				}
			}
			return true
		}) == nil {
			r.OK, r.Failed, r.Processed = max(r.OK, ok), max(r.Failed, failed), max(r.Processed, ok+failed)
		}
		if err := PutIngestRun(tx, r); err != nil {
			return err
		}
	}
	var train []TrainRun
	if err := each(tx, bucketTrainRuns, func(_ uint64, r *TrainRun) bool {
		if r.Status == RunRunning {
			train = append(train, *r)
		}
		return true
	}); err != nil {
		return err
	}
	for i := range train {
		train[i].Status = RunInterrupted
		if err := PutTrainRun(tx, &train[i]); err != nil {
			return err
		}
	}
	return nil
}
