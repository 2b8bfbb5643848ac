//go:build unix

package ui

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/amtstudio/amt/engine/midi"
)

// bigCorpus writes n small MIDI files plainly (fast), a named pipe and a
// symlink to /dev/zero under dir: the audit's import hang.
func bigCorpus(t *testing.T, dir string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		s := &midi.Score{Format: 1, TicksPerBeat: 96, Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 400000 + 10*i}}}
		tr := midi.Track{Program: i % 128}
		for k := 0; k < 32; k++ {
			tr.Notes = append(tr.Notes, midi.Note{Tick: int64(k * 96), Dur: 90, Pitch: uint8(60 + (k*5+i)%24), Velocity: 80})
		}
		s.Tracks, s.EndTick = []midi.Track{tr}, 32*96
		var b bytes.Buffer
		s.Write(&b)
		p := filepath.Join(dir, fmt.Sprintf("d%02d/t%05d.mid", i%20, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.mid"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	os.Symlink("/dev/zero", filepath.Join(dir, "zero.mid"))
}

func tempFiles(root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(d.Name(), ".tmp") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestImportStopsOnCancelAndClose: the window imports a folder holding a
// named pipe and a link to /dev/zero (they used to hang the import, and
// closing the window waited on it forever): a small one completes and
// says what it skipped; a large one stops on Cancel, and another on
// closing the window, each promptly (a generous bound), keeping the
// batches committed and leaving no temporary file.
func TestImportStopsOnCancelAndClose(t *testing.T) {
	a := test.NewTempApp(t)
	st := tempStudio(t)

	small := t.TempDir()
	bigCorpus(t, small, 5)
	s := testShell(t, a, st, nil)
	d := s.Datasets
	d.startImport(small)
	waitFor(t, func() bool { return !d.importB.Disabled() && strings.Contains(s.Status.Text, "Imported") })
	if !strings.Contains(s.Status.Text, "2 skipped") {
		t.Errorf("status %q: the skipped pipe and link are not named", s.Status.Text)
	}

	big := t.TempDir()
	bigCorpus(t, big, 3000)
	d.startImport(big)
	waitFor(t, func() bool { return strings.Contains(d.stage.Text, "ingest") })
	start := time.Now()
	test.Tap(d.cancelB)
	waitFor(t, func() bool { return !d.importB.Disabled() })
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Cancel took %v to stop the import", took)
	}
	if !strings.Contains(s.Status.Text, "Import stopped") {
		t.Errorf("status after Cancel: %q", s.Status.Text)
	}
	list, err := st.Datasets("default")
	if err != nil || len(list) != 2 || list[1].Items == 0 || list[1].Items >= 3000 {
		t.Errorf("after Cancel: datasets %+v, %v; want the batches committed before it", list, err)
	}

	d.startImport(big)
	waitFor(t, func() bool { return strings.Contains(d.stage.Text, "ingest") })
	start = time.Now()
	s.Close() // what closing the window does
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("closing took %v to stop the import", took)
	}
	if l := tempFiles(st.Home); len(l) > 0 {
		t.Errorf("temporary files left: %v", l)
	}
}
