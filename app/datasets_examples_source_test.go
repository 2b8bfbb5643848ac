package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/amtstudio/amt/engine/train/examples"
)

// `amt datasets --export-examples` of a stored dataset and `amt examples
// --write` of the same pieces as token shards (in the export's order, the
// order of their paths) write the same token and length files: the
// pre-built path and the stream (which serves WriteShardExamples' rows,
// engine/train/stream) draw the same examples.
func TestExportExamplesIsShardExamples(t *testing.T) {
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
	defer st.Close()
	if _, err := Ingest(context.Background(), st, IngestOptions{Project: "p", Dir: mid, Dataset: "d"}); err != nil {
		t.Fatal(err)
	}
	want, err := ExportExamples(context.Background(), st, "p", "d", filepath.Join(work, "ex"), ExamplesSpec{Train: 20, Val: 6, Context: 48, Batch: 4, Seed: 9, ValFrac: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	shards := filepath.Join(work, "shards")
	os.MkdirAll(shards, 0o755)
	vj, err := writeLivePieces(context.Background(), st, "p", "d", filepath.Join(shards, "pieces"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(shards, examples.VocabFile), vj, 0o644)
	spec := DefaultExampleSourceSpec()
	spec.Shards, spec.Context, spec.Batch, spec.Seed, spec.ValFrac = shards, 48, 4, 9, 0.3
	got, err := WriteShardExamples(context.Background(), spec, filepath.Join(work, "from-shards"), 20, 6, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, split := range []string{"train", "val"} {
		w, g := want.Splits[split], got.Splits[split]
		if len(w.Shards) != 1 || len(g.Shards) != 1 || w.Examples != g.Examples || w.Pieces != g.Pieces {
			t.Fatalf("%s: %+v vs %+v", split, w, g)
		}
		if w.Shards[0].TokensSHA256 != g.Shards[0].TokensSHA256 || w.Shards[0].LengthsSHA256 != g.Shards[0].LengthsSHA256 {
			t.Errorf("%s: the export of the stored dataset and the write from its shards differ", split)
		}
	}
	if string(want.Conditioning) != string(got.Conditioning) {
		t.Errorf("conditioning %s vs %s", want.Conditioning, got.Conditioning)
	}
	// A bad option is a usage error naming it.
	spec.KeyFrame = "relative"
	if _, err := WriteShardExamples(context.Background(), spec, filepath.Join(work, "bad"), 20, 6, nil); err == nil || !errorsIsUsage(err) {
		t.Errorf("key frame relative: %v", err)
	}
}

func errorsIsUsage(err error) bool { return errors.Is(err, ErrUsage) }
