//go:build unix

package app

import (
	"bytes"
	"context"
	"errors"
	"io"
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

// listDir returns the names in dir, sorted.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func kindOf(t *testing.T, p string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return fi.Mode().Type()
}

// TestWriteOutputTargets writes one output to every kind of path: a new
// file, a regular file, a symlink to a file in another folder, a dangling
// symlink, a loop, a folder, a named pipe with a reader, copies of
// /dev/null and /dev/full (mknod, as root: the shared nodes are never
// written), a block device and a socket. A file is replaced atomically
// with no temporary file left in any folder; a symlink stays a link and
// its target (in its own folder) is replaced; a pipe and a device are
// written through and stay what they were; ENOSPC fails the write; the
// rest are refused before anything is written, by CheckOutput too.
func TestWriteOutputTargets(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	other := filepath.Join(root, "other")
	for _, d := range []string{out, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := func(n string) string { return filepath.Join(out, n) }
	os.WriteFile(p("old.mid"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(other, "target.mid"), []byte("old target"), 0o644)
	os.Symlink(filepath.Join(other, "target.mid"), p("link.mid"))
	os.Symlink("nowhere.mid", p("dangling.mid"))
	os.Symlink("loop.mid", p("loop.mid"))
	os.Mkdir(p("folder.mid"), 0o755)
	os.Symlink("folder.mid", p("tofolder.mid"))
	if err := syscall.Mkfifo(p("pipe.mid"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	os.Symlink("pipe.mid", p("topipe.mid"))
	devices := syscall.Mknod(p("null.mid"), syscall.S_IFCHR|0o666, 1<<8|3) == nil &&
		syscall.Mknod(p("full.mid"), syscall.S_IFCHR|0o666, 1<<8|7) == nil &&
		syscall.Mknod(p("disk.mid"), syscall.S_IFBLK|0o600, 7<<8|0) == nil // loop0's numbers: never opened
	if !devices {
		t.Log("mknod refused (not root?): the device rows are skipped")
	}
	if l, err := net.Listen("unix", p("sock.mid")); err == nil {
		defer l.Close()
	}
	data := []byte("MThd new content")

	// A reader for each pipe write, started when the write is.
	readPipe := func(name string) <-chan []byte {
		ch := make(chan []byte, 1)
		go func() {
			f, err := os.Open(p(name))
			if err != nil {
				ch <- nil
				return
			}
			b, _ := io.ReadAll(f)
			f.Close() // before the next row's writer looks for a reader
			ch <- b
		}()
		return ch
	}
	type row struct {
		name    string
		ok      bool
		reason  string      // in the error when refused
		kind    fs.FileMode // what the path is afterwards
		content string      // the file's content afterwards ("" : not checked)
		device  bool
	}
	rows := []row{
		{name: "new.mid", ok: true, kind: 0, content: string(data)},
		{name: "old.mid", ok: true, kind: 0, content: string(data)},
		{name: "link.mid", ok: true, kind: fs.ModeSymlink},
		{name: "dangling.mid", reason: "dangling symlink", kind: fs.ModeSymlink},
		{name: "loop.mid", reason: "cannot be followed", kind: fs.ModeSymlink},
		{name: "folder.mid", reason: "is a folder", kind: fs.ModeDir},
		{name: "tofolder.mid", reason: "is a folder", kind: fs.ModeSymlink},
		{name: "missing/x.mid", reason: "no such file"},
		{name: "old.mid/x.mid", reason: "not a directory"},
		{name: "pipe.mid", ok: true, kind: fs.ModeNamedPipe},
		{name: "topipe.mid", ok: true, kind: fs.ModeSymlink},
		{name: "sock.mid", reason: "socket", kind: fs.ModeSocket},
		{name: "null.mid", ok: true, kind: fs.ModeDevice | fs.ModeCharDevice, device: true},
		{name: "full.mid", reason: "no space left", kind: fs.ModeDevice | fs.ModeCharDevice, device: true},
		{name: "disk.mid", reason: "block device", kind: fs.ModeDevice, device: true},
	}
	for _, r := range rows {
		if r.device && !devices {
			continue
		}
		var got <-chan []byte
		if r.name == "pipe.mid" || r.name == "topipe.mid" {
			got = readPipe("pipe.mid")
		}
		if r.ok != (CheckOutput(p(r.name)) == nil) && r.name != "full.mid" {
			t.Errorf("%s: CheckOutput %v, want ok=%v", r.name, CheckOutput(p(r.name)), r.ok)
		}
		wrote := false
		err := WriteOutput(context.Background(), p(r.name), func(w io.Writer) error {
			wrote = true
			_, err := w.Write(data)
			return err
		})
		switch {
		case r.ok && err != nil:
			t.Errorf("%s: %v", r.name, err)
		case !r.ok && (err == nil || !strings.Contains(err.Error(), r.reason) || !strings.Contains(err.Error(), r.name)):
			t.Errorf("%s: error %v, want one naming it and %q", r.name, err, r.reason)
		case !r.ok && wrote && r.name != "full.mid":
			t.Errorf("%s: refused after the content was made, not before", r.name)
		}
		if got != nil {
			select {
			case b := <-got:
				if !bytes.Equal(b, data) {
					t.Errorf("%s: the pipe's reader got %q", r.name, b)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("%s: the pipe's reader got nothing", r.name)
			}
		}
		if r.name == "missing/x.mid" || r.name == "old.mid/x.mid" {
			continue
		}
		if k := kindOf(t, p(r.name)); k != r.kind {
			t.Errorf("%s is a %v afterwards, was a %v", r.name, k, r.kind)
		}
		if r.content != "" {
			if b, _ := os.ReadFile(p(r.name)); string(b) != r.content {
				t.Errorf("%s holds %q", r.name, b)
			}
		}
	}
	if b, _ := os.ReadFile(filepath.Join(other, "target.mid")); !bytes.Equal(b, data) {
		t.Errorf("the symlink's target holds %q, want the new content", b)
	}
	if got, want := listDir(t, other), []string{"target.mid"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("the target's folder holds %v (a temporary file left?)", got)
	}
	for _, n := range listDir(t, out) {
		if strings.HasSuffix(n, ".tmp") {
			t.Errorf("temporary file %s left", n)
		}
	}
	for _, n := range listDir(t, root) {
		if n != "out" && n != "other" {
			t.Errorf("%s written beside the output folders", n)
		}
	}
}

// TestWriteOutputStreamStops: a named pipe whose reader never comes (or
// never reads) holds a write; ending the context ends it.
func TestWriteOutputStreamStops(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe.wav")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- WriteOutput(ctx, p, func(w io.Writer) error {
			_, err := w.Write(make([]byte, 1<<20))
			return err
		})
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("write to a pipe with no reader: %v, want the context's deadline", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write did not stop")
	}
	if kindOf(t, p) != fs.ModeNamedPipe {
		t.Fatal("the pipe was replaced")
	}
}

// TestCheckOutputDir: folders (and links to them) and missing paths are
// places to write into; a file, a device, a pipe and a dangling link are
// not.
func TestCheckOutputDir(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	os.WriteFile(p("file"), []byte("x"), 0o644)
	os.Mkdir(p("folder"), 0o755)
	os.Symlink("folder", p("tofolder"))
	os.Symlink("nowhere", p("dangling"))
	syscall.Mkfifo(p("pipe"), 0o644)
	for _, c := range []struct {
		name   string
		reason string
	}{{"folder", ""}, {"tofolder", ""}, {"new/deeper", ""}, {"file", "regular file, not a folder"},
		{"pipe", "named pipe (FIFO), not a folder"}, {"dangling", "dangling symlink"}} {
		err := CheckOutputDir(p(c.name))
		if (err == nil) != (c.reason == "") || (err != nil && !strings.Contains(err.Error(), c.reason)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.reason)
		}
	}
	if err := CheckOutputDir("/dev/null"); err == nil || !strings.Contains(err.Error(), "character device") {
		t.Errorf("/dev/null: %v", err)
	}
}
