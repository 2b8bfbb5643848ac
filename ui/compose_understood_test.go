package ui

import (
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/amtstudio/amt/app"
)

// richText is what a RichText shows.
func richText(r *widget.RichText) string {
	var b strings.Builder
	for _, s := range r.Segments {
		if t, ok := s.(*widget.TextSegment); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// "Understood from the prompt" shows what the words imply beside the
// attributes: the chips hold the implied tempo, mode and drums, the mood,
// ensemble and dynamics chips what the words mean, the line under them
// each value's source and the words not used; changing the mood draws the
// implied chips again, but not one the user set; the piece has the
// requested dynamics in its velocities.
func TestComposeUnderstood(t *testing.T) {
	a := test.NewTempApp(t)
	st := tempStudio(t)
	s := testShell(t, a, st, nil)
	defer s.Close()
	s.Window.Resize(fyne.NewSize(1280, 860))
	c := s.Compose
	test.Type(c.prompt, "a soothing bedtime song")
	tempo, err := strconv.Atoi(c.tempo.Text)
	if err != nil || tempo < 55 || tempo > 80 {
		t.Errorf("tempo chip %q, want the lullaby's 55–80", c.tempo.Text)
	}
	if c.drums.Selected != "no" || c.dynamics.Selected != "p" || c.mood.Selected == anyChoice || c.ensemble.Selected == anyChoice ||
		c.density.Selected != "sparse" {
		t.Errorf("drums %q dynamics %q mood %q ensemble %q density %q", c.drums.Selected, c.dynamics.Selected, c.mood.Selected,
			c.ensemble.Selected, c.density.Selected)
	}
	line := richText(c.understood)
	for _, want := range []string{"from 'bedtime song'", "tempo 6", "dynamics p, velocity", "drums no from 'bedtime song'",
		"density sparse, 1.5–2.25 notes a beat from"} {
		if !strings.Contains(line, want) {
			t.Errorf("understood line %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "not used") {
		t.Errorf("every word was used: %q", line)
	}
	test.Type(c.prompt, ", zorbly")
	if line := richText(c.understood); !strings.Contains(line, "not used: 'zorbly'") {
		t.Errorf("unused word not marked: %q", line)
	}
	captureShell(t, s, "compose_understood")

	// A mood chosen over the words' moves the implied chips (a lullaby
	// stays a lullaby's tempo and texture, but minor), and goes with the
	// request.
	c.mood.SetSelected("angry")
	if !strings.HasSuffix(c.key.Selected, "minor") || c.density.Selected != "sparse" {
		t.Errorf("key chip %q density chip %q after choosing angry", c.key.Selected, c.density.Selected)
	}
	req, err := c.request(false)
	if err != nil {
		t.Fatal(err)
	}
	if req.Choices.Mood != "angry" || req.Attrs.TempoBPM != 0 || req.Attrs.KeyTonic >= 0 {
		t.Errorf("request %+v choices %+v: implied chips must be left for the seed", req.Attrs, req.Choices)
	}
	// A chip the user set stays when the words' implications change.
	c.tempo.SetText("100")
	c.dynamics.SetSelected("ff")
	c.density.SetSelected("moderate")
	if c.tempo.Text != "100" {
		t.Errorf("the user's tempo became %q", c.tempo.Text)
	}
	req, _ = c.request(false)
	if req.Attrs.TempoBPM != 100 || req.Choices.Dynamics != "ff" || req.Choices.Density != "moderate" {
		t.Errorf("request tempo %v dynamics %q density %q", req.Attrs.TempoBPM, req.Choices.Dynamics, req.Choices.Density)
	}
	if it, ok := c.understanding.Item("density"); !ok || !strings.HasPrefix(it.Value, "moderate") {
		t.Errorf("understood density %+v after choosing moderate", it)
	}
	c.bars.SetText("4")
	test.Tap(c.generate)
	waitFor(t, func() bool { return len(c.pieces) == 1 && !c.busy() })
	p := c.pieces[0]
	if p.Attrs.TempoBPM != 100 || p.Attrs.Drums == nil || *p.Attrs.Drums {
		t.Errorf("stored request %+v", p.Attrs)
	}
	var sum, n float64
	for _, tr := range c.current.Tracks {
		for _, nt := range tr.Notes {
			sum += float64(nt.Velocity)
			n++
		}
	}
	if n == 0 || sum/n < 100 {
		t.Errorf("mean velocity %.1f over %v notes, want ff (106–118)", sum/n, n)
	}
	captureShell(t, s, "compose_understood_generated")
	_ = app.DefaultBars
}
