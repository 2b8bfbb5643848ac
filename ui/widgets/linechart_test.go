package widgets

import (
	"image"
	"math"
	"testing"
)

func TestLineChartRisingSeries(t *testing.T) {
	for _, th := range themes {
		t.Run(th.name, func(t *testing.T) {
			newApp(t, th.v)
			c := NewLineChart("Loss")
			c.SetAxisCaptions("step", "loss")
			for i := 0; i <= 100; i++ {
				c.Append("rising", float64(i), float64(i)*0.5+3)
			}
			win := show(t, c, 400, 260)
			img := capture(t, win, "linechart_rising_"+th.name)
			col := paletteFor(c).seriesColor(0)

			// Find the series colour in the leftmost and rightmost quarter
			// of the plot: its topmost row there.
			topRow := func(x0, x1 int) int {
				for y := 0; y < img.Bounds().Dy(); y++ {
					if pixelsNear(img, image.Rect(x0, y, x1, y+1), col, 40) > 0 {
						return y
					}
				}
				return -1
			}
			start := topRow(40, 100)
			end := topRow(300, 390)
			if start < 0 || end < 0 {
				t.Fatalf("series colour not found: start row %d end row %d", start, end)
			}
			if !(end < start-50) {
				t.Errorf("rising series: end row %d not well above start row %d", end, start)
			}
		})
	}
}

func TestLineChartEmptyAndTiny(t *testing.T) {
	newApp(t, themes[0].v)
	c := NewLineChart("")
	win := show(t, c, 300, 160)
	capture(t, win, "linechart_empty")
	c.Append("one", 1, 1) // a single point
	c.SetLogY(true)
	c.Append("neg", 1, -5) // not drawable on a log axis
	capture(t, win, "linechart_single")
	show(t, NewLineChart("tiny"), 5, 5) // smaller than its content
}

// TestLineChartLogY checks that on a log axis equal ratios take equal
// heights: 1, 10, 100 at x = 0, 1, 2 fall on one straight line (drawn as a
// single merged segment rising by the plot's height), while on a linear
// axis the same points bend (two segments).
func TestLineChartLogY(t *testing.T) {
	newApp(t, themes[1].v)
	c := NewLineChart("log")
	c.SetLogY(true)
	c.SetSeries("decades", []float64{0, 1, 2}, []float64{1, 10, 100})
	win := show(t, c, 400, 300)
	capture(t, win, "linechart_log")
	r := rendererOf(c).(*lineChartRenderer)
	lines := r.lines.active()
	if len(lines) != 1 {
		t.Fatalf("log axis: %d segments, want 1 straight one", len(lines))
	}
	if rise := lines[0].Position1.Y - lines[0].Position2.Y; rise < 150 {
		t.Errorf("log axis: line rises %v px, want most of the plot", rise)
	}
	c.SetLogY(false)
	if n := len(r.lines.active()); n != 2 {
		t.Errorf("linear axis: %d segments, want 2", n)
	}
}

// TestLineChartDecimatesLongSeries: 100,000 points on a 400-pixel plot are
// drawn with a number of segments bounded by the plot width, and the
// envelope keeps a single spike.
func TestLineChartDecimatesLongSeries(t *testing.T) {
	newApp(t, themes[0].v)
	c := NewLineChart("long")
	n := 100000
	xs := make([]float64, n)
	ys := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
		ys[i] = 1
	}
	ys[n/2] = 50 // one spike
	c.SetSeries("flat", xs, ys)
	win := show(t, c, 400, 240)
	capture(t, win, "linechart_long")
	r := rendererOf(c).(*lineChartRenderer)
	segs := r.lines.active()
	if len(segs) > 4*400/2 {
		t.Errorf("%d segments for a 400-px plot", len(segs))
	}
	minY := float32(1e9)
	for _, l := range segs {
		minY = min(minY, l.Position1.Y, l.Position2.Y)
	}
	// The spike is the top of the range, so it must reach the plot top area.
	if minY > 80 {
		t.Errorf("spike lost: highest point at y=%v", minY)
	}
}

// TestLineChartAppendReusesObjects: appending to a live chart reuses the
// renderer's canvas objects instead of creating new ones.
func TestLineChartAppendReusesObjects(t *testing.T) {
	newApp(t, themes[0].v)
	c := NewLineChart("live")
	c.SetMaxPoints(200)
	for i := 0; i < 300; i++ {
		c.Append("a", float64(i), math.Sin(float64(i)/10))
	}
	show(t, c, 400, 240)
	r := rendererOf(c).(*lineChartRenderer)
	before := len(r.lines.items)
	for i := 300; i < 400; i++ {
		c.Append("a", float64(i), math.Sin(float64(i)/10))
	}
	if c.Len("a") != 200 {
		t.Errorf("kept %d points, want 200", c.Len("a"))
	}
	if after := len(r.lines.items); after > before+4 {
		t.Errorf("line objects grew from %d to %d on appends", before, after)
	}
}
