// Package train owns the training loop of the GPT model: batches of random
// windows from memory-mapped token shards through a prefetching goroutine,
// a train/validation split by piece, AdamW with warm-up and cosine decay,
// gradient clipping and accumulation, periodic validation, atomic
// checkpoints that resume onto the same loss curve, and per-step events with
// stage timings. A run claims its output folder (ClaimDir, claim.go): one
// run per folder under a lock a killed run does not leave behind, and no
// fresh run over a checkpoint unless asked. A fine-tune (finetune.go) is
// the same loop from a trained model's weights: the starting model's
// held-out loss first, the best validated weights kept as the model, an
// early stop when the held-out loss stops falling, and each piece's origin
// (Split.Origins) so the held-out pieces can be named.
//
// It depends on engine/gpt and engine/nn only; MIDI files reach it through a
// Tokenizer function supplied by the caller. It must never import app/, ui/
// or storage/.
package train

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/amtstudio/amt/engine/userfile"
	"github.com/amtstudio/amt/internal/splitmix"
)

// ErrBadShard marks a token shard whose files are malformed.
var ErrBadShard = errors.New("train: bad shard")

// ErrNoData marks a data folder without usable pieces.
var ErrNoData = errors.New("train: no training data")

// MaxIndexBytes bounds a shard's .idx file (8 bytes a piece: 128 M
// pieces).
const MaxIndexBytes = 1 << 30

// Shard is one memory-mapped token shard: NAME.bin (uint16 LE tokens, pieces
// concatenated) and NAME.idx (uint64 LE offsets of each piece, then the
// total token count).
type Shard struct {
	Name   string
	bin    []byte
	starts []uint64
	unmap  func() error
}

// OpenShard maps NAME.bin and reads NAME.idx, checking that the offsets start
// at 0, never decrease, and end at the token count of the .bin file.
func OpenShard(binPath string) (*Shard, error) {
	idxPath := strings.TrimSuffix(binPath, ".bin") + ".idx"
	idx, err := userfile.ReadRegular(context.Background(), idxPath, MaxIndexBytes)
	if err != nil {
		return nil, fmt.Errorf("train: shard %s: %w", binPath, err)
	}
	if len(idx)%8 != 0 || len(idx) < 16 {
		return nil, fmt.Errorf("%w: %s: %d bytes is not n+1 ≥ 2 uint64 offsets", ErrBadShard, idxPath, len(idx))
	}
	starts := make([]uint64, len(idx)/8)
	for i := range starts {
		starts[i] = binary.LittleEndian.Uint64(idx[8*i:])
	}
	f, _, err := userfile.OpenRegular(binPath) // a FIFO or a device is no shard
	if err != nil {
		return nil, fmt.Errorf("train: shard %s: %w", binPath, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("train: shard %s: %w", binPath, err)
	}
	size := st.Size()
	if size%2 != 0 {
		return nil, fmt.Errorf("%w: %s: odd size %d for uint16 tokens", ErrBadShard, binPath, size)
	}
	n := uint64(size / 2)
	if starts[0] != 0 || starts[len(starts)-1] != n {
		return nil, fmt.Errorf("%w: %s: offsets run %d..%d, the .bin holds %d tokens", ErrBadShard, idxPath, starts[0], starts[len(starts)-1], n)
	}
	for i := 1; i < len(starts); i++ {
		if starts[i] < starts[i-1] {
			return nil, fmt.Errorf("%w: %s: offset %d of piece %d is before %d", ErrBadShard, idxPath, starts[i], i, starts[i-1])
		}
	}
	s := &Shard{Name: binPath, starts: starts, unmap: func() error { return nil }}
	if size > 0 {
		if s.bin, s.unmap, err = mapFile(f, int(size)); err != nil {
			return nil, fmt.Errorf("train: map %s: %w", binPath, err)
		}
	}
	return s, nil
}

// Pieces is the number of pieces.
func (s *Shard) Pieces() int { return len(s.starts) - 1 }

// Close unmaps the shard.
func (s *Shard) Close() error { return s.unmap() }

// Tokenizer turns one MIDI file into an encoded sequence (BOS … EOS).
type Tokenizer func(path string) ([]uint16, error)

// piece is one sequence as little-endian uint16 bytes (a view of a mapped
// shard, or memory from the tokenizer).
type piece []byte

func (p piece) len() int { return len(p) / 2 }

// Origin says where a piece came from: a MIDI file (File), or a shard
// (Shard, the .bin path) and the piece's first token in it (Offset). A
// fine-tune lists its held-out pieces by origin, so that a report can
// compare the model with exactly those (app/train_report.go).
type Origin struct {
	File   string `json:"file,omitempty"`
	Shard  string `json:"shard,omitempty"`
	Offset uint64 `json:"offset,omitempty"`
}

// Dataset is the pieces of a data folder.
type Dataset struct {
	pieces  []piece
	from    []*Shard // per piece: its shard, nil in memory
	origins []Origin // per piece
	shards  []*Shard
	// Skipped lists MIDI files the tokenizer rejected, with the reason,
	// and entries named like shards or MIDI files that are not regular
	// files (a named pipe, a device, a dangling symlink: never opened).
	Skipped []string
}

// OpenDir opens every NAME.bin/NAME.idx shard under dir; MIDI files
// (.mid/.midi) are tokenized with tok (nil: MIDI files are an error). Every
// token is checked against the vocabulary size.
func OpenDir(dir string, vocab int, tok Tokenizer) (*Dataset, error) {
	var bins, mids, special []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		ext := strings.ToLower(filepath.Ext(p))
		if ext != ".bin" && ext != ".mid" && ext != ".midi" {
			return nil
		}
		if why, _ := userfile.Skip(p, d); why != "" { // never opened: a FIFO would wait for a writer forever
			special = append(special, fmt.Sprintf("%s: skipped: %s", p, why))
			return nil
		}
		switch ext {
		case ".bin":
			bins = append(bins, p)
		case ".mid", ".midi":
			mids = append(mids, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("train: data %s: %w", dir, err)
	}
	sort.Strings(bins)
	sort.Strings(mids)
	ds := &Dataset{Skipped: special}
	for _, b := range bins {
		s, err := OpenShard(b)
		if err != nil {
			ds.Close()
			return nil, err
		}
		ds.shards = append(ds.shards, s)
		for i := 0; i < s.Pieces(); i++ {
			p := piece(s.bin[2*s.starts[i] : 2*s.starts[i+1]])
			if p.len() == 0 {
				continue
			}
			if err := checkTokens(p, vocab); err != nil {
				ds.Close()
				return nil, fmt.Errorf("%w: %s: piece %d: %v", ErrBadShard, b, i, err)
			}
			ds.pieces = append(ds.pieces, p)
			ds.from = append(ds.from, s)
			ds.origins = append(ds.origins, Origin{Shard: b, Offset: s.starts[i]})
		}
	}
	if len(mids) > 0 && tok == nil {
		ds.Close()
		return nil, fmt.Errorf("train: data %s holds MIDI files but no tokenizer was given", dir)
	}
	for _, m := range mids {
		toks, err := tok(m)
		if err != nil {
			ds.Skipped = append(ds.Skipped, fmt.Sprintf("%s: %v", m, err))
			continue
		}
		p := make(piece, 2*len(toks))
		for i, t := range toks {
			binary.LittleEndian.PutUint16(p[2*i:], t)
		}
		if err := checkTokens(p, vocab); err != nil {
			ds.Close()
			return nil, fmt.Errorf("train: %s: tokenizer: %v", m, err)
		}
		ds.pieces = append(ds.pieces, p)
		ds.from = append(ds.from, nil)
		ds.origins = append(ds.origins, Origin{File: m})
	}
	if len(ds.pieces) == 0 {
		ds.Close()
		return nil, fmt.Errorf("%w: no token shards (NAME.bin + NAME.idx) or MIDI files with notes under %s", ErrNoData, dir)
	}
	return ds, nil
}

func checkTokens(p piece, vocab int) error {
	for i := 0; i < p.len(); i++ {
		if t := binary.LittleEndian.Uint16(p[2*i:]); int(t) >= vocab {
			return fmt.Errorf("token %d at %d outside the vocabulary of %d", t, i, vocab)
		}
	}
	return nil
}

// NewDataset holds in-memory pieces (tests, generated data).
func NewDataset(pieces [][]uint16) *Dataset {
	ds := &Dataset{}
	for _, toks := range pieces {
		p := make(piece, 2*len(toks))
		for i, t := range toks {
			binary.LittleEndian.PutUint16(p[2*i:], t)
		}
		ds.pieces = append(ds.pieces, p)
		ds.from = append(ds.from, nil)
		ds.origins = append(ds.origins, Origin{})
	}
	return ds
}

// Pieces is the number of pieces; Tokens the number of tokens.
func (d *Dataset) Pieces() int { return len(d.pieces) }

func (d *Dataset) Tokens() int {
	n := 0
	for _, p := range d.pieces {
		n += p.len()
	}
	return n
}

// Close unmaps the shards.
func (d *Dataset) Close() error {
	var first error
	for _, s := range d.shards {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	d.shards = nil
	return first
}

// Split divides the pieces into train and validation by piece: piece i goes
// to validation when a hash of (seed, i) falls under valFrac. With two or
// more pieces, each side gets at least one, and so does every source
// (PieceSource: the folder of a piece's shard) of two or more pieces: its
// piece of the lowest hash is held out when none fell under valFrac, so
// that a small corpus in a mixture (OpenMSX's 31 pieces at 3%) is
// validated too (issue 35).
func (d *Dataset) Split(valFrac float64, seed uint64) (train, val *Split) {
	train, val = &Split{}, &Split{}
	hash := make([]uint64, len(d.pieces))
	toVal := make([]bool, len(d.pieces))
	type lowest struct {
		i, n int
		h    uint64
		held bool
	}
	bySource := map[string]*lowest{}
	for i := range d.pieces {
		hash[i] = mix(seed ^ uint64(i)*0x9e3779b97f4a7c15)
		toVal[i] = float64(hash[i]>>11)/float64(1<<53) < valFrac
		src := sourceOf(d.from[i])
		l := bySource[src]
		if l == nil {
			l = &lowest{i: i, h: hash[i]}
			bySource[src] = l
		}
		l.n++
		l.held = l.held || toVal[i]
		if hash[i] < l.h {
			l.i, l.h = i, hash[i]
		}
	}
	if valFrac > 0 && len(bySource) > 1 {
		for _, l := range bySource {
			if !l.held && l.n >= 2 {
				toVal[l.i] = true
			}
		}
	}
	for i, p := range d.pieces {
		side := train
		if toVal[i] {
			side = val
		}
		side.add(p, d.from[i], d.origins[i])
		if d.from[i] != nil {
			side.addShard(d.from[i])
		}
	}
	if len(d.pieces) >= 2 && valFrac > 0 {
		if len(val.pieces) == 0 {
			last := len(train.pieces) - 1
			moved := train.pieces[last]
			val.add(moved, train.from[last], train.origins[last])
			train.pieces, train.from, train.origins, train.cum = train.pieces[:last], train.from[:last], train.origins[:last], train.cum[:last]
			train.total -= moved.len() // a window must not run past the last piece (found by FuzzShard)
		}
		if len(train.pieces) == 0 {
			train.add(val.pieces[0], val.from[0], val.origins[0])
			val = &Split{pieces: nil}
			for i, p := range d.pieces[1:] {
				val.add(p, d.from[i+1], d.origins[i+1])
			}
		}
		// A moved piece's shard: both sides may read every shard.
		for _, s := range d.shards {
			train.addShard(s)
			val.addShard(s)
		}
	}
	return train, val
}

// mix is splitmix64's next output from state z (a step, then the finaliser).
func mix(z uint64) uint64 { return splitmix.Mix64(z + splitmix.Gamma) }

// Split is a set of pieces seen as one concatenated token stream.
type Split struct {
	pieces  []piece
	from    []*Shard // per piece: its shard, nil in memory
	origins []Origin
	cum     []int // cum[i] = tokens before piece i
	total   int
	shards  []*Shard // the mapped shards its pieces live in
}

func (s *Split) addShard(sh *Shard) {
	for _, x := range s.shards {
		if x == sh {
			return
		}
	}
	s.shards = append(s.shards, sh)
}

func (s *Split) add(p piece, from *Shard, o Origin) {
	s.pieces = append(s.pieces, p)
	s.from = append(s.from, from)
	s.origins = append(s.origins, o)
	s.cum = append(s.cum, s.total)
	s.total += p.len()
}

// Origins lists where each piece of the split came from, in order.
func (s *Split) Origins() []Origin { return append([]Origin(nil), s.origins...) }

// Pieces and Tokens count the split.
func (s *Split) Pieces() int { return len(s.pieces) }
func (s *Split) Tokens() int { return s.total }

// window copies n tokens of the concatenated stream from offset off into dst.
func (s *Split) window(dst []int32, off int) {
	i := sort.Search(len(s.cum), func(i int) bool { return s.cum[i] > off }) - 1
	j := off - s.cum[i]
	for k := range dst {
		for j >= s.pieces[i].len() {
			i, j = i+1, 0
		}
		dst[k] = int32(binary.LittleEndian.Uint16(s.pieces[i][2*j:]))
		j++
	}
}

// Batch fills inputs and targets (B·T each) with batch number k: B windows
// at offsets drawn from a generator seeded by (seed, k), so a batch depends
// only on its number and a resumed run sees the same batches.
func (s *Split) Batch(k, seed uint64, B, T int, inputs, targets, scratch []int32) (err error) {
	defer s.guard(&err, debug.SetPanicOnFault(true))
	if s.total < T+1 {
		return fmt.Errorf("%w: %d tokens, a window needs %d", ErrNoData, s.total, T+1)
	}
	state := mix(seed ^ mix(k+0x632be59bd9b4e019))
	for b := 0; b < B; b++ {
		state = mix(state)
		off := int(state % uint64(s.total-T))
		w := scratch[:T+1]
		s.window(w, off)
		copy(inputs[b*T:(b+1)*T], w[:T])
		copy(targets[b*T:(b+1)*T], w[1:])
	}
	return nil
}

// Read runs fn, which reads the split's pieces (PieceLen, AppendPiece: an
// Examples implementation), and returns its error, or an error wrapping
// ErrBadShard that names the shard when a mapped shard file was cut short
// under it: reading a page a truncated file no longer has faults (SIGBUS),
// which the runtime turns into a panic here instead of killing the
// process. Batch reads through the same guard.
func (s *Split) Read(fn func() error) (err error) {
	defer s.guard(&err, debug.SetPanicOnFault(true))
	return fn()
}

// guard, deferred with the fault mode it replaced, restores that mode and
// turns a memory fault since into an error naming the shard that changed.
func (s *Split) guard(err *error, oldMode bool) {
	debug.SetPanicOnFault(oldMode)
	r := recover()
	if r == nil {
		return
	}
	if _, fault := r.(interface{ Addr() uintptr }); !fault {
		panic(r) // not a fault of the map: a bug, not bad data
	}
	*err = s.changedShard(r)
}

// changedShard names the shard whose file no longer holds what was mapped.
func (s *Split) changedShard(fault any) error {
	for _, sh := range s.shards {
		fi, err := os.Stat(sh.Name)
		if err != nil {
			return fmt.Errorf("%w: %s: %v while training (%v)", ErrBadShard, sh.Name, err, fault)
		}
		if fi.Size() < int64(len(sh.bin)) {
			return fmt.Errorf("%w: %s was cut to %d bytes while training (%d were mapped): restore it or restart training (%v)", ErrBadShard, sh.Name, fi.Size(), len(sh.bin), fault)
		}
	}
	return fmt.Errorf("%w: a mapped shard could not be read while training (%v)", ErrBadShard, fault)
}
