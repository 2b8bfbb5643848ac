// Package storage owns the on-disk state of AMT Studio: one bbolt database
// per data directory (projects, datasets, items, ingestion runs with their
// stage statistics, training runs with metric series, generated pieces,
// settings) and the bulk files beside it (token shards, caches, models),
// which records reference by relative path and content hash.
//
// Records are versioned encodings (one version byte, then JSON) under 8-byte
// big-endian NextSequence keys; secondary index buckets serve the lookups
// that need them. JSON keeps only UTF-8, so a file or folder name that is
// not (a Latin-1 "caf\xe9.mid" from an old disk) is stored a second time as
// bytes and read back byte-exact: an index key and its record always agree.
// All buckets are created in one write transaction at open, and the schema
// version in the meta bucket is brought up to date by step-wise migrations.
// Operations take a *bolt.Tx so several compose into one transaction;
// Store.Update and Store.View open them.
//
// storage may import engine/token for its plain data types only. It must
// never import app/ or ui/, and engine/ must never import storage.
package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/engine/atomicfile"
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
	// ErrReadOnly: the store was opened read-only (Open falls back to it
	// when the folder cannot be written) and was asked to write.
	ErrReadOnly = errors.New("store is read-only")
	// ErrCorrupt: the database file is damaged (truncated, overwritten).
	ErrCorrupt = errors.New("database is damaged")
	// ErrNoStore: the data directory holds no store (OpenExisting).
	ErrNoStore = errors.New("no AMT Studio data")
)

// lockTimeout bounds how long Open waits for another process's lock.
var lockTimeout = 500 * time.Millisecond

// Store is an open data directory.
type Store struct {
	Dir      string
	db       *bolt.DB
	readOnly bool
	pid      bool  // this store wrote the PID file
	bad      error // set once a transaction met a damaged database
}

// DefaultDir returns the data directory: $AMT_HOME if set; else
// $XDG_DATA_HOME/amt-studio, or ~/.local/share/amt-studio on Linux and the
// BSDs; elsewhere os.UserConfigDir()/AMT Studio. A relative XDG_DATA_HOME
// is ignored, as the XDG Base Directory specification asks (such a path
// is invalid; it would put the store under wherever a command runs).
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
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
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
// and removes the files a killed write left: temporary files, and shard
// files no record references whose dataset and ingestion run the store
// records (what it can prove it wrote; see cleanOrphans).
//
// A store that cannot be written (a read-only folder or file system, a
// full disk) is opened read-only instead (ReadOnly reports it): everything
// reads, Update fails with ErrReadOnly. A damaged database (truncated,
// pages overwritten) is an error wrapping ErrCorrupt, never a crash.
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
			if cannotWrite(err) && exists(filepath.Join(dir, DBFile)) {
				return OpenReadOnly(dir)
			}
			return nil, fmt.Errorf("storage: create %s: %w", d, err)
		}
	}
	dbPath := filepath.Join(dir, DBFile)
	// A database that is missing or empty is created now: the data folder
	// may still hold files of a store that was lost, so nothing is cleaned.
	fresh := true
	if fi, err := os.Stat(dbPath); err == nil && fi.Size() > 0 {
		fresh = false
	}
	if err := precheck(dbPath); err != nil {
		return nil, err
	}
	s := &Store{Dir: dir}
	err := s.protect(func() error {
		db, err := bolt.Open(dbPath, 0o600, &bolt.Options{Timeout: lockTimeout, FreelistType: bolt.FreelistMapType})
		s.db = db
		return err
	})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, inUseError(dir)
		}
		if cannotWrite(err) && !fresh {
			return OpenReadOnly(dir)
		}
		return nil, s.openError(dbPath, err)
	}
	if err := s.checkSize(dbPath); err != nil {
		s.Close()
		return nil, err
	}
	// The PID file only names the holder in another process's in-use
	// error: written atomically and best effort (a full disk must not
	// stop a store from opening, nor leave an empty file).
	if atomicfile.WriteFile(filepath.Join(dir, PIDFile), []byte(strconv.Itoa(os.Getpid())+"\n")) == nil {
		s.pid = true
	}
	if err := s.Update(func(tx *bolt.Tx) error {
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
		if cannotWrite(err) && !fresh {
			return OpenReadOnly(dir)
		}
		return nil, s.openError(dbPath, err)
	}
	if !fresh {
		if err := s.cleanOrphans(); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// OpenExisting is Open for a command that only reads: a directory that
// holds no store (missing, or without a database, or with an empty one: a
// mistyped --home) is an error wrapping ErrNoStore that names it, and
// nothing is created there.
func OpenExisting(dir string) (*Store, error) {
	if dir == "" {
		var err error
		if dir, err = DefaultDir(); err != nil {
			return nil, err
		}
	}
	fi, err := os.Stat(filepath.Join(dir, DBFile))
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && fi.Mode().IsRegular() && fi.Size() == 0:
		return nil, fmt.Errorf("storage: %w at %s", ErrNoStore, dir)
	case err != nil:
		return nil, fmt.Errorf("storage: open %s: %w", dir, err)
	}
	return Open(dir)
}

// OpenReadOnly opens an existing store for reading only: no bucket is
// created, nothing migrated or cleaned, no PID file written; Update fails
// with ErrReadOnly. It shares the store with other readers. A store whose
// schema is older than this build's (it needs a migration, which writes)
// or newer is an error.
func OpenReadOnly(dir string) (*Store, error) {
	if dir == "" {
		var err error
		if dir, err = DefaultDir(); err != nil {
			return nil, err
		}
	}
	dbPath := filepath.Join(dir, DBFile)
	fi, err := os.Stat(dbPath)
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", dbPath, err)
	}
	if fi.Size() == 0 {
		return nil, fmt.Errorf("storage: open %s: %w: the file is empty", dbPath, ErrCorrupt)
	}
	if err := precheck(dbPath); err != nil {
		return nil, err
	}
	s := &Store{Dir: dir, readOnly: true}
	err = s.protect(func() error {
		db, err := bolt.Open(dbPath, 0o400, &bolt.Options{Timeout: lockTimeout, ReadOnly: true, FreelistType: bolt.FreelistMapType})
		s.db = db
		return err
	})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, inUseError(dir)
		}
		return nil, s.openError(dbPath, err)
	}
	if err := s.checkSize(dbPath); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.View(func(tx *bolt.Tx) error {
		for _, b := range allBuckets {
			if tx.Bucket(b) == nil {
				return fmt.Errorf("bucket %s missing: the store needs an upgrade, which a read-only store cannot take", b)
			}
		}
		switch v := SchemaVersion(tx); {
		case v > CurrentSchema():
			return fmt.Errorf("%w: schema %d, this build knows up to %d", ErrNewerSchema, v, CurrentSchema())
		case v < CurrentSchema():
			return fmt.Errorf("schema %d needs migrating to %d, which a read-only store cannot take", v, CurrentSchema())
		}
		return nil
	}); err != nil {
		s.Close()
		return nil, s.openError(dbPath, err)
	}
	return s, nil
}

// ReadOnly reports whether the store was opened read-only.
func (s *Store) ReadOnly() bool { return s.readOnly }

func (s *Store) openError(dbPath string, err error) error {
	if errors.Is(err, ErrCorrupt) {
		return err
	}
	return fmt.Errorf("storage: open %s: %w", dbPath, err)
}

// checkSize compares the database file with the size its meta page
// declares: a truncated file would make bbolt read pages that are not
// there.
func (s *Store) checkSize(dbPath string) error {
	fi, err := os.Stat(dbPath)
	if err != nil {
		return fmt.Errorf("storage: open %s: %w", dbPath, err)
	}
	return s.View(func(tx *bolt.Tx) error {
		if want := tx.Size(); fi.Size() < want {
			return fmt.Errorf("storage: %s: %w: the file is %d bytes, its header declares %d (truncated)", dbPath, ErrCorrupt, fi.Size(), want)
		}
		return nil
	})
}

// protect runs fn, turning a panic or a memory fault inside it (bbolt on a
// damaged file: a page that is not what it claims, a slice bound from
// corrupt bytes, a read past a truncated map) into an error wrapping
// ErrCorrupt. The store then refuses every further transaction with that
// error.
func (s *Store) protect(fn func() error) (err error) {
	if s.bad != nil {
		return s.bad
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("storage: %s: %w (%v): restore it from a backup, or move the folder away to start afresh", filepath.Join(s.Dir, DBFile), ErrCorrupt, r)
			s.bad = err
		}
	}()
	return fn()
}

// cannotWrite reports whether err means the store cannot be written: a
// read-only file system or file, no permission, a full disk or quota.
func cannotWrite(err error) bool {
	return errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) ||
		errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, bolt.ErrDatabaseReadOnly)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
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
	if s.pid {
		os.Remove(filepath.Join(s.Dir, PIDFile))
	}
	db := s.db
	s.db = nil
	s.bad = nil
	return s.protect(db.Close)
}

// Update runs fn in one read-write transaction. On a read-only store it
// fails with ErrReadOnly; on a damaged one with ErrCorrupt.
func (s *Store) Update(fn func(tx *bolt.Tx) error) error {
	if s.readOnly {
		return fmt.Errorf("storage: %s: %w (a read-only folder, file system or a full disk); reading still works", s.Dir, ErrReadOnly)
	}
	return s.protect(func() error { return s.db.Update(fn) })
}

// View runs fn in one read-only transaction (ErrCorrupt on a damaged
// database).
func (s *Store) View(fn func(tx *bolt.Tx) error) error {
	return s.protect(func() error { return s.db.View(fn) })
}

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
