package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/engine/train/examples"
)

// The examples depend on the dataset's pieces and the seed, not on the
// order ingestion wrote them in: a dataset ingested one file at a time in
// reverse order (its shards in reverse path order) exports the same bytes
// as one ingested at once; another seed exports other examples.
func TestExportExamplesIndependentOfIngestionOrder(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "engine", "midi", "testdata", "*.mid"))
	if err != nil || len(files) < 3 {
		t.Fatalf("test MIDI files: %v", err)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(files)))
	spec := ExamplesSpec{Train: 24, Val: 8, Context: 32, Batch: 4, Seed: 7, ValFrac: 0.3}
	export := func(oneByOne bool, seed uint64) *examples.Manifest {
		work := t.TempDir()
		mid := filepath.Join(work, "midi")
		os.MkdirAll(mid, 0o755)
		st, err := OpenStore(filepath.Join(work, "home"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for i, f := range files {
			b, _ := os.ReadFile(f)
			os.WriteFile(filepath.Join(mid, filepath.Base(f)), b, 0o644)
			if oneByOne || i == len(files)-1 {
				if _, err := Ingest(context.Background(), st, IngestOptions{Project: "p", Dir: mid, Dataset: "d"}); err != nil {
					t.Fatal(err)
				}
			}
		}
		s := spec
		s.Seed = seed
		m, err := ExportExamples(context.Background(), st, "p", "d", filepath.Join(work, "ex"), s)
		if err != nil {
			t.Fatal(err)
		}
		ents, _ := os.ReadDir(filepath.Join(work, "ex"))
		if len(ents) != 6 {
			t.Errorf("export folder holds %d files, want manifest, vocabulary and 2×2 shard files", len(ents))
		}
		return m
	}
	a, b := export(true, 7), export(false, 7)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatalf("ingestion order changed the export:\n%s\n%s", ja, jb)
	}
	if a.Source.Pieces != len(files) || a.Splits["train"].Pieces+a.Splits["val"].Pieces != len(files) {
		t.Fatalf("pieces: source %d, train %d + val %d, files %d", a.Source.Pieces, a.Splits["train"].Pieces, a.Splits["val"].Pieces, len(files))
	}
	if c := export(false, 8); c.Splits["train"].Shards[0].TokensSHA256 == a.Splits["train"].Shards[0].TokensSHA256 {
		t.Fatal("seeds 7 and 8 exported the same examples")
	}
}

// Bad requests fail before anything is written; a missing dataset is named.
func TestExportExamplesRefuses(t *testing.T) {
	work := t.TempDir()
	st, err := OpenStore(filepath.Join(work, "home"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, s := range []ExamplesSpec{{Train: 0, Context: 32, Batch: 1}, {Train: 4, Context: 1, Batch: 1}, {Train: 4, Context: 32, Batch: 0},
		{Train: 4, Context: 32, Batch: 1, ValFrac: 1}} {
		if _, err := ExportExamples(context.Background(), st, "p", "d", filepath.Join(work, "ex"), s); !errors.Is(err, ErrUsage) {
			t.Errorf("%+v: %v, want a usage error", s, err)
		}
	}
	_, err = ExportExamples(context.Background(), st, "p", "missing", filepath.Join(work, "ex"), ExamplesSpec{Train: 4, Context: 32, Batch: 1})
	if err == nil || errors.Is(err, train.ErrNoData) {
		t.Errorf("missing project/dataset: %v", err)
	}
}
