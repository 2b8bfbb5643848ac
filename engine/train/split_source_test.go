package train

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// writeTestShard writes n one-token-apart pieces as NAME.bin/NAME.idx.
func writeTestShard(t *testing.T, dir string, n int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var bin, idx []byte
	off := uint64(0)
	for i := 0; i < n; i++ {
		idx = binary.LittleEndian.AppendUint64(idx, off)
		for j := 0; j < 4; j++ {
			bin = binary.LittleEndian.AppendUint16(bin, uint16(1+i%7))
			off++
		}
	}
	idx = binary.LittleEndian.AppendUint64(idx, off)
	if err := os.WriteFile(filepath.Join(dir, "s.bin"), bin, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s.idx"), idx, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSplitHoldsOutEverySource: at 3%, a source of 2 or 5 pieces beside
// one of 400 gets a held-out piece (its lowest hash), a source of one piece
// keeps it for training, every piece lands on exactly one side, and the
// big source's split is the hash's alone.
func TestSplitHoldsOutEverySource(t *testing.T) {
	dir := t.TempDir()
	for name, n := range map[string]int{"big": 400, "five": 5, "two": 2, "one": 1} {
		writeTestShard(t, filepath.Join(dir, name), n)
	}
	ds, err := OpenDir(dir, 16, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	for seed := uint64(1); seed <= 20; seed++ {
		tr, val := ds.Split(0.03, seed)
		if tr.Pieces()+val.Pieces() != 408 {
			t.Fatalf("seed %d: %d + %d pieces, want 408", seed, tr.Pieces(), val.Pieces())
		}
		held := map[string]int{}
		for i := 0; i < val.Pieces(); i++ {
			held[val.PieceSource(i)]++
		}
		for _, src := range []string{"five", "two"} {
			if held[src] == 0 {
				t.Errorf("seed %d: %s has no held-out piece (%v)", seed, src, held)
			}
		}
		if held["one"] != 0 {
			t.Errorf("seed %d: the only piece of a source was held out", seed)
		}
		// The big source's held-out pieces are those whose hash falls under 3%.
		want := 0
		for i := range ds.pieces {
			if sourceOf(ds.from[i]) == "big" && float64(mix(seed^uint64(i)*0x9e3779b97f4a7c15)>>11)/float64(1<<53) < 0.03 {
				want++
			}
		}
		if held["big"] != want || want == 0 {
			t.Errorf("seed %d: big holds out %d, the hash says %d", seed, held["big"], want)
		}
	}
}
