package storage

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// filledStore writes a store with a project, a dataset, items, runs and a
// shard whose files exist, and closes it; it returns the folder and the
// shard's file paths.
func filledStore(t *testing.T) (string, []string) { return filledStoreTB(t) }

func filledStoreTB(t testing.TB) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	err = s.Update(func(tx *bolt.Tx) error {
		p, err := EnsureProject(tx, "p")
		if err != nil {
			return err
		}
		ds := &Dataset{ProjectID: p.ID, Name: "d", Root: "/music"}
		if err := PutDataset(tx, ds); err != nil {
			return err
		}
		run := &IngestRun{ProjectID: p.ID, DatasetID: ds.ID, Status: RunDone}
		if err := PutIngestRun(tx, run); err != nil {
			return err
		}
		sh := &Shard{DatasetID: ds.ID, Path: ds.ShardDir() + "/" + RunShardPrefix(run.ID) + "s0001", Live: 200}
		for _, ext := range []string{".bin", ".idx"} {
			f := s.Abs(sh.Path + ext)
			os.MkdirAll(filepath.Dir(f), 0o755)
			if err := os.WriteFile(f, make([]byte, 4096), 0o644); err != nil {
				return err
			}
			files = append(files, f)
		}
		if err := PutShard(tx, sh); err != nil {
			return err
		}
		for i := 0; i < 200; i++ {
			it := &Item{DatasetID: ds.ID, Path: fmt.Sprintf("song%03d.mid", i), Status: ItemOK, ShardID: sh.ID}
			if err := PutItem(tx, it); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	return dir, files
}

// readAll opens the store and decodes every record of every bucket, as
// listing commands do; it returns the first error.
func readAll(dir string) error {
	s, err := Open(dir)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.View(func(tx *bolt.Tx) error {
		for _, b := range allBuckets {
			if tx.Bucket(b) == nil {
				continue
			}
			if string(b) == string(bucketMeta) || string(b) == string(bucketEmbeddings) || string(b) == string(bucketItemByPath) ||
				string(b) == string(bucketProjectByName) || string(b) == string(bucketSettings) || string(b) == string(bucketMetrics) {
				c := tx.Bucket(b).Cursor()
				for k, _ := c.First(); k != nil; k, _ = c.Next() {
				}
				continue
			}
			if err := each(tx, b, func(uint64, *map[string]any) bool { return true }); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestEmptyDatabaseDeletesNothing: an amt.db emptied (or lost) over a data
// folder makes a fresh store, and its clean-up deletes none of the files
// it holds no record of (`: > amt.db; amt datasets` removed every shard).
func TestEmptyDatabaseDeletesNothing(t *testing.T) {
	dir, files := filledStore(t)
	if err := os.Truncate(filepath.Join(dir, DBFile), 0); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 2; round++ { // the fresh open, then a normal one
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		for _, f := range files {
			if _, err := os.Stat(f); err != nil {
				t.Fatalf("open %d: %s was deleted", round+1, f)
			}
		}
	}
	os.Remove(filepath.Join(dir, DBFile)) // lost outright: the same
	if err := readAll(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%s was deleted", f)
		}
	}
}

// TestTruncatedDatabase: a database cut short is ErrCorrupt naming the
// file, not a crash inside bbolt (SIGSEGV in Page.FastCheck).
func TestTruncatedDatabase(t *testing.T) {
	dir, files := filledStore(t)
	p := filepath.Join(dir, DBFile)
	fi, _ := os.Stat(p)
	for _, size := range []int64{fi.Size() / 2, 3 * 4096, 4096 + 100} {
		if err := os.Truncate(p, size); err != nil {
			t.Fatal(err)
		}
		err := readAll(dir)
		if err == nil || !errors.Is(err, ErrCorrupt) && !errors.Is(err, bolt.ErrInvalid) && !errors.Is(err, bolt.ErrChecksum) {
			t.Errorf("truncated to %d: %v, want ErrCorrupt", size, err)
		}
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s was deleted", f)
		}
	}
}

// TestOverwrittenPages: random bytes written over the database's pages
// (the meta pages spared, so bbolt trusts the file) give errors, never a
// panic or fault, and delete no file. Before, they panicked with slice
// bounds out of range or an assertion inside bbolt.
func TestOverwrittenPages(t *testing.T) {
	dir, files := filledStore(t)
	p := filepath.Join(dir, DBFile)
	orig, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	errs := 0
	for seed := uint64(0); seed < 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		data := append([]byte(nil), orig...)
		for page := 2; page < len(data)/4096; page++ {
			for i := 0; i < 1+int(seed%8)*8; i++ {
				data[page*4096+rng.IntN(4096)] = byte(rng.Uint32())
			}
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := readAll(dir); err != nil {
			errs++
			if testing.Verbose() {
				t.Logf("seed %d: %v", seed, err)
			}
		}
	}
	t.Logf("%d of 40 damaged copies reported an error (the rest were damaged where nothing is read)", errs)
	if errs == 0 {
		t.Error("no damaged copy was reported")
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s was deleted", f)
		}
	}
}

// TestReadOnlyStore: a store opened read-only lists and reads, refuses
// writes with ErrReadOnly, writes no PID file and cleans nothing.
func TestReadOnlyStore(t *testing.T) {
	dir, files := filledStore(t)
	orphan := filepath.Join(filepath.Dir(files[0]), "r000001-orphan.bin")
	os.WriteFile(orphan, []byte("x"), 0o644)
	s, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.ReadOnly() {
		t.Error("not read-only")
	}
	var n int
	if err := s.View(func(tx *bolt.Tx) error {
		n = Counts(tx)[string(bucketItems)]
		return nil
	}); err != nil || n != 200 {
		t.Fatalf("read %d items: %v", n, err)
	}
	if err := s.Update(func(tx *bolt.Tx) error { return nil }); !errors.Is(err, ErrReadOnly) {
		t.Errorf("update: %v, want ErrReadOnly", err)
	}
	if _, err := os.Stat(filepath.Join(dir, PIDFile)); err == nil {
		t.Error("a PID file was written")
	}
	if _, err := os.Stat(orphan); err != nil {
		t.Error("a read-only open cleaned files")
	}
	// A second reader shares it.
	s2, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatalf("second reader: %v", err)
	}
	s2.Close()
	if _, err := OpenReadOnly(t.TempDir()); err == nil {
		t.Error("read-only open of a folder without a store succeeded")
	}
}

// TestCannotWriteErrors: the errors that make Open fall back to read-only.
func TestCannotWriteErrors(t *testing.T) {
	for _, e := range []error{syscall.EROFS, syscall.EACCES, syscall.EPERM, syscall.ENOSPC, syscall.EDQUOT, bolt.ErrDatabaseReadOnly} {
		if !cannotWrite(&os.PathError{Op: "open", Path: "x", Err: e}) && !cannotWrite(e) {
			t.Errorf("%v not recognised", e)
		}
	}
	if cannotWrite(os.ErrNotExist) || cannotWrite(bolt.ErrTimeout) {
		t.Error("a missing file or a lock timeout taken for a read-only store")
	}
}

// TestPIDFileBestEffort: a PID file that cannot be written (here its name
// is taken by a folder, as a full disk refuses it) does not stop the store
// from opening (`datasets` and `report` failed on a full disk and left an
// empty amt.pid).
func TestPIDFileBestEffort(t *testing.T) {
	dir, _ := filledStore(t)
	os.Mkdir(filepath.Join(dir, PIDFile), 0o755)
	os.WriteFile(filepath.Join(dir, PIDFile, "x"), nil, 0o644)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if fi, err := os.Stat(filepath.Join(dir, PIDFile)); err != nil || !fi.IsDir() {
		t.Errorf("the folder in the PID file's place was touched: %v", err)
	}
}
