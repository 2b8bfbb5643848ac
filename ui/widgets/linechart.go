package widgets

import (
	"math"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"
)

// LineChart plots several named series of (x, y) points against shared
// axes with nice tick labels, a legend and automatic ranges; points can be
// appended cheaply for live updates, and the y axis can be logarithmic.
// When a series has more points than the plot has pixels it is drawn as a
// min/max envelope per two-pixel column, so spikes stay visible and the
// number of line objects stays bounded by the plot's width.
type LineChart struct {
	widget.BaseWidget

	mu        sync.Mutex
	title     string
	xCaption  string
	yCaption  string
	logY      bool
	fixedY    bool
	yMin      float64
	yMax      float64
	maxPoints int
	series    []*lineSeries
}

type lineSeries struct {
	name string
	xs   []float64
	ys   []float64
}

// NewLineChart returns an empty chart with the given title ("" for none).
func NewLineChart(title string) *LineChart {
	c := &LineChart{title: title}
	c.ExtendBaseWidget(c)
	return c
}

// SetTitle sets the title shown above the plot.
func (c *LineChart) SetTitle(title string) {
	c.mu.Lock()
	c.title = title
	c.mu.Unlock()
	c.Refresh()
}

// SetAxisCaptions names the axes (e.g. "step", "loss"); "" hides one.
func (c *LineChart) SetAxisCaptions(x, y string) {
	c.mu.Lock()
	c.xCaption, c.yCaption = x, y
	c.mu.Unlock()
	c.Refresh()
}

// SetLogY switches the y axis between linear and logarithmic; on a log
// axis points with y ≤ 0 are not drawn.
func (c *LineChart) SetLogY(log bool) {
	c.mu.Lock()
	c.logY = log
	c.mu.Unlock()
	c.Refresh()
}

// SetYRange fixes the y axis to [min, max]; AutoY returns to automatic.
func (c *LineChart) SetYRange(min, max float64) {
	c.mu.Lock()
	c.fixedY, c.yMin, c.yMax = true, min, max
	c.mu.Unlock()
	c.Refresh()
}

// AutoY makes the y range follow the data again.
func (c *LineChart) AutoY() {
	c.mu.Lock()
	c.fixedY = false
	c.mu.Unlock()
	c.Refresh()
}

// SetMaxPoints keeps only the newest n points of each series (0: all).
func (c *LineChart) SetMaxPoints(n int) {
	c.mu.Lock()
	c.maxPoints = n
	for _, s := range c.series {
		s.trim(n)
	}
	c.mu.Unlock()
	c.Refresh()
}

// series returns the named series, creating it (legend order = creation order).
func (c *LineChart) seriesNamed(name string) *lineSeries {
	for _, s := range c.series {
		if s.name == name {
			return s
		}
	}
	s := &lineSeries{name: name}
	c.series = append(c.series, s)
	return s
}

// AddSeries declares a series so that it has its colour and legend place
// before any point arrives.
func (c *LineChart) AddSeries(name string) {
	c.mu.Lock()
	c.seriesNamed(name)
	c.mu.Unlock()
	c.Refresh()
}

// Append adds one point to the named series (created if new) and redraws.
func (c *LineChart) Append(name string, x, y float64) {
	c.mu.Lock()
	s := c.seriesNamed(name)
	s.xs = append(s.xs, x)
	s.ys = append(s.ys, y)
	s.trim(c.maxPoints)
	c.mu.Unlock()
	c.Refresh()
}

// SetSeries replaces the named series' points (xs and ys are copied; the
// shorter length wins).
func (c *LineChart) SetSeries(name string, xs, ys []float64) {
	n := min(len(xs), len(ys))
	c.mu.Lock()
	s := c.seriesNamed(name)
	s.xs = append(s.xs[:0], xs[:n]...)
	s.ys = append(s.ys[:0], ys[:n]...)
	s.trim(c.maxPoints)
	c.mu.Unlock()
	c.Refresh()
}

// Clear removes every series.
func (c *LineChart) Clear() {
	c.mu.Lock()
	c.series = nil
	c.mu.Unlock()
	c.Refresh()
}

// Len returns the number of points in the named series (0 if absent).
func (c *LineChart) Len(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.series {
		if s.name == name {
			return len(s.xs)
		}
	}
	return 0
}

// trim keeps the newest n points; the copy happens once per n appends.
func (s *lineSeries) trim(n int) {
	if n <= 0 || len(s.xs) <= n {
		return
	}
	if len(s.xs) < 2*n && cap(s.xs) >= 2*n {
		// Let the slice run on; slide the window only when it is full.
		s.xs, s.ys = s.xs[len(s.xs)-n:], s.ys[len(s.ys)-n:]
		return
	}
	s.xs = append(make([]float64, 0, 2*n), s.xs[len(s.xs)-n:]...)
	s.ys = append(make([]float64, 0, 2*n), s.ys[len(s.ys)-n:]...)
}

// CreateRenderer implements fyne.Widget.
func (c *LineChart) CreateRenderer() fyne.WidgetRenderer {
	r := &lineChartRenderer{c: c, f: newFrame(), lines: newLinePool()}
	r.empty = canvas.NewText("No data", nil)
	r.Refresh()
	return r
}

type lineChartRenderer struct {
	c     *LineChart
	f     *frame
	lines pool[*canvas.Line]
	empty *canvas.Text
	objs  []fyne.CanvasObject

	// scratch, reused between refreshes
	ticks  []float64
	labels []string
	pos    []float32
	pts    []fyne.Position
	legend []legendEntry
}

func (r *lineChartRenderer) Layout(fyne.Size) { r.Refresh() }

func (r *lineChartRenderer) MinSize() fyne.Size { return fyne.NewSize(160, 100) }

func (r *lineChartRenderer) Objects() []fyne.CanvasObject { return r.objs }

func (r *lineChartRenderer) Destroy() {}

// yMap maps a data y to the plotted coordinate (log10 on a log axis).
func yMap(y float64, log bool) float64 {
	if log {
		if y <= 0 {
			return math.NaN()
		}
		return math.Log10(y)
	}
	return y
}

func (r *lineChartRenderer) Refresh() {
	c := r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	p := paletteFor(c)
	size := c.Size()
	r.f.reset()
	r.lines.reset()

	// Data ranges.
	xlo, xhi := math.Inf(1), math.Inf(-1)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	npts := 0
	for _, s := range c.series {
		for i, x := range s.xs {
			y := yMap(s.ys[i], c.logY)
			if math.IsNaN(y) || math.IsInf(y, 0) || math.IsNaN(x) || math.IsInf(x, 0) {
				continue
			}
			npts++
			xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
			ylo, yhi = math.Min(ylo, y), math.Max(yhi, y)
		}
	}

	r.legend = r.legend[:0]
	for i, s := range c.series {
		r.legend = append(r.legend, legendEntry{name: s.name, color: p.seriesColor(i)})
	}
	top := r.f.header(p, size, c.title, c.yCaption, r.legend)
	bottom := r.f.footer(p, size, c.xCaption)
	right := size.Width - chartPad - 8
	r.objs = r.objs[:0]

	if npts == 0 || bottom-top < 10 {
		left := float32(chartPad + 24)
		r.f.axes(p, left, top, right, bottom)
		setText(r.empty, "No data", p.muted, p.textSize, false)
		r.empty.Move(fyne.NewPos((left+right-r.empty.Size().Width)/2, (top+bottom-r.empty.Size().Height)/2))
		r.objs = r.f.appendFront(r.objs)
		r.objs = append(r.objs, r.empty)
		return
	}

	// Y axis: range, ticks and labels.
	maxY := max(2, int((bottom-top)/minYTickPx))
	if c.fixedY {
		ylo, yhi = yMap(c.yMin, c.logY), yMap(c.yMax, c.logY)
		if math.IsNaN(ylo) {
			ylo = yhi - 1
		}
	}
	var step float64
	r.ticks = r.ticks[:0]
	r.labels = r.labels[:0]
	if c.logY {
		if yhi == ylo {
			ylo, yhi = ylo-0.5, yhi+0.5
		}
		padY := (yhi - ylo) * 0.05
		if !c.fixedY {
			ylo, yhi = ylo-padY, yhi+padY
		}
		r.ticks = appendLogTicks(r.ticks, math.Pow(10, ylo), math.Pow(10, yhi), maxY)
		for i, v := range r.ticks {
			r.labels = append(r.labels, formatLogTick(v))
			r.ticks[i] = math.Log10(v)
		}
	} else {
		if !c.fixedY {
			ylo, yhi, step = niceRange(ylo, yhi, maxY)
		} else {
			step = niceStep(yhi-ylo, maxY)
		}
		r.ticks = appendTicks(r.ticks, ylo, yhi, step)
		for _, v := range r.ticks {
			r.labels = append(r.labels, formatTick(v, step))
		}
	}
	if yhi <= ylo {
		yhi = ylo + 1
	}
	left := float32(chartPad) + yLabelWidth(p, r.labels) + tickLen + labelGap
	toY := func(v float64) float32 {
		return bottom - float32((v-ylo)/(yhi-ylo))*(bottom-top)
	}
	r.pos = r.pos[:0]
	for _, v := range r.ticks {
		r.pos = append(r.pos, toY(v))
	}
	r.f.yAxis(p, left, right, r.pos, r.labels)

	// X axis.
	if xhi == xlo {
		xlo, xhi = xlo-0.5, xhi+0.5
	}
	// Label width estimate from the range ends rounded to a coarse step, so
	// live appends measure the same strings (text measurement is cached).
	est := niceStep(xhi-xlo, 5)
	wide := max(fyne.MeasureText(formatTick(math.Floor(xlo/est)*est, est), p.textSize, fyne.TextStyle{}).Width,
		fyne.MeasureText(formatTick(math.Ceil(xhi/est)*est, est), p.textSize, fyne.TextStyle{}).Width)
	maxX := max(2, int((right-left)/(wide+minXTickPx)))
	xstep := niceStep(xhi-xlo, maxX)
	r.ticks = appendTicks(r.ticks[:0], xlo, xhi, xstep)
	toX := func(v float64) float32 {
		return left + float32((v-xlo)/(xhi-xlo))*(right-left)
	}
	r.pos = r.pos[:0]
	r.labels = r.labels[:0]
	for _, v := range r.ticks {
		r.pos = append(r.pos, toX(v))
		r.labels = append(r.labels, formatTick(v, xstep))
	}
	r.f.xAxis(p, size, top, bottom, r.pos, r.labels, true)
	r.f.axes(p, left, top, right, bottom)

	// Series.
	for i, s := range c.series {
		col := p.seriesColor(i)
		r.pts = decimate(r.pts[:0], s.xs, s.ys, c.logY, toX, func(v float64) float32 {
			if v < ylo {
				v = ylo
			} else if v > yhi {
				v = yhi
			}
			return toY(v)
		})
		r.pts = mergeCollinear(r.pts)
		for k := 1; k < len(r.pts); k++ {
			a, b := r.pts[k-1], r.pts[k]
			if math.IsNaN(float64(a.Y)) || math.IsNaN(float64(b.Y)) {
				continue
			}
			setLine(r.lines.get(), a.X, a.Y, b.X, b.Y, col, p.lineStroke)
		}
		if len(r.pts) == 1 { // a single point: a short tick so it shows
			a := r.pts[0]
			if !math.IsNaN(float64(a.Y)) {
				setLine(r.lines.get(), a.X-2, a.Y, a.X+2, a.Y, col, p.lineStroke*2)
			}
		}
	}

	r.objs = r.f.appendBack(r.objs)
	r.objs = appendActive(r.objs, &r.lines)
	r.objs = r.f.appendFront(r.objs)
	canvas.Refresh(c)
}

// decimate converts points to positions, merging runs that fall in the
// same two-pixel column into their first, lowest, highest and last points
// (in data order). A point that cannot be drawn (y ≤ 0 on a log axis, NaN)
// becomes a NaN position, which breaks the line.
func decimate(dst []fyne.Position, xs, ys []float64, logY bool, toX func(float64) float32, toY func(float64) float32) []fyne.Position {
	const colW = 2
	nan := float32(math.NaN())
	type col struct {
		first, lo, hi, last fyne.Position
		loI, hiI, n         int
		key                 int
	}
	var cur col
	flush := func() {
		if cur.n == 0 {
			return
		}
		dst = append(dst, cur.first)
		if cur.n > 2 {
			a, b := cur.lo, cur.hi
			if cur.hiI < cur.loI {
				a, b = b, a
			}
			dst = append(dst, a, b)
		}
		if cur.n > 1 {
			dst = append(dst, cur.last)
		}
		cur.n = 0
	}
	for i, x := range xs {
		y := yMap(ys[i], logY)
		if math.IsNaN(y) || math.IsInf(y, 0) || math.IsNaN(x) {
			flush()
			if len(dst) > 0 && !math.IsNaN(float64(dst[len(dst)-1].Y)) {
				dst = append(dst, fyne.NewPos(nan, nan))
			}
			continue
		}
		pt := fyne.NewPos(toX(x), toY(y))
		key := int(math.Floor(float64(pt.X) / colW))
		if cur.n > 0 && key != cur.key {
			flush()
		}
		if cur.n == 0 {
			cur = col{first: pt, lo: pt, hi: pt, last: pt, loI: i, hiI: i, n: 1, key: key}
			continue
		}
		cur.n++
		cur.last = pt
		if pt.Y > cur.lo.Y { // screen y grows downward: larger y = lower value
			cur.lo, cur.loI = pt, i
		}
		if pt.Y < cur.hi.Y {
			cur.hi, cur.hiI = pt, i
		}
	}
	flush()
	return dst
}

// mergeCollinear drops, in place, points that lie within half a pixel of
// the straight line through their neighbours, so a straight run is one
// segment (fewer objects, and no seams between short segments).
func mergeCollinear(pts []fyne.Position) []fyne.Position {
	if len(pts) < 3 {
		return pts
	}
	out := pts[:1]
	for k := 1; k < len(pts); k++ {
		c := pts[k]
		if len(out) >= 2 {
			a, b := out[len(out)-2], out[len(out)-1]
			if !isNaNPos(a) && !isNaNPos(b) && !isNaNPos(c) && onSegment(a, b, c) {
				out[len(out)-1] = c
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

func isNaNPos(p fyne.Position) bool { return p.X != p.X || p.Y != p.Y }

// onSegment reports whether b lies within half a pixel of the line a→c
// and between a and c.
func onSegment(a, b, c fyne.Position) bool {
	dx, dy := float64(c.X-a.X), float64(c.Y-a.Y)
	l2 := dx*dx + dy*dy
	if l2 == 0 {
		return b == a
	}
	bx, by := float64(b.X-a.X), float64(b.Y-a.Y)
	t := (bx*dx + by*dy) / l2
	if t < 0 || t > 1 {
		return false
	}
	cross := bx*dy - by*dx
	return cross*cross <= 0.25*l2
}
