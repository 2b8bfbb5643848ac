package midi

import (
	"image/color"
	"math"
)

// FamilyColor is the colour a piano roll draws a General MIDI program's
// notes in, the same in the window (ui/widgets) and in `amt roll`'s images
// (engine/roll): the family (program/8) picks one of 16 hues spread so that
// neighbouring families differ, each further track of one family (shift
// 1, 2, …) turns the hue by 3/16 of the circle so that tracks sharing an
// instrument (POP909's three pianos) differ, at saturation 0.65 and
// lightness l (0.45 on a light ground, 0.62 on a dark one).
func FamilyColor(program, shift int, l float64) color.NRGBA {
	fam := max(0, min(program, 127)) / 8
	hue := math.Mod(float64((fam*7)%16)*22.5+210+float64(shift)*67.5, 360)
	return hsl(hue, 0.65, l)
}

// hsl is the colour of hue h (degrees), saturation s and lightness l.
func hsl(h, s, l float64) color.NRGBA {
	c := (1 - math.Abs(2*l-1)) * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	m := l - c/2
	var r, g, b float64
	switch {
	case h < 60:
		r, g, b = c, x, 0
	case h < 120:
		r, g, b = x, c, 0
	case h < 180:
		r, g, b = 0, c, x
	case h < 240:
		r, g, b = 0, x, c
	case h < 300:
		r, g, b = x, 0, c
	default:
		r, g, b = c, 0, x
	}
	u := func(v float64) uint8 { return uint8(math.Round((v + m) * 255)) }
	return color.NRGBA{u(r), u(g), u(b), 255}
}
