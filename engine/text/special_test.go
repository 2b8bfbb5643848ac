//go:build unix

package text

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/amtstudio/amt/engine/midi"
)

// TestCollectorSkipsSpecialFiles: the collector walks the folder being
// imported and reads its tables, tune books, music sets and sidecars. A
// named pipe or a symlink to /dev/zero under one of those names is noted
// as skipped with its kind, never opened: a FIFO index.csv once hung
// ingestion in open(2).
func TestCollectorSkipsSpecialFiles(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "song.mid"), []byte("MThd"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"index.csv", "book.abc", "set.obm", "song.txt"} {
		if err := syscall.Mkfifo(filepath.Join(root, n), 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
	}
	if err := os.Symlink("/dev/zero", filepath.Join(root, "song.json")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "map.csv"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var notes []string
	var info PieceInfo
	var mapErr error
	go func() {
		defer close(done)
		c, err := NewCollector(root, CollectorOptions{})
		if err != nil {
			t.Error(err)
			return
		}
		notes = c.Notes()
		info = c.Info(context.Background(), filepath.Join(root, "song.mid"), &midi.Score{})
		_, mapErr = NewCollector(root, CollectorOptions{MappingCSV: "map.csv"}) // named by the user: refused
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second): // generous: nothing here waits
		t.Fatal("the collector blocked on a special file")
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{"index.csv: skipped: named pipe (FIFO)", "book.abc: skipped: named pipe (FIFO)", "set.obm: skipped: named pipe (FIFO)",
		"song.txt: skipped: named pipe (FIFO)", "song.json: skipped: symlink to a character device"} {
		if !strings.Contains(all, want) {
			t.Errorf("notes lack %q:\n%s", want, all)
		}
	}
	if len(info.Sources) != 0 {
		t.Errorf("sources %v: the special files were read", info.Sources)
	}
	if mapErr == nil || !strings.Contains(mapErr.Error(), "named pipe") {
		t.Errorf("--mapping naming a FIFO: %v", mapErr)
	}
}
