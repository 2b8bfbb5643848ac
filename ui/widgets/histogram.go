package widgets

import (
	"math"
	"strconv"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"
)

// Histogram draws labelled bins as vertical bars over a count axis (tempo,
// key or pitch histograms, instrument counts). When the labels do not all
// fit under their bars only every k-th is shown; counts are written over
// the bars when there is room.
type Histogram struct {
	widget.BaseWidget

	mu       sync.Mutex
	title    string
	xCaption string
	labels   []string
	counts   []float64
}

// NewHistogram returns an empty histogram.
func NewHistogram(title string) *Histogram {
	h := &Histogram{title: title}
	h.ExtendBaseWidget(h)
	return h
}

// SetBins replaces the bins: one label and one count each (copied; the
// shorter length wins).
func (h *Histogram) SetBins(labels []string, counts []float64) {
	n := min(len(labels), len(counts))
	h.mu.Lock()
	h.labels = append(h.labels[:0], labels[:n]...)
	h.counts = append(h.counts[:0], counts[:n]...)
	h.mu.Unlock()
	h.Refresh()
}

// SetCaption names the x axis ("" for none).
func (h *Histogram) SetCaption(x string) {
	h.mu.Lock()
	h.xCaption = x
	h.mu.Unlock()
	h.Refresh()
}

// Bin counts values into n equal bins over [lo, hi) (the last bin closed)
// and labels each bin with its lower edge; values outside are left out.
func Bin(values []float64, lo, hi float64, n int) (labels []string, counts []float64) {
	if n < 1 || !(hi > lo) {
		return nil, nil
	}
	counts = make([]float64, n)
	w := (hi - lo) / float64(n)
	for _, v := range values {
		if v < lo || v > hi || math.IsNaN(v) {
			continue
		}
		i := int((v - lo) / w)
		if i >= n {
			i = n - 1
		}
		counts[i]++
	}
	labels = make([]string, n)
	dec := decimals(w)
	for i := range labels {
		labels[i] = trimFloat(lo+float64(i)*w, dec)
	}
	return labels, counts
}

// CreateRenderer implements fyne.Widget.
func (h *Histogram) CreateRenderer() fyne.WidgetRenderer {
	r := &histRenderer{h: h, f: newFrame(), bars: newRectPool()}
	r.Refresh()
	return r
}

type histRenderer struct {
	h      *Histogram
	f      *frame
	bars   pool[*canvas.Rectangle]
	objs   []fyne.CanvasObject
	ticks  []float64
	labels []string
	pos    []float32
}

func (r *histRenderer) Layout(fyne.Size) { r.Refresh() }

func (r *histRenderer) MinSize() fyne.Size { return fyne.NewSize(160, 100) }

func (r *histRenderer) Objects() []fyne.CanvasObject { return r.objs }

func (r *histRenderer) Destroy() {}

func (r *histRenderer) Refresh() {
	h := r.h
	h.mu.Lock()
	defer h.mu.Unlock()
	p := paletteFor(h)
	size := h.Size()
	r.f.reset()
	r.bars.reset()
	r.objs = r.objs[:0]

	top := r.f.header(p, size, h.title, "", nil)
	bottom := r.f.footer(p, size, h.xCaption)
	right := size.Width - chartPad
	hi := 0.0
	for _, c := range h.counts {
		hi = math.Max(hi, c)
	}
	if len(h.counts) == 0 || bottom-top < 10 {
		r.f.text("No data", chartPad, top, p.muted, p.textSize, false)
		r.objs = r.f.appendFront(r.objs)
		canvas.Refresh(h)
		return
	}
	maxY := max(2, int((bottom-top)/minYTickPx))
	// 12% headroom so the count over the tallest bar fits under the top.
	_, yhi, step := niceRange(0, math.Max(hi*1.12, 1), maxY)
	r.ticks = appendTicks(r.ticks[:0], 0, yhi, step)
	r.labels = r.labels[:0]
	for _, v := range r.ticks {
		r.labels = append(r.labels, formatTick(v, step))
	}
	left := float32(chartPad) + yLabelWidth(p, r.labels) + tickLen + labelGap
	toY := func(v float64) float32 { return bottom - float32(v/yhi)*(bottom-top) }
	r.pos = r.pos[:0]
	for _, v := range r.ticks {
		r.pos = append(r.pos, toY(v))
	}
	r.f.yAxis(p, left, right, r.pos, r.labels)

	n := len(h.counts)
	slot := (right - left) / float32(n)
	gap := min(slot*0.15, 4)
	// Show every k-th label so that labels never overlap.
	widest := float32(0)
	for _, l := range h.labels {
		widest = max(widest, fyne.MeasureText(l, p.textSize, fyne.TextStyle{}).Width)
	}
	k := max(1, int(math.Ceil(float64((widest+6)/slot))))
	r.pos = r.pos[:0]
	r.labels = r.labels[:0]
	textH := fyne.MeasureText("0", p.textSize, fyne.TextStyle{}).Height
	for i, c := range h.counts {
		x := left + float32(i)*slot
		y := toY(c)
		placeRect(r.bars.get(), x+gap/2, y, slot-gap, bottom-y, p.primary)
		r.pos = append(r.pos, x+slot/2)
		if i%k == 0 {
			r.labels = append(r.labels, h.labels[i])
		} else {
			r.labels = append(r.labels, "")
		}
		if c > 0 {
			cs := strconv.FormatFloat(c, 'f', -1, 64)
			if tw := fyne.MeasureText(cs, p.textSize, fyne.TextStyle{}).Width; tw+2 <= slot && y-textH >= top-textH/2 {
				r.f.text(cs, x+(slot-tw)/2, y-textH, p.muted, p.textSize, false)
			}
		}
	}
	r.f.xAxis(p, size, top, bottom, r.pos, r.labels, false)
	r.f.axes(p, left, top, right, bottom)
	r.objs = r.f.appendBack(r.objs)
	r.objs = appendActive(r.objs, &r.bars)
	r.objs = r.f.appendFront(r.objs)
	canvas.Refresh(h)
}
