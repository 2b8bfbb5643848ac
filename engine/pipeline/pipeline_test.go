package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/amtstudio/amt/engine/midi"
)

func runFake(t *testing.T, root, shardDir string, sink *memSink, mode Mode, mut func(*Config)) *Report {
	t.Helper()
	cfg := Config{Root: root, Mode: mode, ShardDir: shardDir, ShardPrefix: "r1-", BatchItems: 7,
		CacheFile: filepath.Join(shardDir, "..", "cache.bin"), Seed: 1}
	if mut != nil {
		mut(&cfg)
	}
	rep, err := Run(context.Background(), cfg, fakeProc{}, sink)
	if err != nil {
		t.Fatalf("Run(%s): %v", mode, err)
	}
	return rep
}

// checkStore verifies the sink against the corpus: one item per file, each
// ok item's piece in its shard equal to the expected tokens with its style
// patched in, every shard fully live.
func checkStore(t *testing.T, shardDir string, sink *memSink, bodies map[string][]byte) {
	t.Helper()
	if len(sink.items) != len(bodies) {
		t.Errorf("%d items for %d files", len(sink.items), len(bodies))
	}
	perShard := map[string]int{}
	for p, body := range bodies {
		it, ok := sink.items[p]
		if !ok {
			t.Errorf("no item for %s", p)
			continue
		}
		if body == nil {
			if it.Err == nil || !strings.Contains(it.Err.Error(), "not a MIDI file") {
				t.Errorf("%s: error %v, want not a MIDI file", p, it.Err)
			}
			continue
		}
		if it.Err != nil {
			t.Errorf("%s: %v", p, it.Err)
			continue
		}
		toks, offs, err := ReadShard(shardDir, it.Shard)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		perShard[it.Shard]++
		want := fakeTokens(body, it.Style)
		got := toks[it.Offset : it.Offset+uint64(len(want))]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: piece %v, want %v", p, got, want)
		}
		if !isStart(offs, it.Offset) {
			t.Errorf("%s: offset %d is not a piece start", p, it.Offset)
		}
	}
	for sh, n := range perShard {
		if sink.shards[sh] != n {
			t.Errorf("shard %s holds %d pieces, %d live", sh, sink.shards[sh], n)
		}
	}
	ents, _ := os.ReadDir(shardDir)
	files := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".bin") {
			files++
		}
	}
	if files < len(sink.shards) {
		t.Errorf("%d shard files for %d shards", files, len(sink.shards))
	}
}

func TestRunStreamsFilesIntoShardsWithStyles(t *testing.T) {
	root, base := t.TempDir(), t.TempDir()
	shardDir := filepath.Join(base, "shards")
	bodies := makeCorpus(root, 40, 9)
	sink := newMemSink()
	rep := runFake(t, root, shardDir, sink, Stream, nil)
	if rep.Files != 40 || rep.OK != 36 || rep.Failed != 4 || rep.Processed != 40 || rep.Unchanged != 0 {
		t.Errorf("report files %d ok %d failed %d processed %d unchanged %d", rep.Files, rep.OK, rep.Failed, rep.Processed, rep.Unchanged)
	}
	if rep.Styles != StyleCount(36, 16) {
		t.Errorf("styles %d, want %d", rep.Styles, StyleCount(36, 16))
	}
	checkStore(t, shardDir, sink, bodies)
	// The four fake genres are separable: pieces of one genre share a group
	// when k ≥ 4.
	group := map[byte]int{}
	for p, body := range bodies {
		if body == nil {
			continue
		}
		g, ok := group[body[0]]
		if !ok {
			group[body[0]] = sink.items[p].Style
		} else if g != sink.items[p].Style {
			t.Errorf("%s of genre %c in style %d, others in %d", p, body[0], sink.items[p].Style, g)
		}
	}
	names := []string{StageScan, StageRead, StageParse, StageText, StageEmbed, StageTokenize, StageWrite, StageStyle}
	for i, st := range rep.Stages {
		if st.Name != names[i] {
			t.Errorf("stage %d is %s, want %s", i, st.Name, names[i])
		}
	}
	if rep.Stages[1].Items != 40 || rep.Stages[2].Items != 40 || rep.Stages[5].Items != 36 || rep.Stages[6].Items != 40 {
		t.Errorf("stage items read %d parse %d tokenize %d write %d", rep.Stages[1].Items, rep.Stages[2].Items, rep.Stages[5].Items, rep.Stages[6].Items)
	}
	if rep.Bottleneck == "" || len(rep.Suggestions) == 0 {
		t.Errorf("no verdict: %q %v", rep.Bottleneck, rep.Suggestions)
	}
}

func TestReingestDoesOnlyChangedFiles(t *testing.T) {
	root, base := t.TempDir(), t.TempDir()
	shardDir := filepath.Join(base, "shards")
	bodies := makeCorpus(root, 30, 0)
	sink := newMemSink()
	runFake(t, root, shardDir, sink, Stream, nil)
	rep := runFake(t, root, shardDir, sink, Stream, func(c *Config) { c.ShardPrefix = "r2-" })
	if rep.Processed != 0 || rep.Unchanged != 30 {
		t.Errorf("second run processed %d unchanged %d, want 0 and 30", rep.Processed, rep.Unchanged)
	}
	// Change one file, touch another (same bytes, new mtime), add one, remove one.
	changed := filepath.Join(root, "g1", "song004.mid")
	os.WriteFile(changed, []byte("MThd3-changed"), 0o644)
	bodies["g1/song004.mid"] = []byte("3-changed")
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(root, "g2", "song005.mid"), future, future)
	os.WriteFile(filepath.Join(root, "new.MIDI"), []byte("MThd1-new"), 0o644)
	bodies["new.MIDI"] = []byte("1-new")
	os.Remove(filepath.Join(root, "g0", "song000.mid"))
	delete(bodies, "g0/song000.mid")
	rep = runFake(t, root, shardDir, sink, Stream, func(c *Config) { c.ShardPrefix = "r3-" })
	if rep.Processed != 2 || rep.Removed != 1 || rep.Unchanged != 28 {
		t.Errorf("third run processed %d removed %d unchanged %d, want 2, 1, 28", rep.Processed, rep.Removed, rep.Unchanged)
	}
	checkStore(t, shardDir, sink, bodies)
	k, _ := sink.Known("g2/song005.mid")
	if k.ModTime != future.UnixNano() {
		t.Errorf("touched file's mod time not recorded")
	}
}

func TestModesGiveTheSameItemsAndMMapReusesCache(t *testing.T) {
	root, base := t.TempDir(), t.TempDir()
	bodies := makeCorpus(root, 25, 6)
	var first map[string]*memItem
	for _, mode := range []Mode{Stream, Preload, MMap, MMap} {
		shardDir := filepath.Join(base, "shards-"+string(mode))
		os.RemoveAll(shardDir)
		sink := newMemSink()
		rep := runFake(t, root, shardDir, sink, mode, func(c *Config) { c.CacheFile = filepath.Join(base, "cache.bin") })
		checkStore(t, shardDir, sink, bodies)
		if first == nil {
			first = sink.items
		} else {
			for p, it := range sink.items {
				if it.Style != first[p].Style || it.Caption != first[p].Caption || !reflect.DeepEqual(it.Embedding, first[p].Embedding) {
					t.Errorf("%s: mode %s gives style %d caption %q, stream %d %q", mode, p, it.Style, it.Caption, first[p].Style, first[p].Caption)
				}
			}
		}
		_ = rep
	}
	// The second mmap run (fresh sink, warm cache) parsed nothing.
	sink := newMemSink()
	rep := runFake(t, root, filepath.Join(base, "shards-warm"), sink, MMap, func(c *Config) { c.CacheFile = filepath.Join(base, "cache.bin") })
	if rep.Cached != 21 || rep.Stages[2].Items != 4 {
		t.Errorf("warm mmap run: cached %d, parsed %d; want 21 and the 4 corrupt files", rep.Cached, rep.Stages[2].Items)
	}
	checkStore(t, filepath.Join(base, "shards-warm"), sink, bodies)
}

func TestCorruptCacheIsRebuilt(t *testing.T) {
	root, base := t.TempDir(), t.TempDir()
	bodies := makeCorpus(root, 10, 0)
	cf := filepath.Join(base, "cache.bin")
	os.WriteFile(cf, []byte(cacheMagic+"\xff\xff\xff\xff\xff\xff\xff\x7f"), 0o644)
	sink := newMemSink()
	rep := runFake(t, root, filepath.Join(base, "s"), sink, MMap, func(c *Config) { c.CacheFile = cf })
	checkStore(t, filepath.Join(base, "s"), sink, bodies)
	if len(rep.CacheNotes) != 1 || !strings.Contains(rep.CacheNotes[0], cf) || !strings.Contains(rep.CacheNotes[0], "do not fit") {
		t.Errorf("notes %q, want one naming the cache file and what is wrong with it", rep.CacheNotes)
	}
	c, err := openCache(cf)
	if err != nil || c.n != 10 {
		t.Fatalf("rebuilt cache: %v, %d entries", err, c.n)
	}
	c.close()
}

func TestSinkErrorStopsRunConsistently(t *testing.T) {
	root, base := t.TempDir(), t.TempDir()
	bodies := makeCorpus(root, 40, 0)
	shardDir := filepath.Join(base, "shards")
	sink := newMemSink()
	sink.failAt = 3
	_, err := Run(context.Background(), Config{Root: root, ShardDir: shardDir, ShardPrefix: "a-", BatchItems: 5}, fakeProc{}, sink)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err %v, want disk full", err)
	}
	if len(sink.items) != 10 {
		t.Errorf("%d items committed before the failure, want 10", len(sink.items))
	}
	sink.failAt = 0
	runFake(t, root, shardDir, sink, Stream, func(c *Config) { c.ShardPrefix = "b-" })
	checkStore(t, shardDir, sink, bodies)
}

func TestCancelStopsAllGoroutines(t *testing.T) {
	root, base := t.TempDir(), t.TempDir()
	makeCorpus(root, 200, 0)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	prog := make(chan Event, 1000)
	sink := newMemSink()
	go func() {
		for e := range prog {
			if e.Stage == "ingest" && e.Done >= 10 {
				cancel()
			}
		}
	}()
	_, err := Run(ctx, Config{Root: root, ShardDir: filepath.Join(base, "s"), ShardPrefix: "a-", BatchItems: 5, Progress: prog}, fakeProc{}, sink)
	close(prog)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if len(sink.items) >= 200 {
		t.Errorf("cancel did not stop the run (%d items)", len(sink.items))
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before+1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+1 {
		t.Errorf("%d goroutines left after cancel (%d before)", n, before)
	}
}

func TestNoFiles(t *testing.T) {
	_, err := Run(context.Background(), Config{Root: t.TempDir(), ShardDir: t.TempDir()}, fakeProc{}, newMemSink())
	if !errors.Is(err, ErrNoFiles) {
		t.Errorf("err %v, want ErrNoFiles", err)
	}
	_, err = Run(context.Background(), Config{Root: filepath.Join(t.TempDir(), "missing"), ShardDir: t.TempDir()}, fakeProc{}, newMemSink())
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing folder: %v", err)
	}
}

func TestShardRoundTripAndValidation(t *testing.T) {
	dir := t.TempDir()
	pieces := [][]uint16{{1, 5, 2}, {1, 65535, 7, 2}, {}}
	sf, err := WriteShard(dir, "s", pieces)
	if err != nil {
		t.Fatal(err)
	}
	if sf.Pieces != 3 || sf.Tokens != 7 {
		t.Errorf("shard file %+v", sf)
	}
	bin, _ := os.ReadFile(filepath.Join(dir, "s.bin"))
	idx, _ := os.ReadFile(filepath.Join(dir, "s.idx"))
	// Hand-computed bytes: little-endian uint16 tokens; offsets 0, 3, 7, 7.
	wantBin := []byte{1, 0, 5, 0, 2, 0, 1, 0, 0xff, 0xff, 7, 0, 2, 0}
	wantIdx := []byte{0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0}
	if !reflect.DeepEqual(bin, wantBin) || !reflect.DeepEqual(idx, wantIdx) {
		t.Errorf("bin %v idx %v", bin, idx)
	}
	toks, offs, err := ReadShard(dir, "s")
	if err != nil || len(toks) != 7 || !reflect.DeepEqual(offs, []uint64{0, 3, 7, 7}) {
		t.Errorf("ReadShard: %v %v %v", toks, offs, err)
	}
	os.WriteFile(filepath.Join(dir, "s.idx"), wantIdx[:16], 0o644)
	if _, _, err := ReadShard(dir, "s"); !errors.Is(err, ErrBadShard) {
		t.Errorf("truncated index: %v, want ErrBadShard", err)
	}
}

func TestCacheRecordRoundTrip(t *testing.T) {
	it := &Item{Hash: strings.Repeat("ab", 32), Tokens: []uint16{1, 2, 3}, StyleIndex: 1,
		Embedding: []float32{0.5, -1}, Meta: map[string]int{"notes": 3}, Caption: "a jig in D"}
	it.Attrs.KeyTonic, it.Attrs.Density, it.Attrs.Style, it.Attrs.TempoBPM = 2, 3, -1, 120
	rec, err := encodeRecord(it)
	if err != nil {
		t.Fatal(err)
	}
	cf := filepath.Join(t.TempDir(), "c.bin")
	if err := writeCache(cf, nil, map[string][]byte{it.Hash: rec, strings.Repeat("00", 32): rec}); err != nil {
		t.Fatal(err)
	}
	c, err := openCache(cf)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	got, ok, err := c.lookup(it.Hash)
	if !ok || err != nil || !reflect.DeepEqual(got.Tokens, it.Tokens) || !reflect.DeepEqual(got.Embedding, it.Embedding) ||
		got.StyleIndex != 1 || got.Caption != it.Caption || got.Attrs.TempoBPM != 120 || got.Attrs.Style != -1 ||
		string(got.Meta) != `{"notes":3}` {
		t.Errorf("lookup: %+v %v", got, ok)
	}
	if _, ok, err := c.lookup(strings.Repeat("cd", 32)); ok || err != nil {
		t.Errorf("miss reported as hit (%v)", err)
	}
}

func TestStyleCount(t *testing.T) {
	for _, c := range []struct{ n, limit, want int }{{0, 64, 1}, {7, 64, 1}, {16, 64, 2}, {909, 64, 64}, {909, 10, 10}, {100, 0, 12}} {
		if got := StyleCount(c.n, c.limit); got != c.want {
			t.Errorf("StyleCount(%d, %d) = %d, want %d", c.n, c.limit, got, c.want)
		}
	}
}

func TestVerdict(t *testing.T) {
	mk := func(mode Mode, wall float64, stages ...StageStats) *Report {
		return &Report{Mode: mode, Processed: 100, PipelineSeconds: wall, Bytes: 30 << 20, Stages: stages}
	}
	st := func(name string, workers int, busy, waitOut float64) StageStats {
		return StageStats{Name: name, Workers: workers, BusySeconds: busy, WaitOutSeconds: waitOut}
	}
	cases := []struct {
		name    string
		rep     *Report
		verdict string
		sug     string
	}{
		{"disk", mk(Stream, 1, st("read", 2, 1.8, 0), st("parse", 2, 0.1, 0), st("tokenize", 2, 0.1, 0)),
			"disk-bound", "use preload: the corpus (30.0 MiB) fits in RAM"},
		{"disk preload", mk(Preload, 1, st("read", 2, 1.8, 0), st("parse", 2, 0.1, 0)),
			"disk-bound", "raise read workers from 2 to 4"},
		{"cpu", mk(Stream, 1, st("read", 2, 0.2, 0), st("parse", 2, 0.9, 0), st("tokenize", 2, 0.9, 0)),
			"CPU-bound: 2 cores", "use mmap"},
		{"parse stage", mk(Stream, 1, st("read", 2, 0.1, 0), st("parse", 1, 0.95, 0), st("tokenize", 2, 0.3, 0.1)),
			"CPU-bound stage: parse busy 95% with 1 worker(s)", "raise parse workers from 1 to 2"},
		{"write", mk(Stream, 1, st("read", 2, 0.1, 1.5), st("parse", 2, 0.2, 0), st("write", 1, 0.8, 0)),
			"blocked: the write stage", "raise the batch size from 256 to 512"},
		{"blocked read", mk(Stream, 1, st("read", 2, 0.1, 1.5), st("parse", 2, 0.2, 0), st("write", 1, 0.8, 0)),
			"blocked", "read is blocked 75% of the time"},
		{"starved", mk(Stream, 0.01, st("read", 2, 0.001, 0), st("parse", 2, 0.002, 0)),
			"starved", "too short"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, sug := Verdict(c.rep, Config{Cores: 2})
			if !strings.Contains(v, c.verdict) {
				t.Errorf("verdict %q, want %q", v, c.verdict)
			}
			if !strings.Contains(strings.Join(sug, "; "), c.sug) {
				t.Errorf("suggestions %q, want one with %q", sug, c.sug)
			}
		})
	}
	if v, _ := Verdict(&Report{}, Config{}); !strings.HasPrefix(v, "none") {
		t.Errorf("empty run verdict %q", v)
	}
}

func TestStyleShardsRespectSizeCap(t *testing.T) {
	root, base := t.TempDir(), t.TempDir()
	shardDir := filepath.Join(base, "shards")
	bodies := makeCorpus(root, 30, 0)
	sink := newMemSink()
	runFake(t, root, shardDir, sink, Stream, func(c *Config) { c.MaxShardTokens = 40; c.BatchItems = 100 })
	checkStore(t, shardDir, sink, bodies)
	// 30 pieces of 13 tokens (BOS, STYLE, 10 body bytes, EOS); a shard is
	// closed once it reaches 40 tokens, i.e. after 4 pieces: 7 full shards
	// and one of 2 pieces.
	if len(sink.shards) != 8 {
		t.Errorf("%d shards after the style phase, want 8", len(sink.shards))
	}
}

func TestRebarredFromMetadataOrCachedJSON(t *testing.T) {
	for _, c := range []struct {
		meta any
		want bool
	}{
		{midi.Metadata{Rebarred: true}, true},
		{midi.Metadata{}, false},
		{&midi.Metadata{Rebarred: true}, true},
		{json.RawMessage(`{"notes":3,"rebarred":true}`), true},
		{json.RawMessage(`{"notes":3,"rebarred":false}`), false},
		{json.RawMessage(`{"notes":3}`), false},
		{json.RawMessage(`not json`), false},
		{map[string]int{"bytes": 3}, false},
		{nil, false},
	} {
		if got := rebarred(c.meta); got != c.want {
			t.Errorf("rebarred(%v) = %v, want %v", c.meta, got, c.want)
		}
	}
}
