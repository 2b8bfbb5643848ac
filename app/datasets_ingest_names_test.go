package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/storage"
)

// latin1 is "café.mid" as an old Latin-1 disk names it: not UTF-8.
const latin1 = "caf\xe9.mid"

// TestIngestLatin1FileName: a file whose name is not UTF-8 is imported
// with its name byte-exact; the project keeps working through re-imports,
// a change of the file, its removal, and a folder so named.
func TestIngestLatin1FileName(t *testing.T) {
	home := t.TempDir()
	first, root := t.TempDir(), filepath.Join(t.TempDir(), "caf\xe9") // a folder so named too
	testfiles.Corpus(t, first, 3)
	os.Mkdir(root, 0o755)
	testfiles.Corpus(t, root, 3)
	testfiles.Scale(t, filepath.Join(root, latin1), 500000, 60)
	st, err := storage.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := Ingest(ctx, st, IngestOptions{Project: "p", Dir: first}); err != nil {
		t.Fatal(err)
	}
	res, err := Ingest(ctx, st, IngestOptions{Project: "p", Dir: root})
	if err != nil {
		t.Fatalf("ingest with %q: %v", latin1, err)
	}
	if r := res.Report; r.OK != 4 || r.Failed != 1 || r.Removed != 0 {
		t.Errorf("first import: ok %d failed %d removed %d; want 4, 1, 0", r.OK, r.Failed, r.Removed)
	}
	if res.Dataset != `caf\xe9` {
		t.Errorf("dataset %q, want the folder's name with its bad byte written out, %q", res.Dataset, `caf\xe9`)
	}
	check := func(when string, items int) {
		t.Helper()
		list, err := ListDatasets(st, "p")
		if err != nil || len(list) != 2 {
			t.Fatalf("%s: datasets %+v: %v", when, list, err)
		}
		if list[1].Items != items || list[1].Root != root || list[1].ID != res.DatasetID {
			t.Errorf("%s: dataset %d from %q with %d items; want %d from %q with %d", when, list[1].ID, list[1].Root, list[1].Items, res.DatasetID, root, items)
		}
		if n, err := ExportDataset(ctx, st, "p", res.Dataset, t.TempDir()); err != nil || n == 0 {
			t.Errorf("%s: export wrote %d shards: %v", when, n, err)
		}
		if err := st.View(func(tx *bolt.Tx) error {
			it, err := storage.ItemByPath(tx, res.DatasetID, latin1)
			if items == 5 && (err != nil || it.Path != latin1 || it.Status != storage.ItemOK) {
				t.Errorf("%s: item %q: %+v %v", when, latin1, it, err)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	check("after the first import", 5)
	res2, err := Ingest(ctx, st, IngestOptions{Project: "p", Dir: root})
	if err != nil || res2.Report.Unchanged != 5 || res2.Report.Processed != 0 || res2.Report.Removed != 0 {
		t.Fatalf("re-import: %+v %v", res2.Report, err)
	}
	check("after a re-import", 5)
	testfiles.Scale(t, filepath.Join(root, latin1), 400000, 62) // changed
	if res2, err = Ingest(ctx, st, IngestOptions{Project: "p", Dir: root}); err != nil || res2.Report.OK != 1 {
		t.Fatalf("re-import of the changed file: %+v %v", res2.Report, err)
	}
	check("after a change", 5)
	os.Remove(filepath.Join(root, latin1))
	if res2, err = Ingest(ctx, st, IngestOptions{Project: "p", Dir: root}); err != nil || res2.Report.Removed != 1 {
		t.Fatalf("re-import without the file: %+v %v", res2.Report, err)
	}
	check("after its removal", 4)
}
