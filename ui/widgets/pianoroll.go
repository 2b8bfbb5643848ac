package widgets

import (
	"image/color"
	"math"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/amtstudio/amt/engine/midi"
)

// Piano roll geometry (Fyne units). The note area starts PianoKeyWidth from
// the left (the key column, labelled at every C) and PianoHeaderHeight from
// the top (the header, with bar numbers). When the score has drums, the
// bottom PianoDrumFraction of the rest is the drum lane, one row per drum
// sound used. The pitched rows cover the used pitches plus two semitones
// each side, widened (centred) to at least PianoMinRows rows; pitch p's row
// is (hi − p) rows below the header. Time runs left to right at Zoom units
// per beat (quarter note), starting at beat Offset.
const (
	PianoKeyWidth     = 36
	PianoHeaderHeight = 18
	PianoDrumFraction = 0.2
	PianoMinRows      = 24
)

// PianoRoll renders a *midi.Score: notes as rectangles coloured by their
// track's General MIDI family (opacity from velocity), drums in a lane at
// the bottom, bar lines from the meter map (beat lines when zoomed in),
// zoom and horizontal scroll (ctrl/cmd + wheel zooms, the wheel or a drag
// in the notes scrolls; SetZoom/SetOffset from code), a playhead, and a
// selection of whole bars: a drag across the bar ruler (the header with the
// bar numbers) selects the bars it crosses, a tap on the ruler selects one
// bar (a tap on a lone selected bar clears it); OnSelect hears each change.
type PianoRoll struct {
	widget.BaseWidget

	mu       sync.Mutex
	score    *midi.Score
	lo, hi   int     // pitched rows, inclusive
	drums    []uint8 // distinct drum pitches, ascending
	shifts   []int   // per track: how many earlier tracks share its family
	bars     []int64 // bar start ticks
	endBeats float64
	zoom     float32 // units per beat; 0 = fit the whole piece
	offset   float64 // beat at the note area's left edge
	playhead float64 // seconds; < 0 hides it
	follow   bool
	barEnd   int64 // end tick of the last bar

	selFrom, selTo int // selected bars, 1-based inclusive; 0: none
	dragging       int // 0 no drag, dragScroll, dragSelect
	dragBar        int // the bar a selecting drag started in

	// OnSelect (may be nil) is called on the UI goroutine when the user
	// changes the selection (from = to = 0: cleared).
	OnSelect func(from, to int)

	postPending atomic.Bool
	postSec     atomic.Uint64 // math.Float64bits of the posted position

	renderer *pianoRenderer // set by the renderer on its first refresh
}

// NewPianoRoll returns a piano roll showing s (nil for none).
func NewPianoRoll(s *midi.Score) *PianoRoll {
	p := &PianoRoll{playhead: -1, follow: true}
	p.ExtendBaseWidget(p)
	p.setScore(s)
	return p
}

// SetScore shows s from its start, fitted to the width.
func (p *PianoRoll) SetScore(s *midi.Score) {
	p.mu.Lock()
	p.setScore(s)
	p.mu.Unlock()
	p.Refresh()
}

func (p *PianoRoll) setScore(s *midi.Score) {
	p.score, p.zoom, p.offset, p.playhead = s, 0, 0, -1
	p.selFrom, p.selTo = 0, 0
	p.drums, p.bars = p.drums[:0], p.bars[:0]
	p.endBeats = 0
	p.shifts = p.shifts[:0]
	if s != nil {
		var perFam [17]int
		for _, t := range s.Tracks {
			f := 16
			if !t.IsDrum {
				f = max(0, min(t.Program, 127)) / 8
			}
			p.shifts = append(p.shifts, perFam[f])
			perFam[f]++
		}
	}
	if s == nil || s.TicksPerBeat <= 0 {
		p.lo, p.hi = 48, 48+PianoMinRows-1
		return
	}
	lo, hi := 128, -1
	seen := [128]bool{}
	for _, t := range s.Tracks {
		for _, n := range t.Notes {
			if t.IsDrum {
				seen[n.Pitch&127] = true
				continue
			}
			lo, hi = min(lo, int(n.Pitch)), max(hi, int(n.Pitch))
		}
	}
	for k, ok := range seen {
		if ok {
			p.drums = append(p.drums, uint8(k))
		}
	}
	if hi < 0 {
		lo, hi = 60, 60
	}
	lo, hi = lo-2, hi+2
	if n := hi - lo + 1; n < PianoMinRows {
		extra := PianoMinRows - n
		lo -= extra / 2
		hi += extra - extra/2
	}
	if lo < 0 {
		hi, lo = hi-lo, 0
	}
	if hi > 127 {
		lo, hi = max(0, lo-(hi-127)), 127
	}
	p.lo, p.hi = lo, hi
	p.bars, p.barEnd = barTicks(p.bars, s)
	end := s.EndTick
	for _, t := range s.Tracks {
		for _, n := range t.Notes {
			end = max(end, n.Tick+n.Dur)
		}
	}
	p.endBeats = float64(end) / float64(s.TicksPerBeat)
}

// barTicks appends the start tick of every bar before the score's end
// (its EndTick, or just after its last onset when later) as the tokenizer
// counts bars (midi.BarLines: from the first meter change, 4/4 when there
// is none; a change takes effect at the next bar line), and returns the end
// of the last bar. app.BarStarts counts the same bars, so the bars a user
// selects are those the regeneration re-samples.
func barTicks(dst []int64, s *midi.Score) ([]int64, int64) {
	end := s.EndTick
	for _, t := range s.Tracks {
		for _, n := range t.Notes {
			end = max(end, n.Tick+1)
		}
	}
	if end <= 0 || s.TicksPerBeat <= 0 {
		return dst, 0
	}
	for n := 64; ; n *= 2 {
		lines := midi.BarLines(s, n)
		if len(lines) == 0 {
			return dst, 0
		}
		if len(lines) < n || lines[len(lines)-1] >= end || n >= maxBars {
			k := sort.Search(len(lines), func(i int) bool { return lines[i] >= end })
			barEnd := end
			if k < len(lines) {
				barEnd = lines[k]
			}
			if k > maxBars {
				k, barEnd = maxBars, lines[maxBars]
			}
			return append(dst, lines[:k]...), barEnd
		}
	}
}

// maxBars bounds the bars a roll draws.
const maxBars = 100000

// BarCount returns the number of bars of the score.
func (p *PianoRoll) BarCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.bars)
}

// SetZoom sets the horizontal scale in units per beat; 0 fits the whole
// piece into the width.
func (p *PianoRoll) SetZoom(unitsPerBeat float32) {
	p.mu.Lock()
	p.zoom = max(0, unitsPerBeat)
	p.clampOffset()
	p.mu.Unlock()
	p.Refresh()
}

// Zoom returns the scale in use (units per beat).
func (p *PianoRoll) Zoom() float32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.effZoom()
}

// SetOffset scrolls so that beat is at the note area's left edge.
func (p *PianoRoll) SetOffset(beat float64) {
	p.mu.Lock()
	p.offset = beat
	p.clampOffset()
	p.mu.Unlock()
	p.Refresh()
}

// Offset returns the beat at the left edge.
func (p *PianoRoll) Offset() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.offset
}

// SetFollow makes the view page along with the playhead (default on).
func (p *PianoRoll) SetFollow(on bool) {
	p.mu.Lock()
	p.follow = on
	p.mu.Unlock()
}

func (p *PianoRoll) noteWidth() float32 { return max(1, p.Size().Width-PianoKeyWidth) }

func (p *PianoRoll) effZoom() float32 {
	if p.zoom > 0 {
		return p.zoom
	}
	if p.endBeats <= 0 {
		return 16
	}
	return p.noteWidth() / float32(p.endBeats)
}

func (p *PianoRoll) clampOffset() {
	visible := float64(p.noteWidth() / p.effZoom())
	maxOff := math.Max(0, p.endBeats-visible)
	p.offset = math.Max(0, math.Min(p.offset, maxOff))
}

// SetPlayhead moves the playhead to sec seconds into the score (negative
// hides it). Call it on the UI goroutine; from elsewhere use PostPlayhead.
// Only the playhead line moves unless following it pages the view.
func (p *PianoRoll) SetPlayhead(sec float64) {
	p.mu.Lock()
	p.playhead = sec
	full := false
	if p.follow && sec >= 0 && p.score != nil && p.zoom > 0 {
		beat := secondsToBeats(p.score, sec)
		visible := float64(p.noteWidth() / p.effZoom())
		if beat < p.offset || beat > p.offset+visible {
			p.offset = beat - visible*0.1
			p.clampOffset()
			full = true
		}
	}
	p.mu.Unlock()
	if full {
		p.Refresh()
		return
	}
	if r, ok := rendererOfRoll(p); ok {
		r.placePlayhead()
	}
}

// PostPlayhead may be called from any goroutine (an audio player's clock):
// it records the position and schedules one SetPlayhead through fyne.Do;
// positions posted faster than the UI applies them are coalesced.
func (p *PianoRoll) PostPlayhead(sec float64) {
	p.postSec.Store(math.Float64bits(sec))
	if p.postPending.CompareAndSwap(false, true) {
		fyne.Do(func() {
			p.postPending.Store(false)
			p.SetPlayhead(math.Float64frombits(p.postSec.Load()))
		})
	}
}

// Playhead returns the playhead position in seconds (< 0 when hidden).
func (p *PianoRoll) Playhead() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.playhead
}

// secondsToBeats inverts the score's tempo map.
func secondsToBeats(s *midi.Score, sec float64) float64 {
	if s.TicksPerBeat <= 0 {
		return 0
	}
	tpb := float64(s.TicksPerBeat)
	lastTick, lastSec := int64(0), 0.0
	mpb := float64(midi.DefaultMicrosPerBeat)
	for _, t := range s.Tempos {
		segSec := float64(t.Tick-lastTick) * mpb / 1e6 / tpb
		if t.Tick > lastTick && lastSec+segSec > sec {
			break
		}
		if t.Tick > lastTick {
			lastSec += segSec
		}
		lastTick, mpb = t.Tick, float64(t.MicrosPerBeat)
	}
	return float64(lastTick)/tpb + (sec-lastSec)*1e6/mpb
}

// Scrolled implements fyne.Scrollable: the wheel scrolls in time,
// ctrl/cmd + wheel zooms about the pointer.
func (p *PianoRoll) Scrolled(ev *fyne.ScrollEvent) {
	zoomMod := false
	if d, ok := fyne.CurrentApp().Driver().(desktop.Driver); ok {
		zoomMod = d.CurrentKeyModifiers()&(fyne.KeyModifierControl|fyne.KeyModifierSuper) != 0
	}
	p.mu.Lock()
	z := p.effZoom()
	if zoomMod {
		at := float64(max(0, ev.Position.X-PianoKeyWidth))
		beatAt := p.offset + at/float64(z)
		f := float32(1.25)
		if ev.Scrolled.DY < 0 {
			f = 0.8
		}
		p.zoom = min(max(z*f, 0.5), 2000)
		p.offset = beatAt - at/float64(p.zoom)
	} else {
		p.zoom = z
		p.offset -= float64(ev.Scrolled.DX+ev.Scrolled.DY) / float64(z)
	}
	p.clampOffset()
	p.mu.Unlock()
	p.Refresh()
}

const (
	dragScroll = 1
	dragSelect = 2
)

// Dragged implements fyne.Draggable: a drag that starts on the bar ruler
// selects the bars it crosses; elsewhere it moves the music with the
// pointer.
func (p *PianoRoll) Dragged(ev *fyne.DragEvent) {
	p.mu.Lock()
	if p.dragging == 0 {
		start := ev.Position.Subtract(ev.Dragged)
		p.dragging = dragScroll
		if start.Y < PianoHeaderHeight && start.X >= PianoKeyWidth && len(p.bars) > 0 {
			p.dragging = dragSelect
			p.dragBar = p.barAt(start.X)
		}
	}
	if p.dragging == dragSelect {
		b := p.barAt(ev.Position.X)
		p.selFrom, p.selTo = min(p.dragBar, b), max(p.dragBar, b)
		p.mu.Unlock()
		p.Refresh()
		return
	}
	z := p.effZoom()
	p.zoom = z
	p.offset -= float64(ev.Dragged.DX) / float64(z)
	p.clampOffset()
	p.mu.Unlock()
	p.Refresh()
}

// DragEnd implements fyne.Draggable: a selecting drag reports its bars.
func (p *PianoRoll) DragEnd() {
	p.mu.Lock()
	sel := p.dragging == dragSelect
	p.dragging = 0
	from, to, f := p.selFrom, p.selTo, p.OnSelect
	p.mu.Unlock()
	if sel && f != nil {
		f(from, to)
	}
}

// Tapped implements fyne.Tappable: a tap on the bar ruler (the header
// right of the key column) selects that bar, or clears the selection when
// it is that bar alone.
func (p *PianoRoll) Tapped(ev *fyne.PointEvent) {
	p.mu.Lock()
	if ev.Position.Y >= PianoHeaderHeight || ev.Position.X < PianoKeyWidth || len(p.bars) == 0 {
		p.mu.Unlock()
		return
	}
	b := p.barAt(ev.Position.X)
	if p.selFrom == b && p.selTo == b {
		p.selFrom, p.selTo = 0, 0
	} else {
		p.selFrom, p.selTo = b, b
	}
	from, to, f := p.selFrom, p.selTo, p.OnSelect
	p.mu.Unlock()
	p.Refresh()
	if f != nil {
		f(from, to)
	}
}

// barAt is the bar (1-based, clamped to the score's) under x; p.mu held.
func (p *PianoRoll) barAt(x float32) int {
	if len(p.bars) == 0 || p.score == nil || p.score.TicksPerBeat <= 0 {
		return 0
	}
	beat := p.offset + float64(max(0, x-PianoKeyWidth)/p.effZoom())
	tick := int64(beat * float64(p.score.TicksPerBeat))
	i := sort.Search(len(p.bars), func(i int) bool { return p.bars[i] > tick })
	return max(1, min(i, len(p.bars)))
}

// SetSelection selects bars from..to (1-based, inclusive, clamped to the
// score's bars); from = 0 clears the selection. OnSelect is not called.
func (p *PianoRoll) SetSelection(from, to int) {
	p.mu.Lock()
	n := len(p.bars)
	if from <= 0 || n == 0 {
		p.selFrom, p.selTo = 0, 0
	} else {
		from = min(from, n)
		p.selFrom, p.selTo = from, max(from, min(to, n))
	}
	p.mu.Unlock()
	p.Refresh()
}

// Selection returns the selected bars (1-based, inclusive); 0, 0 when none.
func (p *PianoRoll) Selection() (from, to int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.selFrom, p.selTo
}

// BarX returns the x position (in the widget) where bar (1-based; bar
// count + 1 for the end of the last) begins at the current zoom and
// offset; tests and callers placing the pointer on the ruler use it.
func (p *PianoRoll) BarX(bar int) float32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.score == nil || bar < 1 || bar > len(p.bars)+1 || p.score.TicksPerBeat <= 0 {
		return -1
	}
	t := p.barEnd
	if bar <= len(p.bars) {
		t = p.bars[bar-1]
	}
	return p.geom().x(float64(t) / float64(p.score.TicksPerBeat))
}

// FamilyColor returns the colour of General MIDI program's family: 16
// hues spread so neighbouring families differ, lighter on dark themes.
func FamilyColor(program int, dark bool) color.Color { return familyColor(program, 0, dark) }

// familyColor is FamilyColor for the shift-th track of a family
// (midi.FamilyColor: each further track of a family turns the hue).
func familyColor(program, shift int, dark bool) color.Color {
	l := 0.45
	if dark {
		l = 0.62
	}
	return midi.FamilyColor(program, shift, l)
}

// TrackColor returns the colour notes of track i are drawn in (for a legend).
func (p *PianoRoll) TrackColor(i int) color.Color {
	p.mu.Lock()
	defer p.mu.Unlock()
	pal := paletteFor(p)
	if p.score == nil || i < 0 || i >= len(p.score.Tracks) {
		return pal.fg
	}
	if p.score.Tracks[i].IsDrum {
		return drumColor(pal)
	}
	return familyColor(p.score.Tracks[i].Program, p.shifts[i], pal.dark)
}

func drumColor(pal palette) color.Color { return blend(pal.fg, pal.bg, 0.3) }

// withVelocity sets c's opacity from a note velocity (1 → 55%, 127 → 100%).
func withVelocity(c color.Color, vel uint8) color.Color {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	n.A = uint8(140 + int(vel&127)*115/127)
	return n
}

// CreateRenderer implements fyne.Widget.
func (p *PianoRoll) CreateRenderer() fyne.WidgetRenderer {
	r := &pianoRenderer{p: p, notes: newRectPool(), rows: newRectPool(), vlines: newLinePool(), texts: newTextPool(),
		noteBg: canvas.NewRectangle(color.Transparent), keyBg: canvas.NewRectangle(color.Transparent),
		headBg: canvas.NewRectangle(color.Transparent), drumSep: canvas.NewLine(color.Transparent),
		sel: canvas.NewRectangle(color.Transparent), selHead: canvas.NewRectangle(color.Transparent),
		play: canvas.NewLine(color.Transparent)}
	r.Refresh()
	return r
}

// rendererOfRoll returns the roll's renderer once it has one.
func rendererOfRoll(p *PianoRoll) (*pianoRenderer, bool) {
	p.mu.Lock()
	r := p.renderer
	p.mu.Unlock()
	return r, r != nil
}

type pianoRenderer struct {
	p                     *PianoRoll
	notes                 pool[*canvas.Rectangle]
	rows                  pool[*canvas.Rectangle]
	vlines                pool[*canvas.Line]
	barLines              int // of vlines, how many are bar lines (the rest are beat lines)
	texts                 pool[*canvas.Text]
	noteBg, keyBg, headBg *canvas.Rectangle
	sel, selHead          *canvas.Rectangle // the selected bars (over the notes, on the ruler)
	drumSep, play         *canvas.Line
	objs                  []fyne.CanvasObject
	pal                   palette
}

func (r *pianoRenderer) Layout(fyne.Size) { r.Refresh() }

func (r *pianoRenderer) MinSize() fyne.Size {
	return fyne.NewSize(PianoKeyWidth+120, PianoHeaderHeight+80)
}

func (r *pianoRenderer) Objects() []fyne.CanvasObject { return r.objs }

func (r *pianoRenderer) Destroy() {}

// geometry of the current layout.
type rollGeom struct {
	left, right, top, pitchBottom, bottom float32
	rowH, drumRowH, zoom                  float32
	offset                                float64
}

func (p *PianoRoll) geom() rollGeom {
	sz := p.Size()
	g := rollGeom{left: PianoKeyWidth, right: sz.Width, top: PianoHeaderHeight, bottom: sz.Height}
	g.pitchBottom = g.bottom
	if len(p.drums) > 0 {
		g.pitchBottom = g.bottom - float32(math.Round(float64((g.bottom-g.top)*PianoDrumFraction)))
		g.drumRowH = (g.bottom - g.pitchBottom) / float32(len(p.drums))
	}
	g.rowH = (g.pitchBottom - g.top) / float32(p.hi-p.lo+1)
	g.zoom = p.effZoom()
	g.offset = p.offset
	return g
}

func (g rollGeom) x(beat float64) float32 { return g.left + float32(beat-g.offset)*g.zoom }

func isBlackKey(pitch int) bool {
	switch pitch % 12 {
	case 1, 3, 6, 8, 10:
		return true
	}
	return false
}

func (r *pianoRenderer) Refresh() {
	p := r.p
	p.mu.Lock()
	p.renderer = r
	pal := paletteFor(p)
	r.pal = pal
	p.clampOffset()
	g := p.geom()
	s := p.score
	r.notes.reset()
	r.rows.reset()
	r.vlines.reset()
	r.texts.reset()
	sz := p.Size()

	placeRect(r.noteBg, g.left, g.top, max(0, g.right-g.left), max(0, g.bottom-g.top), pal.bg)
	placeRect(r.keyBg, 0, 0, g.left, sz.Height, blend(pal.fg, pal.bg, 0.92))
	placeRect(r.headBg, 0, 0, sz.Width, g.top, blend(pal.fg, pal.bg, 0.92))
	rowShade := blend(pal.fg, pal.bg, 0.95)
	labelH := fyne.MeasureText("C4", pal.textSize, fyne.TextStyle{}).Height
	for k := p.lo; k <= p.hi; k++ {
		y := g.top + float32(p.hi-k)*g.rowH
		if isBlackKey(k) {
			placeRect(r.rows.get(), g.left, y, g.right-g.left, g.rowH, rowShade)
		}
		if k%12 == 0 && g.rowH*12 >= labelH {
			t := r.texts.get()
			setText(t, "C"+strconv.Itoa(k/12-1), pal.muted, pal.textSize, false)
			t.Move(fyne.NewPos(4, y+g.rowH/2-labelH/2))
		}
	}

	if s != nil && s.TicksPerBeat > 0 && g.right > g.left {
		tpb := float64(s.TicksPerBeat)
		visEnd := g.offset + float64((g.right-g.left)/g.zoom)
		// Beat lines when there is room, under the bar lines.
		if g.zoom >= 12 {
			for b := math.Ceil(g.offset); b <= visEnd; b++ {
				x := g.x(b)
				setLine(r.vlines.get(), x, g.top, x, g.bottom, blend(pal.fg, pal.bg, 0.9), 1)
			}
		}
		beatLines := r.vlines.used
		// Bar lines and numbers (every k-th number so that they fit).
		numW := fyne.MeasureText(strconv.Itoa(len(p.bars)), pal.textSize, fyne.TextStyle{}).Width + 6
		// Too dense bar lines (under 6 units apart) are thinned the same way.
		every, lineEvery := 1, 1
		if len(p.bars) > 1 {
			barW := float32(float64(p.bars[1]-p.bars[0])/tpb) * g.zoom
			for float32(every)*barW < numW {
				every *= 2
			}
			for float32(lineEvery)*barW < 6 {
				lineEvery *= 2
			}
		}
		for i, bt := range p.bars {
			b := float64(bt) / tpb
			if b < g.offset-1e-9 || b > visEnd || i%lineEvery != 0 {
				continue
			}
			x := g.x(b)
			setLine(r.vlines.get(), x, 0, x, g.bottom, blend(pal.fg, pal.bg, 0.6), 1)
			if i%every == 0 {
				t := r.texts.get()
				setText(t, strconv.Itoa(i+1), pal.muted, pal.textSize, false)
				t.Move(fyne.NewPos(x+2, (g.top-labelH)/2))
			}
		}
		r.barLines = r.vlines.used - beatLines

		// Notes, culled to the view and clipped at the left edge.
		dc := drumColor(pal)
		for ti, t := range s.Tracks {
			base := dc
			if !t.IsDrum {
				base = familyColor(t.Program, p.shifts[ti], pal.dark)
			}
			for _, n := range t.Notes {
				b0 := float64(n.Tick) / tpb
				if b0 > visEnd {
					continue
				}
				b1 := float64(n.Tick+n.Dur) / tpb
				if b1 < g.offset {
					continue
				}
				x0, x1 := max(g.x(b0), g.left), g.x(b1)
				w := max(x1-x0, 1)
				var y, h float32
				if t.IsDrum {
					i := sort.Search(len(p.drums), func(i int) bool { return p.drums[i] >= n.Pitch })
					y = g.pitchBottom + float32(len(p.drums)-1-i)*g.drumRowH
					h = g.drumRowH
					w = max(w, min(4, g.zoom/4)) // hits are short; keep them visible
				} else {
					y = g.top + float32(p.hi-int(n.Pitch))*g.rowH
					h = g.rowH
				}
				placeRect(r.notes.get(), x0, y+0.5, w, max(h-1, 1), withVelocity(base, n.Velocity))
			}
		}
	}
	if len(p.drums) > 0 {
		setLine(r.drumSep, g.left, g.pitchBottom, g.right, g.pitchBottom, pal.muted, 1)
		t := r.texts.get()
		setText(t, "Drums", pal.muted, pal.textSize, false)
		t.Move(fyne.NewPos(2, (g.pitchBottom+g.bottom)/2-labelH/2))
	} else {
		setLine(r.drumSep, 0, 0, 0, 0, color.Transparent, 0)
	}
	if s == nil || s.NoteCount() == 0 {
		t := r.texts.get()
		sz := setText(t, "No notes", pal.muted, pal.textSize, false)
		t.Move(fyne.NewPos((g.left+g.right-sz.Width)/2, (g.top+g.bottom-sz.Height)/2))
	}
	r.placeSelection(g)
	r.placePlayheadLocked(g)
	p.mu.Unlock()

	r.objs = append(r.objs[:0], r.noteBg)
	r.objs = appendActive(r.objs, &r.rows)
	r.objs = appendActive(r.objs, &r.vlines)
	r.objs = appendActive(r.objs, &r.notes)
	r.objs = append(r.objs, r.drumSep, r.sel, r.keyBg, r.headBg, r.selHead)
	r.objs = appendActive(r.objs, &r.texts)
	r.objs = append(r.objs, r.play)
	canvas.Refresh(p)
}

// placeSelection shades the selected bars over the notes and on the ruler
// (p.mu held).
func (r *pianoRenderer) placeSelection(g rollGeom) {
	p := r.p
	if p.selFrom <= 0 || p.score == nil || p.score.TicksPerBeat <= 0 || p.selTo > len(p.bars) {
		r.sel.Hide()
		r.selHead.Hide()
		return
	}
	tpb := float64(p.score.TicksPerBeat)
	end := p.barEnd
	if p.selTo < len(p.bars) {
		end = p.bars[p.selTo]
	}
	x0 := max(g.x(float64(p.bars[p.selFrom-1])/tpb), g.left)
	x1 := min(g.x(float64(end)/tpb), g.right)
	if x1 <= x0 {
		r.sel.Hide()
		r.selHead.Hide()
		return
	}
	c := color.NRGBAModel.Convert(r.pal.primary).(color.NRGBA)
	c.A = 56
	placeRect(r.sel, x0, g.top, x1-x0, g.bottom-g.top, c)
	c.A = 150
	placeRect(r.selHead, x0, 0, x1-x0, g.top, c)
	r.sel.Show()
	r.selHead.Show()
}

// placePlayhead moves only the playhead line (cheap: one object refreshed).
func (r *pianoRenderer) placePlayhead() {
	r.p.mu.Lock()
	r.placePlayheadLocked(r.p.geom())
	r.p.mu.Unlock()
	canvas.Refresh(r.play)
}

func (r *pianoRenderer) placePlayheadLocked(g rollGeom) {
	p := r.p
	if p.playhead < 0 || p.score == nil {
		r.play.Hide()
		return
	}
	x := g.x(secondsToBeats(p.score, p.playhead))
	if x < g.left || x > g.right {
		r.play.Hide()
		return
	}
	setLine(r.play, x, 0, x, g.bottom, r.pal.alert, 2)
	r.play.Show()
}
