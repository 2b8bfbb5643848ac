package pipeline

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// warmCache ingests a fresh corpus of n files in mmap mode and returns the
// folder, the bodies and the cache file the run wrote.
func warmCache(t *testing.T, n int) (root string, bodies map[string][]byte, cf string) {
	t.Helper()
	root, base := t.TempDir(), t.TempDir()
	bodies = makeCorpus(root, n, 0)
	cf = filepath.Join(base, "cache.bin")
	runFake(t, root, filepath.Join(base, "warm"), newMemSink(), MMap, func(c *Config) { c.CacheFile = cf })
	return root, bodies, cf
}

// TestDamagedCacheEntriesAreRebuilt damages one entry of a warm cache at a
// time, the ways bit rot or a bad copy would, and runs again: the damaged
// entry is rebuilt from its file with a note naming it, the others come
// from the cache, the pieces are the files' own (checkStore), and the run
// after that finds the entry whole again.
func TestDamagedCacheEntriesAreRebuilt(t *testing.T) {
	root, bodies, cf := warmCache(t, 12)
	good, err := os.ReadFile(cf)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	const victim = 5 // index entry damaged
	e := cacheHeader + victim*cacheEntry
	off := int(le.Uint64(good[e+32:]))
	nt := int(le.Uint32(good[off:]))
	dim := int(le.Uint32(good[off+8:]))
	na := int(le.Uint32(good[off+12:]))
	meta := off + cacheRecHdr + (2*nt+3)&^3 + 4*dim + na // first byte of the metadata JSON
	for _, c := range []struct {
		name string
		at   int
		bits byte
	}{
		{"a token's high bit (far beyond the vocabulary)", off + cacheRecHdr + 3, 0x80},
		{"the metadata JSON", meta, 0x04},
		{"an embedding value", off + cacheRecHdr + (2*nt+3)&^3 + 3, 0x01},
		{"the record's token count", off, 0x01},
		{"the entry's offset", e + 32, 0x08},
		{"the entry's length", e + 40, 0x01},
		{"the entry's checksum", e + 48, 0x10},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := append([]byte(nil), good...)
			b[c.at] ^= c.bits
			dir := t.TempDir()
			f := filepath.Join(dir, "cache.bin")
			os.WriteFile(f, b, 0o644)
			sink := newMemSink()
			rep := runFake(t, root, filepath.Join(dir, "s"), sink, MMap, func(cfg *Config) { cfg.CacheFile = f })
			checkStore(t, filepath.Join(dir, "s"), sink, bodies)
			key := hex.EncodeToString(b[e : e+32])
			var path string
			for p, it := range sink.items {
				if it.Hash == key {
					path = p
				}
			}
			if rep.Cached != 11 || rep.CacheRebuilt != 1 || len(rep.CacheNotes) != 1 ||
				!strings.Contains(rep.CacheNotes[0], path) || !strings.Contains(rep.CacheNotes[0], "rebuilt") {
				t.Errorf("from cache %d, rebuilt %d, notes %q; want 11, 1 and a note naming %s", rep.Cached, rep.CacheRebuilt, rep.CacheNotes, path)
			}
			rep = runFake(t, root, filepath.Join(dir, "s2"), newMemSink(), MMap, func(cfg *Config) { cfg.CacheFile = f })
			if rep.Cached != 12 || rep.CacheRebuilt != 0 {
				t.Errorf("the run after: from cache %d, rebuilt %d; want 12, 0", rep.Cached, rep.CacheRebuilt)
			}
		})
	}
}

// vettingProc refuses cached pieces with a token at or beyond 1000 (the
// fake vocabulary's size).
type vettingProc struct{ fakeProc }

func (vettingProc) VetCached(it *Item) error {
	for i, tok := range it.Tokens {
		if tok >= 1000 {
			return fmt.Errorf("token %d at %d is beyond the vocabulary", tok, i)
		}
	}
	return nil
}

// TestCacheVetterRefusesEntry: an entry whose checksum matches but whose
// tokens the processor refuses (a cache written by another build) is
// rebuilt, never stored.
func TestCacheVetterRefusesEntry(t *testing.T) {
	root, bodies, cf := warmCache(t, 6)
	c, err := openCache(cf)
	if err != nil {
		t.Fatal(err)
	}
	k, _, _, _ := c.entry(2)
	key := hex.EncodeToString(k)
	bad := &Item{Tokens: []uint16{1, 100, 60000, 2}, StyleIndex: 1, Embedding: []float32{1, 0, 0, 0}, Meta: map[string]int{}}
	rec, err := encodeRecord(bad)
	if err != nil {
		t.Fatal(err)
	}
	err = writeCache(cf, c, map[string][]byte{key: rec})
	c.close()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sink := newMemSink()
	rep, err := Run(t.Context(), Config{Root: root, Mode: MMap, ShardDir: dir, ShardPrefix: "v-", CacheFile: cf, Seed: 1}, vettingProc{}, sink)
	if err != nil {
		t.Fatal(err)
	}
	checkStore(t, dir, sink, bodies)
	if rep.CacheRebuilt != 1 || len(rep.CacheNotes) != 1 || !strings.Contains(rep.CacheNotes[0], "60000") {
		t.Errorf("rebuilt %d, notes %q; want 1 naming the token", rep.CacheRebuilt, rep.CacheNotes)
	}
}

// TestOlderCacheFormatRebuilt: a cache of the format without checksums is
// rebuilt whole, with a note saying so.
func TestOlderCacheFormatRebuilt(t *testing.T) {
	root := t.TempDir()
	bodies := makeCorpus(root, 4, 0)
	cf := filepath.Join(t.TempDir(), "cache.bin")
	os.WriteFile(cf, append([]byte("AMTPRE01"), make([]byte, 8)...), 0o644)
	dir := t.TempDir()
	sink := newMemSink()
	rep := runFake(t, root, dir, sink, MMap, func(c *Config) { c.CacheFile = cf })
	checkStore(t, dir, sink, bodies)
	if len(rep.CacheNotes) != 1 || !strings.Contains(rep.CacheNotes[0], `"AMTPRE01"`) {
		t.Errorf("notes %q, want one naming the older format", rep.CacheNotes)
	}
	c, err := openCache(cf)
	if err != nil || c.n != 4 {
		t.Errorf("the rebuilt cache: %v, %d entries; want 4", err, c.n)
	}
	c.close()
}
