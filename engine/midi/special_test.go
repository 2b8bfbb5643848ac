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
		// reader that opens between the writer's open and its first byte
		// sees no writer and an empty pipe, and the writer then writes
		// into a pipe with no reader (EPIPE): both try again until one
		// whole file went through (the writer once only failed 1 CI run
		// in a few).
		got := make(chan struct{})
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			for {
				select {
				case <-got:
					return
				default:
				}
				w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
				if err != nil { // ENXIO: no reader yet
					time.Sleep(time.Millisecond)
					continue
				}
				syscall.SetNonblock(int(w.Fd()), false)
				w.Write(buf.Bytes())
				w.Close()
				time.Sleep(20 * time.Millisecond) // the reader sees the end before another copy
			}
		}()
		var s *Score
		for i := 0; i < 1000 && s == nil; i++ { // until the writer has opened its end
			s, _ = ReadFile(fifo)
			if s == nil {
				time.Sleep(5 * time.Millisecond)
			}
		}
		close(got)
		<-wrote
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
