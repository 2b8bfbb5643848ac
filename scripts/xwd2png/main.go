// Command xwd2png converts an X window dump (xwd -root) of a 24- or 32-bit
// TrueColor ZPixmap screen, as Xvfb makes, to PNG. The Xvfb smoke test uses
// it to save what the real window drew. Usage: xwd2png IN.xwd OUT.png
package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: xwd2png IN.xwd OUT.png")
		os.Exit(2)
	}
	if err := convert(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "xwd2png:", err)
		os.Exit(1)
	}
}

func convert(in, out string) error {
	d, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	if len(d) < 100 {
		return fmt.Errorf("%s: too short for an XWD header", in)
	}
	h := func(i int) int { return int(binary.BigEndian.Uint32(d[4*i:])) }
	headerSize, format, w, ht := h(0), h(2), h(4), h(5)
	byteOrder, bpp, bpl, ncolors := h(7), h(11), h(12), h(19)
	if format != 2 || (bpp != 24 && bpp != 32) {
		return fmt.Errorf("%s: only ZPixmap 24/32 bits per pixel is supported (format %d, %d bpp)", in, format, bpp)
	}
	off := headerSize + 12*ncolors
	if w <= 0 || ht <= 0 || bpl < w*bpp/8 || off+bpl*ht > len(d) {
		return errors.New(in + ": header does not match the file size")
	}
	img := image.NewRGBA(image.Rect(0, 0, w, ht))
	step := bpp / 8
	for y := 0; y < ht; y++ {
		row := d[off+y*bpl:]
		for x := 0; x < w; x++ {
			p := row[x*step:]
			var r, g, b byte
			if byteOrder == 0 { // LSBFirst: B G R (X)
				b, g, r = p[0], p[1], p[2]
			} else {
				r, g, b = p[step-3], p[step-2], p[step-1]
			}
			img.SetRGBA(x, y, color.RGBA{r, g, b, 255})
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
