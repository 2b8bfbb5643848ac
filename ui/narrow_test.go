package ui

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/amtstudio/amt/app/cli"
)

// TestNarrowWindowHolds: every screen, over the demo state, laid out in a
// window 600, 400 and 200 pixels wide (and one short window) gives no
// object a negative size and is drawn without a panic. `amt snapshot
// --screen compose --width 600` panicked in Fyne's rasterizer: the
// Instruments chip's entry was given -2.5 pixels (its grid cell narrower
// than the label, the entry and the picker) and the software painter
// cannot draw a rounded rectangle of negative width. The captures are
// saved under testdata/out for a person to look at.
func TestNarrowWindowHolds(t *testing.T) {
	st, err := demoStudio()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(snapshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := testShell(t, test.NewTempApp(t), st, nil)
	for _, name := range ScreenNames {
		for _, size := range []fyne.Size{{Width: 600, Height: 720}, {Width: 400, Height: 720}, {Width: 200, Height: 720}, {Width: 600, Height: 300}} {
			if err := s.Select(name); err != nil {
				t.Fatal(err)
			}
			s.Window.Resize(size)
			s.settle()
			if bad := negativeSizes(s.Window.Content(), ""); len(bad) > 0 {
				t.Errorf("%s at %v: %d objects of negative size, first %s", name, size, len(bad), bad[0])
			}
			img, err := capture(s.Window)
			if err != nil {
				t.Errorf("%s at %v: %v", name, size, err)
				continue
			}
			if b := img.Bounds(); b.Dx() != int(size.Width) || b.Dy() != int(size.Height) {
				t.Errorf("%s at %v: capture is %v", name, size, b)
			}
			file := fmt.Sprintf("%s-%vx%v.png", name, size.Width, size.Height)
			if err := WritePNG(filepath.Join(snapshotDir, file), img); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// capture draws w, a panic in the painter returned as an error.
func capture(w fyne.Window) (img image.Image, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing panicked: %v", r)
		}
	}()
	return w.Canvas().Capture(), nil
}

// negativeSizes lists the visible objects under o laid out with a
// negative width or height, each with its path of types.
func negativeSizes(o fyne.CanvasObject, path string) []string {
	if o == nil || !o.Visible() {
		return nil
	}
	path += "/" + strings.TrimPrefix(reflect.TypeOf(o).String(), "*")
	var bad []string
	if sz := o.Size(); sz.Width < 0 || sz.Height < 0 {
		bad = append(bad, fmt.Sprintf("%s is %v", path, sz))
	}
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			bad = append(bad, negativeSizes(c, path)...)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			bad = append(bad, negativeSizes(c, path)...)
		}
	}
	return bad
}

// TestSnapshotCommandNarrow: `amt snapshot --screen compose --width 600`
// writes a 600-pixel capture (it panicked), and a size below the window's
// minimum (its content's minimum size, which the desktop driver holds a
// window to) is a usage error naming the flag, the value and the minimum.
func TestSnapshotCommandNarrow(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c.png")
	run := func(args ...string) (int, string) {
		var so, se strings.Builder
		code := cli.Main(context.Background(), &cli.Env{Stdout: &so, Stderr: &se, Snapshot: SnapshotPNG}, append([]string{"snapshot", "--screen", "compose", "-o", out}, args...))
		return code, se.String()
	}
	if code, se := run("--width", "600"); code != 0 {
		t.Fatalf("--width 600: exit %d: %s", code, se)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if cfg, err := png.DecodeConfig(f); err != nil || cfg.Width != 600 || cfg.Height != 720 {
		t.Errorf("capture %dx%d (%v), want 600x720", cfg.Width, cfg.Height, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--width", "10"}, "--width 10: the window is at least "},
		{[]string{"--height", "10"}, "--height 10: the window is at least "},
	} {
		if code, se := run(c.args...); code != 2 || !strings.Contains(se, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 naming %q", c.args, code, se, c.want)
		}
	}
}
