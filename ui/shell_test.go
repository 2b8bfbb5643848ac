package ui

import (
	"image"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/amtstudio/amt/app"
)

// snapshotDir is where captures are saved for a person to look at
// (ignored by git).
const snapshotDir = "testdata/out"

func TestShellHasFourScreensAndStatus(t *testing.T) {
	a := test.NewTempApp(t)
	st := tempStudio(t)
	s := testShell(t, a, st, nil)
	defer s.Close()
	defer s.Window.Close()
	if got := len(s.Tabs.Items); got != 4 {
		t.Fatalf("tabs = %d, want 4", got)
	}
	for i, want := range []string{"Compose", "Datasets", "Training", "Settings"} {
		if s.Tabs.Items[i].Text != want {
			t.Errorf("tab %d = %q, want %q", i, s.Tabs.Items[i].Text, want)
		}
	}
	if s.Status.Text != "Ready" {
		t.Errorf("status = %q, want Ready", s.Status.Text)
	}
	if err := s.Select("training"); err != nil {
		t.Fatal(err)
	}
	if s.Tabs.SelectedIndex() != 2 {
		t.Errorf("selected = %d, want 2", s.Tabs.SelectedIndex())
	}
	if err := s.Select("nope"); err == nil {
		t.Error("Select(nope) succeeded, want error")
	}
	s.SetStatus("Importing")
	waitFor(t, func() bool { return s.Status.Text == "Importing" })
}

// liveShells are the shells the running test made (testShell); waitFor
// applies their updates.
var liveShells struct {
	sync.Mutex
	list []*Shell
}

// testShell is a drained shell (see bridge): background work's updates
// are applied only by waitFor or drainShells, on the test's goroutine,
// the one that types, taps and captures. It is closed when the test ends.
func testShell(t *testing.T, a fyne.App, st *app.Studio, openErr error) *Shell {
	t.Helper()
	s := newDrainedShell(a, st, openErr)
	liveShells.Lock()
	liveShells.list = append(liveShells.list, s)
	liveShells.Unlock()
	t.Cleanup(func() {
		s.Close()
		liveShells.Lock()
		defer liveShells.Unlock()
		liveShells.list = slices.DeleteFunc(liveShells.list, func(o *Shell) bool { return o == s })
	})
	return s
}

// drainShells applies what background work posted to the test's shells.
func drainShells() {
	liveShells.Lock()
	list := slices.Clone(liveShells.list)
	liveShells.Unlock()
	for _, s := range list {
		s.drain()
	}
}

// waitFor applies the shells' updates and checks cond, every 10 ms for up
// to a minute.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		drainShells()
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition not met")
}

func tempStudio(t *testing.T) *app.Studio {
	t.Helper()
	st, err := app.OpenStudio(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestSnapshotEachScreen(t *testing.T) {
	if err := os.MkdirAll(snapshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var prev image.Image
	for _, name := range ScreenNames {
		img, err := Snapshot(name, fyne.NewSize(800, 500))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() != 800 || b.Dy() != 500 {
			t.Fatalf("%s: capture is %v, want 800x500", name, b)
		}
		if prev != nil && sameImage(prev, img) {
			t.Errorf("%s: capture identical to the previous screen's", name)
		}
		prev = img
		if err := WritePNG(filepath.Join(snapshotDir, name+".png"), img); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Snapshot("missing", fyne.NewSize(100, 100)); err == nil {
		t.Error("snapshot of an unknown screen succeeded")
	}
}

func sameImage(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return false
			}
		}
	}
	return true
}
