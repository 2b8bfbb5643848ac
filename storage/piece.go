package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/engine/token"
)

// Piece is a generated piece: its prompt, the attributes used, and the MIDI
// file (relative to the store) with its hash.
type Piece struct {
	ID        uint64           `json:"id"`
	ProjectID uint64           `json:"project_id"`
	Prompt    string           `json:"prompt"`
	Attrs     token.Attributes `json:"attrs"`
	Model     string           `json:"model,omitempty"`
	Seed      int64            `json:"seed"`
	File      string           `json:"file"` // e.g. pieces/000012.mid
	Hash      string           `json:"hash"`
	Created   time.Time        `json:"created"`
	// Rating is the user's rating 1–5; 0: not rated.
	Rating int `json:"rating,omitempty"`
	// Form is the form the piece was planned in ("AABA", "none", …; ""
	// for continuations, regenerations and pieces stored before forms).
	Form string `json:"form,omitempty"`
}

// MaxRating is the highest rating of a piece.
const MaxRating = 5

// ErrBadRating is returned for a rating outside 0–MaxRating.
var ErrBadRating = errors.New("rating must be 0 (none) to 5")

// PutPiece inserts p (ID 0) or updates it.
func PutPiece(tx *bolt.Tx, p *Piece) error {
	isNew, err := assignID(tx, bucketPieces, &p.ID)
	if err != nil {
		return err
	}
	if isNew {
		p.Created = time.Now().UTC()
	}
	return putRecord(tx, bucketPieces, p.ID, p)
}

// GetPiece reads one piece (ErrNotFound when there is none).
func GetPiece(tx *bolt.Tx, id uint64) (*Piece, error) {
	var p Piece
	if err := getRecord(tx, bucketPieces, id, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// RatePiece sets a piece's rating (0 clears it).
func RatePiece(tx *bolt.Tx, id uint64, rating int) error {
	if rating < 0 || rating > MaxRating {
		return fmt.Errorf("storage: rate piece %d: %w, got %d", id, ErrBadRating, rating)
	}
	p, err := GetPiece(tx, id)
	if err != nil {
		return err
	}
	p.Rating = rating
	return putRecord(tx, bucketPieces, id, p)
}

// DeletePiece removes a piece's record and returns it, so the caller can
// remove its MIDI file once the transaction has committed
// ((*Store).DeletePiece does both).
func DeletePiece(tx *bolt.Tx, id uint64) (*Piece, error) {
	p, err := GetPiece(tx, id)
	if err != nil {
		return nil, err
	}
	if err := tx.Bucket(bucketPieces).Delete(itob(id)); err != nil {
		return nil, fmt.Errorf("storage: delete piece %d: %w", id, err)
	}
	return p, nil
}

// DeletePiece removes a piece's record and then its MIDI file (a file
// already gone is not an error). A crash between the two leaves a file no
// record names, never a record without its file.
func (s *Store) DeletePiece(id uint64) error {
	var p *Piece
	err := s.Update(func(tx *bolt.Tx) error {
		var err error
		p, err = DeletePiece(tx, id)
		return err
	})
	if err != nil {
		return err
	}
	if p.File == "" {
		return nil
	}
	if err := os.Remove(s.Abs(p.File)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("storage: delete piece %d: %w", id, err)
	}
	return nil
}

// Pieces lists a project's pieces, oldest first.
func Pieces(tx *bolt.Tx, projectID uint64) ([]Piece, error) {
	return filter(tx, bucketPieces, func(p *Piece) bool { return p.ProjectID == projectID })
}

// SetSetting stores v (as JSON) under key.
func SetSetting(tx *bolt.Tx, key string, v any) error {
	b, err := encode(v)
	if err != nil {
		return fmt.Errorf("storage: setting %s: %w", key, err)
	}
	return tx.Bucket(bucketSettings).Put([]byte(key), b)
}

// Setting decodes the setting key into v; ok is false (and v untouched)
// when it was never set.
func Setting(tx *bolt.Tx, key string, v any) (ok bool, err error) {
	b := tx.Bucket(bucketSettings).Get([]byte(key))
	if b == nil {
		return false, nil
	}
	if err := decode(b, v); err != nil {
		return false, fmt.Errorf("storage: setting %s: %w", key, err)
	}
	return true, nil
}

// Settings returns all settings as raw JSON.
func Settings(tx *bolt.Tx) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	err := tx.Bucket(bucketSettings).ForEach(func(k, v []byte) error {
		if len(v) < 1 || v[0] != recordVersion {
			return fmt.Errorf("storage: setting %s: %w", k, ErrBadRecord)
		}
		out[string(k)] = append(json.RawMessage(nil), v[1:]...)
		return nil
	})
	return out, err
}
