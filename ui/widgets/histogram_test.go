package widgets

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"fyne.io/fyne/v2"
)

func TestBin(t *testing.T) {
	labels, counts := Bin([]float64{60, 61, 89.9, 90, 120, 180, 181, -1, math.NaN()}, 60, 180, 4)
	if !reflect.DeepEqual(labels, []string{"60", "90", "120", "150"}) {
		t.Errorf("labels %v", labels)
	}
	// [60,90): 60 61 89.9; [90,120): 90; [120,150): 120; [150,180]: 180.
	if !reflect.DeepEqual(counts, []float64{3, 1, 1, 1}) {
		t.Errorf("counts %v", counts)
	}
	if l, c := Bin(nil, 1, 1, 3); l != nil || c != nil {
		t.Error("empty range should give no bins")
	}
}

func TestHistogramBarHeights(t *testing.T) {
	for _, th := range themes {
		t.Run(th.name, func(t *testing.T) {
			newApp(t, th.v)
			h := NewHistogram("Keys")
			win := show(t, h, 360, 200)
			capture(t, win, "hist_empty_"+th.name)
			h.SetBins([]string{"C", "G", "D"}, []float64{1, 2, 4})
			h.SetCaption("key")
			capture(t, win, "hist_"+th.name)
			bars := rendererOf(h).(*histRenderer).bars.active()
			if len(bars) != 3 {
				t.Fatalf("%d bars", len(bars))
			}
			h0, h1, h2 := bars[0].Size().Height, bars[1].Size().Height, bars[2].Size().Height
			if math.Abs(float64(h1-2*h0)) > 0.5 || math.Abs(float64(h2-4*h0)) > 0.5 {
				t.Errorf("heights %v %v %v, want 1:2:4", h0, h1, h2)
			}
			// All bars stand on the same baseline.
			b0 := bars[0].Position().Y + h0
			for _, b := range bars {
				if math.Abs(float64(b.Position().Y+b.Size().Height-b0)) > 0.5 {
					t.Errorf("bar bottom %v, want %v", b.Position().Y+b.Size().Height, b0)
				}
			}
		})
	}
}

// TestHistogramLabelsDoNotOverlap: 128 pitch bins in 360 px cannot all be
// labelled; the shown labels must not overlap.
func TestHistogramLabelsDoNotOverlap(t *testing.T) {
	newApp(t, themes[1].v)
	h := NewHistogram("Pitches")
	labels := make([]string, 128)
	counts := make([]float64, 128)
	for i := range labels {
		labels[i] = fmt.Sprint(i)
		counts[i] = math.Exp(-math.Pow(float64(i-64)/12, 2)) * 100
	}
	h.SetBins(labels, counts)
	win := show(t, h, 360, 200)
	capture(t, win, "hist_pitch")
	r := rendererOf(h).(*histRenderer)
	bottom := float32(0)
	for _, b := range r.bars.active() {
		bottom = max(bottom, b.Position().Y+b.Size().Height)
	}
	var spans [][2]float32
	for _, tx := range r.f.texts.active() {
		if tx.Position().Y >= bottom { // x tick labels sit under the bars
			spans = append(spans, [2]float32{tx.Position().X, tx.Position().X + tx.Size().Width})
		}
	}
	if len(spans) < 3 || len(spans) > 40 {
		t.Fatalf("%d x labels shown", len(spans))
	}
	for i := 1; i < len(spans); i++ {
		if spans[i][0] < spans[i-1][1] {
			t.Errorf("labels %d and %d overlap: %v %v", i-1, i, spans[i-1], spans[i])
		}
	}
	h.SetBins(nil, nil)
	show(t, NewHistogram(""), 3, 3)
	_ = fyne.NewSize
}
