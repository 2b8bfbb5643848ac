package ui

import (
	"context"
	"fmt"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/ui/widgets"
)

// variationsRow shows the pieces "Generate 4" sampled for one request, to
// audition and keep: each card a small piano roll, its seed and
// adherence, Play and Keep. Only a kept one enters the history
// (app.Studio.Keep).
type variationsRow struct {
	c     *composeScreen
	box   *fyne.Container // hidden while there are none
	title *widget.Label
	cards []*variationCard
	list  []*app.Variation
}

type variationCard struct {
	box        fyne.CanvasObject
	roll       *widgets.PianoRoll
	label      *widget.Label
	play, keep *widget.Button
}

func newVariationsRow(c *composeScreen) *variationsRow {
	r := &variationsRow{c: c}
	r.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	closeB := widget.NewButtonWithIcon("", theme.WindowCloseIcon(), r.hide)
	grid := container.NewGridWithColumns(variationCount)
	for i := 0; i < variationCount; i++ {
		vc := &variationCard{roll: widgets.NewPianoRoll(nil), label: widget.NewLabel("")}
		vc.label.Truncation = fyne.TextTruncateEllipsis
		vc.play = widget.NewButtonWithIcon("Play", theme.MediaPlayIcon(), func() { r.audition(i) })
		vc.keep = widget.NewButtonWithIcon("Keep", theme.ConfirmIcon(), func() { r.keepOne(i) })
		height := canvas.NewRectangle(color.Transparent)
		height.SetMinSize(fyne.NewSize(0, 64))
		vc.box = container.NewBorder(nil, container.NewBorder(nil, nil, nil, container.NewHBox(vc.play, vc.keep), vc.label), nil, nil,
			container.NewStack(height, vc.roll))
		r.cards = append(r.cards, vc)
		grid.Add(vc.box)
	}
	r.box = container.NewBorder(container.NewBorder(nil, nil, nil, closeB, r.title), nil, nil, nil, grid)
	r.box.Hide()
	return r
}

// reset shows empty cards for a new request.
func (r *variationsRow) reset(req app.ComposeRequest) {
	r.list = make([]*app.Variation, variationCount)
	r.title.SetText(fmt.Sprintf("Variations of “%s”, seeds %d–%d: play them, keep the ones you like (only kept ones enter the history)",
		req.Prompt, req.Seed, req.Seed+variationCount-1))
	for i, vc := range r.cards {
		vc.roll.SetScore(nil)
		vc.label.SetText(fmt.Sprintf("Seed %d: sampling…", req.Seed+uint64(i)))
		vc.play.Disable()
		vc.keep.Disable()
		vc.keep.SetText("Keep")
	}
	r.c.showRow(r.box, true)
}

// set shows variation i.
func (r *variationsRow) set(i int, v *app.Variation) {
	if i >= len(r.list) { // the row was closed while sampling
		return
	}
	r.list[i] = v
	vc := r.cards[i]
	vc.roll.SetScore(v.Result.Score)
	vc.label.SetText(variationText(v))
	vc.play.Enable()
	vc.keep.Enable()
}

func variationText(v *app.Variation) string {
	s := fmt.Sprintf("Seed %d · %d notes", v.Request.Seed, v.Result.Score.NoteCount())
	if ad := v.Result.Adherence; ad != nil && ad.Checked > 0 {
		s += fmt.Sprintf(" · %d/%d met", ad.Met, ad.Checked)
	}
	return s
}

func (r *variationsRow) hide() {
	r.c.showRow(r.box, false)
	r.list = nil
}

// audition shows variation i as the piece and plays it.
func (r *variationsRow) audition(i int) {
	if i >= len(r.list) || r.list[i] == nil {
		return
	}
	v := r.list[i]
	c := r.c
	if v.Result.Piece.ID != 0 {
		c.edits.Reset(versionOf(v.Result, ""))
	} else {
		c.edits.Reset(app.PieceVersion{Score: v.Result.Score, Name: fmt.Sprintf("variation-seed-%d.mid", v.Request.Seed),
			What: fmt.Sprintf("Variation %d of %d  ·  %s  ·  seed %d (not kept)", i+1, len(r.list), v.Request.Prompt, v.Request.Seed)})
	}
	c.history.UnselectAll()
	c.showVersion(v.Result.Metrics, v.Result.Adherence)
	c.startPlayback()
}

// keepOne stores variation i in the history and shows it.
func (r *variationsRow) keepOne(i int) {
	if i >= len(r.list) || r.list[i] == nil || r.c.e.studio == nil {
		return
	}
	v := r.list[i]
	res, err := r.c.e.studio.Keep(v)
	if err != nil {
		r.c.e.setStatus("Keep: " + err.Error())
		return
	}
	vc := r.cards[i]
	vc.keep.SetText(fmt.Sprintf("Kept #%d", res.Piece.ID))
	vc.keep.Disable()
	r.c.refreshHistory()
	r.c.history.UnselectAll()
	r.c.showResult(res)
	r.c.e.setStatus(fmt.Sprintf("Kept variation %d (seed %d) as piece %d", i+1, v.Request.Seed, res.Piece.ID))
}

// startVariations samples variationCount pieces for the form's request,
// seeds from the seed field on, shown as they come.
func (c *composeScreen) startVariations() {
	if c.e.studio == nil || c.busy() {
		return
	}
	req, err := c.request(false)
	if err != nil {
		c.e.setStatus("Cannot generate: " + err.Error())
		return
	}
	c.variations.reset(req)
	c.runJob(fmt.Sprintf("Generating %d variations", variationCount), func(ctx context.Context, progress func(int, int)) error {
		req.Progress = progress
		_, err := c.e.studio.Variations(ctx, req, variationCount, func(i int, v *app.Variation) {
			c.e.bridge.Post(fmt.Sprintf("compose.variation%d", i), func() { c.variations.set(i, v) })
		})
		return err
	}, func(err error) {
		if err == nil {
			c.e.status.SetText(fmt.Sprintf("%d variations ready: Play to audition, Keep to store", variationCount))
		}
	})
}
