package train

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/amtstudio/amt/internal/fuzzbudget"
)

// shardBytes is a well-formed shard pair for seeds: n pieces of length len.
func shardBytes(pieces [][]uint16) (bin, idx []byte) {
	off := uint64(0)
	for _, p := range pieces {
		idx = binary.LittleEndian.AppendUint64(idx, off)
		for _, tok := range p {
			bin = binary.LittleEndian.AppendUint16(bin, tok)
		}
		off += uint64(len(p))
	}
	return bin, binary.LittleEndian.AppendUint64(idx, off)
}

// FuzzShard: any bytes as a token shard's .bin and .idx open as a dataset
// or fail with an error (ErrBadShard, ErrNoData), within the time budget;
// a dataset that opens yields batches whose tokens are inside the
// vocabulary. The first byte of the input splits it into .idx and .bin.
func FuzzShard(f *testing.F) {
	bin, idx := shardBytes(patterned(4, 40, 24))
	f.Add(append(append([]byte{byte(len(idx))}, idx...), bin...))
	f.Add([]byte{16, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 3, 0})
	f.Add([]byte{8, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		cut := min(int(data[0]), len(data)-1)
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "s.idx"), data[1:1+cut], 0o644)
		os.WriteFile(filepath.Join(dir, "s.bin"), data[1+cut:], 0o644)
		const vocab = 24
		fuzzbudget.Check(t, len(data), func() {
			ds, err := OpenDir(dir, vocab, nil)
			if err != nil {
				if !errors.Is(err, ErrBadShard) && !errors.Is(err, ErrNoData) {
					t.Fatalf("error %v is neither ErrBadShard nor ErrNoData", err)
				}
				return
			}
			defer ds.Close()
			tr, _ := ds.Split(0.2, 1)
			T := 8
			in, tg, sc := make([]int32, 2*T), make([]int32, 2*T), make([]int32, T+1)
			if err := tr.Batch(3, 1, 2, T, in, tg, sc); err != nil {
				return // too few tokens for a window
			}
			for _, v := range append(in, tg...) {
				if v < 0 || v >= vocab {
					t.Fatalf("token %d outside the vocabulary", v)
				}
			}
		})
	})
}
