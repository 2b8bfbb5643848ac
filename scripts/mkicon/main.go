// Command mkicon draws the AMT Studio icon (assets/icon.png): a rounded
// square with a deep blue-to-violet gradient, three piano keys and a rising
// line of notes. Run from the repository root: go run ./scripts/mkicon
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
)

func main() {
	const n = 512
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	radius := 96.0
	inside := func(x, y float64) float64 { // coverage of the rounded square, anti-aliased
		cx := math.Max(radius, math.Min(n-radius, x))
		cy := math.Max(radius, math.Min(n-radius, y))
		d := math.Hypot(x-cx, y-cy)
		return math.Max(0, math.Min(1, radius-d+0.5))
	}
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			a := inside(float64(x)+0.5, float64(y)+0.5)
			if a == 0 {
				continue
			}
			t := (float64(x) + float64(y)) / (2 * n)
			r := 0x1e + t*(0x7c-0x1e)
			g := 0x3a + t*(0x3a-0x3a)
			b := 0x8a + t*(0xed-0x8a)
			img.SetNRGBA(x, y, color.NRGBA{uint8(r), uint8(g), uint8(b), uint8(a * 255)})
		}
	}
	fill := func(x0, y0, x1, y1 int, c color.NRGBA) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				img.SetNRGBA(x, y, c)
			}
		}
	}
	white := color.NRGBA{0xf5, 0xf5, 0xfa, 0xff}
	black := color.NRGBA{0x18, 0x18, 0x24, 0xff}
	// Piano keys along the bottom.
	for i := 0; i < 7; i++ {
		x0 := 88 + i*48
		fill(x0, 330, x0+44, 430, white)
	}
	for _, i := range []int{0, 1, 3, 4, 5} {
		x0 := 88 + i*48 + 32
		fill(x0, 330, x0+26, 390, black)
	}
	// Rising notes (piano-roll bars) above the keys.
	notes := []struct{ x, y, w int }{{96, 270, 70}, {176, 230, 54}, {240, 190, 80}, {330, 140, 90}}
	gold := color.NRGBA{0xff, 0xc8, 0x57, 0xff}
	for _, b := range notes {
		fill(b.x, b.y, b.x+b.w, b.y+26, gold)
	}
	f, err := os.Create("assets/icon.png")
	if err != nil {
		log.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
