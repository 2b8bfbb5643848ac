package pipeline

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/amtstudio/amt/engine/atomicfile"
)

// ErrBadShard marks a shard pair that does not follow the format.
var ErrBadShard = errors.New("bad shard")

// WriteShard writes pieces as the shard pair dir/name.bin (uint16 LE
// tokens, pieces concatenated) and dir/name.idx (uint64 LE start offsets of
// each piece, then the total), each atomically (temp file, fsync, rename).
func WriteShard(dir, name string, pieces [][]uint16) (ShardFile, error) {
	var total int64
	for _, p := range pieces {
		total += int64(len(p))
	}
	idx := make([]byte, 0, 8*(len(pieces)+1))
	var off uint64
	for _, p := range pieces {
		idx = binary.LittleEndian.AppendUint64(idx, off)
		off += uint64(len(p))
	}
	idx = binary.LittleEndian.AppendUint64(idx, off)
	h := sha256.New()
	var buf []byte
	binPath, idxPath := filepath.Join(dir, name+".bin"), filepath.Join(dir, name+".idx")
	binTmp, err := writeTemp(binPath, func(w io.Writer) error {
		for _, p := range pieces {
			b := p2b(p, &buf)
			h.Write(b)
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return ShardFile{}, err
	}
	idxTmp, err := writeTemp(idxPath, func(w io.Writer) error { _, err := w.Write(idx); return err })
	if err != nil {
		atomicfile.Discard(binTmp)
		return ShardFile{}, err
	}
	// Both files are synced; rename them and sync the folder once.
	if err := atomicfile.Rename(binTmp, binPath); err != nil {
		atomicfile.Discard(idxTmp)
		return ShardFile{}, fmt.Errorf("pipeline: write %s: %w", binPath, err)
	}
	if err := atomicfile.Rename(idxTmp, idxPath); err != nil {
		return ShardFile{}, fmt.Errorf("pipeline: write %s: %w", idxPath, err)
	}
	atomicfile.SyncDir(dir)
	return ShardFile{Name: name, Hash: hex.EncodeToString(h.Sum(nil)), Pieces: len(pieces), Tokens: total}, nil
}

// p2b returns the little-endian bytes of ts: a view on little-endian
// machines, else an encoding in *buf.
func p2b(ts []uint16, buf *[]byte) []byte {
	if len(ts) == 0 {
		return nil
	}
	if littleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&ts[0])), 2*len(ts))
	}
	*buf = appendU16s((*buf)[:0], ts)
	return *buf
}

// ReadShard reads a shard pair and checks it: the index must start at 0,
// never decrease, and end at the token count.
func ReadShard(dir, name string) (tokens []uint16, offsets []uint64, err error) {
	bin, err := os.ReadFile(filepath.Join(dir, name+".bin"))
	if err != nil {
		return nil, nil, fmt.Errorf("pipeline: read shard: %w", err)
	}
	idx, err := os.ReadFile(filepath.Join(dir, name+".idx"))
	if err != nil {
		return nil, nil, fmt.Errorf("pipeline: read shard: %w", err)
	}
	bad := func(why string) error {
		return fmt.Errorf("pipeline: shard %s: %w: %s", filepath.Join(dir, name), ErrBadShard, why)
	}
	if len(bin)%2 != 0 || len(idx)%8 != 0 || len(idx) < 8 {
		return nil, nil, bad(fmt.Sprintf("sizes %d (.bin) and %d (.idx)", len(bin), len(idx)))
	}
	tokens = u16s(bin) // a view of bin where the machine allows
	offsets = make([]uint64, len(idx)/8)
	for i := range offsets {
		offsets[i] = binary.LittleEndian.Uint64(idx[8*i:])
		if i > 0 && offsets[i] < offsets[i-1] {
			return nil, nil, bad(fmt.Sprintf("offset %d decreases", i))
		}
	}
	if offsets[0] != 0 || offsets[len(offsets)-1] != uint64(len(tokens)) {
		return nil, nil, bad(fmt.Sprintf("index ends at %d, %d tokens", offsets[len(offsets)-1], len(tokens)))
	}
	return tokens, offsets, nil
}

// writeAtomic writes data through a temp file in the same folder, fsyncs,
// renames into place and fsyncs the folder.
func writeAtomic(path string, data []byte) error {
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = atomicfile.WriteFile(path, data)
	}
	if err != nil {
		return fmt.Errorf("pipeline: write %s: %w", path, err)
	}
	return nil
}

// writeTemp writes a synced temp file beside path and returns its name.
func writeTemp(path string, write func(w io.Writer) error) (string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("pipeline: write %s: %w", path, err)
	}
	tmp, err := atomicfile.WriteTemp(path, func(f *os.File) error { return write(f) })
	if err != nil {
		return "", fmt.Errorf("pipeline: write %s: %w", path, err)
	}
	return tmp, nil
}

// appendU16s appends ts as little-endian bytes (one copy on little-endian
// machines).
func appendU16s(dst []byte, ts []uint16) []byte {
	if len(ts) == 0 {
		return dst
	}
	if littleEndian {
		return append(dst, unsafe.Slice((*byte)(unsafe.Pointer(&ts[0])), 2*len(ts))...)
	}
	for _, t := range ts {
		dst = binary.LittleEndian.AppendUint16(dst, t)
	}
	return dst
}
