package pipeline

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	bin := make([]byte, 0, 2*total)
	idx := make([]byte, 0, 8*(len(pieces)+1))
	var off uint64
	for _, p := range pieces {
		idx = binary.LittleEndian.AppendUint64(idx, off)
		for _, t := range p {
			bin = binary.LittleEndian.AppendUint16(bin, t)
		}
		off += uint64(len(p))
	}
	idx = binary.LittleEndian.AppendUint64(idx, off)
	if err := writeAtomic(filepath.Join(dir, name+".bin"), bin); err != nil {
		return ShardFile{}, err
	}
	if err := writeAtomic(filepath.Join(dir, name+".idx"), idx); err != nil {
		return ShardFile{}, err
	}
	h := sha256.Sum256(bin)
	return ShardFile{Name: name, Hash: hex.EncodeToString(h[:]), Pieces: len(pieces), Tokens: total}, nil
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
	tokens = make([]uint16, len(bin)/2)
	for i := range tokens {
		tokens[i] = binary.LittleEndian.Uint16(bin[2*i:])
	}
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
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("pipeline: write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("pipeline: write %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("pipeline: write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("pipeline: write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
