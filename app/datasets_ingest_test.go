package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/pipeline"
	"github.com/amtstudio/amt/engine/text"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/storage"
)

// storeState reads back every item of the project's single dataset with
// its piece from the shard files, checking the store's invariants on the
// way: one record per item, live counts, hashes, no stray files.
type itemState struct {
	Status string
	Hash   string
	Style  int
	Piece  []uint16
}

func storeState(t *testing.T, home, project string) map[string]itemState {
	t.Helper()
	st, err := storage.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out := map[string]itemState{}
	err = st.View(func(tx *bolt.Tx) error {
		p, err := storage.ProjectByName(tx, project)
		if err != nil {
			return err
		}
		dss, err := storage.Datasets(tx, p.ID)
		if err != nil {
			return err
		}
		if len(dss) != 1 {
			t.Fatalf("%d datasets, want 1", len(dss))
		}
		ds := dss[0]
		counts := storage.Counts(tx)
		if counts["items"] != counts["items_by_path"] {
			t.Errorf("%d item records, %d index entries: duplicates or lost items", counts["items"], counts["items_by_path"])
		}
		shards, err := storage.Shards(tx, ds.ID)
		if err != nil {
			return err
		}
		files := map[string]bool{}
		live := map[uint64]int{}
		for _, sh := range shards {
			files[path.Base(sh.Path)+".bin"], files[path.Base(sh.Path)+".idx"] = true, true
			if h, err := storage.HashFile(st.Abs(sh.Path + ".bin")); err != nil || h != sh.Hash {
				t.Errorf("shard %s: hash %s, recorded %s (%v)", sh.Path, h, sh.Hash, err)
			}
		}
		ents, _ := os.ReadDir(st.Abs(ds.ShardDir()))
		for _, e := range ents {
			if e.Name() != "vocab.json" && !files[e.Name()] {
				t.Errorf("stray file %s in the shard folder", e.Name())
			}
		}
		byID := map[uint64]storage.Shard{}
		for _, sh := range shards {
			byID[sh.ID] = sh
		}
		return storage.Items(tx, ds.ID, func(it *storage.Item) bool {
			s := itemState{Status: it.Status, Hash: it.Hash, Style: it.Attrs.Style}
			if it.Status == storage.ItemOK {
				sh := byID[it.ShardID]
				live[sh.ID]++
				toks, _, err := pipeline.ReadShard(st.Abs(ds.ShardDir()), path.Base(sh.Path))
				if err != nil {
					t.Errorf("%s: %v", it.Path, err)
					return true
				}
				s.Piece = toks[it.Offset : it.Offset+uint64(it.Tokens)]
			}
			out[it.Path] = s
			return true
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestIngestSyntheticCorpusAndReingest(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	testfiles.Corpus(t, root, 40)
	st, err := storage.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := Ingest(context.Background(), st, IngestOptions{Project: "demo", Dir: root, BatchItems: 8})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Report
	if r.Files != 41 || r.OK != 40 || r.Failed != 1 || r.Styles != 5 {
		t.Errorf("files %d ok %d failed %d styles %d; want 41, 40, 1, 5", r.Files, r.OK, r.Failed, r.Styles)
	}
	res2, err := Ingest(context.Background(), st, IngestOptions{Project: "demo", Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Report.Processed != 0 || res2.Report.Unchanged != 41 || res2.DatasetID != res.DatasetID {
		t.Errorf("re-ingest processed %d unchanged %d dataset %d→%d", res2.Report.Processed, res2.Report.Unchanged, res.DatasetID, res2.DatasetID)
	}
	list, err := ListDatasets(st, "demo")
	if err != nil || len(list) != 1 || list[0].Items != 41 || list[0].OK != 40 || list[0].Failed != 1 || list[0].Styles != 5 {
		t.Fatalf("datasets: %+v %v", list, err)
	}
	var item *storage.Item
	st.View(func(tx *bolt.Tx) error {
		item, err = storage.ItemByPath(tx, res.DatasetID, "set1/tune005.mid")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(item.Caption, "Tune 5") || !strings.Contains(item.Caption, "reel") {
		t.Errorf("caption %q lacks the title and genre of the metadata table", item.Caption)
	}
	var meta midi.Metadata
	if err := json.Unmarshal(item.Meta, &meta); err != nil || meta.Notes != 8 {
		t.Errorf("metadata %s: %v", item.Meta, err)
	}
	if item.Attrs.Style < 0 || item.Attrs.Style >= 5 || item.Attrs.Programs[0] != 35 {
		t.Errorf("attributes %+v", item.Attrs)
	}
	if item.Attrs.Genre != "folk" { // the table says reel
		t.Errorf("tune005: genre %q, want folk (a reel in the metadata table)", item.Attrs.Genre)
	}
	st.Close()
	state := storeState(t, home, "demo")
	v := (&realProcessor{}).vocabOrDefault()
	for p, s := range state {
		if p == "broken.mid" {
			if s.Status != storage.ItemFailed {
				t.Errorf("broken.mid: %+v", s)
			}
			continue
		}
		if s.Piece[0] != v.BOS || s.Piece[len(s.Piece)-1] != v.EOS {
			t.Errorf("%s: piece does not run BOS … EOS", p)
		}
		if i := v.StyleIndex(s.Piece); i < 0 || s.Piece[i] != v.Style(s.Style) {
			t.Errorf("%s: STYLE token not patched to group %d", p, s.Style)
		}
		// The table's genre word reaches the prefix as its family.
		var i int
		fmt.Sscanf(path.Base(p), "tune%d.mid", &i)
		want := []string{"folk", "folk", "waltz", "ballad"}[i%4]
		if _, a, err := v.Decode(s.Piece); err != nil || a.Genre != want {
			t.Errorf("%s: decoded genre %q (%v), want %q", p, a.Genre, err, want)
		}
	}
}

// TestIngestDefaultGenre: --genre reaches the prefix (as its family) of
// pieces whose metadata names no genre, and their captions.
func TestIngestDefaultGenre(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	testfiles.Corpus(t, root, 4)
	os.Remove(filepath.Join(root, "index.csv"))
	st, err := storage.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := Ingest(context.Background(), st, IngestOptions{Project: "g", Dir: root, Genre: "bossa nova"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	v := (&realProcessor{}).vocabOrDefault()
	n := 0
	for p, s := range storeState(t, home, "g") {
		if s.Status != storage.ItemOK {
			continue
		}
		n++
		if _, a, err := v.Decode(s.Piece); err != nil || a.Genre != "latin" {
			t.Errorf("%s: decoded genre %q (%v), want latin", p, a.Genre, err)
		}
	}
	if n != 4 {
		t.Errorf("%d pieces, want 4", n)
	}
}

// TestIngestChild is the subprocess of TestIngestKilledRunsLeaveStoreConsistent.
func TestIngestChild(t *testing.T) {
	home, root := os.Getenv("AMT_INGEST_CHILD_HOME"), os.Getenv("AMT_INGEST_CHILD_ROOT")
	if home == "" {
		t.Skip("runs only as the subprocess of the kill test")
	}
	st, err := storage.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	col, err := text.NewCollector(root, text.CollectorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The real work, a few milliseconds slower a file, and a SIGKILL of this
	// process `tail` after the start of the killAt-th file's analysis: the
	// kill lands inside the run (reading, parsing, a batch commit, the shard
	// writes or the style phase) however fast the machine is.
	killAt, _ := strconv.Atoi(os.Getenv("AMT_INGEST_CHILD_KILL_AT"))
	tail, _ := time.ParseDuration(os.Getenv("AMT_INGEST_CHILD_KILL_TAIL"))
	proc := &slowProcessor{Processor: &realProcessor{vocab: token.DefaultVocab(), col: col, emb: text.NewHashed()},
		delay: 3 * time.Millisecond, killAt: int64(killAt), tail: tail}
	if _, err := Ingest(context.Background(), st, IngestOptions{Project: "k", Dir: root, BatchItems: 8, Mode: pipeline.Mode(os.Getenv("AMT_INGEST_CHILD_MODE")), Processor: proc}); err != nil {
		t.Fatal(err)
	}
}

// slowProcessor delays each file's analysis and kills the process after
// the killAt-th one.
type slowProcessor struct {
	pipeline.Processor
	delay  time.Duration
	killAt int64
	tail   time.Duration
	calls  atomic.Int64
}

func (p *slowProcessor) Analyze(it *pipeline.Item) error {
	if p.calls.Add(1) == p.killAt {
		go func() {
			time.Sleep(p.tail)
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}()
	}
	time.Sleep(p.delay)
	return p.Processor.Analyze(it)
}

// TestIngestKilledRunsLeaveStoreConsistent kills ingestion subprocesses
// with SIGKILL at random moments (each child kills itself a random time
// after a random file, see TestIngestChild), then finishes in-process, and compares
// the store with a clean ingestion of the same folder: same items, same
// pieces, same styles, no stray files, no duplicates.
func TestIngestKilledRunsLeaveStoreConsistent(t *testing.T) {
	root := t.TempDir()
	testfiles.Corpus(t, root, 240)
	ref := t.TempDir()
	func() {
		st, err := storage.Open(ref)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if _, err := Ingest(context.Background(), st, IngestOptions{Project: "k", Dir: root, BatchItems: 8}); err != nil {
			t.Fatal(err)
		}
	}()
	want := storeState(t, ref, "k")

	home := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	killed := 0
	for i := 0; i < 6; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestIngestChild$")
		// At most 40 files + 90 ms (≤ 60 more files at 3 ms a file on two
		// workers) per run: the first two runs cannot finish the 240 files,
		// so at least two kills land mid-run on any machine.
		killAt, tail := 1+rng.IntN(40), time.Duration(rng.IntN(90))*time.Millisecond
		cmd.Env = append(os.Environ(), "AMT_INGEST_CHILD_HOME="+home, "AMT_INGEST_CHILD_ROOT="+root,
			"AMT_INGEST_CHILD_MODE="+[]string{"stream", "preload", "mmap"}[i%3],
			fmt.Sprintf("AMT_INGEST_CHILD_KILL_AT=%d", killAt), "AMT_INGEST_CHILD_KILL_TAIL="+tail.String())
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			killed++
		}
		t.Logf("run %d: kill %v after the start of file %d: %v", i, tail, killAt, err)
		if i == 0 {
			// Make the next runs re-ingest something: change a file.
			os.WriteFile(filepath.Join(root, "set0", "tune000.mid"), []byte("MThd garbage now"), 0o644)
			want["set0/tune000.mid"] = itemState{Status: storage.ItemFailed}
		}
	}
	if killed < 2 {
		t.Fatalf("only %d of 6 runs were killed before they finished", killed)
	}
	st, err := storage.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Ingest(context.Background(), st, IngestOptions{Project: "k", Dir: root, BatchItems: 8}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	got := storeState(t, home, "k")
	if len(got) != len(want) {
		t.Errorf("%d items, want %d", len(got), len(want))
	}
	// The changed file makes the clean reference differ in styles; compare
	// pieces without the style slot, and styles only as a partition check.
	v := (&realProcessor{}).vocabOrDefault()
	for p, w := range want {
		g, ok := got[p]
		if !ok {
			t.Errorf("%s lost", p)
			continue
		}
		if g.Status != w.Status {
			t.Errorf("%s: status %s, want %s", p, g.Status, w.Status)
			continue
		}
		if w.Status != storage.ItemOK {
			continue
		}
		gp, wp := append([]uint16(nil), g.Piece...), append([]uint16(nil), w.Piece...)
		gp[v.StyleIndex(gp)], wp[v.StyleIndex(wp)] = 0, 0
		if !reflect.DeepEqual(gp, wp) || g.Hash != w.Hash {
			t.Errorf("%s: piece differs from a clean ingestion", p)
		}
		if g.Piece[v.StyleIndex(g.Piece)] != v.Style(g.Style) {
			t.Errorf("%s: style token does not match style %d", p, g.Style)
		}
	}
}

func TestIngestPOP909(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	root := corpus.Path(t, corpus.POP909)
	st, err := storage.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := Ingest(context.Background(), st, IngestOptions{Project: "pop", Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Report
	if r.Files != 909 || r.OK+r.Failed != 909 || r.OK < 900 || r.Styles != 64 {
		t.Errorf("POP909: files %d ok %d failed %d styles %d", r.Files, r.OK, r.Failed, r.Styles)
	}
	t.Logf("POP909 %.2f s, verdict %s", r.Seconds, r.Bottleneck)
	var it *storage.Item
	st.View(func(tx *bolt.Tx) error {
		it, err = storage.ItemByPath(tx, res.DatasetID, "001/001.mid")
		return err
	})
	if err != nil || it.Caption == "" || it.Status != storage.ItemOK {
		t.Errorf("001.mid: %+v %v", it, err)
	}
	t.Logf("caption of 001.mid: %s", it.Caption)
}

func TestIngestCancelledRecordsRun(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	testfiles.Corpus(t, root, 30)
	st, err := storage.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Ingest(ctx, st, IngestOptions{Project: "c", Dir: root, BatchItems: 4})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	st.View(func(tx *bolt.Tx) error {
		r, err := storage.GetIngestRun(tx, res.RunID)
		if err != nil || r.Status != storage.RunCancelled {
			t.Errorf("run after cancel: %+v %v", r, err)
		}
		return nil
	})
	// The next run completes the dataset.
	res, err = Ingest(context.Background(), st, IngestOptions{Project: "c", Dir: root})
	if err != nil || res.Report.OK+res.Report.Failed+res.Report.Unchanged != 31 {
		t.Fatalf("after cancel: %+v %v", res.Report, err)
	}
	if _, err := Ingest(context.Background(), st, IngestOptions{Project: "c", Dir: filepath.Join(root, "missing")}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing folder: %v", err)
	}
}
