package widgets

import (
	"math"
	"testing"
	"time"

	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/midi"
)

// BenchmarkLineChartAppend: one live update (append a point, relayout)
// on a 600×300 chart holding 2,000 points in each of two series.
func BenchmarkLineChartAppend(b *testing.B) {
	test.NewTempApp(b)
	c := NewLineChart("loss")
	for i := 0; i < 2000; i++ {
		c.Append("train", float64(i), 5*math.Exp(-float64(i)/500)+0.1*math.Sin(float64(i)))
		c.Append("val", float64(i), 5*math.Exp(-float64(i)/500))
	}
	w := test.NewTempWindow(b, c)
	w.SetPadded(false)
	w.Resize(size600x300)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Append("train", float64(2000+i), 1)
	}
}

// BenchmarkLineChartRefreshBaseline is the same chart's refresh with no
// new data: the floor an append pays on top of.
func BenchmarkLineChartRefreshBaseline(b *testing.B) {
	test.NewTempApp(b)
	c := NewLineChart("loss")
	for i := 0; i < 2000; i++ {
		c.Append("train", float64(i), 5*math.Exp(-float64(i)/500)+0.1*math.Sin(float64(i)))
		c.Append("val", float64(i), 5*math.Exp(-float64(i)/500))
	}
	w := test.NewTempWindow(b, c)
	w.SetPadded(false)
	w.Resize(size600x300)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Refresh()
	}
}

// BenchmarkResourceGraphPush: one sample of four series into a full
// 60-sample window.
func BenchmarkResourceGraphPush(b *testing.B) {
	test.NewTempApp(b)
	g := NewResourceGraph("res", 60, time.Second, "CPU", "RAM", "GPU", "VRAM")
	w := test.NewTempWindow(b, g)
	w.SetPadded(false)
	w.Resize(size600x300)
	for i := 0; i < 60; i++ {
		g.Push(10, 20, 30, 40)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g.Push(float64(i%100), 50, 60, 70)
	}
}

func benchScore(b *testing.B) *midi.Score {
	files := corpus.MIDIFiles(b, "pop909")
	s, err := midi.ReadFile(files[0])
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkPianoRollPlayhead: moving the playhead (one line) on a POP909
// piece, against BenchmarkPianoRollRefresh, a full relayout of the notes.
func BenchmarkPianoRollPlayhead(b *testing.B) {
	test.NewTempApp(b)
	pr := NewPianoRoll(benchScore(b))
	w := test.NewTempWindow(b, pr)
	w.SetPadded(false)
	w.Resize(size600x300)
	pr.SetFollow(false)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pr.SetPlayhead(float64(i%100) / 10)
	}
}

func BenchmarkPianoRollRefresh(b *testing.B) {
	test.NewTempApp(b)
	pr := NewPianoRoll(benchScore(b))
	w := test.NewTempWindow(b, pr)
	w.SetPadded(false)
	w.Resize(size600x300)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pr.Refresh()
	}
}

var _ = canvas.Refresh
