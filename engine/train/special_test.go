//go:build unix

package train

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenDirSkipsSpecialFiles: a data folder with, beside a real shard, a
// named pipe and a /dev/zero symlink named like shards and MIDI files,
// and a real shard whose .idx is a FIFO. The special entries are listed
// as skipped with their kind, never opened; the FIFO .idx fails its shard
// with a message instead of waiting.
func TestOpenDirSkipsSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	writeShard(t, dir, "a", [][]uint16{{1, 2, 3}, {4, 5}})
	for _, n := range []string{"p.bin", "p.mid"} {
		if err := syscall.Mkfifo(filepath.Join(dir, n), 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
	}
	for _, n := range []string{"z.bin", "z.midi"} {
		if err := os.Symlink("/dev/zero", filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	type result struct {
		ds  *Dataset
		err error
	}
	ch := make(chan result, 2)
	go func() {
		ds, err := OpenDir(dir, 10, func(string) ([]uint16, error) { return []uint16{1, 2}, nil })
		ch <- result{ds, err}
	}()
	var r result
	select {
	case r = <-ch:
	case <-time.After(20 * time.Second): // generous: nothing here waits
		t.Fatal("OpenDir blocked on a special file")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.ds.Close()
	got := strings.Join(r.ds.Skipped, "\n")
	for _, want := range []string{"p.bin: skipped: named pipe (FIFO)", "p.mid: skipped: named pipe (FIFO)",
		"z.bin: skipped: symlink to a character device", "z.midi: skipped: symlink to a character device"} {
		if !strings.Contains(got, want) {
			t.Errorf("skipped lacks %q:\n%s", want, got)
		}
	}

	// A shard whose .idx is a named pipe.
	bad := t.TempDir()
	writeShard(t, bad, "b", [][]uint16{{1, 2, 3}})
	os.Remove(filepath.Join(bad, "b.idx"))
	if err := syscall.Mkfifo(filepath.Join(bad, "b.idx"), 0o644); err != nil {
		t.Fatal(err)
	}
	go func() {
		ds, err := OpenDir(bad, 10, nil)
		ch <- result{ds, err}
	}()
	select {
	case r = <-ch:
	case <-time.After(20 * time.Second):
		t.Fatal("OpenDir blocked on a FIFO .idx")
	}
	if r.err == nil || !strings.Contains(r.err.Error(), "named pipe") {
		t.Errorf("FIFO .idx: %v", r.err)
	}
}
