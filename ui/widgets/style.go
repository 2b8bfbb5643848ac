package widgets

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
)

// palette is the set of theme-derived colours a renderer draws with,
// looked up again on every refresh so a theme change takes effect.
type palette struct {
	dark       bool
	fg         color.Color // text, axes
	muted      color.Color // secondary text
	grid       color.Color // grid lines
	bg         color.Color // widget background
	primary    color.Color
	alert      color.Color // above a threshold, failures
	warning    color.Color
	textSize   float32 // tick labels, legends
	titleSize  float32
	lineStroke float32
}

func paletteFor(w fyne.Widget) palette {
	th := theme.CurrentForWidget(w)
	v := fyne.CurrentApp().Settings().ThemeVariant()
	bg := th.Color(theme.ColorNameBackground, v)
	fg := th.Color(theme.ColorNameForeground, v)
	p := palette{
		fg:         fg,
		bg:         bg,
		primary:    th.Color(theme.ColorNamePrimary, v),
		alert:      th.Color(theme.ColorNameError, v),
		warning:    th.Color(theme.ColorNameWarning, v),
		muted:      blend(fg, bg, 0.35),
		grid:       blend(fg, bg, 0.85),
		textSize:   th.Size(theme.SizeNameCaptionText),
		titleSize:  th.Size(theme.SizeNameText),
		lineStroke: 1.5,
	}
	p.dark = luminance(bg) < 0.5
	if p.textSize < 10 {
		p.textSize = 10
	}
	return p
}

// blend mixes a toward b by t (0 = a, 1 = b), opaque.
func blend(a, b color.Color, t float64) color.Color {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	mix := func(x, y uint32) uint8 {
		return uint8((float64(x)*(1-t) + float64(y)*t) / 257)
	}
	return color.NRGBA{mix(ar, br), mix(ag, bg), mix(ab, bb), 255}
}

func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 65535
}

// seriesColors are distinct mid-tone colours legible on light and dark
// backgrounds (a Tableau-like set); on dark themes they are lightened.
var seriesColors = []color.NRGBA{
	{0x2f, 0x6f, 0xb5, 255}, // blue
	{0xe8, 0x7d, 0x1e, 255}, // orange
	{0x3a, 0x9a, 0x48, 255}, // green
	{0xc8, 0x3e, 0x4d, 255}, // red
	{0x8e, 0x5e, 0xa8, 255}, // purple
	{0x1f, 0x9e, 0x9a, 255}, // teal
	{0xb5, 0x8b, 0x16, 255}, // ochre
	{0xd0, 0x5c, 0xa0, 255}, // pink
	{0x7a, 0x5c, 0x45, 255}, // brown
	{0x6b, 0x6b, 0x6b, 255}, // grey
}

// seriesColor returns the i-th series colour for the palette's theme.
func (p palette) seriesColor(i int) color.Color {
	c := seriesColors[i%len(seriesColors)]
	if p.dark {
		return blend(c, color.White, 0.25)
	}
	return c
}

// pool hands out canvas objects of one kind and keeps them between
// refreshes: reset, then get as many as this refresh needs; objects not
// handed out are simply left out of the renderer's object list.
type pool[T fyne.CanvasObject] struct {
	items []T
	used  int
	make  func() T
}

func (p *pool[T]) reset() { p.used = 0 }

func (p *pool[T]) get() T {
	if p.used == len(p.items) {
		p.items = append(p.items, p.make())
	}
	it := p.items[p.used]
	p.used++
	return it
}

func (p *pool[T]) active() []T { return p.items[:p.used] }

func appendActive[T fyne.CanvasObject](objs []fyne.CanvasObject, p *pool[T]) []fyne.CanvasObject {
	for _, o := range p.active() {
		objs = append(objs, o)
	}
	return objs
}

func newLinePool() pool[*canvas.Line] {
	return pool[*canvas.Line]{make: func() *canvas.Line { return canvas.NewLine(color.Black) }}
}

func newTextPool() pool[*canvas.Text] {
	return pool[*canvas.Text]{make: func() *canvas.Text { return canvas.NewText("", color.Black) }}
}

func newRectPool() pool[*canvas.Rectangle] {
	return pool[*canvas.Rectangle]{make: func() *canvas.Rectangle { return canvas.NewRectangle(color.Black) }}
}

// setLine places l from (x1,y1) to (x2,y2).
func setLine(l *canvas.Line, x1, y1, x2, y2 float32, c color.Color, width float32) {
	l.Position1 = fyne.NewPos(x1, y1)
	l.Position2 = fyne.NewPos(x2, y2)
	l.StrokeColor = c
	l.StrokeWidth = width
}

// setText sets t's content and style and sizes it to fit.
func setText(t *canvas.Text, s string, c color.Color, size float32, bold bool) fyne.Size {
	t.Text = s
	t.Color = c
	t.TextSize = size
	t.TextStyle = fyne.TextStyle{Bold: bold}
	t.Alignment = fyne.TextAlignLeading
	sz := fyne.MeasureText(s, size, t.TextStyle)
	t.Resize(sz)
	return sz
}

// placeRect moves and sizes r.
func placeRect(r *canvas.Rectangle, x, y, w, h float32, c color.Color) {
	r.FillColor = c
	r.StrokeWidth = 0
	r.Move(fyne.NewPos(x, y))
	r.Resize(fyne.NewSize(w, h))
}
