package roll

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

func at(t *testing.T, img *image.RGBA, x, y int, want color.RGBA, what string) {
	t.Helper()
	if got := img.RGBAAt(x, y); got != want {
		t.Errorf("%s: pixel (%d, %d) = %v, want %v", what, x, y, got, want)
	}
}

// Two 4/4 bars at tpb 12 and 10 pixels a beat: a piano C4 on beat 1, a
// violin C5 on bar 2's downbeat, a bass drum on beat 3 of bar 1.
func TestDrawByHand(t *testing.T) {
	s := &midi.Score{TicksPerBeat: 12, Tracks: []midi.Track{
		{Program: 0, Notes: []midi.Note{{Tick: 0, Dur: 12, Pitch: 60, Velocity: 90}}},
		{Program: 40, Notes: []midi.Note{{Tick: 48, Dur: 24, Pitch: 72, Velocity: 90}}},
		{IsDrum: true, Channel: 9, Notes: []midi.Note{{Tick: 24, Dur: 3, Pitch: 36, Velocity: 90}}},
	}}
	img, g := Draw(s, Options{Bars: 2, PxPerBeat: 10, Height: 100, DrumLane: 24, Caption: "Test 1"})
	// Pitches 60–72 padded by 2 is 58–74 (17), widened to 24: 55–78;
	// 100/24 rows a semitone.
	if g.LoPitch != 55 || g.HiPitch != 78 {
		t.Fatalf("pitch axis %d–%d, want 55–78", g.LoPitch, g.HiPitch)
	}
	if g.RollTop != CaptionH || g.RollBottom != CaptionH+100 || g.DrumBottom != CaptionH+124 {
		t.Fatalf("geometry %+v", g)
	}
	// Bars at ticks 0, 48, 96: x 0, 40, 80.
	if len(g.BarX) != 3 || g.BarX[0] != 0 || g.BarX[1] != 40 || g.BarX[2] != 80 {
		t.Fatalf("bar lines %v, want [0 40 80]", g.BarX)
	}
	// Legend "Piano", "Strings", "Drums": (9+29+8) + (9+41+8) + (9+29+8) =
	// 150 pixels plus 4 is wider than the 81 of the roll.
	if w := img.Bounds().Dx(); w != 154 {
		t.Errorf("width %d, want 154", w)
	}
	if h := img.Bounds().Dy(); h != CaptionH+124+CaptionH {
		t.Errorf("height %d", h)
	}
	// C4: row 11 + floor(18·100/24) = 86, 4 rows; columns 0–8 (10 wide
	// less the 1-pixel gap).
	if y := g.Y(60); y != 86 {
		t.Fatalf("Y(60) = %d, want 86", y)
	}
	at(t, img, 5, 87, FamilyColor(0), "piano note")
	at(t, img, 9, 87, Background, "gap after the piano note")
	// C5 (violin, Strings): row 11 + floor(6·100/24) = 36, x 40–58.
	at(t, img, 45, 37, FamilyColor(40), "violin note")
	if FamilyColor(0) == FamilyColor(40) {
		t.Error("piano and strings share a colour")
	}
	// Bar line at x 40 above the violin note; phrase line at 0 and 80.
	at(t, img, 40, CaptionH+1, BarLine, "bar line")
	at(t, img, 80, CaptionH+1, PhraseLine, "end line")
	// Drum at tick 24 (x 20), key 36: k = 1, y = bottom − 3 − 19/46 = bottom − 3.
	at(t, img, 20, g.DrumBottom-3, DrumColor, "drum hit")
	at(t, img, 30, g.DrumBottom-3, DrumLaneBg, "drum lane")
	// The caption and the legend are drawn.
	found := false
	for x := 0; x < 40; x++ {
		for y := 0; y < CaptionH; y++ {
			if img.RGBAAt(x, y) == TextColor {
				found = true
			}
		}
	}
	if !found {
		t.Error("no caption pixels")
	}
	at(t, img, 4, g.DrumBottom+4, FamilyColor(0), "legend swatch")
}

// Bar lines follow the meter map: 3/4 bars are 36 ticks.
func TestDrawMeter(t *testing.T) {
	s := &midi.Score{TicksPerBeat: 12, Meters: []midi.MeterChange{{Tick: 0, Num: 3, Den: 4}, {Tick: 72, Num: 2, Den: 4}}}
	_, g := Draw(s, Options{Bars: 4, PxPerBeat: 10})
	want := []int{0, 30, 60, 80, 100} // 36, 36, then 24-tick bars
	for i, x := range want {
		if i >= len(g.BarX) || g.BarX[i] != x {
			t.Fatalf("bar lines %v, want %v", g.BarX, want)
		}
	}
	// By beats: whole bars until 5 beats are spanned: 3 + 3 (6 beats).
	if _, g := Draw(s, Options{Beats: 5, PxPerBeat: 10}); len(g.BarX) != 3 || g.BarX[2] != 60 {
		t.Errorf("5 beats: bar lines %v, want [0 30 60]", g.BarX)
	}
	if e := BarsEnd(s, 4); e != 120 {
		t.Errorf("end of bar 4: %d, want 120", e)
	}
	// No notes: the default axis 48–72 padded.
	if g.LoPitch != 46 || g.HiPitch != 74 {
		t.Errorf("empty axis %d–%d", g.LoPitch, g.HiPitch)
	}
	// Notes past the bars drawn are left out, and a nil score draws.
	if img, _ := Draw(nil, Options{}); img.Bounds().Dx() != 16*4*12+1 {
		t.Errorf("nil score width %d, want %d", img.Bounds().Dx(), 16*4*12+1)
	}
}

func TestGridAndPNG(t *testing.T) {
	a := image.NewRGBA(image.Rect(0, 0, 10, 5))
	b := image.NewRGBA(image.Rect(0, 0, 6, 8))
	red := color.RGBA{255, 0, 0, 255}
	fill(a, 0, 0, 10, 5, red)
	fill(b, 0, 0, 6, 8, DrumColor)
	img := Grid([]*image.RGBA{a, b, a}, 2, 3)
	// Cells 10 × 8; 2 columns, 2 rows: 2·10 + 3·3 = 29 by 2·8 + 3·3 = 25.
	if img.Bounds().Dx() != 29 || img.Bounds().Dy() != 25 {
		t.Fatalf("grid %v", img.Bounds())
	}
	at(t, img, 3, 3, red, "first panel")
	at(t, img, 16, 3, DrumColor, "second panel")
	at(t, img, 3, 14, red, "third panel")
	at(t, img, 3, 9, color.RGBA{255, 255, 255, 255}, "gap under the first (5 rows tall)")
	path := filepath.Join(t.TempDir(), "g.png")
	if err := WritePNG(path, img); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if back.Bounds() != img.Bounds() {
		t.Fatalf("read back %v", back.Bounds())
	}
	for y := 0; y < 25; y++ {
		for x := 0; x < 29; x++ {
			r1, g1, b1, _ := back.At(x, y).RGBA()
			r2, g2, b2, _ := img.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				t.Fatalf("pixel (%d, %d) differs after the round trip", x, y)
			}
		}
	}
	if err := WritePNG(filepath.Join(t.TempDir(), "missing", "x.png"), img); err == nil {
		t.Error("writing into a missing folder succeeded")
	}
}

func TestFont(t *testing.T) {
	for r, g := range glyphs {
		for _, row := range g {
			if len(row) != glyphW {
				t.Errorf("glyph %q: row %q is not %d wide", r, row, glyphW)
			}
			for _, c := range row {
				if c != '#' && c != '.' {
					t.Errorf("glyph %q: %q", r, c)
				}
			}
		}
	}
	if TextWidth("AB") != 11 || TextWidth("") != 0 {
		t.Errorf("widths %d %d", TextWidth("AB"), TextWidth(""))
	}
	// "I" drawn at (0,0): its top row .###. sets x 1–3.
	img := image.NewRGBA(image.Rect(0, 0, 6, 7))
	DrawText(img, 0, 0, "i", TextColor)
	for x := 0; x < 5; x++ {
		want := x >= 1 && x <= 3
		if (img.RGBAAt(x, 0) == TextColor) != want {
			t.Errorf("'I' row 0 column %d set %v", x, !want)
		}
	}
}
