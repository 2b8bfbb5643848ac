package widgets

import (
	"image"
	"math"
	"testing"
	"time"

	"fyne.io/fyne/v2"
)

func TestResourceGraphRollsAndAlerts(t *testing.T) {
	for _, th := range themes {
		t.Run(th.name, func(t *testing.T) {
			newApp(t, th.v)
			g := NewResourceGraph("Resources", 60, time.Second, "CPU", "RAM", "GPU")
			win := show(t, g, 420, 220)
			capture(t, win, "resource_empty_"+th.name)
			for i := 0; i < 90; i++ {
				cpu := 30 + 20*math.Sin(float64(i)/6)
				ram := 40 + float64(i)/2 // climbs past 80% at the end
				g.Push(cpu, ram, math.NaN())
			}
			img := capture(t, win, "resource_"+th.name)
			if got := g.Latest(1); got != 40+89.0/2 {
				t.Errorf("latest RAM = %v", got)
			}
			if al := g.Alerts(); len(al) != 1 || al[0] != "RAM" {
				t.Errorf("alerts = %v, want [RAM]", al)
			}
			r := rendererOf(g).(*resourceRenderer)
			// CPU and RAM each draw window−1 segments; GPU (all NaN) none.
			if n := len(r.lines.active()); n != 2*59 {
				t.Errorf("%d segments, want %d", n, 2*59)
			}
			p := paletteFor(g)
			// The newest RAM samples (right edge) are above 80%: alert colour
			// there, and none of it at the left edge where RAM was ~55%.
			right := pixelsNear(img, image.Rect(330, 20, 410, 200), p.alert, 30)
			left := pixelsNear(img, image.Rect(40, 20, 120, 200), p.alert, 30)
			if right == 0 || left != 0 {
				t.Errorf("alert pixels: right %d (want > 0), left %d (want 0)", right, left)
			}
			// No allocation of new line objects once the window is full.
			before := len(r.lines.items)
			for i := 0; i < 20; i++ {
				g.Push(10, 10, 10)
			}
			if after := len(r.lines.items); after > before+59 {
				t.Errorf("line objects %d → %d", before, after)
			}
		})
	}
}

func TestResourceGraphFromGoroutineViaDo(t *testing.T) {
	newApp(t, themes[0].v)
	g := NewResourceGraph("", 10, 0, "CPU")
	show(t, g, 200, 100)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 20; i++ {
			v := float64(i)
			fyne.DoAndWait(func() { g.Push(v) })
		}
	}()
	<-done
	if g.Latest(0) != 19 {
		t.Errorf("latest = %v, want 19", g.Latest(0))
	}
	g.SetSeries() // no series at all
	g.Push(1, 2)
}

// Y labels never come closer than minTickGap, whatever the height.
func TestPctTicksFit(t *testing.T) {
	for h := float32(0); h < 300; h += 3 {
		ticks := pctTicksFor(h)
		if len(ticks) == 1 {
			t.Fatalf("height %v: one tick", h)
		}
		if n := len(ticks); n > 1 && h/float32(n-1) < minTickGap {
			t.Fatalf("height %v: %d ticks, %.1f px apart", h, n, h/float32(n-1))
		}
		if h >= 4*minTickGap && len(ticks) != 5 {
			t.Fatalf("height %v: %d ticks, want 5", h, len(ticks))
		}
	}
}
