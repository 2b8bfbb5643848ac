package storage

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// recordVersion is the first byte of every encoded record; the rest is JSON.
// A change of a record's meaning bumps it and adds a migration.
const recordVersion = 1

func itob(v uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return b[:]
}

func btoi(b []byte) uint64 { return binary.BigEndian.Uint64(b) }

func encode(v any) ([]byte, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(j)+1)
	out = append(out, recordVersion)
	return append(out, j...), nil
}

// decode copies out of the bolt page (json.Unmarshal copies), so the result
// outlives the transaction.
func decode(b []byte, v any) error {
	if len(b) < 1 {
		return fmt.Errorf("%w: empty", ErrBadRecord)
	}
	if b[0] != recordVersion {
		return fmt.Errorf("%w: version %d (this build reads %d)", ErrBadRecord, b[0], recordVersion)
	}
	if err := json.Unmarshal(b[1:], v); err != nil {
		return fmt.Errorf("%w: %v", ErrBadRecord, err)
	}
	return nil
}

func putRecord(tx *bolt.Tx, bucket []byte, id uint64, v any) error {
	b, err := encode(v)
	if err != nil {
		return fmt.Errorf("storage: encode %s %d: %w", bucket, id, err)
	}
	return tx.Bucket(bucket).Put(itob(id), b)
}

func getRecord(tx *bolt.Tx, bucket []byte, id uint64, v any) error {
	b := tx.Bucket(bucket).Get(itob(id))
	if b == nil {
		return fmt.Errorf("storage: %s %d: %w", bucket, id, ErrNotFound)
	}
	if err := decode(b, v); err != nil {
		return fmt.Errorf("storage: %s %d: %w", bucket, id, err)
	}
	return nil
}

// nextID returns the bucket's next sequence number.
func nextID(tx *bolt.Tx, bucket []byte) (uint64, error) {
	return tx.Bucket(bucket).NextSequence()
}

// assignID gives *id the bucket's next sequence number when it is 0 (a new
// record) and reports whether it did.
func assignID(tx *bolt.Tx, bucket []byte, id *uint64) (bool, error) {
	if *id != 0 {
		return false, nil
	}
	n, err := nextID(tx, bucket)
	if err != nil {
		return false, err
	}
	*id = n
	return true, nil
}

// upsert inserts v, whose id is *id, into bucket (with *id 0 the bucket's
// next id is assigned first) or updates it: the Put of every record kind
// whose id is assigned on insert.
func upsert(tx *bolt.Tx, bucket []byte, id *uint64, v any) error {
	if _, err := assignID(tx, bucket, id); err != nil {
		return err
	}
	return putRecord(tx, bucket, *id, v)
}

// get reads record id of bucket into a new T: the Get of every record
// kind.
func get[T any](tx *bolt.Tx, bucket []byte, id uint64) (*T, error) {
	v := new(T)
	return v, getRecord(tx, bucket, id, v)
}

// filter decodes a bucket's records in key order and returns those keep
// accepts (a project's datasets, runs, …).
func filter[T any](tx *bolt.Tx, bucket []byte, keep func(v *T) bool) ([]T, error) {
	var out []T
	err := each(tx, bucket, func(_ uint64, v *T) bool {
		if keep(v) {
			out = append(out, *v)
		}
		return true
	})
	return out, err
}

// each decodes every record of a bucket in key order into a fresh T and
// calls fn; fn returning false stops the walk.
func each[T any](tx *bolt.Tx, bucket []byte, fn func(id uint64, v *T) bool) error {
	c := tx.Bucket(bucket).Cursor()
	for k, b := c.First(); k != nil; k, b = c.Next() {
		if len(k) != 8 {
			return fmt.Errorf("storage: %s: %w: key of %d bytes (ids are 8)", bucket, ErrBadRecord, len(k))
		}
		var v T
		if err := decode(b, &v); err != nil {
			return fmt.Errorf("storage: %s %d: %w", bucket, btoi(k), err)
		}
		if !fn(btoi(k), &v) {
			return nil
		}
	}
	return nil
}

// Counts returns the number of records in each bucket, by bucket name (for
// diagnostics and consistency checks).
func Counts(tx *bolt.Tx) map[string]int {
	out := map[string]int{}
	for _, b := range allBuckets {
		out[string(b)] = tx.Bucket(b).Stats().KeyN
	}
	return out
}
