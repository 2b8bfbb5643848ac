package ui

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/amtstudio/amt/app"
)

// Snapshot renders the named screen with Fyne's software test driver (no
// display needed) at the given size and returns the capture.
//
// Fyne's test driver must not be driven from the process's main goroutine,
// so the work runs on its own goroutine.
func Snapshot(screen string, size fyne.Size) (img image.Image, err error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		img, err = snapshot(screen, size)
	}()
	<-done
	return img, err
}

func snapshot(screen string, size fyne.Size) (image.Image, error) {
	a := test.NewApp()
	defer a.Quit()
	a.Settings().SetTheme(theme.DefaultTheme())
	s := NewShell(a)
	if err := s.Select(screen); err != nil {
		return nil, err
	}
	s.Window.Resize(size)
	return s.Window.Canvas().Capture(), nil
}

// WritePNG writes img to path atomically (temp file, fsync, rename).
func WritePNG(path string, img image.Image) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".snapshot-*.png")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = png.Encode(f, img)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func init() {
	c := &app.Command{
		Name:    "snapshot",
		Usage:   "snapshot --screen compose|datasets|training|settings -o FILE.png [--width W --height H]",
		Summary: "render a screen with the headless driver and save it as PNG",
	}
	c.Run = func(ctx context.Context, env *app.Env, args []string) error {
		fs := app.NewFlags(env, c)
		screen := fs.String("screen", "compose", "screen to render")
		out := fs.String("o", "", "output PNG file")
		w := fs.Int("width", 1100, "width in pixels")
		h := fs.Int("height", 720, "height in pixels")
		if _, err := app.ParseInterleaved(fs, args); err != nil {
			return err
		}
		if *out == "" {
			return fmt.Errorf("%w: -o FILE.png is required", app.ErrUsage)
		}
		if *w <= 0 || *h <= 0 {
			return errors.Join(app.ErrUsage, fmt.Errorf("size must be positive, got %dx%d", *w, *h))
		}
		img, err := Snapshot(*screen, fyne.NewSize(float32(*w), float32(*h)))
		if err != nil {
			return err
		}
		return WritePNG(*out, img)
	}
	app.Register(c)
}
