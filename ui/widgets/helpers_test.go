package widgets

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// outDir holds captures for a person to look at (git-ignored).
const outDir = "testdata/out"

// variantTheme is the default theme forced to one variant.
type variantTheme struct {
	fyne.Theme
	v fyne.ThemeVariant
}

func (t variantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.v)
}

var themes = []struct {
	name string
	v    fyne.ThemeVariant
}{{"light", theme.VariantLight}, {"dark", theme.VariantDark}}

// newApp starts a test app with the default theme in variant v.
func newApp(t *testing.T, v fyne.ThemeVariant) fyne.App {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(variantTheme{theme.DefaultTheme(), v})
	return a
}

// show puts obj alone in an unpadded test window of the given size.
func show(t *testing.T, obj fyne.CanvasObject, w, h float32) fyne.Window {
	t.Helper()
	win := test.NewTempWindow(t, obj)
	win.SetPadded(false)
	win.Resize(fyne.NewSize(w, h))
	obj.Resize(fyne.NewSize(w, h))
	return win
}

// capture renders the window and saves it as testdata/out/name.png.
func capture(t *testing.T, win fyne.Window, name string) image.Image {
	t.Helper()
	img := win.Canvas().Capture()
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(outDir, name+".png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	return img
}

// near reports whether two colours differ by at most tol per channel (0–255).
func near(a, b color.Color, tol int) bool {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	d := func(x, y uint32) bool {
		dx := int(x>>8) - int(y>>8)
		return dx <= tol && dx >= -tol
	}
	return d(ar, br) && d(ag, bg) && d(ab, bb)
}

// pixelsNear counts pixels of img within tol of c inside r.
func pixelsNear(img image.Image, r image.Rectangle, c color.Color, tol int) int {
	n := 0
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if near(img.At(x, y), c, tol) {
				n++
			}
		}
	}
	return n
}

// rendererOf returns the widget's cached renderer.
func rendererOf(w fyne.Widget) fyne.WidgetRenderer { return test.WidgetRenderer(w) }

var size600x300 = fyne.NewSize(600, 300)
