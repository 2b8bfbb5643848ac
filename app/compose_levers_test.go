package app

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/amtstudio/amt/engine/decoding"
	"github.com/amtstudio/amt/engine/eval"
)

func TestParseLevers(t *testing.T) {
	for in, want := range map[string]string{"": DefaultLevers.String(), "default": DefaultLevers.String(), "none": "none",
		"vary,canonical": "canonical,vary", "canonical": "canonical"} {
		l, err := ParseLevers(in)
		if err != nil || l.String() != want {
			t.Errorf("ParseLevers(%q) = %v, %v; want %s", in, l, err, want)
		}
	}
	if _, err := ParseLevers("canonical,louder"); err == nil {
		t.Error("an unknown lever parsed")
	}
}

// The canonical lever on the embedded model: no pitch struck twice at one
// onset by one program and no chord over ChordCap, where the same request
// without it (same seed) writes doubles. The default decoding (a request
// with no levers of its own, as the window and `amt generate` send) has
// it: TestDefaultLevers.
func TestLeverCanonical(t *testing.T) {
	m, err := loadEmbedded()
	if err != nil {
		t.Skip(err)
	}
	defer m.Close()
	measure := func(l Levers) []float64 {
		t.Helper()
		r, err := GenerateFromPrompt(context.Background(), m, PromptRequest{Prompt: "A pop song in G major, 4/4, 96 bpm, for piano",
			Bars: 8, Seed: 3, KeyBias: DefaultKeyBias, Candidates: 1, Levers: l})
		if err != nil {
			t.Fatal(err)
		}
		if want := l.Resolve() | LeversSet; r.Levers != want {
			t.Errorf("levers %v: the result says %v", l, r.Levers)
		}
		f, err := eval.PieceFeatures(r.Score, 8)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	plain := measure(LeversSet)
	canon := measure(LeversSet | LeverCanonical)
	def := measure(0)
	t.Logf("without: doubles %.3f, largest chord %v; canonical: %.3f, %v; default: %.3f, %v", plain[eval.FDupShare], plain[eval.FMaxChord],
		canon[eval.FDupShare], canon[eval.FMaxChord], def[eval.FDupShare], def[eval.FMaxChord])
	if plain[eval.FDupShare] == 0 && plain[eval.FMaxChord] <= ChordCap {
		t.Error("the plain decoding wrote neither doubles nor a tall chord: the test cannot tell the lever works")
	}
	if canon[eval.FDupShare] != 0 || canon[eval.FMaxChord] > ChordCap {
		t.Errorf("canonical: doubles %.3f, largest chord %v (cap %d)", canon[eval.FDupShare], canon[eval.FMaxChord], ChordCap)
	}
	if def[eval.FDupShare] != 0 || def[eval.FMaxChord] > ChordCap {
		t.Errorf("default decoding: doubles %.3f, largest chord %v (cap %d)", def[eval.FDupShare], def[eval.FMaxChord], ChordCap)
	}
}

// The default decoding (a request without levers of its own, as the window
// and `amt generate` send) plays a jig's 8-bar strains twice note for note
// (LeverStrains) and varies a pop song's restated sections (LeverVary),
// where the decoding without levers lays the automatic forms (AABB,
// verse-chorus) with exact restatements.
func TestDefaultLevers(t *testing.T) {
	m, err := loadEmbedded()
	if err != nil {
		t.Skip(err)
	}
	defer m.Close()
	gen := func(prompt string, l Levers) (*PromptResult, []float64) {
		t.Helper()
		r, err := GenerateFromPrompt(context.Background(), m, PromptRequest{Prompt: prompt, Bars: 16, Seed: 2, KeyBias: DefaultKeyBias, Candidates: 1, Levers: l})
		if err != nil {
			t.Fatal(err)
		}
		f, err := eval.PieceFeatures(r.Score, 16)
		if err != nil {
			t.Fatal(err)
		}
		return r, f
	}
	const jig, pop = "a jig in D major, 6/8, for piano", "A pop song in G major, 4/4, 96 bpm, for piano"
	if r, f := gen(jig, 0); r.Form.Name != "strains" || f[eval.FExactRepeat] < 0.4 {
		t.Errorf("default jig: form %s, exact repeats %.2f (want strains: 7 of 15 bars restated)", r.Form, f[eval.FExactRepeat])
	}
	if r, _ := gen(jig, LeversSet); r.Form.Name != "AABB" {
		t.Errorf("jig without levers: form %s, want AABB", r.Form)
	}
	r, f := gen(pop, 0)
	_, fNone := gen(pop, LeversSet)
	t.Logf("pop song: form %s, exact repeats %.2f with the default levers, %.2f without", r.Form, f[eval.FExactRepeat], fNone[eval.FExactRepeat])
	if r.Form.Repeated() == 0 || fNone[eval.FExactRepeat] < 0.25 || f[eval.FExactRepeat] >= fNone[eval.FExactRepeat]/2 {
		t.Errorf("pop song: form %s, exact repeats %.2f with the default levers, %.2f without (want the restated bars varied)", r.Form, f[eval.FExactRepeat], fNone[eval.FExactRepeat])
	}
}

// jig generates the upbeat and strain tests' tune, "a jig in D major, 6/8,
// 112 bpm, for piano", bars long, one candidate, with levers l (0: the
// default).
func jig(t *testing.T, m *Model, bars int, seed uint64, l Levers) *PromptResult {
	t.Helper()
	r, err := GenerateFromPrompt(context.Background(), m, PromptRequest{Prompt: "a jig in D major, 6/8, 112 bpm, for piano", Bars: bars, Seed: seed,
		KeyBias: DefaultKeyBias, Candidates: 1, Levers: l})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The pickup lever on the embedded model: a jig whose seed draws an upbeat
// starts an eighth before its first full bar (6/8: 2.5 quarter notes into
// the first bar), with nothing before it; the restatements of its strains
// moved one bar later.
func TestLeverPickup(t *testing.T) {
	m, err := loadEmbedded()
	if err != nil {
		t.Skip(err)
	}
	defer m.Close()
	upbeats := 0
	for seed := uint64(1); seed <= 4; seed++ {
		if decoding.UpbeatDraw(seed) >= 0.83 {
			continue
		}
		upbeats++
		r := jig(t, m, 16, seed, LeversSet|LeverCanonical|LeverStrains|LeverPickup)
		firstTick := int64(-1)
		for _, tr := range r.Score.Tracks {
			for _, n := range tr.Notes {
				if firstTick < 0 || n.Tick < firstTick {
					firstTick = n.Tick
				}
			}
		}
		if want := int64(r.Score.TicksPerBeat) * 5 / 2; firstTick != want {
			t.Errorf("seed %d: first note at tick %d, want the upbeat at %d (2.5 quarter notes)", seed, firstTick, want)
		}
		if r.Form.Copy[0] != -1 || r.Form.Copy[9] != 1 {
			t.Errorf("seed %d: form copies %v, want the strain restated from bar 2", seed, r.Form.Copy)
		}
	}
	if upbeats == 0 {
		t.Fatal("no seed drew an upbeat: the test proves nothing")
	}
}

// The line lever on the embedded model: over the same prompts and seeds,
// the top line moves by step more often and repeats its note less often
// than without it (the model's own line: steps about 0.2 of top-line
// intervals where real melodies have 0.36–0.53, docs/MODEL.md).
func TestLeverLine(t *testing.T) {
	m, err := loadEmbedded()
	if err != nil {
		t.Skip(err)
	}
	defer m.Close()
	prompts := []string{"A pop song in G major, 4/4, 96 bpm, for piano without drums", "A video game tune in A minor, 4/4, 130 bpm, for square lead, bass and drums"}
	mean := func(l Levers) (steps, repeats float64) {
		t.Helper()
		n := 0
		for _, p := range prompts {
			for seed := uint64(1); seed <= 3; seed++ {
				r, err := GenerateFromPrompt(context.Background(), m, PromptRequest{Prompt: p, Bars: 8, Seed: seed, KeyBias: DefaultKeyBias, Candidates: 1, Levers: l})
				if err != nil {
					t.Fatal(err)
				}
				f, err := eval.PieceFeatures(r.Score, 8)
				if err != nil {
					t.Fatal(err)
				}
				steps += f[eval.FTopSteps]
				repeats += f[eval.FTopRepeats]
				n++
			}
		}
		return steps / float64(n), repeats / float64(n)
	}
	base := LeversSet | LeverCanonical
	s0, r0 := mean(base)
	s1, r1 := mean(base | LeverLine)
	t.Logf("top-line steps %.3f → %.3f, repeats %.3f → %.3f", s0, s1, r0, r1)
	if s1 < s0+0.08 || r1 > r0-0.03 {
		t.Errorf("line lever: top-line steps %.3f → %.3f (want +0.08 or more), repeats %.3f → %.3f (want −0.03 or more)", s0, s1, r0, r1)
	}
}

// A sketch shorter than MinPickupBars never starts on an upbeat: a 2-bar
// jig whose seed draws one starts on its first beat's grid, not 2.5 beats in.
func TestLeverPickupShortPieces(t *testing.T) {
	m, err := loadEmbedded()
	if err != nil {
		t.Skip(err)
	}
	defer m.Close()
	if decoding.UpbeatDraw(1) >= 0.83 {
		t.Fatal("seed 1 draws no upbeat: the test proves nothing")
	}
	r := jig(t, m, 2, 1, 0)
	upbeat := int64(r.Score.TicksPerBeat) * 5 / 2
	for _, tr := range r.Score.Tracks {
		for _, n := range tr.Notes {
			if n.Tick < upbeat {
				return // a note before the upbeat's place: no upbeat
			}
		}
	}
	t.Error("a 2-bar jig has no note before 2.5 quarter notes: it started on an upbeat")
}

// The strains' opening on the embedded model: a 16-bar jig whose draw gives
// an opening of k bars plays bars 5 to 4+k as bars 1 to k, note for note
// (pitches, onsets in the bar, lengths and velocities, every part), and so
// does the strain's repeat; a draw of none leaves bar 5 to the model.
func TestLeverStrainOpening(t *testing.T) {
	m, err := loadEmbedded()
	if err != nil {
		t.Skip(err)
	}
	defer m.Close()
	opened := 0
	for seed := uint64(1); seed <= 6; seed++ {
		k := decoding.StrainOpening(decoding.OpeningDraw(seed))
		r := jig(t, m, 16, seed, LeversSet|LeverCanonical|LeverStrains)
		for j := range 4 {
			want := -1
			if j < k {
				want = j
			}
			if r.Form.Copy[4+j] != want {
				t.Errorf("seed %d (opening %d): bar %d restates %d, want %d (%v)", seed, k, 4+j, r.Form.Copy[4+j], want, r.Form.Copy)
			}
		}
		if k == 0 {
			continue
		}
		opened++
		bar := int64(r.Score.TicksPerBeat) * 3 // 6/8
		notes := func(b int) []string {
			var out []string
			for ti, tr := range r.Score.Tracks {
				for _, n := range tr.Notes {
					if n.Tick/bar == int64(b) {
						out = append(out, fmt.Sprintf("%d:%d@%d/%d v%d", ti, n.Pitch, n.Tick%bar, n.Dur, n.Velocity))
					}
				}
			}
			sort.Strings(out)
			return out
		}
		for j := range k {
			a, b, c := notes(j), notes(4+j), notes(12+j)
			if len(a) == 0 || !slices.Equal(a, b) || !slices.Equal(a, c) {
				t.Errorf("seed %d (opening %d): bar %d %v, bar %d %v, bar %d %v: want the same notes", seed, k, j, a, 4+j, b, 12+j, c)
			}
		}
	}
	if opened == 0 {
		t.Fatal("no seed drew an opening: the test proves nothing")
	}
}
