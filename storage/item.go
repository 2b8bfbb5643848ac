package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/engine/token"
)

// Item statuses.
const (
	ItemOK     = "ok"
	ItemFailed = "failed"
)

// Item is one file of a dataset: what was measured from it and where its
// tokens are. A failed item keeps its error and has no shard.
type Item struct {
	ID        uint64 `json:"id"`
	DatasetID uint64 `json:"dataset_id"`
	Path      string `json:"path"` // slash-separated, relative to the dataset root
	Size      int64  `json:"size"`
	ModTime   int64  `json:"mod_time"` // unix nanoseconds
	Hash      string `json:"hash"`     // hex SHA-256 of the file's bytes
	Status    string `json:"status"`
	Error     string `json:"error,omitempty"`

	Meta    json.RawMessage  `json:"meta,omitempty"` // midi.Metadata as JSON
	Caption string           `json:"caption,omitempty"`
	Attrs   token.Attributes `json:"attrs"`

	ShardID    uint64 `json:"shard_id,omitempty"`
	Offset     uint64 `json:"offset"` // first token of the piece in the shard
	Tokens     int    `json:"tokens"` // piece length, BOS … EOS
	StyleIndex int    `json:"style_index"`

	RunID   uint64    `json:"run_id"`
	Updated time.Time `json:"updated"`
}

// itemRecord is an Item as stored. encoding/json writes each byte of a
// string that is not UTF-8 as U+FFFD, so a file name from an old disk
// (Latin-1 "caf\xe9.mid") came back as another name than its index key and
// the item could no longer be found, replaced or deleted (issue 37): such a
// path is also stored as bytes, and reads back byte-exact.
type itemRecord struct {
	*Item
	PathBytes []byte `json:"path_bytes,omitempty"`
}

// exactBytes returns s as bytes when JSON would not keep it (it is not
// UTF-8), else nil.
func exactBytes(s string) []byte {
	if utf8.ValidString(s) {
		return nil
	}
	return []byte(s)
}

func putItem(tx *bolt.Tx, it *Item) error {
	return putRecord(tx, bucketItems, it.ID, itemRecord{Item: it, PathBytes: exactBytes(it.Path)})
}

func getItem(tx *bolt.Tx, id uint64, it *Item) error {
	r := itemRecord{Item: it}
	if err := getRecord(tx, bucketItems, id, &r); err != nil {
		return err
	}
	if r.PathBytes != nil {
		it.Path = string(r.PathBytes)
	}
	return nil
}

func itemPathKey(datasetID uint64, path string) []byte {
	k := make([]byte, 8, 8+len(path))
	binary.BigEndian.PutUint64(k, datasetID)
	return append(k, path...)
}

// PutItem inserts it, or replaces the dataset's item with the same path (it
// keeps that item's ID, so re-ingesting never duplicates). It keeps the live
// piece counts of the shards involved up to date. To write many items in
// one transaction, an ItemWriter is faster.
func PutItem(tx *bolt.Tx, it *Item) error {
	w := NewItemWriter(tx)
	if err := w.Put(it); err != nil {
		return err
	}
	return w.Flush()
}

// ItemWriter writes many items in one transaction and applies the shards'
// live-count changes once, at Flush (which must be called before the
// transaction ends).
type ItemWriter struct {
	tx    *bolt.Tx
	live  map[uint64]int
	items *bolt.Bucket
	idx   *bolt.Bucket
}

// NewItemWriter starts writing items in tx.
func NewItemWriter(tx *bolt.Tx) *ItemWriter {
	return &ItemWriter{tx: tx, live: map[uint64]int{}, items: tx.Bucket(bucketItems), idx: tx.Bucket(bucketItemByPath)}
}

// Put inserts it or replaces the item with the same dataset and path.
func (w *ItemWriter) Put(it *Item) error {
	key := itemPathKey(it.DatasetID, it.Path)
	if v := w.idx.Get(key); v != nil {
		old := new(Item)
		if err := getItem(w.tx, btoi(v), old); err != nil {
			return err
		}
		return w.Update(old, it)
	}
	id, err := w.items.NextSequence()
	if err != nil {
		return err
	}
	it.ID = id
	if err := w.idx.Put(key, itob(id)); err != nil {
		return err
	}
	return w.Update(nil, it)
}

// Update replaces old (the stored record, as just read in this
// transaction; nil for a new item whose ID and index entry exist) by it.
func (w *ItemWriter) Update(old, it *Item) error {
	if old != nil {
		if old.DatasetID != it.DatasetID || old.Path != it.Path {
			return fmt.Errorf("storage: item %d: update changes its dataset or path", old.ID)
		}
		it.ID = old.ID
	}
	if old == nil || old.ShardID != it.ShardID || old.Offset != it.Offset {
		if old != nil && old.ShardID != 0 {
			w.live[old.ShardID]--
		}
		if it.ShardID != 0 {
			w.live[it.ShardID]++
		}
	}
	it.Updated = time.Now().UTC()
	return putItem(w.tx, it)
}

// Flush applies the live-count changes to the shard records.
func (w *ItemWriter) Flush() error {
	for id, d := range w.live {
		if d != 0 {
			if err := addLive(w.tx, id, d); err != nil {
				return err
			}
		}
	}
	clear(w.live)
	return nil
}

// ItemByPath finds the dataset's item for path; ErrNotFound if none.
func ItemByPath(tx *bolt.Tx, datasetID uint64, path string) (*Item, error) {
	v := tx.Bucket(bucketItemByPath).Get(itemPathKey(datasetID, path))
	if v == nil {
		return nil, fmt.Errorf("storage: item %s: %w", path, ErrNotFound)
	}
	it := new(Item)
	return it, getItem(tx, btoi(v), it)
}

// GetItem reads one item.
func GetItem(tx *bolt.Tx, id uint64) (*Item, error) {
	it := new(Item)
	return it, getItem(tx, id, it)
}

// Items calls fn for each item of the dataset in path order; fn returning
// false stops the walk.
func Items(tx *bolt.Tx, datasetID uint64, fn func(it *Item) bool) error {
	prefix := itob(datasetID)
	c := tx.Bucket(bucketItemByPath).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		it := new(Item)
		if err := getItem(tx, btoi(v), it); err != nil {
			return err
		}
		if !fn(it) {
			return nil
		}
	}
	return nil
}

// DeleteItem removes an item, its index entry and embedding.
func DeleteItem(tx *bolt.Tx, id uint64) error {
	it, err := GetItem(tx, id)
	if err != nil {
		return err
	}
	if it.ShardID != 0 {
		if err := addLive(tx, it.ShardID, -1); err != nil {
			return err
		}
	}
	if err := tx.Bucket(bucketItemByPath).Delete(itemPathKey(it.DatasetID, it.Path)); err != nil {
		return err
	}
	if err := tx.Bucket(bucketEmbeddings).Delete(itob(id)); err != nil {
		return err
	}
	return tx.Bucket(bucketItems).Delete(itob(id))
}

// DatasetCounts are the item totals of a dataset.
type DatasetCounts struct {
	Items  int   `json:"items"`
	OK     int   `json:"ok"`
	Failed int   `json:"failed"`
	Tokens int64 `json:"tokens"`
}

// CountItems totals a dataset's items.
func CountItems(tx *bolt.Tx, datasetID uint64) (DatasetCounts, error) {
	var c DatasetCounts
	err := Items(tx, datasetID, func(it *Item) bool {
		c.Items++
		if it.Status == ItemOK {
			c.OK++
			c.Tokens += int64(it.Tokens)
		} else {
			c.Failed++
		}
		return true
	})
	return c, err
}

// PutEmbedding stores an item's caption embedding.
func PutEmbedding(tx *bolt.Tx, itemID uint64, vec []float32) error {
	b := make([]byte, 4*len(vec))
	for i, f := range vec {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return tx.Bucket(bucketEmbeddings).Put(itob(itemID), b)
}

// Embedding returns an item's caption embedding (nil if none), appended to dst.
func Embedding(tx *bolt.Tx, itemID uint64, dst []float32) []float32 {
	b := tx.Bucket(bucketEmbeddings).Get(itob(itemID))
	for i := 0; i+4 <= len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst
}
