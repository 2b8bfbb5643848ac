package widgets

import (
	"fmt"
	"math"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"
)

// DefaultAlertThreshold is the percentage above which a ResourceGraph
// draws in its alert colour unless SetThreshold says otherwise.
const DefaultAlertThreshold = 80

// ResourceGraph shows a rolling window of percentage samples (CPU %, RAM,
// GPU utilisation and memory, …), one line per series, on a fixed 0–100%
// axis. Segments above the threshold and the legend value of a series
// whose latest sample is above it are drawn in the theme's error colour;
// the threshold itself is a faint line in that colour. Pushing a sample
// writes into ring buffers: no allocation once the window is full.
type ResourceGraph struct {
	widget.BaseWidget

	mu        sync.Mutex
	title     string
	interval  time.Duration
	window    int
	threshold float64
	names     []string
	rings     [][]float64 // per series, len = window
	head      int         // index of the next write
	count     int         // samples held, ≤ window
}

// NewResourceGraph returns a graph holding the newest window samples of
// the named series, taken interval apart (for the time axis).
func NewResourceGraph(title string, window int, interval time.Duration, names ...string) *ResourceGraph {
	if window < 2 {
		window = 2
	}
	if interval <= 0 {
		interval = time.Second
	}
	g := &ResourceGraph{title: title, interval: interval, window: window, threshold: DefaultAlertThreshold}
	g.setNames(names)
	g.ExtendBaseWidget(g)
	return g
}

func (g *ResourceGraph) setNames(names []string) {
	g.names = append([]string(nil), names...)
	g.rings = make([][]float64, len(names))
	for i := range g.rings {
		g.rings[i] = make([]float64, g.window)
	}
	g.head, g.count = 0, 0
}

// SetSeries replaces the series (and clears the samples).
func (g *ResourceGraph) SetSeries(names ...string) {
	g.mu.Lock()
	g.setNames(names)
	g.mu.Unlock()
	g.Refresh()
}

// SetThreshold sets the alert percentage.
func (g *ResourceGraph) SetThreshold(pct float64) {
	g.mu.Lock()
	g.threshold = pct
	g.mu.Unlock()
	g.Refresh()
}

// Push appends one sample per series, in SetSeries order; NaN marks a
// missing value (e.g. no GPU), extra values are ignored and missing ones
// count as NaN. Values are clamped to 0–100.
func (g *ResourceGraph) Push(values ...float64) {
	g.mu.Lock()
	for i := range g.rings {
		v := math.NaN()
		if i < len(values) {
			v = values[i]
		}
		if !math.IsNaN(v) {
			v = math.Max(0, math.Min(100, v))
		}
		g.rings[i][g.head] = v
	}
	g.head = (g.head + 1) % g.window
	if g.count < g.window {
		g.count++
	}
	g.mu.Unlock()
	g.Refresh()
}

// Latest returns the newest value of series i (NaN when none).
func (g *ResourceGraph) Latest(i int) float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.at(i, 0)
}

// Alerts returns the names of the series whose newest sample is above the
// threshold, for a status line.
func (g *ResourceGraph) Alerts() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for i, n := range g.names {
		if v := g.at(i, 0); v > g.threshold {
			out = append(out, n)
		}
	}
	return out
}

// at returns series i's sample age steps back (0 = newest); NaN if none.
func (g *ResourceGraph) at(i, age int) float64 {
	if i < 0 || i >= len(g.rings) || age >= g.count {
		return math.NaN()
	}
	return g.rings[i][(g.head-1-age+2*g.window)%g.window]
}

// CreateRenderer implements fyne.Widget.
func (g *ResourceGraph) CreateRenderer() fyne.WidgetRenderer {
	r := &resourceRenderer{g: g, f: newFrame(), lines: newLinePool(), thresh: canvas.NewLine(nil)}
	r.Refresh()
	return r
}

type resourceRenderer struct {
	g      *ResourceGraph
	f      *frame
	lines  pool[*canvas.Line]
	thresh *canvas.Line
	objs   []fyne.CanvasObject

	legend   []legendEntry
	labels   []string
	pos      []float32
	legendTx []string
}

func (r *resourceRenderer) Layout(fyne.Size) { r.Refresh() }

func (r *resourceRenderer) MinSize() fyne.Size { return fyne.NewSize(160, 90) }

func (r *resourceRenderer) Objects() []fyne.CanvasObject { return r.objs }

func (r *resourceRenderer) Destroy() {}

var pctTicks = []float64{0, 25, 50, 75, 100}

// minTickGap is the least height between two y labels, so they never
// overlap (a label is about 14 px tall).
const minTickGap = 22

// pctTicksFor picks the percentage ticks that fit a plot h pixels tall:
// every 25% when there is room, else 0/50/100, else 0 and 100, else none.
func pctTicksFor(h float32) []float64 {
	switch {
	case h >= 4*minTickGap:
		return pctTicks
	case h >= 2*minTickGap:
		return []float64{0, 50, 100}
	case h >= minTickGap:
		return []float64{0, 100}
	}
	return nil
}

func (r *resourceRenderer) Refresh() {
	g := r.g
	g.mu.Lock()
	defer g.mu.Unlock()
	p := paletteFor(g)
	size := g.Size()
	r.f.reset()
	r.lines.reset()

	// Legend: name and newest value, in the alert colour when above.
	r.legend = r.legend[:0]
	for len(r.legendTx) < len(g.names) {
		r.legendTx = append(r.legendTx, "")
	}
	for i, n := range g.names {
		v := g.at(i, 0)
		txt := n
		if !math.IsNaN(v) {
			txt = fmt.Sprintf("%s %.0f%%", n, v)
		}
		if r.legendTx[i] != txt {
			r.legendTx[i] = txt // keep the string so an unchanged value does not allocate
		}
		e := legendEntry{name: r.legendTx[i], color: p.seriesColor(i)}
		if v > g.threshold {
			e.text = p.alert
		}
		r.legend = append(r.legend, e)
	}
	top := r.f.header(p, size, g.title, "", r.legend)
	bottom := r.f.footer(p, size, "")
	ticks := pctTicksFor(bottom - top)
	r.labels = r.labels[:0]
	for _, v := range ticks {
		r.labels = append(r.labels, fmt.Sprintf("%.0f%%", v))
	}
	left := float32(chartPad) + yLabelWidth(p, r.labels) + tickLen + labelGap
	right := size.Width - chartPad - 8
	toY := func(v float64) float32 { return bottom - float32(v/100)*(bottom-top) }
	r.pos = r.pos[:0]
	for _, v := range ticks {
		r.pos = append(r.pos, toY(v))
	}
	r.f.yAxis(p, left, right, r.pos, r.labels)

	// Time axis: the newest sample at the right edge ("now"), the oldest
	// the window's span to the left.
	span := float64(g.window-1) * g.interval.Seconds()
	toX := func(age float64) float32 { return right - float32(age/float64(g.window-1))*(right-left) }
	step := niceStep(span, max(2, int((right-left)/50)))
	r.pos = r.pos[:0]
	r.labels = r.labels[:0]
	// Oldest first, so labels run left to right.
	for k := math.Floor(span/step + 1e-9); k >= 0; k-- {
		s := k * step
		r.pos = append(r.pos, toX(s/g.interval.Seconds()))
		if s == 0 {
			r.labels = append(r.labels, "now")
		} else {
			r.labels = append(r.labels, "-"+formatTick(s, step)+"s")
		}
	}
	r.f.xAxis(p, size, top, bottom, r.pos, r.labels, false)
	r.f.axes(p, left, top, right, bottom)

	// Threshold line.
	ty := toY(g.threshold)
	setLine(r.thresh, left, ty, right, ty, blend(p.alert, p.bg, 0.45), 1)

	// Series, newest to oldest; one segment per pair of samples.
	for i := range g.names {
		col := p.seriesColor(i)
		for age := 0; age+1 < g.count; age++ {
			a, b := g.at(i, age), g.at(i, age+1)
			if math.IsNaN(a) || math.IsNaN(b) {
				continue
			}
			c := col
			if a > g.threshold || b > g.threshold {
				c = p.alert
			}
			setLine(r.lines.get(), toX(float64(age)), toY(a), toX(float64(age+1)), toY(b), c, p.lineStroke)
		}
	}

	r.objs = r.objs[:0]
	r.objs = r.f.appendBack(r.objs)
	r.objs = append(r.objs, r.thresh)
	r.objs = appendActive(r.objs, &r.lines)
	r.objs = r.f.appendFront(r.objs)
	canvas.Refresh(g)
}
