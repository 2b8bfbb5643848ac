// Package examples owns the exported training examples: the exact batches
// engine/train draws through a train.Examples (for the music model, the
// conditioned examples of engine/train/condition: attribute prefix, a window
// starting on a bar line, augmentation), written once as memory-mappable
// shards with a manifest, so a trainer outside this program (cluster/train.py
// under torchrun) needs no copy of the conditioning code.
//
// A folder holds
//
//	manifest.json                 format, vocabulary, context, counts, hashes
//	vocab.json                    the vocabulary the tokens belong to
//	train-00000.tokens.bin        uint16 little-endian, examples × (context+1)
//	train-00000.lengths.bin       uint32 little-endian, one per example
//	val-00000.tokens.bin …        the same for the validation split
//
// Row i of a tokens file is one example of length L = lengths[i] ≤ context+1
// (PAD after it). The model's inputs are row[0:context] and its targets
// row[1:context+1], with no target (ignored in the loss) at positions
// j ≥ L−1: exactly the inputs and targets train.Examples.Fill produced, which
// Write checks for every row. Example i of a split is row i mod Batch of the
// engine's batch number i div Batch (Fill with the split's seed), so a
// trainer taking Batch consecutive examples per step walks the same batches
// engine/train would. Pieces are split into train and validation as
// engine/train splits them (Dataset.Split with ValFrac and Seed); the
// validation examples use engine/train's validation seed.
//
// It imports engine/train and engine/atomicfile; never app/, ui/ or storage/.
package examples

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/train"
)

// Format and Version name the layout in manifest.json.
const (
	Format       = "amt-examples"
	Version      = 1
	ManifestFile = "manifest.json"
	VocabFile    = "vocab.json"
)

// ValSeedXor turns the run's seed into the seed of validation batches, as
// engine/train's validation does (train.go, validate: o.Seed^0x5bd1e995);
// TestValidationSeedMatchesTrain holds the two equal.
const ValSeedXor = 0x5bd1e995

// DefaultShardExamples is the number of examples per shard file.
const DefaultShardExamples = 1 << 16

// ErrBadExamples marks a folder of exported examples that is malformed.
var ErrBadExamples = errors.New("examples: bad export")

// Vocab describes the vocabulary of the tokens.
type Vocab struct {
	File   string `json:"file"`
	Size   int    `json:"size"`
	SHA256 string `json:"sha256"`
	PAD    int    `json:"pad"`
	BOS    int    `json:"bos"`
	EOS    int    `json:"eos"`
	SEP    int    `json:"sep"`
}

// Shard is one pair of files of a split.
type Shard struct {
	TokensFile    string `json:"tokens_file"`
	LengthsFile   string `json:"lengths_file"`
	Examples      int    `json:"examples"`
	TokensSHA256  string `json:"tokens_sha256"`
	LengthsSHA256 string `json:"lengths_sha256"`
}

// Split is the train or validation part.
type Split struct {
	Pieces   int     `json:"pieces"`   // pieces of the dataset in this split
	Seed     uint64  `json:"seed"`     // the seed Fill was given
	Examples int     `json:"examples"` // rows
	Tokens   int64   `json:"tokens"`   // Σ lengths (real tokens, no padding)
	Targets  int64   `json:"targets"`  // positions with a target: Σ (length−1)
	Shards   []Shard `json:"shards"`
}

// Source says where the examples come from.
type Source struct {
	Project string `json:"project,omitempty"`
	Dataset string `json:"dataset,omitempty"`
	Pieces  int    `json:"pieces"`
	Tokens  int    `json:"tokens"`
}

// Manifest is manifest.json.
type Manifest struct {
	Format      string `json:"format"`
	Version     int    `json:"version"`
	Context     int    `json:"context"`    // T: inputs per example
	RowTokens   int    `json:"row_tokens"` // T+1 tokens stored per example
	TokenDType  string `json:"token_dtype"`
	LengthDType string `json:"length_dtype"`
	Vocab       Vocab  `json:"vocab"`
	// Batch is the rows per Fill call: example i is row i mod Batch of
	// batch i div Batch.
	Batch int    `json:"batch"`
	Seed  uint64 `json:"seed"`
	// SplitSeed chose the validation pieces when it is not Seed (a run
	// continuing another one's training keeps its split; 0: Seed).
	SplitSeed uint64  `json:"split_seed,omitempty"`
	ValFrac   float64 `json:"val_frac"`
	// Conditioning records the example builder's settings as the caller
	// gave them (condition.Options for the music model).
	Conditioning json.RawMessage  `json:"conditioning,omitempty"`
	Source       Source           `json:"source"`
	Splits       map[string]Split `json:"splits"`
}

// Options of Write.
type Options struct {
	Context       int     // T (≥ 2)
	Train, Val    int     // examples per split (Val may be 0)
	Batch         int     // rows per Fill call: engine/train's batch (≥ 1)
	Seed          uint64  // the run's seed
	SplitSeed     uint64  // seed of the train/validation split (0: Seed), as train.Options.SplitSeed
	ValFrac       float64 // share of pieces held out for validation
	ShardExamples int     // examples per shard file (0: DefaultShardExamples)

	// VocabJSON is the vocabulary file, copied beside the shards; the
	// other fields describe it.
	VocabJSON          []byte
	VocabSize          int
	PAD, BOS, EOS, SEP int
	Conditioning       any // recorded as JSON (may be nil)
	Source             Source
	Progress           func(done, total int) // after each batch; may be nil
}

// Write builds the examples of data with ex and writes them into dir
// (created if needed). Files are written atomically and manifest.json last
// (an old one is removed first), so a folder with a manifest is complete. It
// stops with ctx.Err() when ctx is cancelled.
func Write(ctx context.Context, dir string, data *train.Dataset, ex train.Examples, o Options) (*Manifest, error) {
	switch {
	case o.Context < 2 || o.Context > 1<<20:
		return nil, fmt.Errorf("examples: context %d outside 2..%d", o.Context, 1<<20)
	case o.Train < 1 || o.Val < 0:
		return nil, fmt.Errorf("examples: %d training and %d validation examples: want ≥ 1 and ≥ 0", o.Train, o.Val)
	case o.Batch < 1:
		return nil, fmt.Errorf("examples: batch %d must be ≥ 1", o.Batch)
	case o.VocabSize < 2 || int64(o.VocabSize) > 1<<32:
		return nil, fmt.Errorf("examples: vocabulary size %d", o.VocabSize)
	case len(o.VocabJSON) == 0:
		return nil, fmt.Errorf("examples: no vocabulary file given")
	case o.ValFrac < 0 || o.ValFrac >= 1:
		return nil, fmt.Errorf("examples: validation share %g outside [0, 1)", o.ValFrac)
	}
	if o.ShardExamples < 1 {
		o.ShardExamples = DefaultShardExamples
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("examples: %w", err)
	}
	if err := os.Remove(filepath.Join(dir, ManifestFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("examples: %w", err)
	}
	splitSeed := o.SplitSeed
	if splitSeed == 0 {
		splitSeed = o.Seed
	}
	trainSplit, valSplit := data.Split(o.ValFrac, splitSeed)
	if o.Val > 0 && valSplit.Pieces() == 0 {
		return nil, fmt.Errorf("%w: no piece went to validation (val share %g of %d pieces); ask for 0 validation examples or more pieces", train.ErrNoData, o.ValFrac, data.Pieces())
	}
	sum := sha256.Sum256(o.VocabJSON)
	if err := atomicfile.WriteFile(filepath.Join(dir, VocabFile), o.VocabJSON); err != nil {
		return nil, fmt.Errorf("examples: write %s: %w", VocabFile, err)
	}
	m := &Manifest{Format: Format, Version: Version, Context: o.Context, RowTokens: o.Context + 1,
		TokenDType: "uint16", LengthDType: "uint32", Batch: o.Batch, Seed: o.Seed, SplitSeed: o.SplitSeed, ValFrac: o.ValFrac,
		Vocab:  Vocab{File: VocabFile, Size: o.VocabSize, SHA256: hex.EncodeToString(sum[:]), PAD: o.PAD, BOS: o.BOS, EOS: o.EOS, SEP: o.SEP},
		Source: o.Source, Splits: map[string]Split{}}
	if o.VocabSize > 1<<16 {
		m.TokenDType = "uint32"
	}
	if o.Conditioning != nil {
		c, err := json.Marshal(o.Conditioning)
		if err != nil {
			return nil, fmt.Errorf("examples: conditioning: %w", err)
		}
		m.Conditioning = c
	}
	w := &writer{ctx: ctx, dir: dir, ex: ex, o: o, m: m, total: o.Train + o.Val}
	if err := w.split("train", trainSplit, o.Train, o.Seed); err != nil {
		return nil, err
	}
	if o.Val > 0 {
		if err := w.split("val", valSplit, o.Val, o.Seed^ValSeedXor); err != nil {
			return nil, err
		}
	} else {
		m.Splits["val"] = Split{Pieces: valSplit.Pieces(), Seed: o.Seed ^ ValSeedXor, Shards: []Shard{}}
	}
	data2, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, ManifestFile), append(data2, '\n')); err != nil {
		return nil, fmt.Errorf("examples: write %s: %w", ManifestFile, err)
	}
	return m, nil
}

type writer struct {
	ctx   context.Context
	dir   string
	ex    train.Examples
	o     Options
	m     *Manifest
	done  int
	total int
}

// split writes n examples of s drawn with seed.
func (w *writer) split(name string, s *train.Split, n int, seed uint64) error {
	B, T := w.o.Batch, w.o.Context
	in, tg := make([]int32, B*T), make([]int32, B*T)
	sp := Split{Pieces: s.Pieces(), Seed: seed, Examples: n}
	width := 2
	if w.m.TokenDType == "uint32" {
		width = 4
	}
	row := make([]byte, (T+1)*width)
	next := 0 // next example of the split
	k := uint64(0)
	have := B // rows of the current batch already used (B: fill anew)
	for shard := 0; next < n; shard++ {
		cnt := min(w.o.ShardExamples, n-next)
		sh := Shard{TokensFile: fmt.Sprintf("%s-%05d.tokens.bin", name, shard), LengthsFile: fmt.Sprintf("%s-%05d.lengths.bin", name, shard), Examples: cnt}
		lengths := make([]byte, 0, 4*cnt)
		th := sha256.New()
		tokPath := filepath.Join(w.dir, sh.TokensFile)
		tmpTok, err := atomicfile.WriteTemp(tokPath, func(f *os.File) error {
			bw := bufio.NewWriterSize(io.MultiWriter(f, th), 1<<20)
			for i := 0; i < cnt; i++ {
				if have == B {
					if err := w.ctx.Err(); err != nil {
						return err
					}
					if err := w.ex.Fill(s, k, seed, B, T, in, tg); err != nil {
						return fmt.Errorf("%s batch %d: %w", name, k, err)
					}
					k++
					have = 0
					if w.o.Progress != nil {
						w.o.Progress(w.done, w.total)
					}
				}
				r := have
				have++
				L, err := EncodeRow(in[r*T:(r+1)*T], tg[r*T:(r+1)*T], w.o.VocabSize, w.o.PAD, row)
				if err != nil {
					return fmt.Errorf("%s batch %d row %d: %w", name, k-1, r, err)
				}
				if _, err := bw.Write(row); err != nil {
					return err
				}
				lengths = binary.LittleEndian.AppendUint32(lengths, uint32(L))
				sp.Tokens += int64(L)
				sp.Targets += int64(L - 1)
				next++
				w.done++
			}
			return bw.Flush()
		})
		if err != nil {
			return fmt.Errorf("examples: %s: %w", sh.TokensFile, err)
		}
		lenPath := filepath.Join(w.dir, sh.LengthsFile)
		tmpLen, err := atomicfile.WriteTemp(lenPath, func(f *os.File) error {
			_, err := f.Write(lengths)
			return err
		})
		if err != nil {
			atomicfile.Discard(tmpTok)
			return fmt.Errorf("examples: %s: %w", sh.LengthsFile, err)
		}
		if err := atomicfile.Commit(tmpTok, tokPath); err != nil {
			atomicfile.Discard(tmpLen)
			return fmt.Errorf("examples: %s: %w", sh.TokensFile, err)
		}
		if err := atomicfile.Commit(tmpLen, lenPath); err != nil {
			return fmt.Errorf("examples: %s: %w", sh.LengthsFile, err)
		}
		lh := sha256.Sum256(lengths)
		sh.TokensSHA256, sh.LengthsSHA256 = hex.EncodeToString(th.Sum(nil)), hex.EncodeToString(lh[:])
		sp.Shards = append(sp.Shards, sh)
	}
	if w.o.Progress != nil {
		w.o.Progress(w.done, w.total)
	}
	w.m.Splits[name] = sp
	return nil
}

// EncodeRow stores one row of Fill's output (T inputs, T targets) as the
// T+1 tokens of the files (uint16 little-endian when row holds 2(T+1)
// bytes, uint32 when 4(T+1)), PAD after the sequence, after checking it as
// rowOf does; it returns the sequence's length. The export's files and the
// example stream (engine/train/stream) both store rows with it.
func EncodeRow(in, tg []int32, vocab, pad int, row []byte) (int, error) {
	T := len(in)
	width := len(row) / (T + 1)
	if len(tg) != T || (width != 2 && width != 4) || len(row) != width*(T+1) {
		return 0, fmt.Errorf("examples: row of %d bytes for %d inputs and %d targets", len(row), T, len(tg))
	}
	L, err := rowOf(in, tg, vocab, pad)
	if err != nil {
		return 0, err
	}
	for j := 0; j <= T; j++ {
		var t int32
		switch {
		case j < T:
			t = in[j]
		case L == T+1:
			t = tg[T-1]
		default:
			t = int32(pad)
		}
		if width == 2 {
			binary.LittleEndian.PutUint16(row[2*j:], uint16(t))
		} else {
			binary.LittleEndian.PutUint32(row[4*j:], uint32(t))
		}
	}
	return L, nil
}

// rowOf checks that one row of Fill's output is a shifted sequence (targets
// equal the next inputs up to the last target, no target after it, PAD
// inputs after the sequence) and returns the sequence's length.
func rowOf(in, tg []int32, vocab, pad int) (int, error) {
	T := len(in)
	n := 0 // targets present: positions 0..n-1
	for n < T && tg[n] >= 0 {
		n++
	}
	for j := n; j < T; j++ {
		if tg[j] >= 0 {
			return 0, fmt.Errorf("target %d at %d after the sequence (ended at %d): not a padded example", tg[j], j, n)
		}
	}
	L := n + 1
	for j := 0; j < T; j++ {
		if in[j] < 0 || int(in[j]) >= vocab {
			return 0, fmt.Errorf("input token %d at %d outside the vocabulary of %d", in[j], j, vocab)
		}
		if j+1 < L && j+1 < T && tg[j] != in[j+1] {
			return 0, fmt.Errorf("target %d at %d is not the next input %d", tg[j], j, in[j+1])
		}
		if j >= L && int(in[j]) != pad {
			return 0, fmt.Errorf("input %d at %d after the sequence (length %d) is not PAD %d", in[j], j, L, pad)
		}
	}
	if n > 0 && int(tg[n-1]) >= vocab {
		return 0, fmt.Errorf("target token %d outside the vocabulary of %d", tg[n-1], vocab)
	}
	return L, nil
}

// Set is an opened folder of exported examples.
type Set struct {
	Manifest
	Dir string
}

// Open reads and checks dir/manifest.json: format and version, file names,
// and the size of every file against the counts (hashes: Verify).
func Open(dir string) (*Set, error) {
	path := filepath.Join(dir, ManifestFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("examples: %w", err)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrBadExamples, path, fmt.Sprintf(format, a...))
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, bad("%v", err)
	}
	switch {
	case m.Format != Format:
		return nil, bad("format %q, want %q", m.Format, Format)
	case m.Version != Version:
		return nil, bad("version %d, this build reads %d", m.Version, Version)
	case m.Context < 2 || m.Context > 1<<20 || m.RowTokens != m.Context+1:
		return nil, bad("context %d with %d tokens per row", m.Context, m.RowTokens)
	case m.LengthDType != "uint32":
		return nil, bad("length dtype %q, want uint32", m.LengthDType)
	case m.TokenDType != "uint16" && m.TokenDType != "uint32":
		return nil, bad("token dtype %q, want uint16 or uint32", m.TokenDType)
	case m.Vocab.Size < 2 || (m.TokenDType == "uint16" && m.Vocab.Size > 1<<16):
		return nil, bad("vocabulary size %d for %s tokens", m.Vocab.Size, m.TokenDType)
	case !plainName(m.Vocab.File):
		return nil, bad("vocabulary file %q is not a plain file name", m.Vocab.File)
	}
	if _, ok := m.Splits["train"]; !ok {
		return nil, bad("no train split")
	}
	width := int64(2)
	if m.TokenDType == "uint32" {
		width = 4
	}
	for name, sp := range m.Splits {
		total := 0
		for _, sh := range sp.Shards {
			if !plainName(sh.TokensFile) || !plainName(sh.LengthsFile) {
				return nil, bad("split %s: shard files %q, %q are not plain file names", name, sh.TokensFile, sh.LengthsFile)
			}
			if sh.Examples < 1 || int64(sh.Examples) > 1<<31 {
				return nil, bad("split %s: shard %s of %d examples", name, sh.TokensFile, sh.Examples)
			}
			for _, f := range []struct {
				name string
				want int64
			}{{sh.TokensFile, int64(sh.Examples) * int64(m.RowTokens) * width}, {sh.LengthsFile, 4 * int64(sh.Examples)}} {
				st, err := os.Stat(filepath.Join(dir, f.name))
				if err != nil {
					return nil, fmt.Errorf("%w: %v", ErrBadExamples, err)
				}
				if st.Size() != f.want {
					return nil, bad("split %s: %s holds %d bytes, %d examples need %d", name, f.name, st.Size(), sh.Examples, f.want)
				}
			}
			total += sh.Examples
		}
		if total != sp.Examples {
			return nil, bad("split %s: shards hold %d examples, the split says %d", name, total, sp.Examples)
		}
	}
	return &Set{Manifest: m, Dir: dir}, nil
}

func plainName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`) && filepath.Base(s) == s
}

// Verify recomputes the hash of every file and checks each length.
func (s *Set) Verify() error {
	check := func(name, want string, each func([]byte) error) error {
		f, err := os.Open(filepath.Join(s.Dir, name))
		if err != nil {
			return fmt.Errorf("%w: %v", ErrBadExamples, err)
		}
		defer f.Close()
		h := sha256.New()
		var r io.Reader = f
		if each != nil {
			r = io.TeeReader(f, writerFunc(each))
		}
		if _, err := io.Copy(h, r); err != nil {
			return fmt.Errorf("examples: %s: %w", name, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != want {
			return fmt.Errorf("%w: %s: sha256 %s, the manifest says %s", ErrBadExamples, name, got, want)
		}
		return nil
	}
	if err := check(s.Vocab.File, s.Vocab.SHA256, nil); err != nil {
		return err
	}
	for name, sp := range s.Splits {
		for _, sh := range sp.Shards {
			if err := check(sh.TokensFile, sh.TokensSHA256, nil); err != nil {
				return err
			}
			var carry []byte
			idx := 0
			err := check(sh.LengthsFile, sh.LengthsSHA256, func(p []byte) error {
				carry = append(carry, p...)
				for len(carry) >= 4 {
					if L := binary.LittleEndian.Uint32(carry); L < 1 || int(L) > s.RowTokens {
						return fmt.Errorf("%w: split %s: %s: example %d has length %d, rows hold %d", ErrBadExamples, name, sh.LengthsFile, idx, L, s.RowTokens)
					}
					carry = carry[4:]
					idx++
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

type writerFunc func([]byte) error

func (w writerFunc) Write(p []byte) (int, error) {
	if err := w(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Row reads example i of split into row (RowTokens tokens) and returns its
// length.
func (s *Set) Row(split string, i int, row []uint32) (int, error) {
	sp, ok := s.Splits[split]
	if !ok {
		return 0, fmt.Errorf("examples: no split %q", split)
	}
	if i < 0 || i >= sp.Examples || len(row) < s.RowTokens {
		return 0, fmt.Errorf("examples: row %d of split %s (%d examples) into %d tokens", i, split, sp.Examples, len(row))
	}
	for _, sh := range sp.Shards {
		if i >= sh.Examples {
			i -= sh.Examples
			continue
		}
		width := 2
		if s.TokenDType == "uint32" {
			width = 4
		}
		buf := make([]byte, s.RowTokens*width)
		if err := readAt(filepath.Join(s.Dir, sh.TokensFile), buf, int64(i)*int64(len(buf))); err != nil {
			return 0, err
		}
		for j := range s.RowTokens {
			if width == 2 {
				row[j] = uint32(binary.LittleEndian.Uint16(buf[2*j:]))
			} else {
				row[j] = binary.LittleEndian.Uint32(buf[4*j:])
			}
		}
		var lb [4]byte
		if err := readAt(filepath.Join(s.Dir, sh.LengthsFile), lb[:], 4*int64(i)); err != nil {
			return 0, err
		}
		L := int(binary.LittleEndian.Uint32(lb[:]))
		if L < 1 || L > s.RowTokens {
			return 0, fmt.Errorf("%w: %s: example %d has length %d, rows hold %d", ErrBadExamples, sh.LengthsFile, i, L, s.RowTokens)
		}
		return L, nil
	}
	return 0, fmt.Errorf("%w: split %s: shards hold fewer than %d examples", ErrBadExamples, split, sp.Examples)
}

func readAt(path string, buf []byte, off int64) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("examples: %w", err)
	}
	defer f.Close()
	if _, err := f.ReadAt(buf, off); err != nil {
		return fmt.Errorf("examples: %s: %w", path, err)
	}
	return nil
}
