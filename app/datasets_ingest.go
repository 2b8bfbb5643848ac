package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shirou/gopsutil/v3/mem"
	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/pipeline"
	"github.com/amtstudio/amt/engine/text"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/storage"
)

// IngestOptions configure one ingestion job.
type IngestOptions struct {
	Project string // created if missing
	Dir     string // folder of MIDI files
	// Dataset names a new dataset; "" uses the folder's name. A folder
	// ingested before into the project goes to the same dataset whatever
	// this says.
	Dataset string
	Mode    pipeline.Mode
	// Workers per stage; zero fields come from the "ingest.workers" setting,
	// then from the core count.
	Workers    pipeline.Workers
	BatchItems int    // items per commit; 0: 256
	MappingCSV string // a metadata table for captions (see text.CollectorOptions)
	// Genre is the genre of the folder's pieces whose own metadata (a
	// sidecar, an ABC tune type, the mapping table's genre, style or tune
	// type) names no genre family (text.PieceInfo.Family): a genre word or
	// family ("pop", "bossa nova"); it reaches the GENRE attribute as its
	// family (text.GenreFamily), and the captions of pieces that name no
	// genre at all. "" : none.
	Genre string
	// OnlineText fetches Wikipedia summaries of the pieces' titles into
	// their captions (rate-limited, cached in the store's cache folder)
	// for this run; without it the Settings screen's choice
	// (StudioSettings.OnlineText) decides, off by default.
	OnlineText bool
	// WikiEndpoint replaces text.DefaultWikiEndpoint (tests, mirrors).
	WikiEndpoint string
	Seed         int64
	Progress     chan<- pipeline.Event // may be nil; sends never block
	// Processor replaces the real per-file work (midi, text, token); tests
	// use it. Vocab is the vocabulary (nil: token.DefaultVocab()).
	Processor pipeline.Processor
	Vocab     *token.Vocab
}

// IngestResult is what an ingestion job leaves.
type IngestResult struct {
	RunID     uint64           `json:"run_id"`
	ProjectID uint64           `json:"project_id"`
	DatasetID uint64           `json:"dataset_id"`
	Dataset   string           `json:"dataset"`
	Report    *pipeline.Report `json:"report"`
}

// SettingIngestWorkers is the settings key of the default stage workers
// (a pipeline.Workers as JSON).
const SettingIngestWorkers = "ingest.workers"

// Ingest imports opts.Dir into a dataset of opts.Project in st: only new or
// changed files are processed; every file ends up as one item (ok, or
// failed with its error); token shards and vocab.json land in the dataset's
// shard folder, ready for `amt train --data`. It records an ingestion run
// with the stage statistics and verdict. Killed at any point, the store
// stays consistent and the next Ingest completes the job.
func Ingest(ctx context.Context, st *storage.Store, opts IngestOptions) (*IngestResult, error) {
	root, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("ingest %s: %w", opts.Dir, err)
	}
	if fi, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("ingest: %s is not a folder", root)
	}
	vocab := opts.Vocab
	if vocab == nil {
		vocab = token.DefaultVocab()
	}
	vjson, err := vocab.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("ingest: vocabulary: %w", err)
	}
	vh := sha256.Sum256(vjson)
	vocabHash := hex.EncodeToString(vh[:])

	proc := opts.Processor
	embedName := "custom"
	if proc == nil {
		copts := text.CollectorOptions{MappingCSV: opts.MappingCSV}
		if copts.Summaries, err = onlineText(st, opts); err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
		col, err := text.NewCollector(root, copts)
		if err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
		emb := text.NewHashed()
		// The cache holds tokens of re-barred scores, with programs and
		// genres read from the metadata.
		embedName = emb.Name() + "-" + midi.PrepareVersion + "-" + text.MetadataVersion
		if opts.Genre != "" {
			embedName += "-genre-" + opts.Genre // a default genre changes the tokens of cached pieces
		}
		proc = &realProcessor{vocab: vocab, col: col, emb: emb, genre: opts.Genre}
	}

	res := &IngestResult{}
	var ds *storage.Dataset
	run := &storage.IngestRun{Status: storage.RunRunning, Started: time.Now().UTC(), Mode: string(opts.Mode)}
	workers := opts.Workers
	err = st.Update(func(tx *bolt.Tx) error {
		p, err := storage.EnsureProject(tx, opts.Project)
		if err != nil {
			return err
		}
		res.ProjectID = p.ID
		ds, err = storage.DatasetByRoot(tx, p.ID, root)
		if errors.Is(err, storage.ErrNotFound) {
			base := opts.Dataset
			if base == "" {
				base = typeable(filepath.Base(root))
			}
			name, err := storage.UniqueDatasetName(tx, p.ID, base)
			if err != nil {
				return err
			}
			ds = &storage.Dataset{ProjectID: p.ID, Name: name, Root: root}
		} else if err != nil {
			return err
		}
		if ds.VocabHash != "" && ds.VocabHash != vocabHash {
			return fmt.Errorf("dataset %q was encoded with another vocabulary; ingest into a new project", ds.Name)
		}
		ds.VocabHash = vocabHash
		ds.Root = root // byte-exact, also over a root a store before schema 3 recorded lossy
		if err := storage.PutDataset(tx, ds); err != nil {
			return err
		}
		var w pipeline.Workers
		if ok, err := storage.Setting(tx, SettingIngestWorkers, &w); err == nil && ok {
			workers = pickWorkers(workers, w)
		}
		run.ProjectID, run.DatasetID = p.ID, ds.ID
		return storage.PutIngestRun(tx, run)
	})
	if err != nil {
		return nil, fmt.Errorf("ingest %s: %w", root, err)
	}
	res.RunID, res.DatasetID, res.Dataset = run.ID, ds.ID, ds.Name

	shardDir := st.Abs(ds.ShardDir())
	if err := os.MkdirAll(shardDir, 0o755); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if _, err := storage.WriteFileAtomic(filepath.Join(shardDir, "vocab.json"), append(vjson, '\n')); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	sink, err := newStoreSink(st, ds, run.ID)
	if err != nil {
		return nil, fmt.Errorf("ingest %s: %w", root, err)
	}
	cfg := pipeline.Config{
		Root:        root,
		Mode:        opts.Mode,
		Workers:     workers,
		ShardDir:    shardDir,
		ShardPrefix: storage.RunShardPrefix(run.ID),
		CacheFile:   filepath.Join(st.Dir, storage.CacheDir, fmt.Sprintf("pre-%s-%s.bin", vocabHash[:16], embedName)),
		BatchItems:  opts.BatchItems,
		Seed:        opts.Seed,
		Progress:    opts.Progress,
	}
	if vm, err := mem.VirtualMemory(); err == nil {
		cfg.FreeRAM = vm.Available
	}
	rep, runErr := pipeline.Run(ctx, cfg, proc, sink)
	res.Report = rep

	run.Finished = time.Now().UTC()
	run.Status = storage.RunDone
	switch {
	case errors.Is(runErr, context.Canceled):
		run.Status = storage.RunCancelled
	case runErr != nil:
		run.Status = storage.RunFailed
		run.Error = runErr.Error()
	}
	if rep != nil {
		fillRun(run, rep)
	}
	if run.Status != storage.RunDone {
		// A verdict needs the whole run: a failed one read "none: no new or
		// changed files" (issue 37).
		run.Bottleneck, run.Suggestions = NotJudged(run.Status), nil
		if rep != nil {
			rep.Bottleneck, rep.Suggestions = run.Bottleneck, nil
		}
	}
	// Record the end even when ctx is cancelled.
	if err := st.Update(func(tx *bolt.Tx) error { return storage.PutIngestRun(tx, run) }); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return res, fmt.Errorf("ingest %s: %w", root, runErr)
	}
	return res, nil
}

// typeable returns a folder's name fit to name a dataset: a byte that is
// not UTF-8 (a Latin-1 "caf\xe9" from an old disk) is written \xe9, so the
// name can be shown and typed after --dataset.
func typeable(name string) string {
	if utf8.ValidString(name) {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && n <= 1 {
			fmt.Fprintf(&b, `\x%02x`, name[i])
		} else {
			b.WriteString(name[i : i+n])
		}
		i += n
	}
	return b.String()
}

// NotJudged is the bottleneck verdict of a run that did not finish
// (status failed, cancelled or interrupted): its stages saw part of the
// work, so no verdict is given.
func NotJudged(status string) string { return "not judged: the run " + status }

func pickWorkers(a, b pipeline.Workers) pipeline.Workers {
	p := func(x, y int) int {
		if x > 0 {
			return x
		}
		return y
	}
	return pipeline.Workers{Read: p(a.Read, b.Read), Parse: p(a.Parse, b.Parse), Text: p(a.Text, b.Text),
		Embed: p(a.Embed, b.Embed), Tokenize: p(a.Tokenize, b.Tokenize)}
}

func fillRun(run *storage.IngestRun, rep *pipeline.Report) {
	run.Mode = string(rep.Mode)
	run.Workers = map[string]int{"read": rep.Workers.Read, "parse": rep.Workers.Parse, "text": rep.Workers.Text,
		"embed": rep.Workers.Embed, "tokenize": rep.Workers.Tokenize}
	run.Files, run.Processed, run.OK, run.Failed = rep.Files, rep.Processed, rep.OK, rep.Failed
	run.Unchanged, run.Removed, run.Seconds = rep.Unchanged, rep.Removed, rep.Seconds
	run.Rebarred, run.RebarredFiles = rep.Rebarred, rep.RebarredFiles
	run.CacheRebuilt, run.CacheNotes = rep.CacheRebuilt, rep.CacheNotes
	run.Bottleneck, run.Suggestions = rep.Bottleneck, rep.Suggestions
	run.Stages = run.Stages[:0]
	for _, s := range rep.Stages {
		run.Stages = append(run.Stages, storage.StageStat{Name: s.Name, Workers: s.Workers,
			BusySeconds: s.BusySeconds, WaitSeconds: s.WaitSeconds, Items: s.Items, Bytes: s.Bytes,
			QueueMean: s.QueueMean, QueueMax: s.QueueMax})
	}
}

// realProcessor is the per-file work with the real engine packages.
type realProcessor struct {
	vocab *token.Vocab
	col   *text.Collector
	emb   text.Embedder
	genre string // IngestOptions.Genre
}

// work is what travels from Analyze to Tokenize besides the Item fields.
func (p *realProcessor) Analyze(it *pipeline.Item) error {
	s, err := midi.Parse(it.Path, it.Data)
	if err != nil {
		return err
	}
	it.Score = s
	it.Meta = midi.Prepare(s) // re-barred when the declared meter gives way
	return nil
}

// Caption reads what the metadata knows of the piece: the caption, the
// GENRE family (from its tune type, style or genre, else the run's default
// genre) and, where the metadata says which program carries the voices
// (the lieder's "voice (program 68)"), the sung parts moved onto the voice
// program before Tokenize (text.PieceInfo.Revoice).
func (p *realProcessor) Caption(ctx context.Context, it *pipeline.Item) error {
	info := p.col.Info(ctx, it.Abs, it.Score)
	m := it.Meta.(midi.Metadata)
	if info.Revoice(it.Score) > 0 {
		a := midi.Analyze(it.Score)
		m.Programs, m.Families = a.Programs, a.Families
		it.Meta = m
	}
	family := info.Family()
	if info.Genre == "" {
		info.Genre = p.genre
	}
	if family == "" {
		family = text.GenreFamily(p.genre)
	}
	it.Caption = text.Caption(info, m)
	it.Attrs.Genre = family // read by Tokenize
	return nil
}

func (p *realProcessor) Embed(it *pipeline.Item) error {
	it.Embedding = make([]float32, p.emb.Dim())
	return p.emb.Embed(it.Caption, it.Embedding)
}

func (p *realProcessor) Tokenize(it *pipeline.Item) error {
	toks, attrs, err := p.vocab.AppendEncodeMeasuredGenre(nil, it.Score, it.Meta.(midi.Metadata), it.Attrs.Genre)
	if err != nil {
		return err
	}
	it.Tokens, it.Attrs = toks, attrs
	it.StyleIndex = p.vocab.StyleIndex(toks)
	return nil
}

// VetCached checks a piece read from the mmap cache as Tokenize makes one
// (pipeline.CacheVetter): BOS … EOS, every token in the vocabulary, the
// STYLE token where the entry says. The entry's checksum catches damage;
// this keeps a token beyond the vocabulary out of the store whatever wrote
// the cache.
func (p *realProcessor) VetCached(it *pipeline.Item) error {
	v, toks := p.vocab, it.Tokens
	for i, t := range toks {
		if int(t) >= v.Size() {
			return fmt.Errorf("token %d at %d is beyond the vocabulary's %d", t, i, v.Size())
		}
	}
	if n := len(toks); n < 2 || toks[0] != v.BOS || toks[n-1] != v.EOS {
		return fmt.Errorf("the piece of %d tokens does not run BOS … EOS", n)
	}
	if i := v.StyleIndex(toks); i != it.StyleIndex {
		return fmt.Errorf("the entry puts STYLE at %d, the piece has it at %d", it.StyleIndex, i)
	}
	return nil
}

func (p *realProcessor) Styles() int { return p.vocab.Config().Styles }

func (p *realProcessor) StyleToken(_ token.Attributes, k int) uint16 { return p.vocab.Style(k) }

// storeSink records pipeline results in the store.
type storeSink struct {
	st    *storage.Store
	ds    *storage.Dataset
	runID uint64
	known map[string]pipeline.Known // read-only during the run
}

func newStoreSink(st *storage.Store, ds *storage.Dataset, runID uint64) (*storeSink, error) {
	s := &storeSink{st: st, ds: ds, runID: runID, known: map[string]pipeline.Known{}}
	err := st.View(func(tx *bolt.Tx) error {
		return storage.Items(tx, ds.ID, func(it *storage.Item) bool {
			s.known[it.Path] = pipeline.Known{Size: it.Size, ModTime: it.ModTime, Hash: it.Hash}
			return true
		})
	})
	return s, err
}

func (s *storeSink) Known(p string) (pipeline.Known, bool) {
	k, ok := s.known[p]
	return k, ok
}

func (s *storeSink) shardPath(name string) string { return s.ds.ShardDir() + "/" + name }

// update runs fn in a transaction, prunes the shards left without pieces,
// and removes their files once the transaction has committed.
func (s *storeSink) update(fn func(tx *bolt.Tx) error) error {
	var dead []string
	err := s.st.Update(func(tx *bolt.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		var err error
		dead, err = storage.PruneShards(tx, s.ds.ID)
		return err
	})
	if err != nil {
		return err
	}
	for _, d := range dead {
		s.st.RemoveShard(d)
	}
	return nil
}

func (s *storeSink) Commit(ctx context.Context, b *pipeline.Batch) error {
	return s.update(func(tx *bolt.Tx) error {
		var shardID uint64
		if b.Shard != nil {
			sh := &storage.Shard{DatasetID: s.ds.ID, Path: s.shardPath(b.Shard.Name), Hash: b.Shard.Hash,
				Pieces: b.Shard.Pieces, Tokens: b.Shard.Tokens}
			if err := storage.PutShard(tx, sh); err != nil {
				return err
			}
			shardID = sh.ID
		}
		w := storage.NewItemWriter(tx)
		for _, it := range b.Items {
			rec := &storage.Item{DatasetID: s.ds.ID, Path: it.Path, Size: it.Size, ModTime: it.ModTime,
				Hash: it.Hash, Caption: it.Caption, Attrs: it.Attrs, StyleIndex: it.StyleIndex, RunID: s.runID}
			if it.Meta != nil {
				m, err := json.Marshal(it.Meta)
				if err != nil {
					return fmt.Errorf("%s: metadata: %w", it.Path, err)
				}
				rec.Meta = m
			}
			if it.Err != nil {
				rec.Status, rec.Error = storage.ItemFailed, it.Err.Error()
				rec.StyleIndex = -1
			} else {
				rec.Status, rec.ShardID, rec.Offset, rec.Tokens = storage.ItemOK, shardID, it.Offset, len(it.Tokens)
			}
			if err := w.Put(rec); err != nil {
				return err
			}
			if it.Err == nil && len(it.Embedding) > 0 {
				if err := storage.PutEmbedding(tx, rec.ID, it.Embedding); err != nil {
					return err
				}
			}
		}
		for _, it := range b.Touched {
			rec, err := storage.ItemByPath(tx, s.ds.ID, it.Path)
			if err != nil {
				return err
			}
			nu := *rec
			nu.Size, nu.ModTime = it.Size, it.ModTime
			if err := w.Update(rec, &nu); err != nil {
				return err
			}
		}
		return w.Flush()
	})
}

func (s *storeSink) StyleSet(ctx context.Context) (*pipeline.StyleSet, error) {
	set := &pipeline.StyleSet{ShardPieces: map[string]int{}}
	err := s.st.View(func(tx *bolt.Tx) error {
		shards, err := storage.Shards(tx, s.ds.ID)
		if err != nil {
			return err
		}
		names := map[uint64]string{}
		for _, sh := range shards {
			n := path.Base(sh.Path)
			names[sh.ID] = n
			set.ShardPieces[n] = sh.Pieces
		}
		return storage.Items(tx, s.ds.ID, func(it *storage.Item) bool {
			if it.Status != storage.ItemOK || it.ShardID == 0 {
				return true
			}
			set.Pieces = append(set.Pieces, pipeline.Piece{Path: it.Path, Shard: names[it.ShardID], Offset: it.Offset,
				Tokens: it.Tokens, StyleIndex: it.StyleIndex, Style: it.Attrs.Style, Attrs: it.Attrs,
				Embedding: storage.Embedding(tx, it.ID, nil)})
			return true
		})
	})
	return set, err
}

func (s *storeSink) Restyle(ctx context.Context, r *pipeline.Restyle) error {
	return s.update(func(tx *bolt.Tx) error {
		ids := map[string]uint64{}
		for _, sf := range r.Added {
			sh := &storage.Shard{DatasetID: s.ds.ID, Path: s.shardPath(sf.Name), Hash: sf.Hash, Pieces: sf.Pieces, Tokens: sf.Tokens}
			if err := storage.PutShard(tx, sh); err != nil {
				return err
			}
			ids[sf.Name] = sh.ID
		}
		w := storage.NewItemWriter(tx)
		for _, p := range r.Pieces {
			id, moved := ids[p.Shard]
			rec, err := storage.ItemByPath(tx, s.ds.ID, p.Path)
			if err != nil {
				return err
			}
			if !moved && rec.Attrs.Style == p.Style {
				continue
			}
			nu := *rec
			if moved {
				nu.ShardID, nu.Offset = id, p.Offset
			}
			nu.Attrs.Style = p.Style
			if err := w.Update(rec, &nu); err != nil {
				return err
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
		ds, err := storage.GetDataset(tx, s.ds.ID)
		if err != nil {
			return err
		}
		ds.Styles = r.K
		return storage.PutDataset(tx, ds)
	})
}

func (s *storeSink) Forget(ctx context.Context, seen []string) (int, error) {
	keep := make(map[string]bool, len(seen))
	for _, p := range seen {
		keep[p] = true
	}
	n := 0
	err := s.update(func(tx *bolt.Tx) error {
		var gone []uint64
		if err := storage.Items(tx, s.ds.ID, func(it *storage.Item) bool {
			if !keep[it.Path] {
				gone = append(gone, it.ID)
			}
			return true
		}); err != nil {
			return err
		}
		for _, id := range gone {
			if err := storage.DeleteItem(tx, id); err != nil {
				return err
			}
		}
		n = len(gone)
		return nil
	})
	return n, err
}

// DatasetSummary is a dataset with its item totals.
type DatasetSummary struct {
	storage.Dataset
	storage.DatasetCounts
	Shards   int    `json:"shards"`
	ShardDir string `json:"shard_dir"` // absolute; holds the shards and vocab.json
}

// ListDatasets returns a project's datasets with their counts.
func ListDatasets(st *storage.Store, project string) ([]DatasetSummary, error) {
	var out []DatasetSummary
	err := st.View(func(tx *bolt.Tx) error {
		p, err := storage.ProjectByName(tx, project)
		if err != nil {
			return err
		}
		dss, err := storage.Datasets(tx, p.ID)
		if err != nil {
			return err
		}
		for _, d := range dss {
			c, err := storage.CountItems(tx, d.ID)
			if err != nil {
				return err
			}
			sh, err := storage.Shards(tx, d.ID)
			if err != nil {
				return err
			}
			out = append(out, DatasetSummary{Dataset: d, DatasetCounts: c, Shards: len(sh), ShardDir: st.Abs(d.ShardDir())})
		}
		return nil
	})
	return out, err
}

// FailedItem is a file of a dataset that could not be ingested, with the
// reason (amt datasets --failed).
type FailedItem struct {
	Dataset string `json:"dataset"`
	Path    string `json:"path"`
	Error   string `json:"error"`
}

// FailedItems lists the failed files of the datasets, dataset by dataset.
func FailedItems(st *storage.Store, datasets []DatasetSummary) ([]FailedItem, error) {
	var out []FailedItem
	err := st.View(func(tx *bolt.Tx) error {
		for _, d := range datasets {
			if err := storage.Items(tx, d.ID, func(it *storage.Item) bool {
				if it.Status == storage.ItemFailed {
					out = append(out, FailedItem{d.Name, it.Path, it.Error})
				}
				return true
			}); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// IngestRuns returns a project's ingestion runs, oldest first; with runID
// > 0, that one run (storage.ErrNotFound when it is another project's).
func IngestRuns(st *storage.Store, project string, runID uint64) ([]storage.IngestRun, error) {
	var runs []storage.IngestRun
	err := st.View(func(tx *bolt.Tx) error {
		p, err := storage.ProjectByName(tx, project)
		if err != nil {
			return err
		}
		if runID == 0 {
			runs, err = storage.IngestRuns(tx, p.ID)
			return err
		}
		r, err := storage.GetIngestRun(tx, runID)
		if err != nil {
			return err
		}
		if r.ProjectID != p.ID {
			return fmt.Errorf("run %d belongs to another project: %w", runID, storage.ErrNotFound)
		}
		runs = []storage.IngestRun{*r}
		return nil
	})
	return runs, err
}

// ExportDataset writes a dataset's token shards and vocab.json into dir (a
// folder `amt train --data` reads): shards whose pieces are all live are
// copied as they are, others are written again with only their live pieces.
// Each file is checked against its recorded hash and written atomically.
func ExportDataset(ctx context.Context, st *storage.Store, project, dataset, dir string) (files int, err error) {
	if err := CheckOutputDir(dir); err != nil { // app/output.go: before any work
		return 0, fmt.Errorf("export: %w", err)
	}
	var shards []storage.Shard
	live := map[uint64][]storage.Item{}
	var ds *storage.Dataset
	err = st.View(func(tx *bolt.Tx) error {
		p, err := storage.ProjectByName(tx, project)
		if err != nil {
			return err
		}
		if ds, err = storage.DatasetByName(tx, p.ID, dataset); err != nil {
			return err
		}
		if shards, err = storage.Shards(tx, ds.ID); err != nil {
			return err
		}
		return storage.Items(tx, ds.ID, func(it *storage.Item) bool {
			if it.Status == storage.ItemOK && it.ShardID != 0 {
				live[it.ShardID] = append(live[it.ShardID], *it)
			}
			return true
		})
	})
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	atomicfile.CleanStale(dir)
	src := st.Abs(ds.ShardDir())
	vocab, err := os.ReadFile(filepath.Join(src, "vocab.json"))
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	if _, err := storage.WriteFileAtomic(filepath.Join(dir, "vocab.json"), vocab); err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	for _, sh := range shards {
		if err := ctx.Err(); err != nil {
			return files, err
		}
		name := path.Base(sh.Path)
		if h, err := storage.HashFile(st.Abs(sh.Path + ".bin")); err != nil || h != sh.Hash {
			return files, fmt.Errorf("export: shard %s: %w", sh.Path, storage.ErrShardChanged)
		}
		toks, offs, err := pipeline.ReadShard(src, name)
		if err != nil {
			return files, fmt.Errorf("export: %w", err)
		}
		items := live[sh.ID]
		if len(items) == 0 {
			continue
		}
		pieces := make([][]uint16, 0, len(items))
		if len(items) == len(offs)-1 {
			for i := 0; i+1 < len(offs); i++ {
				pieces = append(pieces, toks[offs[i]:offs[i+1]])
			}
		} else {
			for _, it := range items {
				if it.Offset+uint64(it.Tokens) > uint64(len(toks)) {
					return files, fmt.Errorf("export: item %s does not fit shard %s: %w", it.Path, sh.Path, pipeline.ErrBadShard)
				}
				pieces = append(pieces, toks[it.Offset:it.Offset+uint64(it.Tokens)])
			}
		}
		if _, err := pipeline.WriteShard(dir, name, pieces); err != nil {
			return files, fmt.Errorf("export: %w", err)
		}
		files++
	}
	return files, nil
}

func (p *realProcessor) vocabOrDefault() *token.Vocab {
	if p.vocab != nil {
		return p.vocab
	}
	return token.DefaultVocab()
}

// onlineText returns the summary fetcher an ingestion uses: one when
// opts.OnlineText is set or the user turned "Fetch text about pieces
// online" on in Settings, else nil (no network request at all). Answers are
// cached under the store's cache folder, so a re-import asks again only for
// new titles.
func onlineText(st *storage.Store, opts IngestOptions) (*text.Wiki, error) {
	on := opts.OnlineText
	if !on {
		var ss StudioSettings
		if err := st.View(func(tx *bolt.Tx) error {
			_, err := storage.Setting(tx, SettingStudio, &ss)
			return err
		}); err != nil {
			return nil, err
		}
		on = ss.OnlineText
	}
	if !on {
		return nil, nil
	}
	return text.NewWiki(text.WikiOptions{Endpoint: opts.WikiEndpoint,
		Cache: text.FileCache{Dir: filepath.Join(st.Dir, storage.CacheDir, "wiki")}})
}

// OpenStore opens the data directory home ("" : $AMT_HOME or the user data
// folder, see storage.DefaultDir).
func OpenStore(home string) (*storage.Store, error) {
	return storage.Open(home)
}
