package app

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
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

// ingestedTestdata is a store holding dataset "d" of project "p": the MIDI
// files of engine/midi/testdata, ingested.
func ingestedTestdata(t *testing.T) (*Store, string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "engine", "midi", "testdata", "*.mid"))
	if err != nil || len(files) < 3 {
		t.Fatalf("test MIDI files: %v", err)
	}
	work := t.TempDir()
	mid := filepath.Join(work, "midi")
	os.MkdirAll(mid, 0o755)
	for _, f := range files {
		b, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(mid, filepath.Base(f)), b, 0o644)
	}
	st, err := OpenStore(filepath.Join(work, "home"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := Ingest(context.Background(), st, IngestOptions{Project: "p", Dir: mid, Dataset: "d"}); err != nil {
		t.Fatal(err)
	}
	return st, work
}

// Every size flag of an example export is bounded before any work: a
// usage error naming the flag, the value and the limit, and no folder
// created (`--batch 1000000000` died of "out of memory" leaving a
// .pieces- folder; `--examples 1e12` started writing 500 TB).
func TestExportExamplesLimits(t *testing.T) {
	st, work := ingestedTestdata(t)
	for _, c := range []struct {
		name string
		spec ExamplesSpec
		want string
	}{
		{"batch", ExamplesSpec{Train: 4, Context: 32, Batch: 1<<20 + 1}, "--batch 1048577: allowed 1 to 1048576"},
		{"context", ExamplesSpec{Train: 4, Context: 16385, Batch: 1}, "--context 16385: allowed 2 to 16384"},
		{"batch-tokens", ExamplesSpec{Train: 4, Context: 8192, Batch: 4096}, "--batch 4096 × --context 8192 = 33554432 tokens a batch: allowed at most 16777216"},
		{"examples", ExamplesSpec{Train: 1_000_000_001, Context: 32, Batch: 1}, "--examples 1000000001: allowed 1 to 1000000000"},
		{"val-examples", ExamplesSpec{Train: 4, Val: 1_000_000_001, Context: 32, Batch: 1}, "--val-examples 1000000001: allowed -1 to 1000000000"},
		{"val-frac", ExamplesSpec{Train: 4, Context: 32, Batch: 1, ValFrac: math.NaN()}, "--val-frac NaN"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(work, "ex-"+c.name)
			_, err := ExportExamples(context.Background(), st, "p", "d", dir, c.spec)
			if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want a usage error naming %q", err, c.want)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the folder was made: %v", err)
			}
		})
	}
}

// The bytes an export writes are checked against the free space of its
// disk before any work (a disk of 1 MB stands in): 10,000 examples of 256
// tokens (5.4 MB) are refused naming the flags, nothing is written, no
// .pieces- folder is left; 16 examples of 32 tokens fit and are written.
// amt examples --write checks the same.
func TestExportExamplesFreeSpace(t *testing.T) {
	st, work := ingestedTestdata(t)
	saved := freeSpace
	t.Cleanup(func() { freeSpace = saved })
	asked := ""
	freeSpace = func(p string) (uint64, error) { asked = p; return 1_000_000, nil }
	dir := filepath.Join(work, "ex")
	_, err := ExportExamples(context.Background(), st, "p", "d", dir, ExamplesSpec{Train: 10000, Val: -1, Context: 256, Batch: 8, ValFrac: 0.3})
	if err == nil || !strings.Contains(err.Error(), "--examples 10000") || !strings.Contains(err.Error(), "1.0 MB free") {
		t.Errorf("10000 examples on a 1 MB disk: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the folder was made: %v", err)
	}
	if asked != work {
		t.Errorf("free space asked of %q, want the nearest existing folder %q", asked, work)
	}
	m, err := ExportExamples(context.Background(), st, "p", "d", dir, ExamplesSpec{Train: 16, Val: 4, Context: 32, Batch: 4, ValFrac: 0.3})
	if err != nil || m.Splits["train"].Examples != 16 {
		t.Fatalf("16 examples on a 1 MB disk: %v", err)
	}
	for _, n := range listDir(t, dir) {
		if strings.HasPrefix(n, ".pieces-") {
			t.Errorf("left %s", n)
		}
	}

	shards := filepath.Join(work, "shards")
	os.MkdirAll(shards, 0o755)
	vj, err := writeLivePieces(context.Background(), st, "p", "d", filepath.Join(shards, "pieces"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(shards, examples.VocabFile), vj, 0o644)
	spec := DefaultExampleSourceSpec()
	spec.Shards, spec.ValFrac = shards, 0.3
	out := filepath.Join(work, "written")
	if _, err := WriteShardExamples(context.Background(), spec, out, 10000, 500, nil); err == nil || !strings.Contains(err.Error(), "--examples 10000") {
		t.Errorf("write 10000 examples on a 1 MB disk: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the folder was made: %v", err)
	}
}
