package storage

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/amtstudio/amt/internal/fuzzbudget"
)

// FuzzRecord: any bytes stored as a record decode into each record type or
// fail with ErrBadRecord, within the time budget, never a panic.
func FuzzRecord(f *testing.F) {
	for _, v := range []any{Project{ID: 1, Name: "p"}, Dataset{ID: 2, Name: "d", Root: "/x"},
		Item{ID: 3, Path: "a.mid", Status: ItemOK}, Shard{ID: 4, Path: "shards/ds-000001/r000001-s0001"},
		IngestRun{ID: 5, Status: RunDone}, Piece{ID: 6, Prompt: "a waltz"}} {
		b, err := encode(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{2, '{', '}'})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Check(t, len(data), func() {
			for _, v := range []any{&Project{}, &Dataset{}, &Item{}, &Shard{}, &IngestRun{}, &TrainRun{}, &Piece{}, &map[string]any{}} {
				if err := decode(data, v); err != nil {
					if !errors.Is(err, ErrBadRecord) {
						t.Fatalf("error %v is not ErrBadRecord", err)
					}
					continue
				}
				if _, err := json.Marshal(v); err != nil {
					t.Fatalf("a decoded record does not encode: %v", err)
				}
			}
		})
	})
}

// FuzzDatabase: damaged bytes written over a real store's database open
// and read to the end, or fail with an error, within the time budget;
// never a panic or a fault. The input is XORed over the file from an
// offset its first two bytes give. (Whether a file may be deleted depends
// on what the damaged records still say; TestEmptyDatabaseDeletesNothing
// and its neighbours check that.)
func FuzzDatabase(f *testing.F) {
	dir, files := filledStoreTB(f)
	orig, err := os.ReadFile(filepath.Join(dir, DBFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{0, 0})
	f.Add([]byte{0x20, 0x00, 0xFF, 0xFF, 0xFF, 0xFF})
	f.Add([]byte{0x00, 0x10, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{0x00, 0x90, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		db := append([]byte(nil), orig...)
		off := (int(data[0])<<8 | int(data[1])) * 16 % len(db)
		for i, b := range data[2:] {
			db[(off+i)%len(db)] ^= b
		}
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, DBFile), db, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, src := range files {
			rel, _ := filepath.Rel(dir, src)
			p := filepath.Join(d, rel)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte("x"), 0o644)
		}
		fuzzbudget.Check(t, len(data), func() {
			readAll(d) // an error is fine; a panic or fault is not
		})
	})
}
