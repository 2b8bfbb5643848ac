//go:build unix

package midi

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadFileSpecialFiles names, as a command line would, a named pipe
// with no writer, one whose writer stays silent (stopped by the context),
// one that carries a real file, /dev/zero and a folder. None blocks; the
// pipe's file reads as the regular file does.
func TestReadFileSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.mid")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	var buf bytes.Buffer
	if err := richScore().Write(&buf); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		// No writer: empty, at once.
		if _, err := ReadFile(fifo); err == nil {
			t.Error("a FIFO with no writer parsed")
		}
		// A silent writer: the context stops the read.
		w, err := os.OpenFile(fifo, os.O_RDWR, 0) // O_RDWR: opens without a reader
		if err != nil {
			t.Error(err)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		_, err = ReadFileContext(ctx, fifo)
		cancel()
		w.Close()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("silent writer: %v, want the context's deadline", err)
		}
		// A pipe carrying a MIDI file: the same score as the file. A
		// reader never waits for a writer to come (a FIFO with none reads
		// as empty), so the writer's end is held open first (O_RDWR: it
		// counts as a writer and keeps what is written), the reader starts,
		// the file goes in, and the end is closed a moment later. Should
		// the reader open only after the close (a loaded machine: a racing
		// writer failed CI twice), the pipe is empty and the next try
		// waits longer.
		var s *Score
		for _, hold := range []time.Duration{20 * time.Millisecond, 200 * time.Millisecond, time.Second, 4 * time.Second} {
			keep, err := os.OpenFile(fifo, os.O_RDWR, 0)
			if err != nil {
				t.Error(err)
				return
			}
			got := make(chan *Score, 1)
			go func() {
				s, _ := ReadFile(fifo)
				got <- s
			}()
			keep.Write(buf.Bytes())
			time.Sleep(hold)
			keep.Close()
			if s = <-got; s != nil {
				break
			}
		}
		if s == nil || s.NoteCount() != richScore().NoteCount() {
			t.Errorf("score through a pipe: %v", s)
		}
		// /dev/zero: cut off at MaxFileSize.
		if _, err := ReadFile("/dev/zero"); !errors.Is(err, ErrUnsupported) {
			t.Errorf("/dev/zero: %v, want ErrUnsupported", err)
		}
		if _, err := ReadFile(dir); err == nil {
			t.Error("a folder parsed")
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // generous: nothing here waits
		t.Fatal("ReadFile blocked on a special file")
	}
}
