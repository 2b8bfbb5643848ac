package storage

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/engine/token"
)

// TestMain lets the in-use test re-execute this binary as a second process
// that holds a store open until its stdin closes.
func TestMain(m *testing.M) {
	if dir := os.Getenv("AMT_STORAGE_TEST_HOLD"); dir != "" {
		s, err := Open(dir)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("ready")
		bufio.NewReader(os.Stdin).ReadString('\n')
		s.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOpenCreatesBucketsAndSchema(t *testing.T) {
	s := openTemp(t)
	err := s.View(func(tx *bolt.Tx) error {
		for _, b := range allBuckets {
			if tx.Bucket(b) == nil {
				t.Errorf("bucket %s missing", b)
			}
		}
		if v := SchemaVersion(tx); v != CurrentSchema() {
			t.Errorf("schema %d, want %d", v, CurrentSchema())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{ShardsDir, CacheDir, ModelsDir, PiecesDir} {
		if st, err := os.Stat(filepath.Join(s.Dir, d)); err != nil || !st.IsDir() {
			t.Errorf("folder %s not created: %v", d, err)
		}
	}
	pid, _ := os.ReadFile(filepath.Join(s.Dir, PIDFile))
	if strings.TrimSpace(string(pid)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("pid file %q, want %d", pid, os.Getpid())
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("AMT_HOME", "/x/home")
	if d, _ := DefaultDir(); d != "/x/home" {
		t.Errorf("AMT_HOME: got %s", d)
	}
	t.Setenv("AMT_HOME", "")
	t.Setenv("XDG_DATA_HOME", "/x/data")
	if d, _ := DefaultDir(); d != "/x/data/amt-studio" {
		t.Errorf("XDG_DATA_HOME: got %s", d)
	}
}

// A relative XDG_DATA_HOME is invalid (the XDG Base Directory
// specification: "all paths set in these environment variables must be
// absolute ... If an implementation encounters a relative path in any of
// these variables it should consider the path invalid and ignore it"):
// the default ~/.local/share is used, not a folder under wherever the
// command runs.
func TestDefaultDirIgnoresRelativeXDG(t *testing.T) {
	switch runtime.GOOS {
	case "windows", "darwin", "ios", "plan9":
		t.Skip("XDG directories are read on Linux and the BSDs")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("AMT_HOME", "")
	for _, rel := range []string{"data", "./data", "../x/data"} {
		t.Setenv("XDG_DATA_HOME", rel)
		if d, err := DefaultDir(); err != nil || d != filepath.Join(home, ".local", "share", "amt-studio") {
			t.Errorf("XDG_DATA_HOME=%s: %q, %v; want ~/.local/share/amt-studio", rel, d, err)
		}
	}
}

// OpenExisting (a command that only reads) refuses a folder without a
// store, missing or empty, naming it, and creates nothing; a store opens.
func TestOpenExistingRefusesFolderWithoutStore(t *testing.T) {
	base := t.TempDir()
	missing := filepath.Join(base, "typo")
	empty := filepath.Join(base, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(base, "zero") // a database file of 0 bytes holds no store either
	if err := os.Mkdir(zero, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(zero, DBFile), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{missing, empty, zero} {
		s, err := OpenExisting(dir)
		if err == nil {
			s.Close()
		}
		if !errors.Is(err, ErrNoStore) || !strings.Contains(err.Error(), "no AMT Studio data at "+dir) {
			t.Errorf("%s: %v; want ErrNoStore naming the folder", dir, err)
		}
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("the missing folder was created: %v", err)
	}
	for _, dir := range []string{empty, zero} {
		if ents, _ := os.ReadDir(dir); len(ents) != map[string]int{empty: 0, zero: 1}[dir] {
			t.Errorf("%s now holds %d entries", dir, len(ents))
		}
	}
	st := filepath.Join(base, "store")
	s, err := Open(st)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = OpenExisting(st); err != nil {
		t.Fatal(err)
	}
	s.Close()
}

func TestProjectsDatasetsRoundTripAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var dsID uint64
	err = s.Update(func(tx *bolt.Tx) error {
		p, err := EnsureProject(tx, "folk")
		if err != nil {
			return err
		}
		p2, err := EnsureProject(tx, "folk")
		if err != nil {
			return err
		}
		if p2.ID != p.ID {
			t.Errorf("EnsureProject twice gave ids %d and %d", p.ID, p2.ID)
		}
		if _, err := CreateProject(tx, "folk"); !errors.Is(err, ErrExists) {
			t.Errorf("duplicate project: err %v, want ErrExists", err)
		}
		d := &Dataset{ProjectID: p.ID, Name: "nottingham", Root: "/data/nottingham"}
		if err := PutDataset(tx, d); err != nil {
			return err
		}
		dsID = d.ID
		name, err := UniqueDatasetName(tx, p.ID, "nottingham")
		if err != nil {
			return err
		}
		if name != "nottingham-2" {
			t.Errorf("unique name %q, want nottingham-2", name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.View(func(tx *bolt.Tx) error {
		p, err := ProjectByName(tx, "folk")
		if err != nil {
			t.Fatal(err)
		}
		d, err := DatasetByRoot(tx, p.ID, "/data/nottingham")
		if err != nil || d.ID != dsID || d.Name != "nottingham" {
			t.Errorf("DatasetByRoot: %+v, %v", d, err)
		}
		if d.ShardDir() != fmt.Sprintf("shards/ds-%06d", dsID) {
			t.Errorf("ShardDir %s", d.ShardDir())
		}
		if _, err := ProjectByName(tx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("missing project: %v", err)
		}
		return nil
	})
}

func TestItemsReplaceByPathAndShardLiveCounts(t *testing.T) {
	s := openTemp(t)
	err := s.Update(func(tx *bolt.Tx) error {
		sh1 := &Shard{DatasetID: 1, Path: "shards/ds-000001/a", Pieces: 2}
		sh2 := &Shard{DatasetID: 1, Path: "shards/ds-000001/b", Pieces: 1}
		if err := PutShard(tx, sh1); err != nil {
			return err
		}
		if err := PutShard(tx, sh2); err != nil {
			return err
		}
		a := &Item{DatasetID: 1, Path: "x/a.mid", Status: ItemOK, ShardID: sh1.ID, Offset: 0, Tokens: 10, Attrs: token.Unspecified()}
		b := &Item{DatasetID: 1, Path: "x/b.mid", Status: ItemOK, ShardID: sh1.ID, Offset: 10, Tokens: 5}
		c := &Item{DatasetID: 1, Path: "bad.mid", Status: ItemFailed, Error: "truncated"}
		other := &Item{DatasetID: 2, Path: "x/a.mid", Status: ItemOK}
		for _, it := range []*Item{a, b, c, other} {
			if err := PutItem(tx, it); err != nil {
				return err
			}
		}
		// Re-ingest a changed a.mid into shard 2: same ID, shard 1 loses one live piece.
		a2 := &Item{DatasetID: 1, Path: "x/a.mid", Status: ItemOK, ShardID: sh2.ID, Offset: 0, Tokens: 7}
		if err := PutItem(tx, a2); err != nil {
			return err
		}
		if a2.ID != a.ID {
			t.Errorf("replacing an item changed its id %d → %d", a.ID, a2.ID)
		}
		c1, _ := GetShard(tx, sh1.ID)
		c2, _ := GetShard(tx, sh2.ID)
		if c1.Live != 1 || c2.Live != 1 {
			t.Errorf("live counts %d, %d; want 1, 1", c1.Live, c2.Live)
		}
		counts, err := CountItems(tx, 1)
		if err != nil {
			return err
		}
		if counts != (DatasetCounts{Items: 3, OK: 2, Failed: 1, Tokens: 12}) {
			t.Errorf("counts %+v", counts)
		}
		var paths []string
		Items(tx, 1, func(it *Item) bool { paths = append(paths, it.Path); return true })
		if strings.Join(paths, ",") != "bad.mid,x/a.mid,x/b.mid" {
			t.Errorf("items in path order: %v", paths)
		}
		// Move b too: shard 1 is dead and pruned.
		b.ShardID, b.Offset = sh2.ID, 7
		if err := PutItem(tx, b); err != nil {
			return err
		}
		dead, err := PruneShards(tx, 1)
		if err != nil {
			return err
		}
		if len(dead) != 1 || dead[0] != sh1.Path {
			t.Errorf("pruned %v, want [%s]", dead, sh1.Path)
		}
		if _, err := GetShard(tx, sh1.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("pruned shard still there: %v", err)
		}
		if err := DeleteItem(tx, b.ID); err != nil {
			return err
		}
		if _, err := ItemByPath(tx, 1, "x/b.mid"); !errors.Is(err, ErrNotFound) {
			t.Errorf("deleted item still found: %v", err)
		}
		c2, _ = GetShard(tx, sh2.ID)
		if c2.Live != 1 {
			t.Errorf("after delete live %d, want 1", c2.Live)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestEmbeddingsMetricsSettings(t *testing.T) {
	s := openTemp(t)
	err := s.Update(func(tx *bolt.Tx) error {
		if err := PutEmbedding(tx, 7, []float32{1, -0.5, 3.25}); err != nil {
			return err
		}
		got := Embedding(tx, 7, nil)
		if len(got) != 3 || got[0] != 1 || got[1] != -0.5 || got[2] != 3.25 {
			t.Errorf("embedding %v", got)
		}
		if Embedding(tx, 8, nil) != nil {
			t.Errorf("missing embedding not nil")
		}
		r := &TrainRun{ProjectID: 1, Status: RunRunning}
		if err := PutTrainRun(tx, r); err != nil {
			return err
		}
		pts := []Metric{{Step: 1, Name: "loss", Value: 5}, {Step: 1, Name: "lr", Value: 1e-4}, {Step: 2, Name: "loss", Value: 4}}
		if err := AppendMetrics(tx, r.ID, pts); err != nil {
			return err
		}
		if err := AppendMetrics(tx, r.ID+1, []Metric{{Step: 1, Name: "loss", Value: 99}}); err != nil {
			return err
		}
		loss, err := Metrics(tx, r.ID, "loss")
		if err != nil {
			return err
		}
		if len(loss) != 2 || loss[0].Value != 5 || loss[1].Value != 4 {
			t.Errorf("loss series %+v", loss)
		}
		if err := SetSetting(tx, "workers.parse", 3); err != nil {
			return err
		}
		var w int
		if ok, err := Setting(tx, "workers.parse", &w); !ok || err != nil || w != 3 {
			t.Errorf("setting: %v %v %d", ok, err, w)
		}
		if ok, _ := Setting(tx, "nope", &w); ok {
			t.Errorf("unset setting reported set")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRunningRunsMarkedInterruptedAtOpen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var id uint64
	s.Update(func(tx *bolt.Tx) error {
		r := &IngestRun{ProjectID: 1, Status: RunRunning}
		err := PutIngestRun(tx, r)
		id = r.ID
		return err
	})
	s.Close()
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.View(func(tx *bolt.Tx) error {
		r, err := GetIngestRun(tx, id)
		if err != nil || r.Status != RunInterrupted {
			t.Errorf("run after reopen: %+v %v", r, err)
		}
		return nil
	})
}

func TestOrphanShardFilesRemovedAtOpen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sd := filepath.Join(dir, ShardsDir, "ds-000001")
	other := filepath.Join(dir, ShardsDir, "ds-000007") // no dataset 7 recorded
	os.MkdirAll(sd, 0o755)
	os.MkdirAll(other, 0o755)
	for _, n := range []string{"r000001-kept.bin", "r000001-kept.idx", "r000001-orphan.bin", "r000001-orphan.idx",
		"r000009-stranger.bin", "foreign.bin", "x.bin.123.tmp", "vocab.json"} {
		os.WriteFile(filepath.Join(sd, n), []byte("x"), 0o644)
	}
	os.WriteFile(filepath.Join(other, "r000001-s0001.bin"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, CacheDir, "c.456.tmp"), []byte("x"), 0o644)
	s.Update(func(tx *bolt.Tx) error {
		p, _ := EnsureProject(tx, "p")
		ds := &Dataset{ProjectID: p.ID, Name: "d"}
		if err := PutDataset(tx, ds); err != nil || ds.ID != 1 {
			t.Fatalf("dataset %d: %v", ds.ID, err)
		}
		if err := PutIngestRun(tx, &IngestRun{DatasetID: 1, Status: RunDone}); err != nil {
			t.Fatal(err)
		}
		return PutShard(tx, &Shard{DatasetID: 1, Path: "shards/ds-000001/r000001-kept", Live: 1})
	})
	s.Close()
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Removed: the unreferenced files of run 1 of dataset 1 and temp
	// files. Kept: referenced ones, and those the store cannot prove it
	// wrote (another run's prefix, no prefix, an unrecorded dataset).
	for n, want := range map[string]bool{"r000001-kept.bin": true, "r000001-kept.idx": true, "vocab.json": true,
		"r000001-orphan.bin": false, "r000001-orphan.idx": false, "x.bin.123.tmp": false,
		"r000009-stranger.bin": true, "foreign.bin": true} {
		_, err := os.Stat(filepath.Join(sd, n))
		if (err == nil) != want {
			t.Errorf("%s exists=%v, want %v", n, err == nil, want)
		}
	}
	if _, err := os.Stat(filepath.Join(other, "r000001-s0001.bin")); err != nil {
		t.Errorf("a file of an unrecorded dataset was removed")
	}
	if _, err := os.Stat(filepath.Join(dir, CacheDir, "c.456.tmp")); err == nil {
		t.Errorf("cache temp file not removed")
	}
}

// TestMigrateV0toV1 writes a version-0 store by hand (no schema key, items
// but no items_by_path index) and checks Open builds the index.
func TestMigrateV0toV1(t *testing.T) {
	dir := t.TempDir()
	db, err := bolt.Open(filepath.Join(dir, DBFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketMeta, bucketProjects, bucketDatasets, bucketItems} {
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		for i, p := range []string{"a.mid", "b/c.mid"} {
			v, _ := encode(&Item{ID: uint64(i + 1), DatasetID: 4, Path: p, Status: ItemOK})
			if err := tx.Bucket(bucketItems).Put(itob(uint64(i+1)), v); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketItems).SetSequence(2)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.View(func(tx *bolt.Tx) error {
		if v := SchemaVersion(tx); v != CurrentSchema() {
			t.Errorf("schema after migration %d, want %d", v, CurrentSchema())
		}
		it, err := ItemByPath(tx, 4, "b/c.mid")
		if err != nil || it.ID != 2 {
			t.Errorf("index after migration: %+v %v", it, err)
		}
		return nil
	})
}

func TestNewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Update(func(tx *bolt.Tx) error {
		if _, err := CreateProject(tx, "p"); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keySchema, itob(CurrentSchema()+5))
	})
	s.Close()
	if _, err := Open(dir); !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("opening a newer store: %v, want ErrNewerSchema", err)
	}
}

func TestBadRecordVersion(t *testing.T) {
	s := openTemp(t)
	s.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketDatasets).Put(itob(3), []byte{9, '{', '}'}) })
	s.View(func(tx *bolt.Tx) error {
		if _, err := GetDataset(tx, 3); !errors.Is(err, ErrBadRecord) {
			t.Errorf("record with unknown version: %v, want ErrBadRecord", err)
		}
		return nil
	})
}

// TestSecondProcessGetsInUse holds the store in a child process and opens
// it here: the error must come within a second and name the child's PID.
func TestSecondProcessGetsInUse(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "AMT_STORAGE_TEST_HOLD="+dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		t.Fatalf("child: %q", line)
	}
	start := time.Now()
	_, err := Open(dir)
	el := time.Since(start)
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("second open: %v, want ErrInUse", err)
	}
	if want := fmt.Sprintf("PID %d", cmd.Process.Pid); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name %s", err, want)
	}
	if el > time.Second {
		t.Errorf("in-use error took %v, want < 1s", el)
	}
	stdin.Close()
	cmd.Wait()
	s, err := Open(dir)
	if err != nil {
		t.Fatalf("open after the other process closed: %v", err)
	}
	s.Close()
}

func TestWriteFileAtomic(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "f.bin")
	h, err := WriteFileAtomic(p, []byte("abc"))
	if err != nil {
		t.Fatal(err)
	}
	// sha256("abc"), FIPS 180-2 test vector.
	if h != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("hash %s", h)
	}
	if h2, _ := HashFile(p); h2 != h {
		t.Errorf("HashFile %s", h2)
	}
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Errorf("temp files left: %v", ents)
	}
}
