package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/amtstudio/amt/engine/cluster"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/userfile"
)

// Report is the outcome of a run.
type Report struct {
	Mode      Mode    `json:"mode"`
	Workers   Workers `json:"workers"`
	Files     int     `json:"files"`     // MIDI files found
	Processed int     `json:"processed"` // new or changed files worked on
	OK        int     `json:"ok"`
	Failed    int     `json:"failed"`
	Unchanged int     `json:"unchanged"`
	Cached    int     `json:"cached"` // filled from the mmap cache
	Removed   int     `json:"removed"`
	Bytes     int64   `json:"bytes"`   // file bytes read
	Seconds   float64 `json:"seconds"` // the whole run
	// PipelineSeconds is the wall time of the streaming stages (read to
	// write), the denominator of the stage utilizations.
	PipelineSeconds float64      `json:"pipeline_seconds"`
	Styles          int          `json:"styles"`
	Stages          []StageStats `json:"stages"`
	Bottleneck      string       `json:"bottleneck"`
	Suggestions     []string     `json:"suggestions"`

	// Rebarred counts the files written whose score was re-barred to the
	// meter inferred from its notes (midi.Metadata.Rebarred);
	// RebarredFiles lists the first MaxRebarredFiles of them, in the order
	// they were written.
	Rebarred      int      `json:"rebarred"`
	RebarredFiles []string `json:"rebarred_files,omitempty"`

	// Skipped counts the entries named like MIDI files that are not
	// regular files, nor symlinks to one (a named pipe, a device, a
	// socket, a dangling symlink, a loop): they are never opened (a FIFO
	// would wait for a writer forever, /dev/zero never ends).
	// SkippedFiles lists the first MaxSkippedFiles with their kind.
	Skipped      int           `json:"skipped"`
	SkippedFiles []SkippedFile `json:"skipped_files,omitempty"`

	// CacheRebuilt counts the mmap-cache entries found damaged (a checksum
	// that does not match, a record that does not decode, tokens the
	// processor refuses) and rebuilt from their files. CacheNotes says
	// what was wrong: with the cache file itself, then with the first
	// MaxCacheNotes entries.
	CacheRebuilt int      `json:"cache_rebuilt"`
	CacheNotes   []string `json:"cache_notes,omitempty"`
	CacheFile    string   `json:"cache_file,omitempty"` // the mmap cache used
}

// SkippedFile is an entry a scan left out, and what it is.
type SkippedFile struct {
	Path string `json:"path"` // slash-separated, relative to the root
	Kind string `json:"kind"` // e.g. "named pipe (FIFO)", "symlink to a character device"
}

// MaxRebarredFiles bounds Report.RebarredFiles.
const MaxRebarredFiles = 200

// MaxSkippedFiles bounds Report.SkippedFiles.
const MaxSkippedFiles = 200

// MaxCacheNotes bounds Report.CacheNotes.
const MaxCacheNotes = 200

// CacheVetter is an optional Processor method: it checks an entry read
// from the mmap cache (Tokens, StyleIndex, Attrs set) before the run uses
// it, e.g. that every token lies in the vocabulary; an error makes the run
// rebuild the entry from its file, with a note.
type CacheVetter interface {
	VetCached(it *Item) error
}

// rebarred reports whether an item's metadata says its score was re-barred:
// a midi.Metadata from this run, or its JSON from the mmap cache.
func rebarred(meta any) bool {
	switch m := meta.(type) {
	case midi.Metadata:
		return m.Rebarred
	case *midi.Metadata:
		return m != nil && m.Rebarred
	case json.RawMessage:
		var x struct {
			Rebarred bool `json:"rebarred"`
		}
		return json.Unmarshal(m, &x) == nil && x.Rebarred
	}
	return false
}

// Stage names, in order.
const (
	StageScan     = "scan"
	StageRead     = "read"
	StageParse    = "parse"
	StageText     = "text"
	StageEmbed    = "embed"
	StageTokenize = "tokenize"
	StageWrite    = "write"
	StageStyle    = "style"
)

// Forgetter is an optional Sink method: after a complete scan, drop the
// stored items whose files are gone (seen lists the paths found).
type Forgetter interface {
	Forget(ctx context.Context, seen []string) (int, error)
}

// Run ingests cfg.Root through proc into sink. A file that cannot be read
// or parsed becomes a failed item and the run goes on; an error of the sink
// or of ctx stops it, leaving what was committed consistent. The report is
// returned in every case with what was measured so far.
func Run(ctx context.Context, cfg Config, proc Processor, sink Sink) (*Report, error) {
	cfg.fill()
	start := time.Now()
	rep := &Report{Mode: cfg.Mode, Workers: cfg.Workers}
	stats := make([]StageStats, 8)
	for i, n := range []string{StageScan, StageRead, StageParse, StageText, StageEmbed, StageTokenize, StageWrite, StageStyle} {
		stats[i].Name = n
	}
	scanSt, readSt, parseSt, textSt, embedSt, tokSt, writeSt, styleSt :=
		&stats[0], &stats[1], &stats[2], &stats[3], &stats[4], &stats[5], &stats[6], &stats[7]
	finish := func(err error) (*Report, error) {
		rep.Seconds = time.Since(start).Seconds()
		rep.Stages = stats
		rep.Bottleneck, rep.Suggestions = Verdict(rep, cfg)
		cfg.emit(Event{Stage: "done", Done: rep.OK + rep.Failed, Total: rep.Processed})
		return rep, err
	}

	// scan
	t0 := time.Now()
	files, skipped, err := scan(ctx, cfg.Root)
	rep.Skipped = len(skipped)
	rep.SkippedFiles = skipped[:min(len(skipped), MaxSkippedFiles)]
	scanSt.Workers = 1
	scanSt.BusySeconds = time.Since(t0).Seconds()
	scanSt.Items = len(files)
	rep.Files = len(files)
	if err != nil {
		return finish(err)
	}
	if len(files) == 0 {
		return finish(fmt.Errorf("pipeline: %s: %w", cfg.Root, ErrNoFiles))
	}
	var todo []*Item
	for _, it := range files {
		if k, ok := sink.Known(it.Path); ok && k.Hash != "" && k.Size == it.Size && k.ModTime == it.ModTime {
			rep.Unchanged++
			continue
		}
		todo = append(todo, it)
	}
	cfg.emit(Event{Stage: StageScan, Total: len(todo)})

	var pc *cache
	if cfg.Mode == MMap && cfg.CacheFile != "" {
		rep.CacheFile = cfg.CacheFile
		pc, err = openCache(cfg.CacheFile)
		if err != nil {
			pc = &cache{} // a bad cache is rebuilt, not fatal
			rep.CacheNotes = append(rep.CacheNotes, fmt.Sprintf("%v; rebuilt from the files", err))
		}
		defer pc.close()
	}

	// streaming stages
	pipeStart := time.Now()
	ctx2, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	q := cfg.QueueLen
	readIn := make(chan *Item, q)
	readCap := q
	if cfg.Mode == Preload {
		readCap = len(todo) + 1
	}
	readOut := make(chan *Item, readCap)
	parseOut := make(chan *Item, q)
	textOut := make(chan *Item, q)
	embedOut := make(chan *Item, q)
	tokOut := make(chan *Item, q)

	wg.Add(1)
	go func() { // feeder
		defer wg.Done()
		defer close(readIn)
		for _, it := range todo {
			select {
			case readIn <- it:
			case <-ctx2.Done():
				return
			}
		}
	}()
	vet, _ := proc.(CacheVetter)
	stage(ctx2, &wg, readSt, cfg.Workers.Read, readIn, readOut, nil, func(it *Item) int64 {
		return readItem(ctx2, it, sink, pc, vet)
	})
	parseIn := (<-chan *Item)(readOut)
	if cfg.Mode == Preload {
		// Hold the CPU stages until the whole corpus is in RAM.
		held := make(chan *Item, q)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(held)
			var all []*Item
			for it := range readOut {
				all = append(all, it)
			}
			for _, it := range all {
				select {
				case held <- it:
				case <-ctx2.Done():
					return
				}
			}
		}()
		parseIn = held
	}
	stage(ctx2, &wg, parseSt, cfg.Workers.Parse, parseIn, parseOut, skipDone, func(it *Item) int64 {
		n := int64(len(it.Data))
		if err := proc.Analyze(it); err != nil {
			it.Err = fmt.Errorf("%s: %w", it.Path, err)
		}
		it.Data = nil
		return n
	})
	stage(ctx2, &wg, textSt, cfg.Workers.Text, parseOut, textOut, skipDone, func(it *Item) int64 {
		if err := proc.Caption(ctx2, it); err != nil {
			it.Err = fmt.Errorf("%s: caption: %w", it.Path, err)
		}
		return int64(len(it.Caption))
	})
	stage(ctx2, &wg, embedSt, cfg.Workers.Embed, textOut, embedOut, skipDone, func(it *Item) int64 {
		if err := proc.Embed(it); err != nil {
			it.Err = fmt.Errorf("%s: embed: %w", it.Path, err)
		}
		return 4 * int64(len(it.Embedding))
	})
	stage(ctx2, &wg, tokSt, cfg.Workers.Tokenize, embedOut, tokOut, skipDone, func(it *Item) int64 {
		if err := proc.Tokenize(it); err != nil {
			it.Err = fmt.Errorf("%s: tokenize: %w", it.Path, err)
		}
		it.Score = nil
		return 2 * int64(len(it.Tokens))
	})

	w := &writer{cfg: &cfg, sink: sink, rep: rep, st: writeSt, total: len(todo)}
	if pc != nil {
		w.cacheAdd = map[string][]byte{}
	}
	werr := w.run(ctx2, tokOut)
	if werr != nil {
		cancel()
	}
	wg.Wait()
	rep.PipelineSeconds = time.Since(pipeStart).Seconds()
	rep.Processed = rep.OK + rep.Failed
	rep.Bytes = readSt.Bytes
	if werr == nil {
		werr = ctx.Err()
	}
	if werr != nil {
		return finish(werr)
	}
	if pc != nil && len(w.cacheAdd) > 0 {
		if err := writeCache(cfg.CacheFile, pc, w.cacheAdd); err != nil {
			return finish(err)
		}
	}
	if f, ok := sink.(Forgetter); ok {
		seen := make([]string, len(files))
		for i, it := range files {
			seen[i] = it.Path
		}
		n, err := f.Forget(ctx, seen)
		rep.Removed = n
		if err != nil {
			return finish(err)
		}
	}

	// style
	t1 := time.Now()
	cfg.emit(Event{Stage: StageStyle, Done: rep.Processed, Total: len(todo)})
	serr := styles(ctx, &cfg, proc, sink, rep, styleSt)
	styleSt.Workers = 1
	styleSt.BusySeconds = time.Since(t1).Seconds()
	return finish(serr)
}

// scan lists the MIDI files under root, sorted by path: regular files and
// symlinks to regular files (described by their target). Other entries
// with a MIDI name are returned as skipped, with their kind
// (userfile.Skip), and never opened. Symlinks to folders are not followed.
func scan(ctx context.Context, root string) ([]*Item, []SkippedFile, error) {
	var out []*Item
	var skipped []SkippedFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("pipeline: scan %s: %w", p, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(d.Name())) {
		case ".mid", ".midi":
		default:
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		why, info := userfile.Skip(p, d)
		if why != "" {
			skipped = append(skipped, SkippedFile{Path: filepath.ToSlash(rel), Kind: why})
			return nil
		}
		out = append(out, &Item{Path: filepath.ToSlash(rel), Abs: p, Size: info.Size(),
			ModTime: info.ModTime().UnixNano(), StyleIndex: -1})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
	return out, skipped, err
}

// MaxFileSize is the largest file ingestion reads (midi.MaxFileSize, which
// the parser enforces too): a larger one fails as an item, unread.
const MaxFileSize = 64 << 20

// readItem reads and hashes a file; same content as stored marks it
// touched, a cache hit fills it (a damaged entry, or one vet refuses, is
// noted in it.cacheBad and the file processed). Only a regular file is read
// (one the scan found may have been replaced since: it is opened without
// blocking and checked as opened), at most MaxFileSize bytes, until ctx
// ends.
func readItem(ctx context.Context, it *Item, sink Sink, pc *cache, vet CacheVetter) int64 {
	if fi, err := os.Stat(it.Abs); err == nil && fi.Size() > MaxFileSize {
		it.Err = fmt.Errorf("%s: %d bytes, more than the %d MB a file may have", it.Path, fi.Size(), MaxFileSize>>20)
		return 0
	}
	data, err := userfile.ReadRegular(ctx, it.Abs, MaxFileSize)
	if err != nil {
		it.Err = fmt.Errorf("%s: %w", it.Path, err)
		return 0
	}
	h := sha256.Sum256(data)
	it.Hash = hex.EncodeToString(h[:])
	it.Size = int64(len(data))
	if k, ok := sink.Known(it.Path); ok && k.Hash == it.Hash {
		it.touched = true
		return int64(len(data))
	}
	if pc != nil {
		c, ok, err := pc.lookup(it.Hash)
		if ok {
			it.Tokens, it.StyleIndex, it.Embedding = c.Tokens, c.StyleIndex, c.Embedding
			it.Attrs, it.Meta, it.Caption = c.Attrs, c.Meta, c.Caption
			if vet != nil {
				err = vet.VetCached(it)
			}
			if err == nil {
				it.Cached = true
				return int64(len(data))
			}
			it.Tokens, it.StyleIndex, it.Embedding = nil, -1, nil
			it.Attrs, it.Meta, it.Caption = token.Attributes{}, nil, ""
		}
		it.cacheBad = err
	}
	it.Data = data
	return int64(len(data))
}

// writer is the single write stage: it groups items into batches, writes
// each batch's pieces as one shard, then commits the batch.
type writer struct {
	cfg      *Config
	sink     Sink
	rep      *Report
	st       *StageStats
	total    int
	seq      int
	batch    Batch
	cacheAdd map[string][]byte
}

func (w *writer) run(ctx context.Context, in <-chan *Item) error {
	var c counter
	defer func() { w.st.Workers = 1; w.st.QueueCap = cap(in); w.st.merge(&c) }()
	for {
		t0 := time.Now()
		q := len(in)
		var it *Item
		var ok bool
		select {
		case it, ok = <-in:
		case <-ctx.Done():
			c.waitIn += time.Since(t0)
			return ctx.Err()
		}
		t1 := time.Now()
		c.waitIn += t1.Sub(t0)
		if !ok {
			err := w.flush(ctx, &c)
			c.busy += time.Since(t1)
			return err
		}
		c.qSum += int64(q)
		c.qN++
		c.qMax = max(c.qMax, q)
		if it.touched {
			w.batch.Touched = append(w.batch.Touched, it)
			w.rep.Unchanged++
		} else {
			w.batch.Items = append(w.batch.Items, it)
			c.items++
			if it.Err == nil && it.Cached {
				w.rep.Cached++
			}
			if it.cacheBad != nil {
				w.rep.CacheRebuilt++
				if len(w.rep.CacheNotes) < MaxCacheNotes {
					w.rep.CacheNotes = append(w.rep.CacheNotes, fmt.Sprintf("%s: cache entry %.12s…: %v; rebuilt from the file", it.Path, it.Hash, it.cacheBad))
				}
			}
			if w.cacheAdd != nil && it.Err == nil && !it.Cached {
				if rec, err := encodeRecord(it); err == nil {
					w.cacheAdd[it.Hash] = rec
				}
			}
		}
		var err error
		if len(w.batch.Items)+len(w.batch.Touched) >= w.cfg.BatchItems {
			err = w.flush(ctx, &c)
		}
		c.busy += time.Since(t1)
		if err != nil {
			return err
		}
	}
}

func (w *writer) flush(ctx context.Context, c *counter) error {
	b := &w.batch
	if len(b.Items) == 0 && len(b.Touched) == 0 {
		return nil
	}
	var pieces [][]uint16
	var off uint64
	w.seq++
	name := fmt.Sprintf("%s%04d", w.cfg.ShardPrefix, w.seq)
	for _, it := range b.Items {
		if it.Err == nil && len(it.Tokens) == 0 {
			it.Err = fmt.Errorf("%s: no tokens", it.Path)
		}
		if it.Err != nil {
			continue
		}
		it.Shard, it.Offset = name, off
		off += uint64(len(it.Tokens))
		pieces = append(pieces, it.Tokens)
	}
	if len(pieces) > 0 {
		sf, err := WriteShard(w.cfg.ShardDir, name, pieces)
		if err != nil {
			return err
		}
		b.Shard = &sf
		c.bytes += 2 * sf.Tokens
	}
	if err := w.sink.Commit(ctx, b); err != nil {
		return err
	}
	for _, it := range b.Items {
		if it.Err != nil {
			w.rep.Failed++
		} else {
			w.rep.OK++
			if rebarred(it.Meta) {
				w.rep.Rebarred++
				if len(w.rep.RebarredFiles) < MaxRebarredFiles {
					w.rep.RebarredFiles = append(w.rep.RebarredFiles, it.Path)
				}
			}
		}
	}
	last := ""
	if n := len(b.Items); n > 0 {
		last = b.Items[n-1].Path
	}
	w.cfg.emit(Event{Stage: "ingest", Done: w.rep.OK + w.rep.Failed, Total: w.total, Path: last})
	w.batch = Batch{}
	return nil
}

// styles clusters every stored piece's caption embedding into k groups and
// rewrites the shards whose pieces change group (or that hold replaced
// pieces), then records it all in one Restyle.
func styles(ctx context.Context, cfg *Config, proc Processor, sink Sink, rep *Report, st *StageStats) error {
	set, err := sink.StyleSet(ctx)
	if err != nil {
		return err
	}
	n := len(set.Pieces)
	if n == 0 {
		return nil
	}
	st.Items = n
	k := StyleCount(n, min(cfg.MaxStyles, proc.Styles()))
	dim := len(set.Pieces[0].Embedding)
	if dim == 0 {
		return fmt.Errorf("pipeline: style: piece %s has no embedding", set.Pieces[0].Path)
	}
	data := make([]float32, 0, n*dim)
	for _, p := range set.Pieces {
		if len(p.Embedding) != dim {
			return fmt.Errorf("pipeline: style: piece %s has a %d-dim embedding, others %d", p.Path, len(p.Embedding), dim)
		}
		data = append(data, p.Embedding...)
	}
	m, err := cluster.KMeans(ctx, data, dim, k, cluster.Options{Seed: cfg.Seed, Workers: cfg.Cores})
	if err != nil {
		return fmt.Errorf("pipeline: style: %w", err)
	}
	rep.Styles = m.K
	// Which shards must be rewritten?
	live := map[string][]int{}
	dirty := map[string]bool{}
	for i := range set.Pieces {
		p := &set.Pieces[i]
		live[p.Shard] = append(live[p.Shard], i)
		if p.Style != m.Labels[i] && p.StyleIndex >= 0 {
			dirty[p.Shard] = true
		}
		p.Style = m.Labels[i]
		p.Attrs.Style = p.Style
	}
	for sh, idx := range live {
		if set.ShardPieces[sh] != len(idx) {
			dirty[sh] = true
		}
	}
	names := make([]string, 0, len(dirty))
	for sh := range dirty {
		names = append(names, sh)
	}
	sort.Strings(names)
	r := &Restyle{K: m.K, Pieces: set.Pieces}
	// Live pieces of the dirty shards go, patched, into as few new shards as
	// the size cap allows (fewer files, fewer fsyncs).
	var pieces [][]uint16
	var moved []*Piece
	var off uint64
	out := 0
	emit := func() error {
		if len(pieces) == 0 {
			return nil
		}
		out++
		name := fmt.Sprintf("%ss%04d", cfg.ShardPrefix, out)
		sf, err := WriteShard(cfg.ShardDir, name, pieces)
		if err != nil {
			return err
		}
		for _, p := range moved {
			p.Shard = name
		}
		st.Bytes += 2 * sf.Tokens
		r.Added = append(r.Added, sf)
		pieces, moved, off = pieces[:0], moved[:0], 0
		return nil
	}
	for _, sh := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		toks, offs, err := ReadShard(cfg.ShardDir, sh)
		if err != nil {
			return err
		}
		idx := live[sh]
		sort.Slice(idx, func(a, b int) bool { return set.Pieces[idx[a]].Offset < set.Pieces[idx[b]].Offset })
		for _, pi := range idx {
			p := &set.Pieces[pi]
			end := p.Offset + uint64(p.Tokens)
			if end > uint64(len(toks)) || !isStart(offs, p.Offset) {
				return fmt.Errorf("pipeline: style: piece %s at %d+%d does not fit shard %s: %w", p.Path, p.Offset, p.Tokens, sh, ErrBadShard)
			}
			piece := append([]uint16(nil), toks[p.Offset:end]...)
			if p.StyleIndex >= 0 && p.StyleIndex < len(piece) {
				piece[p.StyleIndex] = proc.StyleToken(p.Attrs, p.Style)
			}
			pieces = append(pieces, piece)
			moved = append(moved, p)
			p.Offset = off
			off += uint64(len(piece))
			if off >= uint64(cfg.MaxShardTokens) {
				if err := emit(); err != nil {
					return err
				}
			}
		}
		r.Dropped = append(r.Dropped, sh)
	}
	if err := emit(); err != nil {
		return err
	}
	return sink.Restyle(ctx, r)
}

func isStart(offs []uint64, o uint64) bool {
	i := sort.Search(len(offs), func(i int) bool { return offs[i] >= o })
	return i < len(offs) && offs[i] == o
}

// StyleCount is the number of style groups for n pieces: one per 8 pieces,
// at least 1 and at most limit (when limit > 0).
func StyleCount(n, limit int) int {
	k := n / 8
	if limit > 0 {
		k = min(k, limit)
	}
	return max(k, 1)
}
