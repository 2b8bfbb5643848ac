package decoding

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/amtstudio/amt/engine/token"
)

// Plans, checked by hand: which bar restates which.
func TestPlanForm(t *testing.T) {
	cases := []struct {
		name, genre string
		bars        int
		want        string // chosen form
		sections    []string
		copies      map[int]int // bar → source; every other bar -1
	}{
		{"auto", "jazz", 16, "AABA", []string{"A", "A'", "B", "A"}, map[int]int{4: 0, 5: 1, 12: 0, 13: 1, 14: 2}},
		{"", "folk", 16, "AABB", []string{"A", "A'", "B", "B'"}, map[int]int{4: 0, 5: 1, 12: 8, 13: 9}},
		{"auto", "pop", 16, "verse-chorus", []string{"A", "B", "A'", "B"}, map[int]int{8: 0, 9: 1, 12: 4, 13: 5, 14: 6}},
		{"ABAB", "", 16, "ABAB", []string{"A", "B", "A", "B"}, map[int]int{8: 0, 9: 1, 10: 2, 11: 3, 12: 4, 13: 5, 14: 6}},
		{"AABA", "", 8, "AABA", []string{"A", "A'", "B", "A"}, map[int]int{2: 0, 6: 0}},
		{"auto", "rock", 4, "none", nil, nil},
		{"none", "folk", 16, "none", nil, nil},
		{"AABA", "", 32, "AABA", []string{"A", "A'", "B", "A"}, map[int]int{8: 0, 9: 1, 10: 2, 11: 3,
			24: 0, 25: 1, 26: 2, 27: 3, 28: 4, 29: 5, 30: 6}},
		// Strains: 8 bars played twice; under 16 bars, 4-bar strains.
		{"strains", "", 16, "strains", []string{"A", "A"}, map[int]int{8: 0, 9: 1, 10: 2, 11: 3, 12: 4, 13: 5, 14: 6}},
		{"strains", "", 8, "strains", []string{"A", "A"}, map[int]int{4: 0, 5: 1, 6: 2}},
		{"strains", "", 32, "strains", []string{"A", "A", "B", "B"}, map[int]int{8: 0, 9: 1, 10: 2, 11: 3, 12: 4, 13: 5, 14: 6, 15: 7,
			24: 16, 25: 17, 26: 18, 27: 19, 28: 20, 29: 21, 30: 22}},
		// Six 4-bar sections: the pattern again, varied.
		{"AABA", "", 24, "AABA", []string{"A", "A'", "B", "A", "A'", "A'"}, map[int]int{4: 0, 5: 1, 12: 0, 13: 1, 14: 2, 15: 3,
			16: 0, 17: 1, 20: 0, 21: 1}},
	}
	for _, c := range cases {
		p, err := PlanForm(c.name, c.genre, c.bars)
		if err != nil {
			t.Fatalf("%s/%s/%d: %v", c.name, c.genre, c.bars, err)
		}
		if p.Name != c.want || !slices.Equal(p.Sections, c.sections) {
			t.Errorf("%s/%s/%d: %s %v, want %s %v", c.name, c.genre, c.bars, p.Name, p.Sections, c.want, c.sections)
		}
		for i, src := range p.Copy {
			want, ok := c.copies[i]
			if !ok {
				want = -1
			}
			if src != want {
				t.Errorf("%s/%d: bar %d restates %d, want %d", p.Name, c.bars, i, src, want)
			}
		}
	}
	if p, _ := PlanForm("AABA", "", 16); p.Repeated() != 5.0/16 {
		t.Errorf("AABA over 16 bars restates %.3f of the bars, want 5/16", p.Repeated())
	}
	for _, bad := range []struct {
		name string
		bars int
	}{{"ABCD", 16}, {"AABA", 6}} {
		if _, err := PlanForm(bad.name, "", bad.bars); err == nil {
			t.Errorf("form %q over %d bars: no error", bad.name, bad.bars)
		}
	}
}

// A random walk under a Restater (a stand-in for the model) writes bars
// that restate their sources token for token, and ends on bar N.
func TestRestaterRestates(t *testing.T) {
	v := token.DefaultVocab()
	rng := rand.New(rand.NewPCG(8, 9))
	for _, form := range []string{"AABA", "AABB", "verse-chorus"} {
		plan, err := PlanForm(form, "", 16)
		if err != nil {
			t.Fatal(err)
		}
		g := v.NewGrammar()
		a := token.Unspecified()
		a.Bars, a.Programs, a.MeterNum, a.MeterDen = 16, []int{0}, 4, 4
		g.Force(a)
		r := NewRestater(v, NewBars(v, g, 16), plan)
		walkRestater(t, r, rng)
		if !r.Done() || r.Bars.Bars() != 16 {
			t.Fatalf("%s: done %v at %d bars", form, r.Done(), r.Bars.Bars())
		}
		full := 0
		for i, src := range plan.Copy {
			if src >= 0 && len(r.music[i]) > 0 {
				full++
			}
			if src >= 0 && !slices.Equal(r.music[i], r.music[src]) {
				t.Errorf("%s: bar %d is not bar %d again:\n%v\n%v", form, i, src, v.Names(r.music[i]), v.Names(r.music[src]))
			}
		}
		if r.Forced == 0 || full < 3 {
			t.Errorf("%s: %d tokens restated, %d restated bars with notes", form, r.Forced, full)
		}
	}
}

// With Vary, a restated bar keeps every token of its source but the top
// note of each onset, which the model (here a random walk) samples within
// Vary semitones of the source's; the rhythm, velocities and lengths stay.
// Under the canonical grammar too.
func TestRestaterVaries(t *testing.T) {
	v := token.DefaultVocab()
	rng := rand.New(rand.NewPCG(10, 11))
	plan, err := PlanForm("AABA", "", 16)
	if err != nil {
		t.Fatal(err)
	}
	varied, changed := 0, 0
	for trial := 0; trial < 4; trial++ {
		g := v.NewGrammar()
		a := token.Unspecified()
		a.Bars, a.Programs, a.MeterNum, a.MeterDen = 16, []int{0, 40}, 4, 4
		g.Force(a)
		g.Canonical(6)
		r := NewRestater(v, NewBars(v, g, 16), plan)
		r.Vary = 3
		walkRestater(t, r, rng)
		for i, src := range plan.Copy {
			if src < 0 {
				continue
			}
			a, b := r.music[src], r.music[i]
			top := topNotes(v, a)
			if len(a) != len(b) {
				t.Fatalf("bar %d restating %d: %d tokens against %d:\n%v\n%v", i, src, len(b), len(a), v.Names(b), v.Names(a))
			}
			for k := range a {
				_, pa := v.Kind(a[k])
				_, pb := v.Kind(b[k])
				switch {
				case !top[k] && a[k] != b[k]:
					t.Errorf("bar %d token %d: %s for %s (not a top note)", i, k, v.Name(b[k]), v.Name(a[k]))
				case top[k] && (pb < pa-3 || pb > pa+3):
					t.Errorf("bar %d: top note %s for %s, more than 3 semitones away", i, v.Name(b[k]), v.Name(a[k]))
				case top[k]:
					varied++
					if pa != pb {
						changed++
					}
				}
			}
		}
	}
	if varied < 20 || changed < varied/2 {
		t.Errorf("%d top notes varied, %d changed", varied, changed)
	}
	// topNotes by hand: at Position_0 piano 60 64 and violin 72, at
	// Position_6 piano 67 and drums 80 (drums are not the melody).
	name := func(n string) uint16 { tok, _ := v.Lookup(n); return tok }
	bar := []uint16{name("Position_0"), name("Program_0"), name("Pitch_60"), name("Velocity_20"), name("Duration_12"),
		name("Pitch_64"), name("Velocity_20"), name("Duration_12"), name("Program_40"), name("Pitch_72"), name("Velocity_20"), name("Duration_12"),
		name("Position_6"), name("Program_0"), name("Pitch_67"), name("Velocity_20"), name("Duration_12"),
		name("Program_DRUMS"), name("Pitch_80"), name("Velocity_20"), name("Duration_1")}
	var got []int
	for i, f := range topNotes(v, bar) {
		if f {
			got = append(got, i)
		}
	}
	if !slices.Equal(got, []int{9, 14}) {
		t.Errorf("top notes at %v, want [9 14] (violin 72, piano 67)", got)
	}
}

// walkRestater drives r from BOS as a stand-in for the model: the restated
// tokens it forces, else a token drawn uniformly from those allowed, with
// the end (1 in 3) and the bar line (1 in 12) taken more often when
// allowed, until r is done (at most 400,000 tokens).
func walkRestater(t *testing.T, r *Restater, rng *rand.Rand) {
	t.Helper()
	v := r.v
	mask := make([]bool, v.Size())
	if err := r.Push(v.BOS); err != nil {
		t.Fatal(err)
	}
	for steps := 0; !r.Done() && steps < 400000; steps++ {
		tk, ok := r.Force()
		if !ok {
			r.Allow(mask)
			var allowed []uint16
			for i, m := range mask {
				if m {
					allowed = append(allowed, uint16(i))
				}
			}
			tk = allowed[rng.IntN(len(allowed))]
			switch {
			case slices.Contains(allowed, v.EOS) && rng.IntN(3) == 0:
				tk = v.EOS
			case slices.Contains(allowed, v.Bar) && rng.IntN(12) == 0:
				tk = v.Bar
			}
		}
		if err := r.Push(tk); err != nil {
			t.Fatalf("push %s: %v", v.Name(tk), err)
		}
	}
}

// TestStrainOpening: the second phrase of a strain opens as its first at
// the corpus's rates, in the strain's first playing only; the strain's
// repeat restates those bars too, and the ending stays the model's.
func TestStrainOpening(t *testing.T) {
	for _, c := range []struct {
		u    float64
		want int
	}{{0, 0}, {0.391, 0}, {0.393, 1}, {0.615, 1}, {0.617, 2}, {0.865, 2}, {0.867, 3}, {0.96, 3}, {0.962, 4}, {0.9999, 4}} {
		if got := StrainOpening(c.u); got != c.want {
			t.Errorf("StrainOpening(%.4f) = %d, want %d", c.u, got, c.want)
		}
	}
	p, err := PlanForm("strains", "folk", 16)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		k    int
		want []int
	}{
		{0, []int{-1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 2, 3, 4, 5, 6, -1}},
		{2, []int{-1, -1, -1, -1, 0, 1, -1, -1, 0, 1, 2, 3, 4, 5, 6, -1}},
		{9, []int{-1, -1, -1, -1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, -1}},
	} {
		if got := p.WithOpening(c.k).Copy; !slices.Equal(got, c.want) {
			t.Errorf("strains, opening %d: copies %v, want %v", c.k, got, c.want)
		}
	}
	if !slices.Equal(p.Copy, []int{-1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 2, 3, 4, 5, 6, -1}) {
		t.Errorf("WithOpening changed the plan it was given: %v", p.Copy)
	}
	// After an upbeat the whole plan moves one bar: the strain opens at bar
	// 1, its second phrase at bar 5.
	got := p.WithOpening(1).AfterPickup().Copy
	if want := []int{-1, -1, -1, -1, -1, 1, -1, -1, -1, 1, 2, 3, 4, 5, 6, -1}; !slices.Equal(got, want) {
		t.Errorf("strains, opening 1, after an upbeat: copies %v, want %v", got, want)
	}
	// A 24-bar piece: strains A A B; the new strain B opens its second
	// phrase as its first too.
	p24, _ := PlanForm("strains", "folk", 24)
	got = p24.WithOpening(1).Copy
	want := []int{-1, -1, -1, -1, 0, -1, -1, -1, 0, 1, 2, 3, 4, 5, 6, 7, -1, -1, -1, -1, 16, -1, -1, -1}
	if !slices.Equal(got, want) {
		t.Errorf("24 bars, opening 1: copies %v, want %v (plan %v)", got, want, p24.Copy)
	}
	// Other forms, and strains of 4 bars, are left alone.
	for _, c := range []struct {
		form  string
		genre string
		bars  int
	}{{"AABB", "folk", 16}, {"strains", "folk", 8}, {"ABAB", "game", 16}} {
		q, err := PlanForm(c.form, c.genre, c.bars)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.WithOpening(2).Copy; !slices.Equal(got, q.Copy) {
			t.Errorf("%s over %d bars: WithOpening(2) %v, want the plan unchanged %v", c.form, c.bars, got, q.Copy)
		}
	}
}
