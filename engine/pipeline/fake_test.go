package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/amtstudio/amt/engine/token"
)

// fakeProc treats a file as valid when it starts with "MThd"; its tokens
// are BOS(1), STYLE slot (100+style), its remaining bytes + 200, EOS(2).
// The embedding puts the file's first digit (its "genre") on one axis, so
// clustering has clear groups.
type fakeProc struct{ analyzed, tokenized int64 }

func (fakeProc) Analyze(it *Item) error {
	if !bytes.HasPrefix(it.Data, []byte("MThd")) {
		return errors.New("not a MIDI file")
	}
	it.Meta = map[string]int{"bytes": len(it.Data)}
	it.Attrs = token.Unspecified()
	it.Attrs.Style = 0
	it.Score = nil
	it.Caption = string(it.Data[4:]) // carried to Tokenize through Caption
	return nil
}
func (fakeProc) Caption(_ context.Context, it *Item) error {
	it.Caption = "piece " + it.Caption
	return nil
}
func (fakeProc) Embed(it *Item) error {
	body := []byte(it.Caption[len("piece "):])
	v := make([]float32, 4)
	if len(body) > 0 {
		v[int(body[0]-'0')%4] = 1
	}
	it.Embedding = v
	return nil
}
func (fakeProc) Tokenize(it *Item) error {
	body := []byte(it.Caption[len("piece "):])
	it.Tokens = fakeTokens(body, 0)
	it.StyleIndex = 1
	return nil
}
func (fakeProc) Styles() int                                 { return 16 }
func (fakeProc) StyleToken(_ token.Attributes, k int) uint16 { return uint16(100 + k) }

func fakeTokens(body []byte, style int) []uint16 {
	t := []uint16{1, uint16(100 + style)}
	for _, b := range body {
		t = append(t, 200+uint16(b))
	}
	return append(t, 2)
}

type memItem struct {
	Item
	Style int
}

// memSink is an in-memory Sink that keeps the same invariants the store does.
type memSink struct {
	mu      sync.Mutex
	items   map[string]*memItem
	shards  map[string]int // name → pieces
	commits int
	failAt  int // Commit number that fails (0: never)
}

func newMemSink() *memSink { return &memSink{items: map[string]*memItem{}, shards: map[string]int{}} }

func (s *memSink) Known(p string) (Known, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[p]
	if !ok {
		return Known{}, false
	}
	return Known{Size: it.Size, ModTime: it.ModTime, Hash: it.Hash}, true
}

func (s *memSink) Commit(_ context.Context, b *Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commits++
	if s.commits == s.failAt {
		return errors.New("disk full")
	}
	if b.Shard != nil {
		s.shards[b.Shard.Name] = b.Shard.Pieces
	}
	for _, it := range b.Items {
		cp := *it
		cp.Data, cp.Score = nil, nil
		cp.Tokens = append([]uint16(nil), it.Tokens...)
		cp.Embedding = append([]float32(nil), it.Embedding...)
		s.items[it.Path] = &memItem{Item: cp}
	}
	for _, it := range b.Touched {
		s.items[it.Path].ModTime = it.ModTime
	}
	return nil
}

func (s *memSink) StyleSet(context.Context) (*StyleSet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := &StyleSet{ShardPieces: map[string]int{}}
	for k, v := range s.shards {
		set.ShardPieces[k] = v
	}
	paths := make([]string, 0, len(s.items))
	for p := range s.items {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		it := s.items[p]
		if it.Err != nil {
			continue
		}
		set.Pieces = append(set.Pieces, Piece{Path: p, Shard: it.Shard, Offset: it.Offset, Tokens: len(it.Tokens),
			StyleIndex: it.StyleIndex, Style: it.Style, Attrs: it.Attrs, Embedding: it.Embedding})
	}
	return set, nil
}

func (s *memSink) Restyle(_ context.Context, r *Restyle) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range r.Pieces {
		it := s.items[p.Path]
		it.Shard, it.Offset, it.Style, it.Attrs = p.Shard, p.Offset, p.Style, p.Attrs
	}
	for _, sf := range r.Added {
		s.shards[sf.Name] = sf.Pieces
	}
	for _, d := range r.Dropped {
		delete(s.shards, d)
	}
	return nil
}

func (s *memSink) Forget(_ context.Context, seen []string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := map[string]bool{}
	for _, p := range seen {
		keep[p] = true
	}
	n := 0
	for p := range s.items {
		if !keep[p] {
			delete(s.items, p)
			n++
		}
	}
	return n, nil
}

// makeCorpus writes n fake files in nested folders under dir; every
// badEvery-th one is corrupt. The body of file i starts with digit i%4.
func makeCorpus(dir string, n, badEvery int) map[string][]byte {
	bodies := map[string][]byte{}
	for i := 0; i < n; i++ {
		rel := fmt.Sprintf("g%d/song%03d.mid", i%3, i)
		body := []byte(fmt.Sprintf("%d-body-%03d", i%4, i))
		data := append([]byte("MThd"), body...)
		if badEvery > 0 && i%badEvery == badEvery-1 {
			data = []byte("garbage")
			body = nil
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, data, 0o644)
		bodies[rel] = body
	}
	os.WriteFile(filepath.Join(dir, "README.txt"), []byte("not music"), 0o644)
	return bodies
}
