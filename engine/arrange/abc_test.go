package arrange

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func parseTune(t *testing.T, text string) *ABCTune {
	t.Helper()
	tune, err := ParseABCTune(text)
	if err != nil {
		t.Fatal(err)
	}
	return tune
}

// chordsAt renders a timeline's chords as "time:symbol" in quarter notes.
func chordsAt(tl *Timeline) string {
	var b []string
	for _, c := range tl.Chords {
		b = append(b, fmt.Sprintf("%g:%s", math.Round(c.At*1000)/1000, c.Symbol))
	}
	return strings.Join(b, " ")
}

func TestABCLengths(t *testing.T) {
	// L:1/8 in 6/8: an eighth is half a quarter note.
	tune := parseTune(t, "X:1\nT:Lengths\nM:6/8\nL:1/8\nK:G\n"+
		`"G"GAB c2d|e3 "D7"(3fga z|[GB]2A B/2c/2d e>f|g6|`)
	var lens []float64
	for _, m := range tune.Measures {
		lens = append(lens, m.Len)
	}
	// G A B c2 d = 6 eighths; e3 + triplet (3 eighths in the time of 2) +
	// z = 3+2+1 = 6; [GB]2 A B/2 c/2 d e>f = 2+1+.5+.5+1+1.5+.5 = 7 eighths
	// (a deliberately long bar); g6 = 6.
	if want := []float64{3, 3, 3.5, 3}; !slices.EqualFunc(lens, want, func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }) {
		t.Fatalf("measure lengths %v, want %v", lens, want)
	}
	if c := tune.Measures[1].Chords; len(c) != 1 || c[0].Symbol != "D7" || math.Abs(c[0].At-1.5) > 1e-9 {
		t.Fatalf("chords of measure 2: %v", c)
	}
	if tune.Meter != "6/8" || tune.X != 1 || tune.Title != "Lengths" {
		t.Fatalf("header %+v", tune)
	}
}

func TestABCDefaultUnitAndMeterInBody(t *testing.T) {
	// No L: and a 2/4 meter: the unit is a sixteenth (meter < 3/4).
	tune := parseTune(t, "X:2\nM:2/4\nK:D\n\"D\"A2B2 c2d2|")
	if got := tune.Measures[0].Len; math.Abs(got-2) > 1e-9 {
		t.Fatalf("2/4 bar of 8 sixteenths lasts %g quarters, want 2", got)
	}
	// The Nottingham files set M: again after K: before the first note; it
	// is the tune's meter, not a change.
	tune = parseTune(t, "X:3\nM:4/4\nK:A\nM:6/8\nP:A\nf|\"A\"ecc c2f|")
	if tune.Meter != "6/8" || tune.MeterChanges != 0 {
		t.Fatalf("meter %q, changes %d", tune.Meter, tune.MeterChanges)
	}
	if tl, _ := tune.Expand(false); tl.Pickup != 0.5 {
		t.Fatalf("pickup %g, want 0.5", tl.Pickup)
	}
}

func TestABCRepeatsAndEndings(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		order      []int
	}{
		{"plain repeat", `|:"A"a4|"B"b4:|"C"c4|`, []int{0, 1, 0, 1, 2}},
		{"repeat from the start", `"A"a4|"B"b4:|"C"c4|"D"d4:|`, []int{0, 1, 0, 1, 2, 3, 2, 3}},
		{"endings", `"A"a4|[1"B"b4:|[2"C"c4||"D"d4|`, []int{0, 1, 0, 2, 3}},
		{"endings spanning two measures", `|:"A"a4|[1"B"b4|"C"c4:|[2"D"d4|"E"e4||"F"f4|`, []int{0, 1, 2, 0, 3, 4, 5}},
		{"double repeat", `|:"A"a4:: "B"b4:|`, []int{0, 0, 1, 1}},
		{"ending after a space", `"A"a4|"B"b4:| [2"C"c4||`, []int{0, 1, 0, 1, 2}},
		{"colon-pipe-digit", `|:"A"a4|1"B"b4:|2"C"c4|]`, []int{0, 1, 0, 2}},
	} {
		tune := parseTune(t, "X:1\nM:4/4\nL:1/4\nK:C\n"+tc.body)
		tl, err := tune.Expand(false)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tl.Order, tc.order) {
			t.Errorf("%s: order %v, want %v", tc.name, tl.Order, tc.order)
		}
	}
}

func TestABCPickupRepeatAndParts(t *testing.T) {
	// A pickup, a repeated A part ending short so that the pickup completes
	// the bar, and a B part; Y: plays A B A.
	text := "X:1\nT:Parts\nY:ABA\nM:4/4\nL:1/4\nK:G\nP:A\nd|\"G\"g2 d2|\"D7\"c3:|\nP:B\n|:\"C\"e4|\"G\"d4:|\n"
	tune := parseTune(t, text)
	tl, err := tune.Expand(false)
	if err != nil {
		t.Fatal(err)
	}
	// Written order: d | G | D7 :| (back to the start: d | G | D7) then B
	// twice. The pickup is 1 quarter, so the timeline runs d(1) G(4) D7(3)
	// d(1) G(4) D7(3) C(4) G(4) C(4) G(4).
	if got, want := chordsAt(tl), "1:G 5:D7 9:G 13:D7 16:C 20:G 24:C 28:G"; got != want {
		t.Fatalf("written order chords %s, want %s", got, want)
	}
	if tl.Pickup != 1 || tl.Len != 32 {
		t.Fatalf("pickup %g, length %g", tl.Pickup, tl.Len)
	}
	tl, err = tune.Expand(true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := chordsAt(tl), "1:G 5:D7 9:G 13:D7 16:C 20:G 24:C 28:G 33:G 37:D7 41:G 45:D7"; got != want {
		t.Fatalf("Y: order chords %s, want %s", got, want)
	}
}

func TestABCAlternateChordsAndDecorations(t *testing.T) {
	// Of two adjacent chord symbols the first is kept (the Nottingham MIDI
	// files play it); decorations, grace notes and slurs take no time.
	tune := parseTune(t, "X:1\nM:4/4\nL:1/8\nK:G\n\"E7\"\"G\"B2 {c}!trill!d2 ~e2 (fg)|")
	m := tune.Measures[0]
	if len(m.Chords) != 1 || m.Chords[0].Symbol != "E7" || math.Abs(m.Len-4) > 1e-9 {
		t.Fatalf("measure %+v", m)
	}
}

func TestABCBadBody(t *testing.T) {
	tunes, err := ParseABCBook("X:1\nT:Bad\nM:4/4\nK:C\n[ce|\n\nX:2\nT:Good\nM:4/4\nK:C\nc4|\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(tunes) != 2 || tunes[0].Err == nil || tunes[1].Err != nil || tunes[1].Title != "Good" {
		t.Fatalf("tunes %+v %+v", tunes[0], tunes[1])
	}
}

func TestSplitTuneName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		book string
		x    int
		ok   bool
	}{{"reelsa-c12", "reelsa-c", 12, true}, {"jigs1", "jigs", 1, true}, {"jigs", "", 0, false}, {"12", "", 0, false}} {
		b, x, ok := SplitTuneName(tc.in)
		if b != tc.book || x != tc.x || ok != tc.ok {
			t.Errorf("SplitTuneName(%q) = %q %d %v", tc.in, b, x, ok)
		}
	}
}
