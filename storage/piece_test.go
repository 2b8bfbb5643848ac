package storage

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// putPieceWithFile stores a piece of project 1 and writes its MIDI file.
func putPieceWithFile(t *testing.T, s *Store, prompt string) *Piece {
	t.Helper()
	p := &Piece{ProjectID: 1, Prompt: prompt}
	err := s.Update(func(tx *bolt.Tx) error {
		if err := PutPiece(tx, p); err != nil {
			return err
		}
		p.File = PiecesDir + "/" + prompt + ".mid"
		h, err := WriteFileAtomic(s.Abs(p.File), []byte("MThd"+prompt))
		if err != nil {
			return err
		}
		p.Hash = h
		return PutPiece(tx, p)
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRateAndDeletePiece(t *testing.T) {
	s := openTemp(t)
	a, b := putPieceWithFile(t, s, "a"), putPieceWithFile(t, s, "b")
	if err := s.Update(func(tx *bolt.Tx) error { return RatePiece(tx, b.ID, 4) }); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []int{-1, 6} {
		err := s.Update(func(tx *bolt.Tx) error { return RatePiece(tx, a.ID, bad) })
		if !errors.Is(err, ErrBadRating) {
			t.Errorf("rating %d: %v, want ErrBadRating", bad, err)
		}
	}
	if err := s.Update(func(tx *bolt.Tx) error { return RatePiece(tx, 99, 3) }); !errors.Is(err, ErrNotFound) {
		t.Errorf("rating a missing piece: %v, want ErrNotFound", err)
	}
	if err := s.DeletePiece(a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Abs(a.File)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("deleted piece's file still there: %v", err)
	}
	if _, err := os.Stat(s.Abs(b.File)); err != nil {
		t.Errorf("the other piece's file: %v", err)
	}
	if err := s.DeletePiece(a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleting twice: %v, want ErrNotFound", err)
	}
	s.View(func(tx *bolt.Tx) error {
		ps, err := Pieces(tx, 1)
		if err != nil || len(ps) != 1 || ps[0].ID != b.ID || ps[0].Rating != 4 || ps[0].Hash != b.Hash {
			t.Errorf("pieces after delete: %+v %v", ps, err)
		}
		return nil
	})
	// A piece whose file is already gone still deletes.
	os.Remove(s.Abs(b.File))
	if err := s.DeletePiece(b.ID); err != nil {
		t.Errorf("delete with the file gone: %v", err)
	}
}

// TestMigrateV1toV2 writes a schema-1 store (ratings in the settings
// bucket, as app.Studio kept them) and checks Open moves them into the
// pieces and removes the settings, dropping ratings of missing pieces and
// leaving other settings alone.
func TestMigrateV1toV2(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := putPieceWithFile(t, s, "a"), putPieceWithFile(t, s, "b"), putPieceWithFile(t, s, "c")
	err = s.Update(func(tx *bolt.Tx) error {
		if _, err := CreateProject(tx, "p"); err != nil {
			return err
		}
		for key, v := range map[string]any{
			"piece.rating.1": 5, "piece.rating.3": 2, "piece.rating.77": 4, "piece.rating.x": 1,
			"studio.settings": map[string]int{"workers": 3},
		} {
			if err := SetSetting(tx, key, v); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put(keySchema, itob(1))
	})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != 1 || c.ID != 3 {
		t.Fatalf("piece ids %d %d %d", a.ID, b.ID, c.ID)
	}
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.View(func(tx *bolt.Tx) error {
		if v := SchemaVersion(tx); v != CurrentSchema() {
			t.Errorf("schema %d after migration, want %d", v, CurrentSchema())
		}
		ps, _ := Pieces(tx, 1)
		got := map[uint64]int{}
		for _, p := range ps {
			got[p.ID] = p.Rating
		}
		if len(ps) != 3 || got[1] != 5 || got[2] != 0 || got[3] != 2 {
			t.Errorf("ratings after migration %v", got)
		}
		set, _ := Settings(tx)
		if len(set) != 1 || set["studio.settings"] == nil {
			t.Errorf("settings after migration: %v", set)
		}
		return nil
	})
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(b.File))); err != nil {
		t.Errorf("migration touched a piece file: %v", err)
	}
}
