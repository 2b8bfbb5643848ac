package arrange

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
)

// TestDrumLibraryReal reads the Groove MIDI Dataset and checks what the
// metadata says against what the files hold: every hit on a mapped drum,
// the shuffles measured as triplet feel and the straight styles as
// straight.
func TestDrumLibraryReal(t *testing.T) {
	lib, err := ReadDrumLibrary(corpus.Path(t, "groove"))
	if err != nil {
		t.Fatal(err)
	}
	byClass := map[string]int{}
	bars := 0
	trip := map[string][2]int{} // style: triplet, straight
	for _, p := range lib.Beats {
		byClass[p.Class()]++
		bars += len(p.Bars)
		c := trip[p.MainStyle()]
		if p.Triplet {
			c[0]++
		} else {
			c[1]++
		}
		trip[p.MainStyle()] = c
	}
	var styles []string
	for s, c := range trip {
		styles = append(styles, fmt.Sprintf("%s %d/%d", s, c[0], c[0]+c[1]))
	}
	sort.Strings(styles)
	t.Logf("%d beats (%d bars) by class %v, %d fills; left out %v; %d hits off the map", len(lib.Beats), bars, byClass,
		len(lib.Fills), lib.Skipped, lib.Unmapped)
	t.Logf("triplet feel by style: %v", styles)
	if len(lib.Beats) < 400 || len(lib.Fills) < 600 || lib.Unmapped > 0 {
		t.Fatalf("library %d beats, %d fills, %d unmapped", len(lib.Beats), len(lib.Fills), lib.Unmapped)
	}
	// The labels are independent truth for the feel: shuffles swing,
	// hip-hop, soul, disco and afrobeat grooves are straight.
	shuffles, shufflesTrip, straight, straightTrip := 0, 0, 0, 0
	for _, p := range lib.Beats {
		switch {
		case strings.Contains(p.Style, "shuffle"):
			shuffles++
			if p.Triplet {
				shufflesTrip++
			}
		case slices.Contains([]string{"hiphop", "soul", "dance", "afrobeat"}, p.MainStyle()):
			straight++
			if p.Triplet {
				straightTrip++
			}
		}
	}
	t.Logf("shuffles measured triplet %d of %d; hip-hop, soul, dance, afrobeat %d of %d", shufflesTrip, shuffles, straightTrip, straight)
	if shufflesTrip*4 < shuffles*3 || straightTrip*20 > straight {
		t.Fatalf("feel: shuffles %d of %d triplet, straight styles %d of %d", shufflesTrip, shuffles, straightTrip, straight)
	}
}
