package decoding

import (
	"slices"
	"testing"
)

// Programs the corpora and the re-voicing never give (the orchestra hit,
// the sound effects) are mapped onto the nearest trained one; the list
// comes back sorted and unique.
func TestNearestPrograms(t *testing.T) {
	if got := NearestPrograms([]int{42, 55, 40, 42, 125}); !slices.Equal(got, []int{40, 42, 48, 89}) {
		t.Fatalf("NearestPrograms = %v", got)
	}
	// The programs with a range (midi.ProgramRange) are trained: 0–118 but
	// the orchestra hit (55); the reverse cymbal (119) and the sound
	// effects have none.
	for p := -1; p <= 128; p++ {
		if want := p >= 0 && p <= 118 && p != 55; Trained(p) != want {
			t.Errorf("Trained(%d) = %v, want %v", p, Trained(p), want)
		}
	}
}
