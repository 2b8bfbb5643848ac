package storage

import (
	"errors"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// latin1 is "café.mid" as an old Latin-1 disk names it: not UTF-8.
const latin1 = "caf\xe9.mid"

// TestItemAndDatasetNamesNotUTF8 puts, finds, replaces, walks and deletes
// an item whose path is not UTF-8, and finds a dataset by a root that is
// not: every name comes back byte-exact and nothing is left behind.
func TestItemAndDatasetNamesNotUTF8(t *testing.T) {
	s := openTemp(t)
	err := s.Update(func(tx *bolt.Tx) error {
		p, err := CreateProject(tx, "p")
		if err != nil {
			return err
		}
		d := &Dataset{ProjectID: p.ID, Name: "caf\xe9", Root: "/old/caf\xe9"}
		if err := PutDataset(tx, d); err != nil {
			return err
		}
		got, err := DatasetByRoot(tx, p.ID, "/old/caf\xe9")
		if err != nil || got.ID != d.ID || got.Root != "/old/caf\xe9" || got.Name != "caf\xe9" {
			t.Errorf("dataset by its root: %+v %v", got, err)
		}
		if _, err := DatasetByRoot(tx, p.ID, "/old/caf\xe8"); !errors.Is(err, ErrNotFound) {
			t.Errorf("another root found a dataset: %v", err)
		}
		for _, hash := range []string{"1", "2"} { // the second replaces the first
			if err := PutItem(tx, &Item{DatasetID: d.ID, Path: latin1, Hash: hash, Status: ItemOK}); err != nil {
				return err
			}
		}
		it, err := ItemByPath(tx, d.ID, latin1)
		if err != nil || it.Path != latin1 || it.Hash != "2" {
			t.Errorf("item by its path: %+v %v", it, err)
		}
		var paths []string
		if err := Items(tx, d.ID, func(it *Item) bool { paths = append(paths, it.Path); return true }); err != nil {
			return err
		}
		if len(paths) != 1 || paths[0] != latin1 {
			t.Errorf("walk: %q, want [%q]", paths, latin1)
		}
		if err := DeleteItem(tx, it.ID); err != nil {
			return err
		}
		if c := Counts(tx); c["items"] != 0 || c["items_by_path"] != 0 {
			t.Errorf("after delete: %d records, %d index entries; want 0, 0", c["items"], c["items_by_path"])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRepairStoreDamagedByLatin1Names builds a schema-2 store as the builds
// before the fix left it after importing folders holding caf\xe9.mid
// (reproduced with them, issue 37): records written by encode (JSON: each
// bad byte as U+FFFD) under index keys holding the bytes; the import's
// Forget deleted the record under its lossy path, leaving the index entry
// pointing at nothing; the folder caf\xe9 itself was imported afresh each
// time into a dataset of the same lossy name. Items over that store fails
// as users saw; Open repairs it and every dataset is listed, nothing else
// changed.
func TestRepairStoreDamagedByLatin1Names(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	put := func(tx *bolt.Tx, bucket []byte, id uint64, v any) error { // as schema 2 wrote records
		b, err := encode(v)
		if err != nil {
			return err
		}
		return tx.Bucket(bucket).Put(itob(id), b)
	}
	// oldItem writes an item as schema 2 did and returns its id.
	oldItem := func(tx *bolt.Tx, ds uint64, path string) (uint64, error) {
		id, err := tx.Bucket(bucketItems).NextSequence()
		if err != nil {
			return 0, err
		}
		if err := tx.Bucket(bucketItemByPath).Put(itemPathKey(ds, path), itob(id)); err != nil {
			return 0, err
		}
		return id, put(tx, bucketItems, id, &Item{ID: id, DatasetID: ds, Path: path, Hash: path, Status: ItemOK})
	}
	var keptID uint64
	err = s.Update(func(tx *bolt.Tx) error {
		p, err := CreateProject(tx, "p")
		if err != nil {
			return err
		}
		for id, name := range map[uint64]string{1: "first", 2: "caf\xe9", 3: "caf\xe9"} {
			root := "/music/" + name
			if err := put(tx, bucketDatasets, id, &Dataset{ID: id, ProjectID: p.ID, Name: name, Root: root}); err != nil {
				return err
			}
		}
		if err := tx.Bucket(bucketDatasets).SetSequence(3); err != nil {
			return err
		}
		for ds, paths := range map[uint64][]string{1: {"a.mid", "b/c.mid"}, 2: {"x.mid"}, 3: {"x.mid"}} {
			for _, p := range paths {
				if _, err := oldItem(tx, ds, p); err != nil {
					return err
				}
			}
		}
		// Dataset 2: imported, then forgotten under the lossy path.
		gone, err := oldItem(tx, 2, latin1)
		if err != nil {
			return err
		}
		if err := tx.Bucket(bucketItemByPath).Delete(itemPathKey(2, "caf\uFFFD.mid")); err != nil {
			return err
		}
		if err := tx.Bucket(bucketItems).Delete(itob(gone)); err != nil {
			return err
		}
		// Dataset 3: imported, the process killed before its Forget.
		if keptID, err = oldItem(tx, 3, latin1); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keySchema, itob(2))
	})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}

	// The damage as users met it.
	db, err := bolt.Open(filepath.Join(dir, DBFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		if err := Items(tx, 2, func(*Item) bool { return true }); !errors.Is(err, ErrNotFound) {
			t.Errorf("the damaged store walks dataset 2 with %v, want not found (the test no longer builds the damage)", err)
		}
		return nil
	})
	db.Close()

	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.View(func(tx *bolt.Tx) error {
		if v := SchemaVersion(tx); v != CurrentSchema() {
			t.Errorf("schema %d after repair, want %d", v, CurrentSchema())
		}
		dss, err := Datasets(tx, 1)
		if err != nil {
			return err
		}
		want := []struct {
			name  string
			items []string
		}{{"first", []string{"a.mid", "b/c.mid"}}, {"caf\uFFFD", []string{"x.mid"}}, {"caf\uFFFD-2", []string{latin1, "x.mid"}}}
		// The names were stored lossy: only the later one is renamed, to be
		// told apart.
		if len(dss) != len(want) {
			t.Fatalf("%d datasets listed, want %d", len(dss), len(want))
		}
		for i, d := range dss {
			var paths []string
			if err := Items(tx, d.ID, func(it *Item) bool { paths = append(paths, it.Path); return true }); err != nil {
				t.Errorf("dataset %d: %v", d.ID, err)
			}
			if d.Name != want[i].name || len(paths) != len(want[i].items) {
				t.Errorf("dataset %d: %q with %q; want %q with %q", d.ID, d.Name, paths, want[i].name, want[i].items)
				continue
			}
			for j := range paths {
				if paths[j] != want[i].items[j] {
					t.Errorf("dataset %d: %q, want %q", d.ID, paths, want[i].items)
				}
			}
		}
		it, err := ItemByPath(tx, 3, latin1)
		if err != nil || it.ID != keptID || it.Path != latin1 {
			t.Errorf("the item the killed import left: %+v %v, want id %d path %q", it, err, keptID, latin1)
		}
		if c := Counts(tx); c["items"] != 5 || c["items_by_path"] != 5 {
			t.Errorf("%d records, %d index entries; want 5, 5", c["items"], c["items_by_path"])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The folder caf\xe9, imported again, finds its first dataset.
	s.Update(func(tx *bolt.Tx) error {
		d, err := DatasetByRoot(tx, 1, "/music/caf\xe9")
		if err != nil || d.ID != 2 {
			t.Errorf("dataset of /music/caf\\xe9: %+v %v, want dataset 2", d, err)
		}
		return nil
	})
}
