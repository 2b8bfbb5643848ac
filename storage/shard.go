package storage

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Shard is one token shard pair (Path+".bin", Path+".idx") of a dataset, in
// the format of the contracts: uint16 LE tokens, and uint64 LE piece start
// offsets followed by the total.
type Shard struct {
	ID        uint64 `json:"id"`
	DatasetID uint64 `json:"dataset_id"`
	Path      string `json:"path"` // relative to the store, slash-separated, without extension
	Hash      string `json:"hash"` // hex SHA-256 of the .bin file
	Pieces    int    `json:"pieces"`
	Tokens    int64  `json:"tokens"`
	Live      int    `json:"live"` // items that reference a piece in it
}

// PutShard inserts s (ID 0: a new id is assigned) or updates it. Write the
// files first (atomically), then record them.
func PutShard(tx *bolt.Tx, s *Shard) error {
	return upsert(tx, bucketShards, &s.ID, s)
}

// GetShard reads one shard record.
func GetShard(tx *bolt.Tx, id uint64) (*Shard, error) {
	return get[Shard](tx, bucketShards, id)
}

// Shards lists a dataset's shards in creation order.
func Shards(tx *bolt.Tx, datasetID uint64) ([]Shard, error) {
	var out []Shard
	err := each(tx, bucketShards, func(_ uint64, s *Shard) bool {
		if s.DatasetID == datasetID {
			out = append(out, *s)
		}
		return true
	})
	return out, err
}

func addLive(tx *bolt.Tx, shardID uint64, d int) error {
	s, err := GetShard(tx, shardID)
	if err != nil {
		return err
	}
	s.Live += d
	return putRecord(tx, bucketShards, s.ID, s)
}

// PruneShards deletes the records of the dataset's shards no item
// references any more and returns their paths (relative to the store, no
// extension): remove the files after the transaction commits (RemoveShard);
// files left by a crash in between are removed at the next Open.
func PruneShards(tx *bolt.Tx, datasetID uint64) ([]string, error) {
	ss, err := Shards(tx, datasetID)
	if err != nil {
		return nil, err
	}
	var dead []string
	for _, s := range ss {
		if s.Live <= 0 {
			if err := tx.Bucket(bucketShards).Delete(itob(s.ID)); err != nil {
				return nil, err
			}
			dead = append(dead, s.Path)
		}
	}
	return dead, nil
}

// RemoveShard deletes a shard's files (after its record is gone).
func (s *Store) RemoveShard(rel string) {
	os.Remove(s.Abs(rel + ".bin"))
	os.Remove(s.Abs(rel + ".idx"))
}

// cleanOrphans removes what a process killed between writing a file and
// committing its record leaves behind: temporary files, and shard files no
// shard record references. It deletes only what the store can prove it
// wrote: a shard file must lie in the folder of a dataset the store records
// and carry the name prefix ("r000012-") of an ingestion run the store
// records for that dataset. Open does not call it on a store it has just
// created (a lost or emptied amt.db over a full data folder once made every
// shard an "orphan": 12.7 MB deleted).
func (s *Store) cleanOrphans() error {
	known := map[string]bool{}
	owned := map[string]map[string]bool{} // dataset shard folder → run prefixes
	if err := s.View(func(tx *bolt.Tx) error {
		dirs := map[uint64]string{}
		if err := each(tx, bucketDatasets, func(id uint64, d *Dataset) bool {
			d.ID = id
			dirs[id] = d.ShardDir()
			owned[d.ShardDir()] = map[string]bool{}
			return true
		}); err != nil {
			return err
		}
		if err := each(tx, bucketIngestRuns, func(id uint64, r *IngestRun) bool {
			if dir, ok := dirs[r.DatasetID]; ok {
				owned[dir][RunShardPrefix(id)] = true
			}
			return true
		}); err != nil {
			return err
		}
		return each(tx, bucketShards, func(_ uint64, sh *Shard) bool {
			known[sh.Path] = true
			return true
		})
	}); err != nil {
		return fmt.Errorf("storage: list shards: %w", err)
	}
	for _, top := range []string{ShardsDir, CacheDir, ModelsDir, PiecesDir} {
		root := filepath.Join(s.Dir, top)
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			name := d.Name()
			if strings.HasSuffix(name, TempSuffix) {
				return os.Remove(p)
			}
			if top != ShardsDir {
				return nil
			}
			ext := path.Ext(name)
			if ext != ".bin" && ext != ".idx" {
				return nil
			}
			rel, err := filepath.Rel(s.Dir, p)
			if err != nil {
				return nil
			}
			rel = filepath.ToSlash(strings.TrimSuffix(rel, ext))
			if known[rel] {
				return nil
			}
			runs := owned[path.Dir(rel)]
			if prefix, _, ok := strings.Cut(path.Base(rel), "-"); ok && runs[prefix+"-"] {
				return os.Remove(p)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("storage: clean %s: %w", root, err)
		}
	}
	return nil
}

// RunShardPrefix starts the name of every shard file ingestion run id
// writes; cleanOrphans recognises the store's own files by it.
func RunShardPrefix(runID uint64) string { return fmt.Sprintf("r%06d-", runID) }
