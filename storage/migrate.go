package storage

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// migrations[i] brings a store from schema version i to i+1. They run in
// order, in the open transaction, so a store is never left half-migrated.
var migrations = []func(tx *bolt.Tx) error{
	migrateV0toV1,
	migrateV1toV2,
	migrateV2toV3,
}

// CurrentSchema is the schema version this build writes.
func CurrentSchema() uint64 { return uint64(len(migrations)) }

func migrate(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	v := SchemaVersion(tx)
	if meta.Get(keySchema) == nil && tx.Bucket(bucketItems).Stats().KeyN == 0 &&
		tx.Bucket(bucketProjects).Stats().KeyN == 0 {
		// A fresh store: nothing to migrate.
		return meta.Put(keySchema, itob(CurrentSchema()))
	}
	if v > CurrentSchema() {
		return fmt.Errorf("%w: schema %d, this build knows up to %d", ErrNewerSchema, v, CurrentSchema())
	}
	for ; v < CurrentSchema(); v++ {
		if err := migrations[v](tx); err != nil {
			return fmt.Errorf("migrate schema %d→%d: %w", v, v+1, err)
		}
		if err := meta.Put(keySchema, itob(v+1)); err != nil {
			return err
		}
	}
	return nil
}

// migrateV0toV1: version 0 stores (no schema key) had no items_by_path
// index; build it from the items.
func migrateV0toV1(tx *bolt.Tx) error {
	idx := tx.Bucket(bucketItemByPath)
	var perr error
	err := each(tx, bucketItems, func(id uint64, it *Item) bool {
		perr = idx.Put(itemPathKey(it.DatasetID, it.Path), itob(id))
		return perr == nil
	})
	if err != nil {
		return err
	}
	return perr
}

// LegacyRatingPrefix is the settings key prefix (+ piece id) under which
// schema-1 stores kept piece ratings, before Piece had a Rating field.
const LegacyRatingPrefix = "piece.rating."

// migrateV1toV2 moves piece ratings from the settings bucket
// (LegacyRatingPrefix + id → rating) into the pieces' Rating field and
// deletes those settings; a rating of a piece that no longer exists, or
// one outside 0–5, is dropped.
func migrateV1toV2(tx *bolt.Tx) error {
	set := tx.Bucket(bucketSettings)
	var keys [][]byte
	c := set.Cursor()
	prefix := []byte(LegacyRatingPrefix)
	for k, _ := c.Seek(prefix); k != nil && strings.HasPrefix(string(k), LegacyRatingPrefix); k, _ = c.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	for _, k := range keys {
		var rating int
		if err := decode(set.Get(k), &rating); err != nil {
			return fmt.Errorf("setting %s: %w", k, err)
		}
		id, perr := strconv.ParseUint(string(k[len(prefix):]), 10, 64)
		if perr == nil && rating >= 0 && rating <= MaxRating {
			err := RatePiece(tx, id, rating)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		if err := set.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// migrateV2toV3 repairs what schema-2 builds did to names that are not
// UTF-8 (a Latin-1 "caf\xe9.mid" from an old disk; issue 37). Their
// records stored such a path with U+FFFD for each bad byte while the index
// key kept the bytes, so an import deleted the record under the wrong key
// and left its index entry pointing at nothing: from then on every walk of
// the dataset failed ("items N: not found") and the project's datasets
// could not be listed or exported. The repair:
//   - an index entry whose item record is gone is removed (the item was
//     deleted; its file is imported again by the next import);
//   - a record whose path is not its index key's takes the key's path (the
//     bytes the scan read), now stored byte-exact;
//   - datasets of one project left with the same name (a folder so named
//     was imported afresh each time: its root did not match either) are
//     renamed name-2, name-3 … in creation order, so each can be exported.
func migrateV2toV3(tx *bolt.Tx) error {
	idx := tx.Bucket(bucketItemByPath)
	var dangling [][]byte
	var fix []*Item
	c := idx.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) < 8 || len(v) != 8 {
			return fmt.Errorf("items_by_path: %w: key of %d bytes, value of %d", ErrBadRecord, len(k), len(v))
		}
		it := new(Item)
		err := getItem(tx, btoi(v), it)
		switch {
		case errors.Is(err, ErrNotFound):
			dangling = append(dangling, append([]byte(nil), k...))
		case err != nil:
			return err
		case !bytes.Equal(itemPathKey(it.DatasetID, it.Path), k) && it.DatasetID == btoi(k[:8]):
			it.Path = string(k[8:])
			fix = append(fix, it)
		}
	}
	for _, k := range dangling {
		if err := idx.Delete(k); err != nil {
			return err
		}
	}
	for _, it := range fix {
		if err := putItem(tx, it); err != nil {
			return err
		}
	}
	return uniqueDatasetNames(tx)
}

// uniqueDatasetNames renames the later of datasets sharing a name within a
// project (see migrateV2toV3).
func uniqueDatasetNames(tx *bolt.Tx) error {
	var all []*Dataset
	if err := each(tx, bucketDatasets, func(_ uint64, r *datasetRecord) bool {
		all = append(all, r.exact())
		return true
	}); err != nil {
		return err
	}
	taken := map[uint64]map[string]bool{}
	for _, d := range all {
		if taken[d.ProjectID] == nil {
			taken[d.ProjectID] = map[string]bool{}
		}
		taken[d.ProjectID][d.Name] = true
	}
	seen := map[uint64]map[string]bool{}
	for _, d := range all {
		if seen[d.ProjectID] == nil {
			seen[d.ProjectID] = map[string]bool{}
		}
		if !seen[d.ProjectID][d.Name] {
			seen[d.ProjectID][d.Name] = true
			continue
		}
		base, name := d.Name, d.Name
		for i := 2; taken[d.ProjectID][name]; i++ {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		taken[d.ProjectID][name], seen[d.ProjectID][name] = true, true
		d.Name = name
		if err := PutDataset(tx, d); err != nil {
			return err
		}
	}
	return nil
}
