package app

import "github.com/amtstudio/amt/engine/midi"

// PieceVersion is one state of the piece a musician works on in Compose:
// a generated or opened piece, then each change made to it (a
// continuation, regenerated bars, another instrument).
type PieceVersion struct {
	Score *midi.Score
	// Piece is the stored piece this version is (its ID 0 when the version
	// is not stored: an opened file, an instrument change).
	Piece PieceRow
	Name  string // the file name it plays and exports under
	What  string // what made it, for the window's title ("continued by 4 bars")
}

// MaxEdits bounds the versions an Edits keeps (the oldest go first).
const MaxEdits = 64

// Edits is the undo/redo history of one piece: Do adds a version after
// the current one (dropping the versions undone before it), Undo and Redo
// move through them. Versions are whole scores (a change of a few bars
// stores another score), so undoing never recomputes anything. The zero
// Edits is empty. It is not safe for concurrent use.
type Edits struct {
	versions []PieceVersion
	at       int
}

// Reset starts the history of a new piece at v.
func (e *Edits) Reset(v PieceVersion) {
	e.versions = append(e.versions[:0], v)
	e.at = 0
}

// Do makes v the current version, after the current one.
func (e *Edits) Do(v PieceVersion) {
	if len(e.versions) == 0 {
		e.Reset(v)
		return
	}
	e.versions = append(e.versions[:e.at+1], v)
	if len(e.versions) > MaxEdits {
		e.versions = append(e.versions[:0], e.versions[len(e.versions)-MaxEdits:]...)
	}
	e.at = len(e.versions) - 1
}

// Current is the version shown (false when there is none).
func (e *Edits) Current() (PieceVersion, bool) {
	if len(e.versions) == 0 {
		return PieceVersion{}, false
	}
	return e.versions[e.at], true
}

// CanUndo and CanRedo report whether Undo and Redo would move.
func (e *Edits) CanUndo() bool { return e.at > 0 }
func (e *Edits) CanRedo() bool { return e.at+1 < len(e.versions) }

// Undo goes back one version and returns it (false at the first).
func (e *Edits) Undo() (PieceVersion, bool) {
	if !e.CanUndo() {
		return PieceVersion{}, false
	}
	e.at--
	return e.versions[e.at], true
}

// Redo goes forward one version and returns it (false at the last).
func (e *Edits) Redo() (PieceVersion, bool) {
	if !e.CanRedo() {
		return PieceVersion{}, false
	}
	e.at++
	return e.versions[e.at], true
}

// Len is the number of versions held.
func (e *Edits) Len() int { return len(e.versions) }
