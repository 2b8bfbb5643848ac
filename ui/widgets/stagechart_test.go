package widgets

import (
	"image"
	"math"
	"testing"
	"time"
)

func TestStageChartProportions(t *testing.T) {
	for _, th := range themes {
		t.Run(th.name, func(t *testing.T) {
			newApp(t, th.v)
			c := NewStageChart("Ingestion stages")
			win := show(t, c, 520, 180)
			capture(t, win, "stage_empty_"+th.name)
			ms := time.Millisecond
			c.SetStages([]Stage{
				{Name: "read", Busy: 1000 * ms, Wait: 250 * ms},
				{Name: "parse", Busy: 500 * ms, Wait: 750 * ms},
				{Name: "tokenize", Busy: 125 * ms, Wait: 0},
				{Name: "write", Busy: 0, Wait: 0},
			})
			c.SetHighlight("read")
			img := capture(t, win, "stage_"+th.name)
			r := rendererOf(c).(*stageRenderer)
			bars := r.bars.active()
			if len(bars) != 8 {
				t.Fatalf("%d bar rectangles, want 8 (busy+wait per stage)", len(bars))
			}
			w := func(i int) float64 { return float64(bars[i].Size().Width) }
			// Same scale for all: read busy = 2 × parse busy = 8 × tokenize busy;
			// read total = parse total.
			if math.Abs(w(0)-2*w(2)) > 0.5 || math.Abs(w(0)-8*w(4)) > 0.5 {
				t.Errorf("busy widths %v %v %v, want 8:4:1", w(0), w(2), w(4))
			}
			if math.Abs((w(0)+w(1))-(w(2)+w(3))) > 0.5 {
				t.Errorf("totals differ: %v vs %v", w(0)+w(1), w(2)+w(3))
			}
			if w(6) != 0 || w(7) != 0 {
				t.Errorf("idle stage drew %v/%v", w(6), w(7))
			}
			// The busy part of the first bar is painted in the primary colour.
			p := paletteFor(c)
			b := bars[0]
			mid := image.Rect(int(b.Position().X+2), int(b.Position().Y+b.Size().Height/2), int(b.Position().X+b.Size().Width-2), int(b.Position().Y+b.Size().Height/2)+1)
			if got, want := pixelsNear(img, mid, p.primary, 10), mid.Dx(); got < want-2 {
				t.Errorf("primary pixels on read's busy bar: %d of %d", got, want)
			}
			// Highlighted name in the error colour.
			if pixelsNear(img, image.Rect(0, int(b.Position().Y-4), int(b.Position().X), int(b.Position().Y+b.Size().Height+4)), p.alert, 40) == 0 {
				t.Error("highlighted stage name not in the alert colour")
			}
		})
	}
}

func TestFmtDur(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{0, "0 s"}, {1500 * time.Microsecond, "1.5 ms"}, {250 * time.Millisecond, "250 ms"}, {1234 * time.Millisecond, "1.23 s"}, {42 * time.Second, "42.0 s"}, {1000 * time.Second, "1000 s"}} {
		if got := fmtDur(c.d); got != c.want {
			t.Errorf("fmtDur(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
