package app

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/pipeline"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/engine/train/condition"
	"github.com/amtstudio/amt/engine/train/examples"
	"github.com/amtstudio/amt/storage"
)

// ExamplesSpec is an export of ready training examples (`amt datasets
// --export-examples`) for a trainer outside this program (cluster/train.py).
type ExamplesSpec struct {
	Train   int     // training examples
	Val     int     // validation examples; < 0: Train/20 (at least one batch)
	Context int     // tokens per example (the model's input length)
	Batch   int     // engine/train's batch: example i is row i mod Batch of batch i div Batch
	Seed    uint64  // as engine/train's --seed: the split and every example follow from it
	ValFrac float64 // share of pieces held out for validation
	// Progress receives (examples written, total); may be nil.
	Progress func(done, total int)
}

// Limits of the examples written for a trainer outside this program
// (`amt datasets --export-examples`, `amt examples --write`) and served to
// one (`amt examples --serve`): each flag is checked before any work, a
// usage error naming the flag, the value and the limit; then the bytes the
// examples take are checked against the free space of their disk.
const (
	// MaxExamples bounds --examples and --val-examples: a billion
	// examples of the default 256 tokens are 518 GB (`--examples 1e12`
	// used to start writing 500 TB).
	MaxExamples = 1_000_000_000
	// MaxExampleContext bounds --context: a model amt can load has at most
	// gpt.MaxPositions positions.
	MaxExampleContext = gpt.MaxPositions
	// MaxExampleBatch bounds --batch, the batch examples are numbered in
	// (a cluster run's global batch, cluster/train.py --example-batch).
	MaxExampleBatch = 1 << 20
	// MaxExampleBatchTokens bounds --batch × --context where examples are
	// written: one batch is built in memory at 8 bytes a token, 128 MB at
	// most (`--batch 1000000000` died of "out of memory" and left its
	// .pieces- folder behind).
	MaxExampleBatchTokens = 1 << 24
	// MaxExampleWorkers bounds --workers of amt examples (as amt train's).
	MaxExampleWorkers = 1024
)

// checkExampleSizes checks the size flags of an example export (writing:
// the counts too, and one batch's tokens) before any work.
func checkExampleSizes(context, batch int, writing bool, train, val int) error {
	err := FirstError(
		IntIn("context", context, 2, MaxExampleContext),
		IntIn("batch", batch, 1, MaxExampleBatch))
	if err != nil || !writing {
		return err
	}
	if err := FirstError(IntIn("examples", train, 1, MaxExamples), IntIn("val-examples", val, -1, MaxExamples)); err != nil {
		return err
	}
	if n := int64(batch) * int64(context); n > MaxExampleBatchTokens {
		return fmt.Errorf("%w: --batch %d × --context %d = %d tokens a batch: allowed at most %d (each batch is built in memory)", ErrUsage, batch, context, n, MaxExampleBatchTokens)
	}
	return nil
}

// exampleBytes is the size of n examples of context tokens written as
// engine/train/examples stores them: a row of context+1 tokens (2 bytes,
// or 4 in a vocabulary over 65,536) and a 4-byte length each.
func exampleBytes(n, context, vocabSize int) int64 {
	width := int64(2)
	if vocabSize > 1<<16 {
		width = 4
	}
	return int64(n) * ((int64(context)+1)*width + 4)
}

// DefaultExamplesSpec are the CLI's defaults.
func DefaultExamplesSpec() ExamplesSpec {
	d := DefaultTrainSpec()
	return ExamplesSpec{Train: 20000, Val: -1, Context: d.Context, Batch: d.Batch, Seed: d.Seed, ValFrac: d.ValFrac}
}

// ExportExamples writes the conditioned training examples of a dataset
// into dir: the live pieces, in the order of their paths (so the same
// dataset and seed give the same examples however ingestion happened to
// order its shards), are split by piece into train and validation as
// engine/train splits them, and each example is made by the same builder
// engine/train uses (engine/train/condition with its default options,
// augmentation included), so an outside trainer sees the batches this
// program would. See engine/train/examples for the files. The pieces pass
// through a temporary shard in dir (memory-mapped), so memory stays bounded
// by one batch whatever the dataset's size.
func ExportExamples(ctx context.Context, st *storage.Store, project, dataset, dir string, spec ExamplesSpec) (*examples.Manifest, error) {
	if err := CheckOutputDir(dir); err != nil { // app/output.go: before any work
		return nil, fmt.Errorf("export examples: %w", err)
	}
	if err := checkExampleSizes(spec.Context, spec.Batch, true, spec.Train, spec.Val); err != nil {
		return nil, err
	}
	if !(spec.ValFrac >= 0 && spec.ValFrac < 1) { // NaN too
		return nil, fmt.Errorf("%w: export examples: --val-frac %g outside [0, 1)", ErrUsage, spec.ValFrac)
	}
	if spec.Val < 0 {
		spec.Val = max(spec.Batch, spec.Train/20)
	}
	if spec.ValFrac == 0 {
		spec.Val = 0
	}
	live, err := readLivePieces(st, project, dataset)
	if err != nil {
		return nil, err
	}
	v, err := token.ParseVocab(live.vocabJSON)
	if err != nil {
		return nil, fmt.Errorf("export examples: dataset %q: vocab.json: %w", dataset, err)
	}
	// The examples, and the pieces' temporary shard beside them.
	need := exampleBytes(spec.Train+spec.Val, spec.Context, v.Size()) + live.bytes() + int64(len(live.vocabJSON))
	if err := checkFreeSpace(dir, need, fmt.Sprintf("export examples: %d examples of %d tokens (--examples %d, --val-examples %d, --context %d)",
		spec.Train+spec.Val, spec.Context, spec.Train, spec.Val, spec.Context)); err != nil { // app/output.go
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("export examples: %w", err)
	}
	pieces, err := os.MkdirTemp(dir, ".pieces-")
	if err != nil {
		return nil, fmt.Errorf("export examples: %w", err)
	}
	forget, err := atomicfile.Track(pieces) // removed also when a stop outlives its grace
	if err != nil {
		return nil, fmt.Errorf("export examples: %w", err)
	}
	defer forget()
	defer os.RemoveAll(pieces)
	if err := live.write(ctx, st, filepath.Join(pieces, "pieces")); err != nil {
		return nil, err
	}
	vj := live.vocabJSON
	data, err := train.OpenDir(pieces, v.Size(), nil)
	if err != nil {
		return nil, fmt.Errorf("export examples: dataset %q: %w", dataset, err)
	}
	defer data.Close()
	co := condition.DefaultOptions()
	return examples.Write(ctx, dir, data, condition.New(v, co), examples.Options{
		Context: spec.Context, Train: spec.Train, Val: spec.Val, Batch: spec.Batch, Seed: spec.Seed, ValFrac: spec.ValFrac,
		VocabJSON: vj, VocabSize: v.Size(), PAD: int(v.PAD), BOS: int(v.BOS), EOS: int(v.EOS), SEP: int(v.SEP),
		Conditioning: co, Source: examples.Source{Project: project, Dataset: dataset, Pieces: data.Pieces(), Tokens: data.Tokens()},
		Progress: spec.Progress})
}

// writeLivePieces writes the live pieces of a dataset, ordered by path, as
// one token shard NAME.bin/NAME.idx (engine/train's format), reading each
// piece from its shard after checking the shard against its recorded hash.
// It returns the dataset's vocab.json.
func writeLivePieces(ctx context.Context, st *storage.Store, project, dataset, name string) ([]byte, error) {
	live, err := readLivePieces(st, project, dataset)
	if err != nil {
		return nil, err
	}
	return live.vocabJSON, live.write(ctx, st, name)
}

// livePieces are the live pieces of a dataset as the store lists them,
// ordered by path, with their shards and the dataset's vocab.json.
type livePieces struct {
	items     []storage.Item
	shards    map[uint64]storage.Shard
	vocabJSON []byte
}

// bytes is the size of the shard write makes of them.
func (l *livePieces) bytes() int64 {
	n := int64(8 * (len(l.items) + 1))
	for _, it := range l.items {
		n += 2 * int64(it.Tokens)
	}
	return n
}

// readLivePieces lists the live pieces of a dataset (nothing is written).
func readLivePieces(st *storage.Store, project, dataset string) (*livePieces, error) {
	var ds *storage.Dataset
	shards := map[uint64]storage.Shard{}
	var items []storage.Item
	err := st.View(func(tx *bolt.Tx) error {
		p, err := storage.ProjectByName(tx, project)
		if err != nil {
			return err
		}
		if ds, err = storage.DatasetByName(tx, p.ID, dataset); err != nil {
			return err
		}
		sh, err := storage.Shards(tx, ds.ID)
		if err != nil {
			return err
		}
		for _, s := range sh {
			shards[s.ID] = s
		}
		return storage.Items(tx, ds.ID, func(it *storage.Item) bool {
			if it.Status == storage.ItemOK && it.ShardID != 0 && it.Tokens > 0 {
				items = append(items, storage.Item{Path: it.Path, ShardID: it.ShardID, Offset: it.Offset, Tokens: it.Tokens})
			}
			return true
		})
	})
	if err != nil {
		return nil, fmt.Errorf("export examples: %w", err)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("export examples: dataset %q: %w: no ingested pieces", dataset, train.ErrNoData)
	}
	vj, err := os.ReadFile(filepath.Join(st.Abs(ds.ShardDir()), gpt.VocabFile))
	if err != nil {
		return nil, fmt.Errorf("export examples: %w", err)
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Path < items[j].Path })
	return &livePieces{items: items, shards: shards, vocabJSON: vj}, nil
}

// write writes the pieces as the shard NAME.bin/NAME.idx.
func (l *livePieces) write(ctx context.Context, st *storage.Store, name string) error {
	items, shards := l.items, l.shards
	files := map[uint64]*os.File{}
	sizes := map[uint64]int64{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	bin, err := os.Create(name + ".bin")
	if err != nil {
		return fmt.Errorf("export examples: %w", err)
	}
	defer bin.Close()
	w := bufio.NewWriterSize(bin, 1<<20)
	idx := make([]byte, 0, 8*(len(items)+1))
	var off uint64
	var buf []byte
	for n, it := range items {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		f, ok := files[it.ShardID]
		if !ok {
			sh, known := shards[it.ShardID]
			if !known {
				return fmt.Errorf("export examples: item %s refers to shard %d, which the dataset does not list", it.Path, it.ShardID)
			}
			p := st.Abs(sh.Path + ".bin")
			if h, err := storage.HashFile(p); err != nil || h != sh.Hash {
				return fmt.Errorf("export examples: shard %s: %w", sh.Path, storage.ErrShardChanged)
			}
			if f, err = os.Open(p); err != nil {
				return fmt.Errorf("export examples: %w", err)
			}
			fi, err := f.Stat()
			if err != nil {
				f.Close()
				return fmt.Errorf("export examples: %w", err)
			}
			files[it.ShardID], sizes[it.ShardID] = f, fi.Size()
		}
		start, size := int64(it.Offset)*2, int64(it.Tokens)*2
		if it.Offset > 1<<62 || start+size > sizes[it.ShardID] {
			return fmt.Errorf("export examples: item %s (tokens %d..%d) does not fit shard %s: %w", it.Path, it.Offset, it.Offset+uint64(it.Tokens), shards[it.ShardID].Path, pipeline.ErrBadShard)
		}
		buf = slices.Grow(buf[:0], int(size))[:size]
		if _, err := f.ReadAt(buf, start); err != nil {
			return fmt.Errorf("export examples: %s: %w", f.Name(), err)
		}
		if _, err := w.Write(buf); err != nil {
			return fmt.Errorf("export examples: %w", err)
		}
		idx = binary.LittleEndian.AppendUint64(idx, off)
		off += uint64(it.Tokens)
	}
	idx = binary.LittleEndian.AppendUint64(idx, off)
	if err := w.Flush(); err != nil {
		return fmt.Errorf("export examples: %w", err)
	}
	if err := os.WriteFile(name+".idx", idx, 0o644); err != nil {
		return fmt.Errorf("export examples: %w", err)
	}
	return nil
}
