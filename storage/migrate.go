package storage

import (
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
