// Package stream is the example source of training beyond one machine: it
// builds the conditioned training examples of the music model
// (engine/train/condition) from token shards as a trainer asks for them,
// so a cluster run needs only the shards (`amt examples --serve`, read by
// cluster/train.py --shards; docs/CLUSTER.md). It is the one implementation
// of the conditioning outside engine/train: the trainer in Python asks for
// examples by number and gets rows, never re-implementing a rule.
//
// Examples are numbered per split, and example i is row i mod Batch of the
// batch number i div Batch that condition.Builder.Fill draws with the
// split's seed (training: Seed; validation: Seed ^ examples.ValSeedXor), so
// it is a function of (shards, options, seed, i) alone: a rank of a
// distributed run asks for the numbers of its share of each step and gets
// the same rows whichever rank, process or machine builds them, and the
// rows `amt examples --write` (or `amt datasets --export-examples`) stores
// for the same numbers. Pieces are split into train and validation as
// engine/train splits them (Dataset.Split(ValFrac, SplitSeed)).
//
// The wire protocol (little-endian; the client writes requests on the
// server's input, the server answers on its output in request order):
//
//	server, once:   "AMTS" u32 version u32 n  header JSON (n bytes; Header)
//	client:         "train 0+64\n", "val 1 3 5\n": a split, then example
//	                numbers, each I or I+N (N numbers from I); at most
//	                Header.MaxRows numbers a request, lines ≤ 1 MiB
//	server, each:   "AMTR" u32 status u32 n, then for status 0 n lengths
//	                (u32) and n rows of Header.RowTokens tokens
//	                (Header.TokenDType); for status 1 an error message of
//	                n bytes, after which the server stops
//
// A row is stored as the exported files store it (examples.EncodeRow):
// the example's L ≤ T+1 tokens, PAD after them; inputs row[:T], targets
// row[1:] with none at positions ≥ L−1. The client may send the next
// request before reading an answer (the server builds it meanwhile); at
// most three answers are in memory at once, each at most MaxAnswerBytes,
// beside the memory-mapped shards. End of input ends the server (exit 0);
// a cancelled context or a failed write ends it with the error.
//
// It imports engine/train, engine/train/condition, engine/train/examples
// and engine/token; never app/, ui/ or storage/.
package stream

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/engine/train/condition"
	"github.com/amtstudio/amt/engine/train/examples"
)

// Format and Version name the protocol in the header.
const (
	Format  = "amt-example-stream"
	Version = 1
)

// MaxAnswerBytes bounds one answer's rows (a request asks for at most
// Header.MaxRows = MaxAnswerBytes / row size, at most 65,536).
const MaxAnswerBytes = 32 << 20

// maxLine bounds a request line.
const maxLine = 1 << 20

// ErrRequest marks a malformed request.
var ErrRequest = errors.New("stream: bad request")

// Spec says which examples a Source builds: the flags of `amt examples`.
type Spec struct {
	Shards    string  // folder walked for NAME.bin/NAME.idx shards and vocab.json
	Context   int     // T: inputs per example
	Batch     int     // engine/train's batch: example i is row i mod Batch of batch i div Batch
	Seed      uint64  // seed of the examples (and of the split when SplitSeed is 0)
	SplitSeed uint64  // seed of the validation split (0: Seed), as trainmodel --split-seed
	ValFrac   float64 // share of pieces held out for validation
	// KeyLabels ("window", "piece"), KeyFrame ("tonic", "absolute") and
	// StartProb (< 0: the default) adjust condition.DefaultOptions as
	// trainmodel's flags of the same names do.
	KeyLabels, KeyFrame string
	StartProb           float64
	Workers             int // goroutines building the rows of a request (0: one per core)
}

// DefaultSpec: condition.DefaultOptions (the default model's second run:
// window keys, tonic frame) and `amt datasets --export-examples`' defaults.
func DefaultSpec() Spec {
	return Spec{Context: 256, Batch: 8, Seed: 1, ValFrac: 0.05, KeyLabels: "window", KeyFrame: "tonic", StartProb: -1}
}

// Header describes a stream: the server sends it first.
type Header struct {
	Format     string         `json:"format"`
	Version    int            `json:"version"`
	Context    int            `json:"context"`
	RowTokens  int            `json:"row_tokens"`
	TokenDType string         `json:"token_dtype"`
	Vocab      examples.Vocab `json:"vocab"`
	// VocabJSON is the vocabulary file itself (the trainer copies it into
	// the model folder).
	VocabJSON    string          `json:"vocab_json"`
	Batch        int             `json:"batch"`
	Seed         uint64          `json:"seed"`
	SplitSeed    uint64          `json:"split_seed"`
	ValFrac      float64         `json:"val_frac"`
	Conditioning json.RawMessage `json:"conditioning"`
	Source       examples.Source `json:"source"`
	// PiecesSHA256 is a digest of the pieces' lengths in order: a
	// checkpoint records the header, so a resume on other shards fails.
	PiecesSHA256 string           `json:"pieces_sha256"`
	Splits       map[string]Split `json:"splits"`
	MaxRows      int              `json:"max_rows"`
}

// Split describes one split of the stream.
type Split struct {
	Pieces int    `json:"pieces"`
	Tokens int    `json:"tokens"`
	Seed   uint64 `json:"seed"` // the seed Fill is given
}

// Source builds the examples of a Spec.
type Source struct {
	spec    Spec
	data    *train.Dataset
	vocab   *token.Vocab
	vj      []byte
	cond    condition.Options
	builder *condition.Builder
	splits  map[string]*train.Split
	seeds   map[string]uint64
	header  Header
	width   int
}

// Open opens the shards of spec and checks the options.
func Open(spec Spec) (*Source, error) {
	switch {
	case spec.Shards == "":
		return nil, fmt.Errorf("%w: no shards folder", ErrRequest)
	case spec.Context < 2 || spec.Context > 1<<20:
		return nil, fmt.Errorf("%w: context %d outside 2..%d", ErrRequest, spec.Context, 1<<20)
	case spec.Batch < 1:
		return nil, fmt.Errorf("%w: batch %d must be ≥ 1", ErrRequest, spec.Batch)
	case spec.ValFrac < 0 || spec.ValFrac >= 1:
		return nil, fmt.Errorf("%w: validation share %g outside [0, 1)", ErrRequest, spec.ValFrac)
	}
	co := condition.DefaultOptions()
	for _, err := range []error{co.SetKeyLabels(spec.KeyLabels), co.SetKeyFrame(spec.KeyFrame), co.SetStartProb(spec.StartProb)} {
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrRequest, err)
		}
	}
	vj, vpath, err := shardsVocab(spec.Shards)
	if err != nil {
		return nil, err
	}
	v, err := token.ParseVocab(vj)
	if err != nil {
		return nil, fmt.Errorf("stream: %s: %w", vpath, err)
	}
	data, err := train.OpenDir(spec.Shards, v.Size(), nil)
	if err != nil {
		return nil, err
	}
	splitSeed := spec.SplitSeed
	if splitSeed == 0 {
		splitSeed = spec.Seed
	}
	tr, va := data.Split(spec.ValFrac, splitSeed)
	s := &Source{spec: spec, data: data, vocab: v, vj: vj, cond: co, builder: condition.New(v, co),
		splits: map[string]*train.Split{"train": tr, "val": va},
		seeds:  map[string]uint64{"train": spec.Seed, "val": spec.Seed ^ examples.ValSeedXor}, width: 2}
	if v.Size() > 1<<16 {
		s.width = 4
	}
	cj, _ := json.Marshal(co)
	sum := sha256.Sum256(vj)
	h := sha256.New()
	var b [8]byte
	for _, sp := range []*train.Split{tr, va} {
		for i := 0; i < sp.Pieces(); i++ {
			binary.LittleEndian.PutUint64(b[:], uint64(sp.PieceLen(i)))
			h.Write(b[:])
		}
		h.Write([]byte{0xff})
	}
	rowBytes := 4 + s.width*(spec.Context+1)
	s.header = Header{Format: Format, Version: Version, Context: spec.Context, RowTokens: spec.Context + 1,
		TokenDType: map[int]string{2: "uint16", 4: "uint32"}[s.width],
		Vocab: examples.Vocab{File: examples.VocabFile, Size: v.Size(), SHA256: hex.EncodeToString(sum[:]),
			PAD: int(v.PAD), BOS: int(v.BOS), EOS: int(v.EOS), SEP: int(v.SEP)},
		VocabJSON: string(vj), Batch: spec.Batch, Seed: spec.Seed, SplitSeed: splitSeed, ValFrac: spec.ValFrac,
		Conditioning: cj, Source: examples.Source{Pieces: data.Pieces(), Tokens: data.Tokens()},
		PiecesSHA256: hex.EncodeToString(h.Sum(nil)),
		Splits: map[string]Split{"train": {Pieces: tr.Pieces(), Tokens: tr.Tokens(), Seed: s.seeds["train"]},
			"val": {Pieces: va.Pieces(), Tokens: va.Tokens(), Seed: s.seeds["val"]}},
		MaxRows: max(1, min(1<<16, MaxAnswerBytes/rowBytes))}
	return s, nil
}

// shardsVocab returns the vocab.json under dir (several dataset exports
// side by side each hold one: they must be the same file).
func shardsVocab(dir string) ([]byte, string, error) {
	var first []byte
	var firstPath string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != examples.VocabFile {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if first == nil {
			first, firstPath = b, p
		} else if !bytes.Equal(b, first) {
			return fmt.Errorf("stream: %s and %s differ: the shards under %s belong to different vocabularies", firstPath, p, dir)
		}
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("stream: shards %s: %w", dir, err)
	}
	if first == nil {
		return nil, "", fmt.Errorf("stream: shards %s: no %s (amt datasets --export writes it beside the shards)", dir, examples.VocabFile)
	}
	return first, firstPath, nil
}

// Close unmaps the shards.
func (s *Source) Close() error { return s.data.Close() }

// Header is what the server sends first.
func (s *Source) Header() Header { return s.header }

// Dataset, Vocab, VocabJSON and Conditioning are what the Source builds
// from (for `amt examples --write`).
func (s *Source) Dataset() *train.Dataset          { return s.data }
func (s *Source) Vocab() *token.Vocab              { return s.vocab }
func (s *Source) VocabJSON() []byte                { return s.vj }
func (s *Source) Conditioning() condition.Options  { return s.cond }
func (s *Source) Builder() *condition.Builder      { return s.builder }
func (s *Source) SplitSeed() uint64                { return s.header.SplitSeed }
func (s *Source) SplitOf(name string) *train.Split { return s.splits[name] }

// Row builds example i of split into row (RowTokens tokens of the
// header's width, as examples.EncodeRow stores it) and returns its length;
// in and tg are scratch of Context int32 each.
func (s *Source) Row(split string, i uint64, row []byte, in, tg []int32) (int, error) {
	sp, ok := s.splits[split]
	if !ok {
		return 0, fmt.Errorf("%w: split %q (train or val)", ErrRequest, split)
	}
	if sp.Pieces() == 0 {
		return 0, fmt.Errorf("%w: the %s split has no pieces (%d pieces, validation share %g)", train.ErrNoData, split, s.data.Pieces(), s.spec.ValFrac)
	}
	B := uint64(s.spec.Batch)
	k, r := i/B, int(i%B)
	// Read: a shard file cut short under the map is an error naming it,
	// not SIGBUS.
	if err := sp.Read(func() error { return s.builder.FillRow(sp, k, s.seeds[split], r, s.spec.Context, in, tg) }); err != nil {
		return 0, fmt.Errorf("stream: %s example %d (batch %d row %d) from %s: %w", split, i, k, r, s.spec.Shards, err)
	}
	L, err := examples.EncodeRow(in, tg, s.vocab.Size(), int(s.vocab.PAD), row)
	if err != nil {
		return 0, fmt.Errorf("stream: %s example %d (batch %d row %d) from %s: %w", split, i, k, r, s.spec.Shards, err)
	}
	return L, nil
}

// request is one parsed request line (err: why it is not one).
type request struct {
	n     int // its number, from 1
	split string
	idx   []uint64
	err   error
}

// answer is one built answer.
type answer struct {
	n    int
	rows int
	buf  []byte // header + lengths + rows
	err  error
}

// parseRequest reads "SPLIT I I+N …".
func parseRequest(line string, maxRows int) (string, []uint64, error) {
	f := strings.Fields(line)
	if len(f) < 2 {
		return "", nil, fmt.Errorf("%w: %q: want a split (train or val) and example numbers", ErrRequest, clip(line))
	}
	if f[0] != "train" && f[0] != "val" {
		return "", nil, fmt.Errorf("%w: split %q: want train or val", ErrRequest, clip(f[0]))
	}
	var idx []uint64
	for _, it := range f[1:] {
		a, n := it, "1"
		if j := strings.IndexByte(it, '+'); j >= 0 {
			a, n = it[:j], it[j+1:]
		}
		i, err1 := strconv.ParseUint(a, 10, 64)
		c, err2 := strconv.ParseUint(n, 10, 64)
		if err1 != nil || err2 != nil || c == 0 || i >= 1<<53 || c > 1<<53-i {
			return "", nil, fmt.Errorf("%w: %q: want an example number I < 2^53 or I+N, N ≥ 1", ErrRequest, clip(it))
		}
		if uint64(len(idx))+c > uint64(maxRows) {
			return "", nil, fmt.Errorf("%w: more than %d examples in one request (the answer would pass %d MiB)", ErrRequest, maxRows, MaxAnswerBytes>>20)
		}
		for k := uint64(0); k < c; k++ {
			idx = append(idx, i+k)
		}
	}
	return f[0], idx, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// Serve answers the requests read from in on out (the protocol of the
// package doc) until in ends (nil), ctx is cancelled (ctx.Err()) or a
// request fails (the error, also sent to the client). Rows are built by
// Spec.Workers goroutines; the next request is built while the previous
// answer is written. The goroutine reading in ends when in does (the
// caller closes it or the process exits).
func (s *Source) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	hj, err := json.Marshal(s.header)
	if err != nil {
		return err
	}
	var head bytes.Buffer
	head.WriteString("AMTS")
	binary.Write(&head, binary.LittleEndian, [2]uint32{Version, uint32(len(hj))})
	head.Write(hj)
	if _, err := out.Write(head.Bytes()); err != nil {
		return fmt.Errorf("stream: write header: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reqs := make(chan request, 2)
	go func() { // ends with in
		defer close(reqs)
		br := bufio.NewReaderSize(in, 64<<10)
		for n := 1; ; n++ {
			line, err := readLine(br)
			if err == io.EOF && line == "" {
				return
			}
			r := request{n: n}
			if err != nil && err != io.EOF {
				r.err = fmt.Errorf("stream: request %d: %w", n, err)
			} else {
				r.split, r.idx, r.err = parseRequest(line, s.header.MaxRows)
				if r.err != nil {
					r.err = fmt.Errorf("stream: request %d: %w", n, r.err)
				}
			}
			select {
			case reqs <- r:
			case <-ctx.Done():
				return
			}
			if r.err != nil || err == io.EOF {
				return
			}
		}
	}()
	// Three answer buffers: one written, one waiting, one being built.
	free := make(chan []byte, 3)
	for range 3 {
		free <- nil
	}
	answers := make(chan answer, 1)
	werr := make(chan error, 1)
	go func() {
		var err error
		for a := range answers {
			if err == nil {
				if a.err != nil {
					msg := []byte(a.err.Error())
					var h [12]byte
					copy(h[:], "AMTR")
					binary.LittleEndian.PutUint32(h[4:], 1)
					binary.LittleEndian.PutUint32(h[8:], uint32(len(msg)))
					out.Write(append(h[:], msg...))
					err = a.err
				} else if _, e := out.Write(a.buf); e != nil {
					err = fmt.Errorf("stream: answer %d: write: %w", a.n, e)
					cancel()
				}
			}
			free <- a.buf
		}
		werr <- err
	}()
	workers := s.spec.Workers
	if workers < 1 {
		workers = runtime.NumCPU()
	}
	var buildErr error
loop:
	for {
		var r request
		var ok bool
		select {
		case r, ok = <-reqs:
			if !ok {
				break loop
			}
		case <-ctx.Done():
			buildErr = ctx.Err()
			break loop
		}
		var buf []byte
		select {
		case buf = <-free:
		case <-ctx.Done():
			buildErr = ctx.Err()
			break loop
		}
		a := answer{n: r.n, err: r.err}
		if a.err == nil {
			a.buf, a.err = s.build(ctx, r, buf, workers)
		} else {
			a.buf = buf
		}
		answers <- a
		if a.err != nil {
			break
		}
	}
	close(answers)
	if err := <-werr; err != nil {
		return err
	}
	if buildErr != nil {
		return buildErr
	}
	return ctx.Err()
}

// readLine reads one line of at most maxLine bytes (without its newline).
func readLine(br *bufio.Reader) (string, error) {
	var sb strings.Builder
	for {
		chunk, isPrefix, err := br.ReadLine()
		sb.Write(chunk)
		if sb.Len() > maxLine {
			return "", fmt.Errorf("%w: a line longer than %d bytes", ErrRequest, maxLine)
		}
		if err != nil {
			return sb.String(), err
		}
		if !isPrefix {
			return sb.String(), nil
		}
	}
}

// build makes the answer of r in buf (grown as needed).
func (s *Source) build(ctx context.Context, r request, buf []byte, workers int) ([]byte, error) {
	n := len(r.idx)
	T := s.spec.Context
	rowBytes := s.width * (T + 1)
	size := 12 + 4*n + rowBytes*n
	if cap(buf) < size {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	copy(buf, "AMTR")
	binary.LittleEndian.PutUint32(buf[4:], 0)
	binary.LittleEndian.PutUint32(buf[8:], uint32(n))
	lengths, rows := buf[12:12+4*n], buf[12+4*n:]
	w := min(workers, n)
	errs := make([]error, w)
	var wg sync.WaitGroup
	for g := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in, tg := make([]int32, T), make([]int32, T)
			for j := g; j < n; j += w {
				if ctx.Err() != nil {
					errs[g] = ctx.Err()
					return
				}
				L, err := s.Row(r.split, r.idx[j], rows[j*rowBytes:(j+1)*rowBytes], in, tg)
				if err != nil {
					errs[g] = err
					return
				}
				binary.LittleEndian.PutUint32(lengths[4*j:], uint32(L))
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return buf, fmt.Errorf("request %d: %w", r.n, err)
		}
	}
	return buf, nil
}

// DefineFlags defines the options of the examples on fs, with s's values as
// defaults: the flags of `amt examples` (app/cli/examples.go) and of its
// headless build (scripts/amt-examples), one definition for both.
func (s *Spec) DefineFlags(fs *flag.FlagSet) {
	fs.StringVar(&s.Shards, "shards", s.Shards, "folder of token shards (NAME.bin + NAME.idx and vocab.json, as amt datasets --export writes them; walked recursively)")
	fs.IntVar(&s.Context, "context", s.Context, "tokens per example (the model's input length)")
	fs.IntVar(&s.Batch, "batch", s.Batch, "engine/train's batch: example i is row i mod B of batch i div B (trainmodel's --batch: a trainer with the same batch sees its batches)")
	fs.Uint64Var(&s.Seed, "seed", s.Seed, "seed of the examples (and of the split unless --split-seed)")
	fs.Uint64Var(&s.SplitSeed, "split-seed", s.SplitSeed, "seed of the validation split (0: --seed), as trainmodel --split-seed")
	fs.Float64Var(&s.ValFrac, "val-frac", s.ValFrac, "share of pieces held out for validation (trainmodel: 0.03)")
	fs.StringVar(&s.KeyLabels, "key-labels", s.KeyLabels, "KEY labels: window (each window's estimated key) or piece (the piece's key)")
	fs.StringVar(&s.KeyFrame, "key-frame", s.KeyFrame, "pitch frame: tonic (every window moved to C major / A minor) or absolute (every key)")
	fs.Float64Var(&s.StartProb, "start-prob", s.StartProb, "share of examples that open their piece (< 0: the default, 0.2)")
	fs.IntVar(&s.Workers, "workers", s.Workers, "goroutines building the rows of a request (0: one per core)")
}
