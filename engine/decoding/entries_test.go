package decoding

import (
	"testing"

	"github.com/amtstudio/amt/engine/token"
)

// TestEntries: game parts enter at the start or with the second section,
// one pitched part always from the start, other genres untouched; and a
// part not yet in cannot start an onset while another token may follow.
func TestEntries(t *testing.T) {
	v := token.DefaultVocab()
	always := func(x float64) func(int) float64 { return func(int) float64 { return x } }
	if e := Entries("pop", []int{0, 33}, true, 4, always(0)); e != nil {
		t.Fatalf("pop builds up: %v", e)
	}
	if e := Entries("game", []int{80}, false, 4, always(0)); e != nil {
		t.Fatalf("one part builds up: %v", e)
	}
	// All draws 0: the first part leads, every other enters late.
	e := Entries("game", []int{80, 33, 48}, true, 4, always(0))
	want := map[int]int{80: 0, 33: 4, 48: 4, token.DrumProgram: 4}
	if len(e) != len(want) {
		t.Fatalf("entries %v, want %v", e, want)
	}
	for p, at := range want {
		if e[p] != at {
			t.Errorf("entries %v, want %v", e, want)
		}
	}
	// Draws 0.99: every part plays from the start.
	for p, at := range Entries("game", []int{80, 33, 48}, true, 4, always(0.99)) {
		if at != 0 {
			t.Errorf("draws 0.99: program %d enters at %d", p, at)
		}
	}

	c := NewBars(v, v.NewGrammar(), 16)
	c.Entry = map[int]int{80: 0, 33: 4}
	push := pusher(t, c)
	push("BOS", "INSTRUMENT_33", "INSTRUMENT_80", "SEP", "Bar", "TimeSig_4/4", "Tempo_120-125", "Position_0")
	mask := make([]bool, v.Size())
	c.Allow(mask)
	p33, _ := v.Lookup("Program_33")
	p80, _ := v.Lookup("Program_80")
	if mask[p33] || !mask[p80] {
		t.Fatalf("bar 1: bass allowed %v, lead %v; want the lead only", mask[p33], mask[p80])
	}
	for range 4 {
		push("Program_80", "Pitch_72", v.Name(first(v, token.KindVelocity)+4), v.Name(first(v, token.KindDuration)+2), "Bar", "Position_0")
	}
	c.Allow(mask)
	if !mask[p33] {
		t.Fatal("bar 5: the bass may not enter")
	}
}
