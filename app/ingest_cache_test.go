package app

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/engine/pipeline"
	"github.com/amtstudio/amt/storage"
)

// TestIngestDamagedMMapCache: bit rot in the mmap cache (one high bit
// flipped every 97 bytes past its first quarter: tokens far beyond the
// vocabulary, broken JSON, wrong floats) never reaches the store. The run
// completes, each damaged entry is rebuilt from its file and noted, and the
// pieces equal those a stream import of the same folder stores.
func TestIngestDamagedMMapCache(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	testfiles.Corpus(t, root, 12)
	st, err := storage.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range []struct {
		name string
		mode pipeline.Mode
	}{{"stream", pipeline.Stream}, {"warm", pipeline.MMap}} {
		if _, err := Ingest(ctx, st, IngestOptions{Project: p.name, Dir: root, Mode: p.mode}); err != nil {
			t.Fatal(err)
		}
	}
	caches, _ := filepath.Glob(filepath.Join(home, storage.CacheDir, "pre-*.bin"))
	if len(caches) != 1 {
		t.Fatalf("cache files %q, want one", caches)
	}
	b, err := os.ReadFile(caches[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b) / 4; i < len(b); i += 97 {
		b[i] ^= 0x80
	}
	if err := os.WriteFile(caches[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Ingest(ctx, st, IngestOptions{Project: "damaged", Dir: root, Mode: pipeline.MMap})
	if err != nil {
		t.Fatalf("mmap import over a damaged cache: %v", err)
	}
	r := res.Report
	if r.OK != 12 || r.CacheRebuilt == 0 || r.Cached+r.CacheRebuilt != 12 || len(r.CacheNotes) == 0 {
		t.Errorf("ok %d, from cache %d, rebuilt %d, notes %q; want 12 ok, some rebuilt, the rest from cache", r.OK, r.Cached, r.CacheRebuilt, r.CacheNotes)
	}
	t.Logf("%d from cache, %d rebuilt; first note: %s", r.Cached, r.CacheRebuilt, r.CacheNotes[0])
	// The rebuilt entries are whole again.
	res, err = Ingest(ctx, st, IngestOptions{Project: "again", Dir: root, Mode: pipeline.MMap})
	if err != nil || res.Report.Cached != 12 || res.Report.CacheRebuilt != 0 {
		t.Errorf("after the rebuild: %d from cache, %d rebuilt (%v); want 12, 0", res.Report.Cached, res.Report.CacheRebuilt, err)
	}
	st.Close()
	want := storeState(t, home, "stream")
	v := (&realProcessor{}).vocabOrDefault()
	for _, p := range []string{"damaged", "again"} {
		got := storeState(t, home, p)
		for path, s := range got {
			for i, tok := range s.Piece {
				if int(tok) >= v.Size() {
					t.Errorf("%s: %s: token %d at %d is beyond the vocabulary (%d)", p, path, tok, i, v.Size())
					break
				}
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the stored pieces differ from a stream import's", p)
		}
	}
}

// TestVetCached: the real processor accepts a piece Tokenize made and
// refuses one with a token beyond the vocabulary, one cut short, and one
// whose STYLE position is wrong.
func TestVetCached(t *testing.T) {
	v := (&realProcessor{}).vocabOrDefault()
	p := &realProcessor{vocab: v}
	f := filepath.Join(t.TempDir(), "a.mid")
	testfiles.Scale(t, f, 500000, 60)
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	it := &pipeline.Item{Path: "a.mid", Data: data}
	if err := p.Analyze(it); err != nil {
		t.Fatal(err)
	}
	if err := p.Tokenize(it); err != nil {
		t.Fatal(err)
	}
	if err := p.VetCached(it); err != nil {
		t.Fatalf("a piece Tokenize made: %v", err)
	}
	for name, mut := range map[string]func(c *pipeline.Item){
		"beyond the vocabulary": func(c *pipeline.Item) { c.Tokens[len(c.Tokens)/2] = uint16(v.Size()) },
		"BOS … EOS":             func(c *pipeline.Item) { c.Tokens = c.Tokens[:len(c.Tokens)-1] },
		"STYLE":                 func(c *pipeline.Item) { c.StyleIndex++ },
	} {
		c := *it
		c.Tokens = append([]uint16(nil), it.Tokens...)
		mut(&c)
		if err := p.VetCached(&c); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
