package train

import (
	"context"
	"testing"
)

// A checkpoint written before any validation (best loss still +Inf, which
// JSON cannot hold) saves and resumes.
func TestCheckpointBeforeValidation(t *testing.T) {
	ds := NewDataset(patterned(20, 40, 24))
	dir := t.TempDir()
	o := baseOpts(dir)
	o.Steps, o.ValEvery, o.Checkpoint = 2, 0, 1
	if _, err := Run(context.Background(), tiny(t, 24), ds, o); err != nil {
		t.Fatalf("checkpoint before validation: %v", err)
	}
	o.Steps, o.Resume = 3, true
	res, err := Run(context.Background(), tiny(t, 24), ds, o)
	if err != nil || res.StartStep != 2 {
		t.Fatalf("resume: start %d, err %v", res.StartStep, err)
	}
}
