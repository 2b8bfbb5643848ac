package widgets

import (
	"fmt"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"
)

// Stage is one row of a StageChart: how long a pipeline or training stage
// was busy and how long it waited (on its input or on its output queue).
type Stage struct {
	Name string
	Busy time.Duration
	Wait time.Duration
}

// StageChart draws one horizontal bar per stage, split into busy time
// (primary colour) and waiting time (muted), all on one time scale, with
// the stage's name on the left and its figures on the right. One stage
// can be highlighted (the bottleneck): its name is bold in the error colour.
type StageChart struct {
	widget.BaseWidget

	mu        sync.Mutex
	title     string
	stages    []Stage
	highlight string
}

// NewStageChart returns an empty chart.
func NewStageChart(title string) *StageChart {
	c := &StageChart{title: title}
	c.ExtendBaseWidget(c)
	return c
}

// SetStages replaces the rows (copied).
func (c *StageChart) SetStages(stages []Stage) {
	c.mu.Lock()
	c.stages = append(c.stages[:0], stages...)
	c.mu.Unlock()
	c.Refresh()
}

// SetHighlight marks the named stage ("" for none).
func (c *StageChart) SetHighlight(name string) {
	c.mu.Lock()
	c.highlight = name
	c.mu.Unlock()
	c.Refresh()
}

// CreateRenderer implements fyne.Widget.
func (c *StageChart) CreateRenderer() fyne.WidgetRenderer {
	r := &stageRenderer{c: c, f: newFrame(), bars: newRectPool()}
	r.Refresh()
	return r
}

type stageRenderer struct {
	c      *StageChart
	f      *frame
	bars   pool[*canvas.Rectangle]
	objs   []fyne.CanvasObject
	values []string
	legend []legendEntry
}

func (r *stageRenderer) Layout(fyne.Size) { r.Refresh() }

func (r *stageRenderer) MinSize() fyne.Size { return fyne.NewSize(200, 60) }

func (r *stageRenderer) Objects() []fyne.CanvasObject { return r.objs }

func (r *stageRenderer) Destroy() {}

// fmtDur formats a duration with three significant digits in s or ms.
func fmtDur(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s >= 100:
		return fmt.Sprintf("%.0f s", s)
	case s >= 10:
		return fmt.Sprintf("%.1f s", s)
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 0.1:
		return fmt.Sprintf("%.0f ms", s*1e3)
	case s > 0:
		return fmt.Sprintf("%.1f ms", s*1e3)
	}
	return "0 s"
}

func (r *stageRenderer) Refresh() {
	c := r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	p := paletteFor(c)
	size := c.Size()
	r.f.reset()
	r.bars.reset()
	r.objs = r.objs[:0]

	waitCol := blend(p.fg, p.bg, 0.65)
	r.legend = append(r.legend[:0], legendEntry{name: "busy", color: p.primary}, legendEntry{name: "waiting", color: waitCol})
	top := r.f.header(p, size, c.title, "", r.legend)
	bottom := size.Height - chartPad
	if len(c.stages) == 0 {
		r.f.text("No stages", chartPad, top, p.muted, p.textSize, false)
		r.objs = r.f.appendFront(r.objs)
		canvas.Refresh(c)
		return
	}

	// Columns: names | bars | figures.
	nameW, valW := float32(0), float32(0)
	r.values = r.values[:0]
	var longest time.Duration
	for _, s := range c.stages {
		nameW = max(nameW, fyne.MeasureText(s.Name, p.textSize, fyne.TextStyle{Bold: true}).Width)
		v := fmtDur(s.Busy) + " busy · " + fmtDur(s.Wait) + " wait"
		if tot := s.Busy + s.Wait; tot > 0 {
			v += fmt.Sprintf(" · %.0f%%", 100*s.Busy.Seconds()/tot.Seconds())
		}
		r.values = append(r.values, v)
		valW = max(valW, fyne.MeasureText(v, p.textSize, fyne.TextStyle{}).Width)
		longest = max(longest, s.Busy+s.Wait)
	}
	barL := chartPad + nameW + 8
	barR := size.Width - chartPad - valW - 8
	if barR-barL < 20 { // too narrow for figures: drop them
		barR = size.Width - chartPad
		valW = -1
	}
	rowH := min((bottom-top)/float32(len(c.stages)), 34)
	textH := fyne.MeasureText("Mg", p.textSize, fyne.TextStyle{}).Height
	barH := max(2, min(rowH*0.6, 18))
	for i, s := range c.stages {
		y := top + float32(i)*rowH
		mid := y + rowH/2
		hl := s.Name == c.highlight && c.highlight != ""
		nc := p.fg
		if hl {
			nc = p.alert
		}
		r.f.text(s.Name, chartPad, mid-textH/2, nc, p.textSize, hl)
		scale := float32(0)
		if longest > 0 {
			scale = (barR - barL) / float32(longest.Seconds())
		}
		bw := float32(s.Busy.Seconds()) * scale
		ww := float32(s.Wait.Seconds()) * scale
		placeRect(r.bars.get(), barL, mid-barH/2, bw, barH, p.primary)
		placeRect(r.bars.get(), barL+bw, mid-barH/2, ww, barH, waitCol)
		if valW > 0 {
			r.f.text(r.values[i], barR+8, mid-textH/2, p.muted, p.textSize, false)
		}
	}
	r.objs = appendActive(r.objs, &r.bars)
	r.objs = r.f.appendFront(r.objs)
	canvas.Refresh(c)
}
