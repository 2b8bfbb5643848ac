package app

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/amtstudio/amt/engine/eval"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// The ensemble suite (issue 33) reads: at least 40 prompts, each naming
// the parts it expects, a held-out part; most say who carries the tune.
func TestEnsembleSuite(t *testing.T) {
	ps, err := ReadFreeText(filepath.Join("..", "testdata", "prompts", "ensembles.txt"))
	if err != nil {
		t.Fatal(err)
	}
	held, leads := 0, 0
	for _, p := range ps {
		if p.HeldOut {
			held++
		}
		parts := 0
		for _, e := range p.Expect {
			switch e.kind {
			case "part":
				parts++
			case "lead":
				leads++
			}
		}
		if parts < 2 {
			t.Errorf("%q expects %d parts", p.Prompt, parts)
		}
	}
	if len(ps) < 40 || held < 10 || held == len(ps) || leads < len(ps)*3/4 {
		t.Errorf("%d prompts, %d held out, %d with a lead", len(ps), held, leads)
	}
}

// part= and lead= on a trio measured by hand: 8 bars of 4/4 (tpb 12, a
// bar is 48 ticks), the piano striking every bar, the violin's tune on
// every beat of bars 1–5, the cello one held note.
func TestPartAndLeadExpectations(t *testing.T) {
	var pn, vn []midi.Note
	for b := int64(0); b < 8; b++ {
		pn = append(pn, midi.Note{Tick: 48 * b, Dur: 24, Pitch: 48, Velocity: 70})
	}
	for q := int64(0); q < 20; q++ {
		vn = append(vn, midi.Note{Tick: 12 * q, Dur: 12, Pitch: 76, Velocity: 80})
	}
	s := &midi.Score{Format: 1, TicksPerBeat: 12, EndTick: 8 * 48, Tracks: []midi.Track{
		{Program: 0, Notes: pn}, {Channel: 1, Program: 40, Notes: vn}, {Channel: 2, Program: 42, Notes: []midi.Note{{Tick: 0, Dur: 384, Pitch: 36, Velocity: 60}}}}}
	s.ComputeSeconds()
	m, err := eval.Measure(s)
	if err != nil {
		t.Fatal(err)
	}
	fm := MeasureFreeText(s, &m)
	// The violin: 5 of 8 bars and the top line at 20 of 23 onsets (the
	// piano's downbeats of bars 6–8 are the rest); the piano 8 of 8; the
	// cello 1 of 8 and 1/8 note a bar.
	if fm.Lead != 40 || len(fm.Parts) != 3 || fm.Parts[1].Bars != 5.0/8 || float64(fm.Parts[1].Top) != 20.0/23 || fm.Parts[2].NotesPerBar != 1.0/8 {
		t.Fatalf("measures %+v lead %d", fm.Parts, fm.Lead)
	}
	for s, want := range map[string]bool{
		"part=piano": true, "part=violin": true, "part=cello": false, "part=strings": true, "part=cello/piano": true,
		"lead=violin": true, "lead=piano": false, "lead=strings": true, "lead=cello/piano": false,
	} {
		e, err := ParseExpectation(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Check(fm); got != want {
			t.Errorf("%s: %v", s, got)
		}
	}
	for _, bad := range []string{"part<=violin", "lead=kazoo"} {
		if _, err := ParseExpectation(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	// The window's report names the instrument without a part.
	req := token.Unspecified()
	req.Programs = []int{0, 40, 42}
	ad := eval.Adhere(req, &m)
	if got := PartsSummary(&ad); got != "parts 2 of 3 (Cello in 12% of the bars)" {
		t.Errorf("summary %q", got)
	}
	req.Programs = []int{0, 40}
	if ad = eval.Adhere(req, &m); PartsSummary(&ad) != "parts 2 of 2" || PartsSummary(nil) != "" {
		t.Errorf("summary %q", PartsSummary(&ad))
	}
	// The suite's tallies: per program over the pieces.
	rs := []FreeTextResult{{Pieces: []FreeTextPiece{{Parts: eval.Adhere(token.Attributes{Programs: []int{0, 40, 42}}, &m).Parts}, {}}}}
	got := tallyParts(rs)
	if !slices.Equal(got, []PartTally{{0, "Acoustic Grand Piano", 1, 1}, {40, "Violin", 1, 1}, {42, "Cello", 1, 0}}) {
		t.Errorf("tally %+v", got)
	}
	sc := scoreFreeText(rs, func(FreeTextResult) bool { return true })
	if sc.PartsRequested != 3 || sc.PartsReal != 2 || sc.PartCameos != 1 || float64(sc.PartShare) != 2.0/3 {
		t.Errorf("score %+v", sc)
	}
}

// The suite's parts floors read the adherence summary: 9 of 10 requested
// instruments with a part meets 0.90; one cameo misses its floor of none.
func TestJudgeParts(t *testing.T) {
	rep := &SuiteReport{Floors: map[string]bool{}, Adherence: eval.AdherenceSummary{PartsRequested: 10, PartsReal: 9, PartShare: 0.9, PartCameos: 1}}
	rep.judge(true)
	for _, c := range []struct {
		name string
		v    float64
		met  bool
	}{{"parts", 0.9, true}, {"part_cameos", 1, false}} {
		i := slices.IndexFunc(rep.FloorList, func(f Floor) bool { return f.Name == c.name })
		if i < 0 {
			t.Fatalf("no floor %s", c.name)
		}
		if f := rep.FloorList[i]; float64(f.Value) != c.v || f.Met != c.met || f.N != 10 {
			t.Errorf("%s: %+v", c.name, f)
		}
	}
}
