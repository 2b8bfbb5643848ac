//go:build unix

package userfile

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Special builds the special files of the tests in dir: a FIFO, a socket,
// copies of /dev/zero and /dev/full made with mknod (as root; on the
// shared /dev nodes a broken writer could replace them), and symlinks to
// each, a dangling one and a loop. It returns the names made.
func special(t *testing.T, dir string) map[string]bool {
	t.Helper()
	made := map[string]bool{}
	mk := func(name string, err error) {
		if err == nil {
			made[name] = true
		}
	}
	mk("pipe.mid", syscall.Mkfifo(filepath.Join(dir, "pipe.mid"), 0o644))
	if l, err := net.Listen("unix", filepath.Join(dir, "sock.mid")); err == nil {
		t.Cleanup(func() { l.Close() })
		made["sock.mid"] = true
	}
	mk("zero.mid", syscall.Mknod(filepath.Join(dir, "zero.mid"), syscall.S_IFCHR|0o666, int(1<<8|5)))
	mk("full.mid", syscall.Mknod(filepath.Join(dir, "full.mid"), syscall.S_IFCHR|0o666, int(1<<8|7)))
	if !made["zero.mid"] {
		t.Logf("mknod refused (not root?): the device rows use /dev/zero through a symlink only")
	}
	mk("devzero.mid", os.Symlink("/dev/zero", filepath.Join(dir, "devzero.mid")))
	mk("tofifo.mid", os.Symlink("pipe.mid", filepath.Join(dir, "tofifo.mid")))
	mk("dangling.mid", os.Symlink("nowhere.mid", filepath.Join(dir, "dangling.mid")))
	mk("loop1.mid", os.Symlink("loop2.mid", filepath.Join(dir, "loop1.mid")))
	mk("loop2.mid", os.Symlink("loop1.mid", filepath.Join(dir, "loop2.mid")))
	mk("todir.mid", os.Symlink(".", filepath.Join(dir, "todir.mid")))
	return made
}

// TestSkipTakesOnlyRegularFiles walks a folder holding one file of every
// kind and checks which are taken and what the others are called.
func TestSkipTakesOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "real.mid"), []byte("MThd"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.mid", filepath.Join(dir, "link.mid")); err != nil {
		t.Fatal(err)
	}
	made := special(t, dir)
	want := map[string]string{
		"real.mid": "", "link.mid": "",
		"pipe.mid": "named pipe (FIFO)", "sock.mid": "socket", "zero.mid": "character device", "full.mid": "character device",
		"devzero.mid": "symlink to a character device", "tofifo.mid": "symlink to a named pipe (FIFO)",
		"dangling.mid": "dangling symlink", "loop1.mid": "symlink loop", "loop2.mid": "symlink loop", "todir.mid": "symlink to a folder",
	}
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		why, fi := Skip(p, d)
		if why == "" && (fi == nil || !fi.Mode().IsRegular() || fi.Size() != 4) {
			t.Errorf("%s taken with info %v: want the regular file's (4 bytes)", d.Name(), fi)
		}
		got[d.Name()] = why
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if n != "real.mid" && n != "link.mid" && !made[n] {
			continue
		}
		if got[n] != want[n] {
			t.Errorf("%s: Skip says %q, want %q", n, got[n], want[n])
		}
	}
}

// TestOpenNeverBlocks opens every kind of file directly, as a command line
// names it: regular files and streams open at once (a FIFO with no writer
// too), a folder and a socket are refused, and nothing waits.
func TestOpenNeverBlocks(t *testing.T) {
	dir := t.TempDir()
	made := special(t, dir)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, c := range []struct {
			name string
			ok   bool
		}{{"pipe.mid", true}, {"tofifo.mid", true}, {"devzero.mid", true}, {"zero.mid", true}, {"sock.mid", false}, {"dangling.mid", false}, {"loop1.mid", false}, {"todir.mid", false}} {
			if !made[c.name] {
				continue
			}
			f, _, err := Open(filepath.Join(dir, c.name))
			if (err == nil) != c.ok {
				t.Errorf("Open %s: %v, want ok=%v", c.name, err, c.ok)
			}
			if f != nil {
				f.Close()
			}
			if f, _, err := OpenRegular(filepath.Join(dir, c.name)); err == nil {
				f.Close()
				t.Errorf("OpenRegular %s succeeded", c.name)
			} else if c.ok && !errors.Is(err, ErrNotRegular) {
				t.Errorf("OpenRegular %s: %v, want ErrNotRegular", c.name, err)
			}
		}
		if _, _, err := Open(dir); !errors.Is(err, ErrFolder) {
			t.Errorf("Open of a folder: %v, want ErrFolder", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // generous: every open is immediate
		t.Fatal("an open blocked")
	}
}

// TestReadAllIsBounded reads /dev/zero (endless) and a regular file over
// the limit: both fail with ErrTooLarge, the file before a byte is read.
func TestReadAllIsBounded(t *testing.T) {
	b, err := ReadFile(context.Background(), "/dev/zero", 1<<20)
	if !errors.Is(err, ErrTooLarge) || b != nil {
		t.Fatalf("/dev/zero: %d bytes, %v; want ErrTooLarge", len(b), err)
	}
	p := filepath.Join(t.TempDir(), "big.mid")
	if err := os.WriteFile(p, make([]byte, 1001), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRegular(context.Background(), p, 1000); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "1001 bytes") {
		t.Fatalf("1,001-byte file with limit 1,000: %v", err)
	}
	if b, err := ReadRegular(context.Background(), p, 1001); err != nil || len(b) != 1001 {
		t.Fatalf("at the limit: %d bytes, %v", len(b), err)
	}
	// A stream exactly at the limit is whole; one byte more is not.
	for _, n := range []int{0, 1, readChunk, readChunk + 7} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { w.Write(bytes.Repeat([]byte{7}, n)); w.Close() }()
		b, err := ReadAll(context.Background(), r, "pipe", int64(n))
		r.Close()
		if err != nil || len(b) != n {
			t.Errorf("pipe of %d bytes, limit %d: %d bytes, %v", n, n, len(b), err)
		}
		r2, w2, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { w2.Write(bytes.Repeat([]byte{7}, n+1)); w2.Close() }()
		if _, err := ReadAll(context.Background(), r2, "pipe", int64(n)); !errors.Is(err, ErrTooLarge) {
			t.Errorf("pipe of %d bytes, limit %d: %v, want ErrTooLarge", n+1, n, err)
		}
		r2.Close()
	}
}

// TestReadAllStops: a FIFO whose writer never writes holds a read; ending
// the context ends it.
func TestReadAllStops(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe.mid")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	f, _, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := os.OpenFile(p, os.O_WRONLY, 0) // a writer that stays silent
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	done := make(chan error, 1)
	go func() { _, err := ReadAll(ctx, f, p, 1<<20); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("read ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read did not stop")
	}

	// A FIFO with no writer at all reads as empty at once.
	f2, _, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	w.Close()
	if b, err := ReadAll(context.Background(), f2, p, 10); err != nil || len(b) != 0 {
		t.Fatalf("FIFO without writer: %d bytes, %v", len(b), err)
	}
}

// TestOpenStream writes through a FIFO once its reader comes, gives up on
// one with no reader when the context ends, refuses a regular file, and
// reports a full device's ENOSPC.
func TestOpenStream(t *testing.T) {
	dir := t.TempDir()
	made := special(t, dir)
	pipe := filepath.Join(dir, "pipe.mid")
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	if _, err := OpenStream(ctx, pipe); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("FIFO without reader: %v, want the context's deadline", err)
	}
	got := make(chan []byte, 1)
	go func() {
		time.Sleep(50 * time.Millisecond) // the reader comes after the writer
		r, err := os.Open(pipe)
		if err != nil {
			got <- nil
			return
		}
		defer r.Close()
		var b bytes.Buffer
		b.ReadFrom(r)
		got <- b.Bytes()
	}()
	f, err := OpenStream(context.Background(), pipe)
	if err != nil {
		t.Fatal(err)
	}
	msg := bytes.Repeat([]byte("MThd"), 50000) // more than a pipe's buffer
	if err := WriteAll(context.Background(), f, msg); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if b := <-got; !bytes.Equal(b, msg) {
		t.Fatalf("reader got %d bytes, want %d", len(b), len(msg))
	}
	reg := filepath.Join(dir, "file.mid")
	os.WriteFile(reg, []byte("x"), 0o644)
	if _, err := OpenStream(context.Background(), reg); !errors.Is(err, ErrNotRegular) {
		t.Errorf("regular file as a stream: %v", err)
	}
	if made["full.mid"] {
		f, err := OpenStream(context.Background(), filepath.Join(dir, "full.mid"))
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteAll(context.Background(), f, []byte("MThd")); !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("write to a full device: %v, want ENOSPC", err)
		}
		f.Close()
	}
}

// TestWriteAllStops: a FIFO whose reader never reads fills up; ending the
// context ends the write.
func TestWriteAllStops(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a reader that never reads
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := OpenStream(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	done := make(chan error, 1)
	go func() { done <- WriteAll(ctx, f, make([]byte, 8<<20)) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("write ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write did not stop")
	}
}
