package app

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/eval"
	"github.com/amtstudio/amt/engine/token"
)

// The stored references equal a fresh measurement of the corpora (skipped
// without ../shared/data). On a mismatch the test prints the table to
// paste into knownRefs.
func TestKnownReferences(t *testing.T) {
	dir := corpus.Path(t, corpus.POP909)
	refs, err := MusicalityReferences(context.Background(), strings.TrimSuffix(dir, "/"+corpus.POP909), nil)
	if err != nil {
		t.Fatal(err)
	}
	known := KnownReferences()
	var b strings.Builder
	bad := false
	for _, name := range sortedRefNames(refs) {
		r := refs[name]
		fmt.Fprintf(&b, "\t%q: {%d, [10]float64{", name, r.Pieces)
		for i, k := range RefMetrics {
			if i > 0 {
				b.WriteString(", ")
			}
			if v := r.Value(k); math.IsNaN(v) {
				b.WriteString("nan")
			} else {
				fmt.Fprintf(&b, "%.4f", v)
			}
		}
		b.WriteString("}},\n")
		kr := known[name]
		if kr == nil || kr.Pieces != r.Pieces {
			bad = true
			continue
		}
		for _, k := range RefMetrics {
			got, want := r.Value(k), kr.Value(k)
			if math.IsNaN(got) != math.IsNaN(want) || math.Abs(got-want) > 6e-5 {
				bad = true
			}
		}
	}
	if bad || len(known) != len(refs) {
		t.Errorf("stored references differ from the corpora; measured:\n%s", b.String())
	}
}

func TestMatchCorpus(t *testing.T) {
	v := token.DefaultVocab()
	for _, c := range []struct{ prompt, want string }{
		{"An upbeat pop song in G major at 120 bpm with piano and drums", RefDrums},
		{"Bossa nova in A minor with drums", RefDrums},
		{"A lively Irish jig in D major for fiddle", RefNottingham},
		{"A slow waltz in F major for string quartet", RefNottingham},
		{"A march in B flat major for brass band at 112 bpm", RefNottingham},
		{"A medley of jigs and reels", RefNottingham},
		{"A melancholic ballad in A minor for piano, 70 bpm", RefPOP909},
		{"A sad song in E minor for solo cello at 60 bpm", RefPOP909},
		// The request as generated: drums a style implies count ("jazz"
		// brings a kit, as eval-model's pieces are asked).
		{"A jazz ballad in F major", RefDrums},
		{"A jazz ballad in F major without drums", RefPOP909},
	} {
		u := Understand(UnderstandRequest{Prompt: c.prompt}, v)
		if got := MatchCorpus(&u); got != c.want {
			t.Errorf("%q: matched %s, want %s", c.prompt, got, c.want)
		}
	}
}

// suitePiece builds a valid suite piece from hand-set metrics.
func suitePiece(corpusName string, named bool, drums *float64, progs int, npb, rhythm, bars float64, pile bool, secs float64) SuitePiece {
	m := eval.Metrics{NotesPerBeat: npb, RhythmRepetition: rhythm, BarRepetition: bars, LastBarRatio: 1, LastBarPileUp: pile, Notes: 10, DrumBarShare: math.NaN(), PitchedBarShare: math.NaN()}
	if pile {
		m.LastBarRatio = 3
	}
	for i := 0; i < progs; i++ {
		m.Programs = append(m.Programs, 8*i)
	}
	var a eval.Adherence
	if drums != nil {
		m.HasDrums, m.DrumBarShare = true, *drums
		d := eval.Num(*drums)
		a.DrumBars = &d
	}
	if progs > 0 {
		m.PitchedBarShare = 1
	}
	p := SuitePiece{Valid: true, Bars: 16, Corpus: corpusName, NamedInstruments: named, Seconds: secs, metrics: m, Adherence: a, namedPitched: named}
	p.Musicality = pieceMusicality(&m, a, KnownReferences()[corpusName])
	return p
}

// The musicality floors and rows computed by hand on four pieces.
func TestJudgeMusicality(t *testing.T) {
	one, half := 1.0, 0.5
	refs := KnownReferences()
	pop := refs[RefPOP909].Value(eval.NotesPerBeat) // 5.2526
	drm := refs[RefDrums].Value(eval.NotesPerBeat)  // 9.9263
	rep := &SuiteReport{Floors: map[string]bool{}, References: refs, Pieces: []SuitePiece{
		suitePiece(RefDrums, true, &one, 3, drm, 0.6, 0.2, false, 1.0),   // ratio 1
		suitePiece(RefDrums, true, &half, 2, drm/2, 0.4, 0.1, true, 2.0), // ratio 0.5
		suitePiece(RefPOP909, false, nil, 5, pop*0.8, 0.2, 0.0, false, 0.5),
		suitePiece(RefPOP909, false, nil, 2, pop*0.9, 0.6, 0.3, false, 0.3),
		{Prompt: "broken", Valid: false},
	}}
	// The second drum piece is drums alone in 3 of 4 bars; the first
	// plays pitched notes in every bar.
	rep.Pieces[1].metrics.PitchedBarShare = 0.25
	rep.Pieces[1].Musicality = pieceMusicality(&rep.Pieces[1].metrics, rep.Pieces[1].Adherence, refs[RefDrums])
	rep.suiteTiming([]float64{0.2, 0.4})
	rep.judge(false)
	floors := map[string]Floor{}
	for _, f := range rep.FloorList {
		floors[f.Name] = f
	}
	check := func(name string, v float64, n int, met bool) {
		t.Helper()
		f, ok := floors[name]
		if !ok {
			t.Fatalf("no floor %s", name)
		}
		if math.Abs(float64(f.Value)-v) > 1e-9 || f.N != n || f.Met != met || rep.Floors[name] != met {
			t.Errorf("%s = %v (n %d, met %v), want %v (n %d, met %v)", name, f.Value, f.N, f.Met, v, n, met)
		}
	}
	check("drums_in_bars", 0.75, 2, false)        // (1 + 0.5)/2
	check("pitched_in_bars", 0.625, 2, false)     // (1 + 0.25)/2 over the drum pieces naming pitched instruments
	check("programs_unnamed", 3.5, 2, true)       // (5 + 2)/2 over the unnamed
	check("notes_per_beat", (0.8+0.9)/2, 4, true) // ratios 1, 0.5, 0.8, 0.9: median 0.85
	check("rhythm_repetition", 0.45, 4, true)     // (0.6+0.4+0.2+0.6)/4
	check("bar_repetition", 0.15, 4, true)        // (0.2+0.1+0+0.3)/4 = 0.15: the floor meets
	check("last_bar_pile_up", 0.25, 4, false)     // 1 of 4
	check("seconds_16_bars", 0.95, 4, true)       // (1+2+0.5+0.3)/4
	near := func(name string, got eval.Num, want float64) {
		t.Helper()
		if math.Abs(float64(got)-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("max seconds", rep.Seconds16Max, 2)
	near("single-sample seconds", rep.Seconds16Single, 0.3)
	if rep.Floors["valid"] {
		t.Error("valid met with an invalid piece")
	}
	// Rows: drums pieces' notes per beat median (drm + drm/2)/2 over the
	// reference's drm: ratio 0.75; their drum share median 0.75 against
	// the corpus's; pop909 pieces have no drum row.
	rows := musicalityRows(rep.Pieces, refs)
	got := map[string]MusicalityRow{}
	for _, r := range rows {
		got[r.Corpus+"/"+r.Metric] = r
	}
	near("drums npb ratio", got["drums/notes_per_beat"].Ratio, 0.75)
	near("drums share", got["drums/drum_bar_share"].Generated, 0.75)
	near("pop909 programs", got["pop909/programs"].Generated, 3.5)
	near("drums pile-up share", got["drums/last_bar_pile_up"].Generated, 0.5)
	if _, ok := got["pop909/drum_bar_share"]; ok {
		t.Error("a drum row for pieces that asked for none")
	}
	if r := got["drums/notes_per_beat"]; r.Pieces != 2 {
		t.Errorf("drums rows over %d pieces, want 2", r.Pieces)
	}
}

// A folder given as a reference is measured with the corpora's code: two
// scales of eight quarter notes (testfiles.Scale) are two 4/4 bars each, 1 note a
// beat; the second bar (G A B C, or D E F# G) is the first (C D E F, or
// G A B C) a fifth up: a transposed repeat.
func TestMusicalityReferencesExtraFolder(t *testing.T) {
	dir := t.TempDir()
	testfiles.Scale(t, filepath.Join(dir, "c.mid"), 500000, 60)
	testfiles.Scale(t, filepath.Join(dir, "g.mid"), 600000, 67)
	refs, err := MusicalityReferences(context.Background(), "", []NamedDir{{"mine", dir}})
	if err != nil {
		t.Fatal(err)
	}
	r := refs["mine"]
	if len(refs) != 1 || r == nil || r.Pieces != 2 || r.Path != dir {
		t.Fatalf("refs %+v", refs)
	}
	for k, want := range map[eval.Metric]float64{
		eval.NotesPerBeat: 1, eval.OnsetsPerBeat: 1, eval.ProgramCount: 1, eval.BarRepetition: 1,
		eval.RhythmRepetition: 1, eval.LastBarPileUp: 0, eval.ScaleShareEstimated: 1,
	} {
		if got := r.Value(k); math.Abs(got-want) > 1e-12 {
			t.Errorf("%v = %v, want %v", k, got, want)
		}
	}
	if !math.IsNaN(r.Value(eval.DrumBarShare)) {
		t.Errorf("drum bar share %v without drums", r.Value(eval.DrumBarShare))
	}
	if _, err := MusicalityReferences(context.Background(), "", []NamedDir{{"x", filepath.Join(dir, "none")}}); err == nil || !strings.Contains(err.Error(), "reference x") {
		t.Errorf("missing folder: %v", err)
	}
}
