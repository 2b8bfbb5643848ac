package storage

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// migrations[i] brings a store from schema version i to i+1. They run in
// order, in the open transaction, so a store is never left half-migrated.
var migrations = []func(tx *bolt.Tx) error{
	migrateV0toV1,
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
