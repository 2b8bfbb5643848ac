package arrange

import (
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

func mustPOP(t *testing.T, label string) Chord {
	t.Helper()
	c, _, err := ParsePOP909(label)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func grooveByTag(t *testing.T, tag string, meter string, r float64) Groove {
	t.Helper()
	for _, g := range catalogue {
		if g.Tag == tag && g.Meter == meter && g.R == r {
			return g
		}
	}
	t.Fatalf("no groove %s %s R=%g", tag, meter, r)
	return Groove{}
}

// handSource is a 4/4 piece at 100 bpm, 480 ticks per beat: a pickup bar,
// then C (from the pickup on), Am on beat 3 of bar 1, no chord in bar 2,
// F/A on beat 2 of bar 3.
func handSource(t *testing.T) *Source {
	return &Source{
		ID: "test/x", Corpus: "pop909", Name: "x", Title: "X",
		Score: &midi.Score{TicksPerBeat: 480, Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 600000}},
			Tracks: []midi.Track{{Name: "Melody", Notes: []midi.Note{{Tick: 1440, Dur: 480, Pitch: 67, Velocity: 100}}}}},
		Num: 4, Den: 4, BarTicks: 1920, Bars: 4, Pickup: 1,
		Chords: []ChordAt{{Tick: 0, Chord: mustPOP(t, "C:maj")}, {Tick: 2880, Chord: mustPOP(t, "A:min")},
			{Tick: 3840, None: true}, {Tick: 6240, Chord: mustPOP(t, "F:maj/3")}},
	}
}

func TestMMATextBarsAndPositions(t *testing.T) {
	s := handSource(t)
	// Quarter notes from the start: pickup bar 0–4, C from 4, Am at 6, rest
	// at 8, F/A at 13. One MMA beat per quarter: MMA bar k covers 4k–4k+4.
	got := MMA(s, Variant{Groove: grooveByTag(t, "bossanova", "4/4", 1), Seed: 123456789})
	want := `// AMT Studio engine/arrange: test/x with stdlib/bossanova:BossaNova (latin), 4/4, source tempo 100.00
RndSeed 456789
Groove stdlib/bossanova:BossaNova
Tempo 100
1 z!
2 C Am@3
3 z
4 z F/A@2
`
	if got != want {
		t.Fatalf("MMA text:\n%s\nwant:\n%s", got, want)
	}
	// Double time: two MMA beats per quarter, two MMA bars per source bar,
	// tempo 200: C at MMA beat 8 (bar 3), Am at 12 (bar 4), rest at 16
	// (bar 5), F/A at 26 (bar 7, beat 3).
	got = MMA(s, Variant{Groove: grooveByTag(t, "ska", "4/4", 2), Seed: 7})
	body := got[strings.Index(got, "Tempo"):]
	want = "Tempo 200\n1 z!\n2 z!\n3 C\n4 Am\n5 z\n6 z\n7 z F/A@3\n8 F/A\n"
	if body != want {
		t.Fatalf("double-time MMA text:\n%s\nwant:\n%s", body, want)
	}
}

func TestMMATextSixEight(t *testing.T) {
	// 6/8 at 120 quarter notes per minute, 1024 ticks per beat: G, then D7
	// on the second dotted quarter (tick 1536). 68March counts two beats
	// (dotted quarters) per bar: R = 2/3, tempo 80, D7 on beat 2.
	g, _ := ParseABC("G")
	d7, _ := ParseABC("D7")
	s := &Source{ID: "test/j", Corpus: "nottingham", Name: "j",
		Score: &midi.Score{TicksPerBeat: 1024, Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}}},
		Num:   6, Den: 8, BarTicks: 3072, Bars: 2,
		Chords: []ChordAt{{Tick: 0, Chord: g}, {Tick: 1536, Chord: d7}}}
	got := MMA(s, Variant{Groove: grooveByTag(t, "68march", "6/8", 2.0/3)})
	body := got[strings.Index(got, "Tempo"):]
	if want := "Tempo 80\n1 G D7@2\n2 D7\n"; body != want {
		t.Fatalf("6/8 MMA text:\n%s\nwant:\n%s", body, want)
	}
	// Our own jig groove: six eighth-note beats, R = 2: D7 on beat 4.
	got = MMA(s, Variant{Groove: grooveByTag(t, "amt-jig", "6/8", 2)})
	if !strings.Contains(got, "DefGroove AMTJig") || !strings.Contains(got, "Groove AMTJig\n") {
		t.Fatalf("own groove not defined inline:\n%s", got)
	}
	body = got[strings.Index(got, "Tempo"):]
	if want := "Tempo 240\n1 G D7@4\n2 D7\n"; body != want {
		t.Fatalf("jig MMA text:\n%s\nwant:\n%s", body, want)
	}
}

func TestMMATextTwoFourUnderFourFour(t *testing.T) {
	// A 2/4 tune under a 4/4 groove: one MMA bar covers two source bars.
	c, _ := ParseABC("C")
	g7, _ := ParseABC("G7")
	s := &Source{ID: "test/p", Corpus: "nottingham", Name: "p",
		Score: &midi.Score{TicksPerBeat: 1024, Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}}},
		Num:   2, Den: 4, BarTicks: 2048, Bars: 3,
		Chords: []ChordAt{{Tick: 0, Chord: c}, {Tick: 2048, Chord: g7}, {Tick: 4096, Chord: c}}}
	gr := grooveByTag(t, "polka", "4/4", 1)
	if !gr.Fits(s) {
		t.Fatal("Polka does not fit a 2/4 tune at 120")
	}
	body := MMA(s, Variant{Groove: gr})
	body = body[strings.Index(body, "Tempo"):]
	if want := "Tempo 120\n1 C G7@3\n2 C\n"; body != want {
		t.Fatalf("2/4 MMA text:\n%s\nwant:\n%s", body, want)
	}
}
