package midi

import (
	"errors"
	"fmt"
)

// Sentinel errors that callers test with errors.Is. Every error from Parse
// and ReadFile is an *Error wrapping one of them (or an I/O error).
var (
	// ErrNotSMF: the data does not start with an MThd header chunk.
	ErrNotSMF = errors.New("not a Standard MIDI File")
	// ErrUnsupported: a valid SMF this reader does not handle (format 2,
	// SMPTE time division).
	ErrUnsupported = errors.New("unsupported")
	// ErrTruncated: the file or a chunk ends in the middle of something.
	ErrTruncated = errors.New("truncated")
	// ErrMalformed: bytes that break the SMF grammar.
	ErrMalformed = errors.New("malformed")
	// ErrInvalidScore: Write was given a Score it cannot represent.
	ErrInvalidScore = errors.New("invalid score")
)

// Error is a read error. It names the file, the SMF track (0-based, as
// Track.Source counts; -1 when the error is outside a track) and the byte
// offset in the file (-1 when there is none):
//
//	midi: read song.mid: track 2: truncated event at byte 812
type Error struct {
	File   string
	Track  int
	Offset int64
	Err    error
}

func (e *Error) Error() string {
	s := "midi: read " + e.File
	if e.Track >= 0 {
		s += fmt.Sprintf(": track %d", e.Track)
	}
	s += ": " + e.Err.Error()
	if e.Offset >= 0 {
		s += fmt.Sprintf(" at byte %d", e.Offset)
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }
