package arrange

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

func TestCatalogueIsConsistent(t *testing.T) {
	fams := map[string]bool{}
	for _, f := range Families {
		fams[f] = true
	}
	seen := map[string]bool{}
	for _, g := range catalogue {
		key := fmt.Sprintf("%s %s %g", g.Tag, g.Meter, g.R)
		if seen[key] {
			t.Errorf("%s twice", key)
		}
		seen[key] = true
		if !fams[g.Family] {
			t.Errorf("%s: family %q is not a genre family", g.Tag, g.Family)
		}
		if g.MinBPM <= 0 || g.MaxBPM <= g.MinBPM || g.Time <= 0 || g.R <= 0 {
			t.Errorf("%s: tempo %g–%g, time %g, R %g", g.Tag, g.MinBPM, g.MaxBPM, g.Time, g.R)
		}
		if (g.File == "") == (g.Define == "") {
			t.Errorf("%s: want a library file or a definition", g.Tag)
		}
		switch g.Meter {
		case "4/4", "12/8", "3/4", "6/8":
		default:
			t.Errorf("%s: meter class %q", g.Tag, g.Meter)
		}
	}
	// At least 12 families between the two corpora.
	all := map[string]bool{}
	for _, c := range []string{"pop909", "nottingham"} {
		for _, f := range FamiliesFor(c) {
			all[f] = true
		}
	}
	if len(all) < 12 {
		t.Fatalf("%d families: %v", len(all), all)
	}
}

// sourceFor makes an 8-bar source of a meter class at the middle of a
// groove's tempo range, with a chord change every bar.
func sourceFor(g Groove, corpus string) *Source {
	num, den, triplet := 4, 4, false
	switch g.Meter {
	case "12/8":
		triplet = true
	case "3/4":
		num = 3
	case "6/8":
		num, den = 6, 8
	}
	ppq := 480
	bpm := (g.MinBPM + g.MaxBPM) / 2 / g.R
	barTicks := int64(ppq * 4 * num / den)
	s := &Source{ID: corpus + "/t-" + g.Tag, Corpus: corpus, Name: "t", Title: "T", Num: num, Den: den, Triplet: triplet,
		BarTicks: barTicks, Bars: 8,
		Score: &midi.Score{TicksPerBeat: ppq, Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: int(60e6 / bpm)}},
			Tracks: []midi.Track{{Name: "Melody", Notes: []midi.Note{{Tick: 0, Dur: int64(ppq), Pitch: 72, Velocity: 90}}}}}}
	for b, name := range []string{"C", "Am", "F", "G7", "C", "Dm", "G7", "C"} {
		c, _ := ParseABC(name)
		s.Chords = append(s.Chords, ChordAt{Tick: int64(b) * barTicks, Chord: c})
	}
	s.Score.ComputeSeconds()
	return s
}

func TestChooseIsDeterministicAndSpreadsFamilies(t *testing.T) {
	s := sourceFor(Groove{Meter: "4/4", MinBPM: 90, MaxBPM: 110, R: 1}, "pop909")
	s.Score.Tracks = append(s.Score.Tracks, midi.Track{Name: "Piano", Notes: []midi.Note{{Tick: 0, Dur: 10, Pitch: 48, Velocity: 60}}})
	a, b := Choose(s, 4), Choose(s, 4)
	if len(a) != 4 || !slices.EqualFunc(a, b, func(x, y Variant) bool {
		return x.Groove.Tag == y.Groove.Tag && x.KeepPiano == y.KeepPiano && x.Seed == y.Seed
	}) {
		t.Fatalf("Choose not deterministic: %v vs %v", a, b)
	}
	fams := map[string]bool{}
	piano := 0
	for _, v := range a {
		if !v.Groove.Fits(s) {
			t.Errorf("%s does not fit", v.Groove.Tag)
		}
		fams[v.Groove.Family] = true
		if v.KeepPiano {
			piano++
		}
	}
	if len(fams) != 4 || piano != 1 {
		t.Fatalf("families %v, piano variants %d", fams, piano)
	}
	// Another song gets another choice (with this catalogue).
	s2 := *s
	s2.ID = "pop909/other"
	c := Choose(&s2, 4)
	if slices.EqualFunc(a, c, func(x, y Variant) bool { return x.Groove.Tag == y.Groove.Tag }) {
		t.Fatalf("two songs got the same grooves %v", a)
	}
	// A 5/4 source fits nothing.
	s3 := *s
	s3.Num = 5
	if v := Choose(&s3, 4); len(v) != 0 {
		t.Fatalf("5/4: %v", v)
	}
}

// TestCatalogueGroovesPlay renders every groove of the catalogue for 8 bars
// with mma and checks that the groove's TIME is the catalogue's, that its
// drums play in every bar once merged onto the source grid, and that the
// merged piece keeps at most MaxAccompanimentPrograms + 1 pitched programs.
func TestCatalogueGroovesPlay(t *testing.T) {
	bin, err := LookMMA("")
	if err != nil {
		t.Skipf("%v; skipping", err)
	}
	if testing.Short() {
		t.Skip("renders every groove with mma; skipped in -short")
	}
	dir := t.TempDir()
	timeRE := regexp.MustCompile(`TIMECHECK ([0-9.]+)`)
	for _, g := range catalogue {
		corpus := "pop909"
		if !g.forCorpus(corpus) {
			corpus = "nottingham"
		}
		s := sourceFor(g, corpus)
		if !g.Fits(s) {
			t.Errorf("%s %s R=%g: the test source does not fit", g.Tag, g.Meter, g.R)
			continue
		}
		v := Variant{Groove: g, Seed: 42}
		text := MMA(s, v)
		// The groove's own TIME, printed without generating.
		probe := filepath.Join(dir, "probe.mma")
		os.WriteFile(probe, []byte(text[:strings.Index(text, "Tempo")]+"Print TIMECHECK $_Time\n"), 0o644)
		out, err := exec.Command(bin, "-n", probe).CombinedOutput()
		m := timeRE.FindSubmatch(out)
		if err != nil || m == nil {
			t.Errorf("%s: mma -n: %v %s", g.Tag, err, out)
			continue
		}
		if tm, _ := strconv.ParseFloat(string(m[1]), 64); tm != g.Time {
			t.Errorf("%s: TIME %g, catalogue says %g", g.Tag, tm, g.Time)
		}
		acc, err := RunMMA(context.Background(), bin, dir, g.Tag, text)
		if err != nil {
			t.Errorf("%s: %v", g.Tag, err)
			continue
		}
		sc, info, err := Merge(acc, s, v)
		if err != nil {
			t.Errorf("%s: %v", g.Tag, err)
			continue
		}
		c := Check(sc, s)
		if c.BarsWithoutDrums != 0 {
			t.Errorf("%s: %d of 8 bars without drums", g.Tag, c.BarsWithoutDrums)
		}
		if info.Programs > MaxAccompanimentPrograms+1 || info.Programs < 2 {
			t.Errorf("%s: %d pitched programs (kept %v)", g.Tag, info.Programs, info.Kept)
		}
	}
}
