// Package userfile opens the files a user names (on the command line, in a
// folder being imported, as an output) so that no kind of file can hang a
// reader or a writer, every read is bounded, and no special file given as
// an output is replaced:
//
//   - Folder walks take regular files and symlinks to regular files only;
//     Skip names what anything else is (a named pipe, a device, a socket,
//     a dangling symlink, a symlink loop), so a walk can list it as
//     skipped instead of opening it. A FIFO in an import folder once hung
//     `amt ingest` forever (open(2) waits for a writer), and a symlink to
//     /dev/zero read without end.
//   - Open opens with O_NONBLOCK, so a FIFO named directly opens at once
//     (with no writer it then reads as empty), and checks what it opened
//     with fstat, so nothing can be swapped in between a check and the
//     open. OpenRegular refuses all but regular files (what a walk found).
//   - ReadAll reads at most a limit and stops when its context ends, also
//     in the middle of a read from a pipe that has a writer but no data.
//   - OpenStream opens a named pipe or a character device for
//     writing as a stream, without creating or truncating anything, and
//     waits for a pipe's reader only as long as its context lives.
//
// The policy (which outputs are streams, which are written atomically,
// what is refused) is app's (app/output.go, app/input.go): this package is
// the mechanism, for app and for the engine packages that read folders
// (engine/pipeline, engine/corpus, engine/text, engine/train). It imports
// only the standard library.
package userfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

var (
	// ErrNotRegular is returned (wrapped, with the path and its kind) for
	// a file that must be a regular file and is not.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is returned (wrapped) for a file or stream longer than
	// the limit its reader sets.
	ErrTooLarge = errors.New("too large")
	// ErrFolder is returned (wrapped) for a folder where a file is wanted
	// (worded as the system's EISDIR).
	ErrFolder = errors.New("is a directory")
)

// Kind names what a file mode describes, for messages: "regular file",
// "folder", "symlink", "named pipe (FIFO)", "socket", "character device",
// "block device" or "irregular file".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "folder"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	}
	return "irregular file"
}

// IsStream reports whether m is a file that is read or written as a
// stream, not stored: a named pipe or a character device. (A socket's
// file cannot be opened at all: open(2) fails with ENXIO.)
func IsStream(m fs.FileMode) bool {
	return m&fs.ModeNamedPipe != 0 || m&fs.ModeCharDevice != 0
}

// Skip reports whether a folder walk must leave the entry d at path out,
// and why: "" takes it (a regular file, or a symlink to one), with info
// describing the file itself (a symlink's target: its size and time).
// Anything else is named for the walk's list of skipped entries: "named
// pipe (FIFO)", "character device", "socket", "symlink to a character
// device", "symlink to a folder", "dangling symlink", "symlink loop".
// Folders themselves are the walk's to descend; Skip names them "folder".
func Skip(path string, d fs.DirEntry) (why string, info fs.FileInfo) {
	t := d.Type()
	switch {
	case t.IsRegular():
		fi, err := d.Info()
		if err != nil {
			return "unreadable entry (" + err.Error() + ")", nil
		}
		if !fi.Mode().IsRegular() { // replaced since the folder was read
			return Kind(fi.Mode()), nil
		}
		return "", fi
	case t&fs.ModeSymlink != 0:
		fi, err := os.Stat(path)
		switch {
		case err == nil && fi.Mode().IsRegular():
			return "", fi
		case err == nil:
			return "symlink to a " + Kind(fi.Mode()), nil
		case isLoop(err):
			return "symlink loop", nil
		case errors.Is(err, fs.ErrNotExist):
			return "dangling symlink", nil
		}
		return "unreadable symlink (" + err.Error() + ")", nil
	}
	return Kind(t), nil
}

// Open opens path for reading without blocking on it and returns what it
// opened (fstat of the open file). A regular file, a named pipe or a
// character device is returned; a folder is refused
// (ErrFolder), as is a block device (ErrNotRegular): a disk is no one's
// MIDI file. Errors name the path.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, readFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	m := fi.Mode()
	switch {
	case m.IsDir():
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w (a folder, not a file)", path, ErrFolder)
	case !m.IsRegular() && !IsStream(m):
		f.Close()
		return nil, nil, fmt.Errorf("%s is a %s: %w", path, Kind(m), ErrNotRegular)
	}
	return f, fi, nil
}

// OpenRegular is Open for a file that must be a regular file (one a
// folder walk found): anything else is refused with ErrNotRegular naming
// its kind, before a byte is read.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, readFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	switch {
	case fi.IsDir():
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w (a folder, not a file)", path, ErrFolder)
	case !fi.Mode().IsRegular():
		f.Close()
		return nil, nil, fmt.Errorf("%s is a %s: %w", path, Kind(fi.Mode()), ErrNotRegular)
	}
	return f, fi, nil
}

// ReadAll reads f (named name in errors) to its end, at most limit bytes:
// a regular file larger than limit is refused before it is read, a stream
// that goes on past it is cut off, both with ErrTooLarge. It returns ctx's
// error (wrapped) as soon as ctx ends, also while a read from a pipe or a
// terminal waits for data (through a read deadline where the file allows
// one, else by leaving that read behind).
func ReadAll(ctx context.Context, f *os.File, name string, limit int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes: %w (at most %d)", name, fi.Size(), ErrTooLarge, limit)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if fi.Mode().IsRegular() || ctx.Done() == nil {
		return readLimited(ctx, f, name, limit, fi.Size())
	}
	if f.SetReadDeadline(time.Time{}) == nil { // pollable: a deadline interrupts a waiting read
		stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Unix(1, 0)) })
		defer stop()
		b, err := readLimited(ctx, f, name, limit, 0)
		if err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", name, ctx.Err())
		}
		return b, err
	}
	// A stream that takes no deadline (a blocking stdin): the read goes on
	// in the background, and a stop leaves it there.
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b, err := readLimited(ctx, f, name, limit, 0)
		ch <- result{b, err}
	}()
	select {
	case r := <-ch:
		return r.b, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", name, ctx.Err())
	}
}

// readChunk is the most ReadAll reads at once; ctx is checked between
// chunks.
const readChunk = 1 << 20

func readLimited(ctx context.Context, f io.Reader, name string, limit, hint int64) ([]byte, error) {
	var buf bytes.Buffer
	if hint > 0 && hint <= limit {
		// Room for the end-of-file read too: ReadFrom wants MinRead bytes
		// free, and with less it doubled the buffer (3 bytes of memory a
		// byte of file, a buffer twice the file kept with the bytes).
		buf.Grow(int(hint) + bytes.MinRead)
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		n, err := buf.ReadFrom(io.LimitReader(f, min(readChunk, limit+1-int64(buf.Len()))))
		if int64(buf.Len()) > limit {
			return nil, fmt.Errorf("%s: more than %d bytes: %w", name, limit, ErrTooLarge)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if n == 0 {
			return buf.Bytes(), nil
		}
	}
}

// ReadFile opens path with Open and reads it with ReadAll.
func ReadFile(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, _, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(ctx, f, path, limit)
}

// ReadRegular is ReadFile for a file that must be a regular file
// (OpenRegular).
func ReadRegular(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, _, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(ctx, f, path, limit)
}

// OpenStream opens path, a named pipe or a character device, for
// writing: nothing is created or truncated. A pipe with no
// reader yet is tried again every few milliseconds until one comes or ctx
// ends. The file's writes take deadlines where the kind allows (pipes,
// terminals), so a writer can be stopped while a reader stalls
// (WriteAll).
func OpenStream(ctx context.Context, path string) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && !IsStream(fi.Mode()) {
		return nil, fmt.Errorf("%s is a %s, not a stream: %w", path, Kind(fi.Mode()), ErrNotRegular)
	}
	for {
		f, err := os.OpenFile(path, writeStreamFlags, 0)
		if err == nil {
			fi, err := f.Stat()
			if err != nil {
				f.Close()
				return nil, err
			}
			if !IsStream(fi.Mode()) {
				f.Close()
				return nil, fmt.Errorf("%s is a %s, not a stream: %w", path, Kind(fi.Mode()), ErrNotRegular)
			}
			return f, nil
		}
		if !noReader(err) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: named pipe with no reader: %w", path, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// WriteAll writes b to the stream f, stopping with ctx's error when ctx
// ends, also while a write waits for a slow reader (through a write
// deadline where f takes one).
func WriteAll(ctx context.Context, f *os.File, b []byte) error {
	if ctx.Done() != nil && f.SetWriteDeadline(time.Time{}) == nil {
		stop := context.AfterFunc(ctx, func() { f.SetWriteDeadline(time.Unix(1, 0)) })
		defer stop()
	}
	for len(b) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := f.Write(b[:min(len(b), readChunk)])
		b = b[n:]
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
	}
	return nil
}
