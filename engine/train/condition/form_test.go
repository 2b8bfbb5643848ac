package condition

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
	mask := make([]bool, v.Size())
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
				t.Fatalf("%s: %v", form, err)
			}
		}
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
