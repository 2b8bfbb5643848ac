package widgets

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
)

// Layout constants shared by the charts (in Fyne units).
const (
	chartPad   = 6  // outer padding
	tickLen    = 4  // tick mark length
	labelGap   = 4  // between a tick label and the axis
	swatchSize = 10 // legend colour square
	minYTickPx = 26 // vertical room per y tick
	minXTickPx = 16 // horizontal gap between x tick labels
)

// legendEntry is one legend item.
type legendEntry struct {
	name  string
	color color.Color
	text  color.Color // nil: the palette's foreground
}

// frame draws what the axis charts share: title, y-axis caption, legend,
// tick labels, grid lines and the two axis lines. A renderer resets it,
// lays it out in order (header, footer, yAxis, xAxis, axes) and appends its
// objects around its own data objects.
type frame struct {
	grid     pool[*canvas.Line]
	axis     pool[*canvas.Line]
	texts    pool[*canvas.Text]
	swatches pool[*canvas.Rectangle]
}

func newFrame() *frame {
	return &frame{grid: newLinePool(), axis: newLinePool(), texts: newTextPool(), swatches: newRectPool()}
}

func (f *frame) reset() {
	f.grid.reset()
	f.axis.reset()
	f.texts.reset()
	f.swatches.reset()
}

// text places a label with its top-left corner at (x, y).
func (f *frame) text(s string, x, y float32, c color.Color, size float32, bold bool) fyne.Size {
	t := f.texts.get()
	sz := setText(t, s, c, size, bold)
	t.Move(fyne.NewPos(x, y))
	return sz
}

// header lays out the title row and the caption/legend row and returns
// the y where the plot may start.
func (f *frame) header(p palette, size fyne.Size, title, yCaption string, legend []legendEntry) float32 {
	y := float32(chartPad)
	if title != "" {
		sz := f.text(title, chartPad, y, p.fg, p.titleSize, true)
		y += sz.Height + 2
	}
	rowH := fyne.MeasureText("Mg", p.textSize, fyne.TextStyle{}).Height
	if yCaption == "" && len(legend) == 0 {
		return y + rowH/2
	}
	left := float32(chartPad)
	if yCaption != "" {
		sz := f.text(yCaption, chartPad, y, p.muted, p.textSize, false)
		left += sz.Width + 16
	}
	// Legend items right-aligned, wrapping onto further rows.
	right := size.Width - chartPad
	x := right
	rowY := y
	rows := 1
	for i := len(legend) - 1; i >= 0; i-- {
		e := legend[i]
		tw := fyne.MeasureText(e.name, p.textSize, fyne.TextStyle{}).Width
		w := swatchSize + 4 + tw
		if x-w < left && x < right {
			rows++
			rowY += rowH
			x = right
		}
		x -= w
		sw := f.swatches.get()
		placeRect(sw, x, rowY+(rowH-swatchSize)/2, swatchSize, swatchSize, e.color)
		tc := e.text
		if tc == nil {
			tc = p.fg
		}
		f.text(e.name, x+swatchSize+4, rowY, tc, p.textSize, false)
		x -= 12
	}
	// Half a row more so the top tick label stays clear of the legend.
	return y + float32(rows)*rowH + rowH/2 + 2
}

// footer lays out the x caption and reserves the x tick labels' row; it
// returns the plot's bottom y.
func (f *frame) footer(p palette, size fyne.Size, xCaption string) float32 {
	rowH := fyne.MeasureText("Mg", p.textSize, fyne.TextStyle{}).Height
	y := size.Height - chartPad
	if xCaption != "" {
		tw := fyne.MeasureText(xCaption, p.textSize, fyne.TextStyle{}).Width
		y -= rowH
		f.text(xCaption, (size.Width-tw)/2, y, p.muted, p.textSize, false)
	}
	return y - rowH - tickLen
}

// yLabelWidth is the widest of labels.
func yLabelWidth(p palette, labels []string) float32 {
	w := float32(0)
	for _, s := range labels {
		if tw := fyne.MeasureText(s, p.textSize, fyne.TextStyle{}).Width; tw > w {
			w = tw
		}
	}
	return w
}

// yAxis draws right-aligned labels left of x=left and horizontal grid
// lines across [left, right] at the given y positions.
func (f *frame) yAxis(p palette, left, right float32, ys []float32, labels []string) {
	for i, y := range ys {
		setLine(f.grid.get(), left, y, right, y, p.grid, 1)
		setLine(f.axis.get(), left-tickLen, y, left, y, p.muted, 1)
		tw := fyne.MeasureText(labels[i], p.textSize, fyne.TextStyle{}).Width
		th := fyne.MeasureText(labels[i], p.textSize, fyne.TextStyle{}).Height
		f.text(labels[i], left-tickLen-labelGap/2-tw, y-th/2, p.muted, p.textSize, false)
	}
}

// xAxis draws labels centred under the given x positions (kept inside
// the widget) and vertical grid lines over [top, bottom].
func (f *frame) xAxis(p palette, size fyne.Size, top, bottom float32, xs []float32, labels []string, grid bool) {
	prevRight := float32(-1e9)
	for i, x := range xs {
		if grid {
			setLine(f.grid.get(), x, top, x, bottom, p.grid, 1)
		}
		if labels[i] == "" {
			continue
		}
		setLine(f.axis.get(), x, bottom, x, bottom+tickLen, p.muted, 1)
		tw := fyne.MeasureText(labels[i], p.textSize, fyne.TextStyle{}).Width
		lx := x - tw/2
		if lx+tw > size.Width-2 {
			lx = size.Width - 2 - tw
		}
		if lx < 2 {
			lx = 2
		}
		if lx < prevRight+4 { // never overlap the previous label
			continue
		}
		f.text(labels[i], lx, bottom+tickLen, p.muted, p.textSize, false)
		prevRight = lx + tw
	}
}

// axes draws the left and bottom axis lines of the plot rectangle.
func (f *frame) axes(p palette, left, top, right, bottom float32) {
	setLine(f.axis.get(), left, top, left, bottom, p.muted, 1)
	setLine(f.axis.get(), left, bottom, right, bottom, p.muted, 1)
}

// appendBack appends the objects drawn under the data (grid).
func (f *frame) appendBack(objs []fyne.CanvasObject) []fyne.CanvasObject {
	return appendActive(objs, &f.grid)
}

// appendFront appends the objects drawn over the data (axes, text, legend).
func (f *frame) appendFront(objs []fyne.CanvasObject) []fyne.CanvasObject {
	objs = appendActive(objs, &f.axis)
	objs = appendActive(objs, &f.swatches)
	return appendActive(objs, &f.texts)
}
