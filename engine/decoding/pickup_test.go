package decoding

import (
	"slices"
	"strconv"
	"testing"

	"github.com/amtstudio/amt/engine/token"
)

// TestPickup: the upbeat's share by genre and length by meter, the first
// bar's first onset held to it (and no empty first bar), the rest of the
// piece left alone; and the form moved one bar later.
func TestPickup(t *testing.T) {
	v := token.DefaultVocab()
	q := v.Positions()
	for _, c := range []struct {
		genre    string
		num, den int
		u        float64
		want     int
	}{
		{"folk", 6, 8, 0.5, q / 2}, {"folk", 4, 4, 0.1, q}, {"folk", 2, 4, 0.1, q / 2}, {"folk", 2, 2, 0.1, q},
		{"waltz", 3, 4, 0.9, q}, {"folk", 4, 4, 0.9, 0}, {"gospel", 4, 4, 0.6, 0}, {"gospel", 6, 8, 0.5, q / 2},
		{"pop", 4, 4, 0, 0}, {"game", 4, 4, 0, 0}, {"folk", 0, 0, 0, 0},
	} {
		if got := Pickup(v, c.genre, c.num, c.den, c.u); got != c.want {
			t.Errorf("Pickup(%s, %d/%d, %.1f) = %d, want %d", c.genre, c.num, c.den, c.u, got, c.want)
		}
	}

	c := NewBars(v, v.NewGrammar(), 4)
	c.Pickup = q / 2
	mask := make([]bool, v.Size())
	push := pusher(t, c)
	positions := func() []int {
		c.Allow(mask)
		first, n := v.Range(token.KindPosition)
		var out []int
		for p := range n {
			if mask[int(first)+p] {
				out = append(out, p)
			}
		}
		return out
	}
	push("BOS", "INSTRUMENT_0", "SEP", "Bar", "TimeSig_6/8", "Tempo_120-125")
	_, barLen := c.Grammar.Position()
	if got := positions(); len(got) != 1 || got[0] != barLen-q/2 || mask[v.Bar] || mask[v.EOS] {
		t.Fatalf("first bar of 6/8 (%d positions): positions %v, bar line %v; want only %d", barLen, got, mask[v.Bar], barLen-q/2)
	}
	push("Position_"+strconv.Itoa(barLen-q/2), "Program_0", "Pitch_69", v.Name(first(v, token.KindVelocity)+4), v.Name(first(v, token.KindDuration)+2))
	push("Bar")
	if got := positions(); len(got) < barLen/2 {
		t.Fatalf("second bar: positions %v, want the bar's own", got)
	}

	// The form: strains over 16 bars, moved past the upbeat.
	p, err := PlanForm("strains", "folk", 16)
	if err != nil {
		t.Fatal(err)
	}
	got := p.AfterPickup().Copy
	want := []int{-1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 2, 3, 4, 5, 6, -1}
	if !slices.Equal(got, want) {
		t.Errorf("strains after an upbeat: copies %v, want %v (plan before %v)", got, want, p.Copy)
	}
}
