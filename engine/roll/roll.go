// Package roll draws piano rolls of scores as images, for reports and the
// docs (issue 13: generated pieces next to real ones, in a PNG anyone can
// look at): pitched notes as bars coloured by General MIDI family, drums as
// ticks in a lane of their own under the pitched notes, bar lines by the
// score's meter map, a caption and a legend of the families, drawn with the
// standard library's image packages and a built-in 5×7 font.
//
// Layout of one panel (Draw), top to bottom: caption (CaptionH pixels),
// the pitched area (Options.Height), the drum lane (Options.DrumLane,
// always drawn so panels line up), the legend (CaptionH). Time runs left to
// right at Options.PxPerBeat pixels a quarter note from tick 0 through the
// end of bar Options.Bars; the pitch axis spans the lowest to the highest
// pitched note drawn, padded by 2 semitones and widened to at least 24.
//
// roll is part of the engine: it must never import app/, ui/ or storage/
// (nor Fyne).
package roll

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/midi"
)

// Options control Draw; zero values take the defaults.
type Options struct {
	Bars int // bars drawn from bar 0 (default 16)
	// Beats, when > 0, replaces Bars: whole bars are drawn until they span
	// at least Beats quarter notes (at most MaxBars), so pieces in
	// different meters can be drawn over the same stretch of time.
	Beats     int
	PxPerBeat int    // pixels per quarter note (default 12)
	Height    int    // pitched area in pixels (default 150)
	DrumLane  int    // drum lane in pixels (default 24)
	Caption   string // drawn above the roll
}

// CaptionH is the height of the caption and legend strips.
const CaptionH = 11

// Colours of the drawing.
var (
	Background = color.RGBA{250, 250, 246, 255}
	BarLine    = color.RGBA{205, 205, 200, 255}
	PhraseLine = color.RGBA{150, 150, 145, 255} // every fourth bar
	DrumLaneBg = color.RGBA{236, 236, 232, 255}
	DrumColor  = color.RGBA{40, 40, 40, 255}
	TextColor  = color.RGBA{30, 30, 30, 255}
	CLine      = color.RGBA{238, 238, 233, 255} // each C, faint
)

func (o Options) withDefaults() Options {
	if o.Bars <= 0 {
		o.Bars = 16
	}
	if o.PxPerBeat <= 0 {
		o.PxPerBeat = 12
	}
	if o.Height <= 0 {
		o.Height = 150
	}
	if o.DrumLane <= 0 {
		o.DrumLane = 24
	}
	return o
}

// MaxBars bounds Options.Bars (and so the image width).
const MaxBars = 256

// FamilyColor is the colour of a General MIDI program's family on the
// roll's white ground (midi.FamilyColor, as the window draws it).
func FamilyColor(program int) color.RGBA {
	c := midi.FamilyColor(program, 0, 0.45)
	return color.RGBA{c.R, c.G, c.B, c.A}
}

// Geometry is where Draw put things, for tests and callers that annotate.
type Geometry struct {
	RollTop, RollBottom int     // the pitched area's rows [RollTop, RollBottom)
	DrumTop, DrumBottom int     // the drum lane's rows
	LoPitch, HiPitch    int     // the pitch axis (inclusive)
	PxPerSemitone       float64 // rows per semitone
	BarX                []int   // x of each bar line, the last one the end
	EndTick             int64   // the end of the last bar drawn
}

// X returns the column of a tick.
func (g *Geometry) X(tick int64, tpb int, pxPerBeat int) int {
	return int(tick * int64(pxPerBeat) / int64(tpb))
}

// Y returns the top row of a pitch's band.
func (g *Geometry) Y(pitch int) int {
	return g.RollTop + int(math.Floor(float64(g.HiPitch-pitch)*g.PxPerSemitone))
}

// barTicks returns the start tick of each of the first n bars of s and the
// end of the last (n+1 values), following the meter map (4/4 before the
// first meter; a meter change cuts a bar short). With beats > 0 the bars
// go on until they span at least beats quarter notes instead (at most
// MaxBars).
func barTicks(s *midi.Score, n, beats int) []int64 {
	tpb := int64(s.TicksPerBeat)
	out := make([]int64, 0, n+1)
	num, den := 4, 4
	mi := 0
	pos := int64(0)
	for {
		if beats > 0 {
			if (pos >= int64(beats)*tpb && len(out) > 0) || len(out) >= MaxBars {
				break
			}
		} else if len(out) >= n {
			break
		}
		for mi < len(s.Meters) && s.Meters[mi].Tick <= pos {
			if s.Meters[mi].Num > 0 && s.Meters[mi].Den > 0 {
				num, den = s.Meters[mi].Num, s.Meters[mi].Den
			}
			mi++
		}
		next := pos + max(int64(num)*4*tpb/int64(den), 1)
		if mi < len(s.Meters) && s.Meters[mi].Tick < next {
			next = s.Meters[mi].Tick
		}
		out = append(out, pos)
		pos = next
	}
	return append(out, pos)
}

// BarsEnd returns the tick where bar n of s ends (bars by the meter map,
// as Draw draws them).
func BarsEnd(s *midi.Score, n int) int64 {
	if s == nil || s.TicksPerBeat <= 0 {
		return 0
	}
	b := barTicks(s, min(max(n, 1), MaxBars), 0)
	return b[len(b)-1]
}

// Draw draws the first o.Bars bars of s as one panel. A score without a
// time division draws as an empty panel of 16 4/4 bars at 480 ticks.
// See Options.Beats for drawing a stretch of time instead of bars.
func Draw(s *midi.Score, o Options) (*image.RGBA, Geometry) {
	o = o.withDefaults()
	o.Bars = min(o.Bars, MaxBars)
	if s == nil || s.TicksPerBeat <= 0 {
		s = &midi.Score{TicksPerBeat: 480}
	}
	tpb := s.TicksPerBeat
	bars := barTicks(s, o.Bars, o.Beats)
	end := bars[len(bars)-1]
	g := Geometry{EndTick: end}
	width := max(g.X(end, tpb, o.PxPerBeat)+1, TextWidth(o.Caption)+4)
	// Legend: the families that play, in program order, then drums.
	var fams [17]bool
	lo, hi := 128, -1
	for _, tr := range s.Tracks {
		for _, n := range tr.Notes {
			if n.Tick >= end || n.Tick < 0 {
				continue
			}
			if tr.IsDrum {
				fams[16] = true
				continue
			}
			fams[max(0, min(tr.Program, 127))/8] = true
			lo, hi = min(lo, int(n.Pitch)), max(hi, int(n.Pitch))
		}
	}
	legend := legendText(fams)
	width = max(width, legendWidth(legend)+4)

	g.RollTop = CaptionH
	g.RollBottom = g.RollTop + o.Height
	g.DrumTop, g.DrumBottom = g.RollBottom, g.RollBottom+o.DrumLane
	height := g.DrumBottom + CaptionH
	if hi < 0 {
		lo, hi = 48, 72
	}
	lo, hi = lo-2, hi+2
	if hi-lo+1 < 24 {
		pad := 24 - (hi - lo + 1)
		lo -= pad / 2
		hi += pad - pad/2
	}
	g.LoPitch, g.HiPitch = lo, hi
	g.PxPerSemitone = float64(o.Height) / float64(hi-lo+1)

	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), &image.Uniform{Background}, image.Point{}, draw.Src)
	fill(img, 0, g.DrumTop, width, g.DrumBottom, DrumLaneBg)
	for p := lo; p <= hi; p++ {
		if ((p%12)+12)%12 == 0 {
			y := g.Y(p) + int(g.PxPerSemitone/2)
			fill(img, 0, y, g.X(end, tpb, o.PxPerBeat), y+1, CLine)
		}
	}
	for i, t := range bars {
		x := g.X(t, tpb, o.PxPerBeat)
		g.BarX = append(g.BarX, x)
		c := BarLine
		if i%4 == 0 || i == len(bars)-1 {
			c = PhraseLine
		}
		fill(img, x, g.RollTop, x+1, g.DrumBottom, c)
	}
	noteH := max(1, int(math.Floor(g.PxPerSemitone)))
	for _, tr := range s.Tracks {
		c := FamilyColor(tr.Program)
		for _, n := range tr.Notes {
			if n.Tick >= end || n.Tick < 0 {
				continue
			}
			x0 := g.X(n.Tick, tpb, o.PxPerBeat)
			if tr.IsDrum {
				// Drum keys 35–81 (the GM kit) spread over the lane, low
				// drums at the bottom.
				k := max(35, min(int(n.Pitch), 81)) - 35
				y := g.DrumBottom - 3 - k*(o.DrumLane-5)/46
				fill(img, x0, y-1, x0+2, y+2, DrumColor)
				continue
			}
			x1 := max(g.X(min(n.Tick+n.Dur, end), tpb, o.PxPerBeat), x0+1)
			if x1-x0 > 2 {
				x1-- // a gap so repeated notes stay apart
			}
			y := g.Y(int(n.Pitch))
			fill(img, x0, y, x1, y+noteH, c)
		}
	}
	DrawText(img, 2, 2, o.Caption, TextColor)
	drawLegend(img, 2, g.DrumBottom+2, legend)
	return img, g
}

type legendItem struct {
	name string
	c    color.RGBA
}

func legendText(fams [17]bool) []legendItem {
	var out []legendItem
	for f := 0; f < 16; f++ {
		if fams[f] {
			out = append(out, legendItem{midi.GMFamily(8 * f), FamilyColor(8 * f)})
		}
	}
	if fams[16] {
		out = append(out, legendItem{"Drums", DrumColor})
	}
	return out
}

func legendWidth(items []legendItem) int {
	w := 0
	for _, it := range items {
		w += 9 + TextWidth(it.name) + 8
	}
	return w
}

func drawLegend(img *image.RGBA, x, y int, items []legendItem) {
	for _, it := range items {
		fill(img, x, y, x+7, y+7, it.c)
		DrawText(img, x+9, y, it.name, TextColor)
		x += 9 + TextWidth(it.name) + 8
	}
}

// fill paints the rectangle [x0, x1) × [y0, y1), clipped to the image.
func fill(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	r := image.Rect(x0, y0, x1, y1).Intersect(img.Bounds())
	draw.Draw(img, r, &image.Uniform{c}, image.Point{}, draw.Src)
}

// Grid lays panels out in rows of cols (left to right, top to bottom) with
// gap pixels between them on a white ground; cells are as wide as the
// widest panel and as tall as the tallest.
func Grid(panels []*image.RGBA, cols, gap int) *image.RGBA {
	cols = max(cols, 1)
	cw, ch := 1, 1
	for _, p := range panels {
		cw, ch = max(cw, p.Bounds().Dx()), max(ch, p.Bounds().Dy())
	}
	rows := max((len(panels)+cols-1)/cols, 1)
	w := cols*cw + (cols+1)*gap
	h := rows*ch + (rows+1)*gap
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), &image.Uniform{color.White}, image.Point{}, draw.Src)
	for i, p := range panels {
		x := gap + (i%cols)*(cw+gap)
		y := gap + (i/cols)*(ch+gap)
		draw.Draw(img, p.Bounds().Add(image.Pt(x, y)), p, p.Bounds().Min, draw.Src)
	}
	return img
}

// WritePNG writes img as a PNG file, atomically.
func WritePNG(path string, img image.Image) error {
	if err := atomicfile.Write(path, func(f *os.File) error { return png.Encode(f, img) }); err != nil {
		return fmt.Errorf("roll: write %s: %w", path, err)
	}
	return nil
}
