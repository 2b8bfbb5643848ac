package pipeline

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/amtstudio/amt/internal/fuzzbudget"
)

// FuzzReadShard: any bytes as a shard pair (the first byte splits the input
// into .idx and .bin) read back as tokens and offsets that agree, or fail
// with ErrBadShard, within the time budget.
func FuzzReadShard(f *testing.F) {
	var idx, bin []byte
	for _, o := range []uint64{0, 3, 5} {
		idx = binary.LittleEndian.AppendUint64(idx, o)
	}
	for _, tok := range []uint16{1, 7, 2, 1, 2} {
		bin = binary.LittleEndian.AppendUint16(bin, tok)
	}
	f.Add(append(append([]byte{byte(len(idx))}, idx...), bin...))
	f.Add([]byte{8, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{3, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		cut := min(int(data[0]), len(data)-1)
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "s.idx"), data[1:1+cut], 0o644)
		os.WriteFile(filepath.Join(dir, "s.bin"), data[1+cut:], 0o644)
		fuzzbudget.Check(t, len(data), func() {
			toks, offs, err := ReadShard(dir, "s")
			if err != nil {
				if !errors.Is(err, ErrBadShard) {
					t.Fatalf("error %v is not ErrBadShard", err)
				}
				return
			}
			if offs[0] != 0 || offs[len(offs)-1] != uint64(len(toks)) {
				t.Fatalf("offsets %v for %d tokens", offs, len(toks))
			}
			for i := 1; i < len(offs); i++ {
				if offs[i] < offs[i-1] {
					t.Fatalf("offsets decrease: %v", offs)
				}
			}
		})
	})
}
