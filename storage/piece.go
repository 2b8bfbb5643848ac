package storage

import (
	"encoding/json"
	"fmt"
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
}

// PutPiece inserts p (ID 0) or updates it.
func PutPiece(tx *bolt.Tx, p *Piece) error {
	if p.ID == 0 {
		id, err := nextID(tx, bucketPieces)
		if err != nil {
			return err
		}
		p.ID = id
		p.Created = time.Now().UTC()
	}
	return putRecord(tx, bucketPieces, p.ID, p)
}

// Pieces lists a project's pieces, oldest first.
func Pieces(tx *bolt.Tx, projectID uint64) ([]Piece, error) {
	var out []Piece
	err := each(tx, bucketPieces, func(_ uint64, p *Piece) bool {
		if p.ProjectID == projectID {
			out = append(out, *p)
		}
		return true
	})
	return out, err
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
