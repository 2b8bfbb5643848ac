//go:build unix

package pipeline

import (
	"net"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"time"
)

// TestScanSkipsSpecialFiles ingests a folder of real files with, under
// MIDI names, a named pipe, a socket, a device node, symlinks to
// /dev/zero, to the pipe, to a folder, a dangling one and a loop (every
// mode). Each is reported as skipped with its kind and never opened; the
// regular files and a symlink to one are ingested. A FIFO once hung
// `amt ingest` forever and /dev/zero read without end.
func TestScanSkipsSpecialFiles(t *testing.T) {
	for _, mode := range []Mode{Stream, Preload, MMap} {
		t.Run(string(mode), func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "corpus")
			bodies := makeCorpus(root, 12, 0)
			g := filepath.Join(root, "g0")
			if err := syscall.Mkfifo(filepath.Join(g, "pipe.mid"), 0o644); err != nil {
				t.Skip("mkfifo:", err)
			}
			want := []SkippedFile{{"g0/pipe.mid", "named pipe (FIFO)"}}
			if l, err := net.Listen("unix", filepath.Join(g, "sock.midi")); err == nil {
				defer l.Close()
				want = append(want, SkippedFile{"g0/sock.midi", "socket"})
			}
			if syscall.Mknod(filepath.Join(g, "zero.mid"), syscall.S_IFCHR|0o666, 1<<8|5) == nil {
				want = append(want, SkippedFile{"g0/zero.mid", "character device"})
			}
			links := map[string]string{"devzero.mid": "/dev/zero", "topipe.mid": "pipe.mid", "todir.mid": "..",
				"dangling.mid": "gone.mid", "loop.mid": "loop.mid"}
			kinds := map[string]string{"devzero.mid": "symlink to a character device", "topipe.mid": "symlink to a named pipe (FIFO)",
				"todir.mid": "symlink to a folder", "dangling.mid": "dangling symlink", "loop.mid": "symlink loop"}
			for name, to := range links {
				if err := os.Symlink(to, filepath.Join(g, name)); err != nil {
					t.Fatal(err)
				}
				want = append(want, SkippedFile{"g0/" + name, kinds[name]})
			}
			if err := os.Symlink("song000.mid", filepath.Join(g, "alias.mid")); err != nil { // to a regular file: taken
				t.Fatal(err)
			}
			bodies["g0/alias.mid"] = bodies["g0/song000.mid"]
			sink := newMemSink()
			var rep *Report
			done := make(chan struct{})
			go func() {
				defer close(done)
				rep = runFake(t, root, filepath.Join(t.TempDir(), "shards"), sink, mode, nil)
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second): // generous: nothing here waits
				t.Fatal("ingestion blocked on a special file")
			}
			if rep == nil {
				return
			}
			sortSkipped(want)
			if rep.Skipped != len(want) || !reflect.DeepEqual(rep.SkippedFiles, want) {
				t.Errorf("skipped %d %v\nwant %d %v", rep.Skipped, rep.SkippedFiles, len(want), want)
			}
			if rep.Files != len(bodies) || rep.OK != len(bodies) || rep.Failed != 0 {
				t.Errorf("files %d, ok %d, failed %d; want %d ok", rep.Files, rep.OK, rep.Failed, len(bodies))
			}
		})
	}
}

func sortSkipped(s []SkippedFile) {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j].Path < s[i].Path {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
}
