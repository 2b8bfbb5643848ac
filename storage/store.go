// Package storage owns the on-disk state of AMT Studio: one bbolt database
// per data directory (projects, datasets, items, ingestion runs with their
// stage statistics, training runs with metric series, generated pieces,
// settings) and the bulk files beside it (token shards, caches, models),
// which records reference by relative path and content hash.
//
// Records are versioned encodings (one version byte, then JSON) under 8-byte
// big-endian NextSequence keys; secondary index buckets serve the lookups
// that need them. All buckets are created in one write transaction at open,
// and the schema version in the meta bucket is brought up to date by
// step-wise migrations. Operations take a *bolt.Tx so several compose into
// one transaction; Store.Update and Store.View open them.
//
// storage may import engine/token for its plain data types only. It must
// never import app/ or ui/, and engine/ must never import storage.
package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Bucket names. All are created at open.
var (
	bucketMeta          = []byte("meta")
	bucketProjects      = []byte("projects")
	bucketProjectByName = []byte("projects_by_name") // name → project id
	bucketDatasets      = []byte("datasets")
	bucketItems         = []byte("items")
	bucketItemByPath    = []byte("items_by_path") // dataset id ‖ path → item id
	bucketEmbeddings    = []byte("embeddings")    // item id → float32 LE
	bucketShards        = []byte("shards")
	bucketIngestRuns    = []byte("ingest_runs")
	bucketTrainRuns     = []byte("train_runs")
	bucketMetrics       = []byte("metrics") // run id ‖ seq → metric point
	bucketPieces        = []byte("pieces")
	bucketSettings      = []byte("settings") // key → JSON value

	allBuckets = [][]byte{bucketMeta, bucketProjects, bucketProjectByName, bucketDatasets,
		bucketItems, bucketItemByPath, bucketEmbeddings, bucketShards, bucketIngestRuns,
		bucketTrainRuns, bucketMetrics, bucketPieces, bucketSettings}

	keySchema = []byte("schema")
)

// File and folder names inside a data directory.
const (
	DBFile    = "amt.db"
	PIDFile   = "amt.pid"
	ShardsDir = "shards"
	CacheDir  = "cache"
	ModelsDir = "models"
	PiecesDir = "pieces"
)

// Sentinel errors callers test with errors.Is.
var (
	ErrInUse        = errors.New("store in use")
	ErrNotFound     = errors.New("not found")
	ErrExists       = errors.New("already exists")
	ErrNewerSchema  = errors.New("store written by a newer version")
	ErrBadRecord    = errors.New("bad record")
	ErrShardChanged = errors.New("shard file does not match its recorded hash")
)

// lockTimeout bounds how long Open waits for another process's lock.
var lockTimeout = 500 * time.Millisecond

// Store is an open data directory.
type Store struct {
	Dir string
	db  *bolt.DB
}

// DefaultDir returns the data directory: $AMT_HOME if set; else
// $XDG_DATA_HOME/amt-studio, or ~/.local/share/amt-studio on Linux and the
// BSDs; elsewhere os.UserConfigDir()/AMT Studio.
func DefaultDir() (string, error) {
	if d := os.Getenv("AMT_HOME"); d != "" {
		return d, nil
	}
	switch runtime.GOOS {
	case "windows", "darwin", "ios", "plan9":
		d, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("storage: no data directory (set AMT_HOME): %w", err)
		}
		return filepath.Join(d, "AMT Studio"), nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "amt-studio"), nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("storage: no data directory (set AMT_HOME): %w", err)
	}
	return filepath.Join(h, ".local", "share", "amt-studio"), nil
}

// Open opens (creating if needed) the store in dir. Another process holding
// it makes Open fail within about a second with an error wrapping ErrInUse
// that names that process's PID. Open creates every bucket, runs pending
// migrations, marks runs left "running" by a killed process as interrupted,
// and removes shard files no record references (left by a killed write).
func Open(dir string) (*Store, error) {
	if dir == "" {
		var err error
		if dir, err = DefaultDir(); err != nil {
			return nil, err
		}
	}
	for _, d := range []string{dir, filepath.Join(dir, ShardsDir), filepath.Join(dir, CacheDir),
		filepath.Join(dir, ModelsDir), filepath.Join(dir, PiecesDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("storage: create %s: %w", d, err)
		}
	}
	dbPath := filepath.Join(dir, DBFile)
	db, err := bolt.Open(dbPath, 0o600, &bolt.Options{Timeout: lockTimeout, FreelistType: bolt.FreelistMapType})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, inUseError(dir)
		}
		return nil, fmt.Errorf("storage: open %s: %w", dbPath, err)
	}
	s := &Store{Dir: dir, db: db}
	if err := os.WriteFile(filepath.Join(dir, PIDFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		db.Close()
		return nil, fmt.Errorf("storage: write pid file: %w", err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, b := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return fmt.Errorf("create bucket %s: %w", b, err)
			}
		}
		if err := migrate(tx); err != nil {
			return err
		}
		return interruptRuns(tx)
	}); err != nil {
		s.Close()
		return nil, fmt.Errorf("storage: open %s: %w", dbPath, err)
	}
	if err := s.cleanOrphans(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func inUseError(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, PIDFile))
	pid := strings.TrimSpace(string(b))
	if err != nil || pid == "" {
		return fmt.Errorf("storage: %s: %w by another process", dir, ErrInUse)
	}
	return fmt.Errorf("storage: %s: %w by PID %s", dir, ErrInUse, pid)
}

// Close releases the store and its lock.
func (s *Store) Close() error {
	if s == nil || s.db == nil {
		return nil
	}
	os.Remove(filepath.Join(s.Dir, PIDFile))
	err := s.db.Close()
	s.db = nil
	return err
}

// Update runs fn in one read-write transaction.
func (s *Store) Update(fn func(tx *bolt.Tx) error) error { return s.db.Update(fn) }

// View runs fn in one read-only transaction.
func (s *Store) View(fn func(tx *bolt.Tx) error) error { return s.db.View(fn) }

// Abs returns the absolute path of a path relative to the store.
func (s *Store) Abs(rel string) string { return filepath.Join(s.Dir, filepath.FromSlash(rel)) }

// SchemaVersion returns the stored schema version.
func SchemaVersion(tx *bolt.Tx) uint64 {
	v := tx.Bucket(bucketMeta).Get(keySchema)
	if len(v) != 8 {
		return 0
	}
	return btoi(v)
}
