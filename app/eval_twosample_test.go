package app

import (
	"context"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/eval"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// A prompt stating a piece's attributes reads back as them, in the words a
// user types.
func TestTwoSamplePrompt(t *testing.T) {
	v := token.DefaultVocab()
	yes := true
	a := token.Unspecified()
	a.KeyTonic, a.KeyMinor, a.MeterNum, a.MeterDen, a.TempoBPM = 2, true, 6, 8, 79.5
	a.Programs, a.Drums = []int{40, 0, 33}, &yes
	p := TwoSamplePrompt(v, "A jig", a)
	// 79.5 rounds to 80, which starts the next tempo bin: written 79.
	if want := "A jig in D minor, 6/8, 79 bpm, for violin, piano, bass and drums"; p != want {
		t.Errorf("prompt %q, want %q", p, want)
	}
	if prob := promptProblem(v, p, a, 16, 1); prob != "" {
		t.Errorf("%q reads back with %s", p, prob)
	}
	// A number beats a dance word (a waltz in 4/4 stays in 4/4); a tempo
	// written in the next bin is a problem.
	a.MeterNum, a.MeterDen = 4, 4
	if prob := promptProblem(v, TwoSamplePrompt(v, "A waltz", a), a, 16, 1); prob != "" {
		t.Errorf("a 4/4 waltz reads back with %q", prob)
	}
	if prob := promptProblem(v, strings.Replace(p, "79 bpm", "80 bpm", 1), a, 16, 1); !strings.Contains(prob, "tempo") {
		t.Errorf("80 bpm for 79.5 reads back without a tempo problem (%q)", prob)
	}
	// A pop piece for piano alone: "a pop song" implies a drum kit as the
	// prompt path reads it, so the prompt says "without drums"; a piece
	// with drums never does.
	no := false
	pop := token.Unspecified()
	pop.KeyTonic, pop.MeterNum, pop.MeterDen, pop.TempoBPM = 3, 3, 4, 121
	pop.Programs, pop.Drums = []int{0}, &no
	if prob := promptProblem(v, TwoSamplePrompt(v, "A pop song", pop), pop, 16, 1); !strings.Contains(prob, "drums") {
		t.Errorf("%q reads back without a drums problem (%q): the test below proves nothing", TwoSamplePrompt(v, "A pop song", pop), prob)
	}
	got, prob := twoSamplePrompt(v, []string{"A pop song", "A piece"}, pop, 16, 1)
	if want := "A pop song in Eb major, 3/4, 121 bpm, for piano without drums"; got != want || prob != "" {
		t.Errorf("pop piece for piano: %q (%q), want %q", got, prob, want)
	}
	if got, _ := twoSamplePrompt(v, []string{"A jig"}, a, 16, 1); strings.Contains(got, "without") {
		t.Errorf("a piece with drums asked %q", got)
	}
}

// The excerpt starts at the bar of the first note (a silent first bar is
// skipped), keeps the meter and tempo in force there, holds exactly the
// bars asked for and cuts a note sounding past them.
func TestExcerpt(t *testing.T) {
	const tpb = 480
	bar := int64(4 * tpb)
	s := &midi.Score{Format: 1, TicksPerBeat: tpb,
		Meters: []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}},
		Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}, {Tick: bar / 2, MicrosPerBeat: 600000}, {Tick: 3 * bar, MicrosPerBeat: 400000}},
		Tracks: []midi.Track{{Program: 0, Notes: []midi.Note{
			{Tick: bar + tpb, Dur: tpb, Pitch: 60, Velocity: 90},   // bar 2, beat 2
			{Tick: 2 * bar, Dur: 2 * bar, Pitch: 64, Velocity: 90}, // bar 3, held into bar 4
			{Tick: 3*bar + tpb, Dur: tpb, Pitch: 67, Velocity: 90}, // bar 4
			{Tick: 4 * bar, Dur: tpb, Pitch: 72, Velocity: 90},     // bar 5: outside 3 bars
		}}}}
	ex, start, ok := excerpt(s, 3)
	if !ok || start != 1 {
		t.Fatalf("excerpt ok %v from bar %d, want bar index 1", ok, start)
	}
	notes := ex.Tracks[0].Notes
	if len(notes) != 3 || notes[0].Tick != tpb || notes[1].Tick != bar || notes[1].Dur != 2*bar || notes[2].Tick != 2*bar+tpb {
		t.Errorf("notes %+v", notes)
	}
	if ex.Tempos[0].MicrosPerBeat != 600000 || len(ex.Tempos) != 2 || ex.Tempos[1].Tick != 2*bar {
		t.Errorf("tempos %+v: want 600000 at 0 (in force at bar 2) and the change at bar 4", ex.Tempos)
	}
	if ex.EndTick != 3*bar {
		t.Errorf("end %d, want %d", ex.EndTick, 3*bar)
	}
	// Cut: the held note would end after the excerpt with 2 bars.
	ex2, _, ok := excerpt(s, 2)
	if !ok || ex2.Tracks[0].Notes[1].Dur != bar {
		t.Errorf("2 bars: ok %v, held note %+v", ok, ex2.Tracks[0].Notes)
	}
	if _, _, ok := excerpt(s, 5); ok {
		t.Error("an excerpt of 5 bars from a piece whose notes span 4")
	}
}

// Every real piece the test chooses from the corpora has a prompt that
// reads back as its own attributes, and the groups are full.
func TestTwoSampleRealPiecesFromCorpora(t *testing.T) {
	dir := filepath.Dir(corpus.Path(t, corpus.POP909))
	o := TwoSampleOptions{DataDir: dir, PerGroup: 40}
	o.defaults()
	pieces, counts, err := realPieces(context.Background(), token.DefaultVocab(), &o)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range twoSampleGroups {
		if counts[g.name] != 40 {
			t.Errorf("group %s: %d pieces", g.name, counts[g.name])
		}
	}
	bad := 0
	for _, p := range pieces {
		if !p.PromptOK {
			bad++
			t.Logf("%s: %q: %s", p.File, p.Prompt, p.PromptProblem)
		}
		if p.Tokenized == nil {
			t.Errorf("%s: no tokenized twin", p.File)
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d prompts do not read back as their pieces", bad, len(pieces))
	}
}

// writeToyCorpus writes n four-bar pieces in C major (a melody over held
// chords, each piece its own tempo and rhythm) into a temp folder.
func writeToyCorpus(t *testing.T, n int) string {
	dir := filepath.Join(t.TempDir(), "toy")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const tpb = 480
	scale := []uint8{60, 62, 64, 65, 67, 69, 71, 72}
	for i := 0; i < n; i++ {
		var mel, ch []midi.Note
		step := int64(tpb / (1 + i%2))
		for k := int64(0); k < 16*tpb/step; k++ {
			mel = append(mel, midi.Note{Tick: k * step, Dur: step, Pitch: scale[(int(k)+i)%8] + 12, Velocity: uint8(80 + i)})
		}
		for b := int64(0); b < 4; b++ {
			for _, p := range []uint8{48, 52, 55} {
				ch = append(ch, midi.Note{Tick: b * 4 * tpb, Dur: 4 * tpb, Pitch: p + uint8(b%2)*5, Velocity: 70})
			}
		}
		s := &midi.Score{Format: 1, TicksPerBeat: tpb, Meters: []midi.MeterChange{{Num: 4, Den: 4}},
			Tempos: []midi.TempoChange{{MicrosPerBeat: 400000 + 20000*i}},
			Tracks: []midi.Track{{Program: 0, Notes: mel}, {Program: 33, Channel: 1, Notes: ch}}}
		if err := midi.WriteFile(filepath.Join(dir, "toy"+string(rune('a'+i))+".mid"), s); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The whole test on a toy folder of real pieces with the embedded model:
// every piece answered, classifiers and floors filled, rolls drawn, the
// report saved, read back and compared with itself.
func TestTwoSampleEndToEnd(t *testing.T) {
	m, err := loadEmbedded()
	if err != nil {
		t.Skip(err)
	}
	defer m.Close()
	dir := writeToyCorpus(t, 6)
	rep, err := TwoSample(context.Background(), m, TwoSampleOptions{RealDirs: []string{dir}, PerGroup: 6, Bars: 4, Seed: 1,
		Folds: 2, Repeats: 2, Trees: 20, Request: PromptRequest{KeyBias: DefaultKeyBias, Candidates: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pairs != 6 || rep.Groups["toy"] != 6 || rep.PromptMismatch != 0 {
		t.Fatalf("pairs %d, groups %v, prompt mismatches %d", rep.Pairs, rep.Groups, rep.PromptMismatch)
	}
	for _, p := range rep.Pieces {
		if len(p.Generated) != eval.NumFeatures || p.Error != "" || !strings.HasPrefix(p.Prompt, "A piece in C major, 4/4") {
			t.Errorf("%s: %q: %d features, error %q", p.File, p.Prompt, len(p.Generated), p.Error)
		}
	}
	if rep.LR == nil || rep.RF == nil || rep.Accuracy < 0 || rep.Accuracy > 1 || len(rep.Features) != eval.NumFeatures || len(rep.Floors) != 7 {
		t.Fatalf("report: %+v", rep)
	}
	// The toy pieces' medians, by construction: no duplicates, chords of 3
	// (the bass program's triads), every 16th sounding.
	if r := rep.Feature("max_chord"); r.Real != 3 {
		t.Errorf("real max_chord %v, want 3", r.Real)
	}
	if r := rep.Feature("silent_16ths"); r.Real != 0 {
		t.Errorf("real silent_16ths %v, want 0", r.Real)
	}
	rolls := filepath.Join(t.TempDir(), "rolls")
	if err := WriteTwoSampleRolls(rolls, rep, 2); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(rolls, "rolls.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil || img.Bounds().Dx() < 2*4*4*12 {
		t.Errorf("rolls: %v, %v (want two columns of 4 bars)", err, img.Bounds())
	}
	if mids, _ := filepath.Glob(filepath.Join(rolls, "*.mid")); len(mids) != 2*rep.Pairs {
		t.Errorf("%d MIDI files written, want %d (every pair)", len(mids), 2*rep.Pairs)
	}
	// Saved and read back; compared with itself, nothing moves.
	path := filepath.Join(t.TempDir(), "ts.json")
	if err := rep.Save(path); err != nil {
		t.Fatal(err)
	}
	back, ok, err := ReadTwoSampleReport(path)
	if err != nil || !ok {
		t.Fatalf("read back: %v %v", ok, err)
	}
	d := CompareTwoSample(back, rep)
	if !d.SameReal || d.Old.RF != d.New.RF || len(d.Features) != eval.NumFeatures {
		t.Errorf("compare with itself: %+v", d)
	}
	for _, f := range d.Features {
		if !(f.Old == f.New || math.IsNaN(float64(f.Old)) && math.IsNaN(float64(f.New))) {
			t.Errorf("%s: %v → %v", f.Name, f.Old, f.New)
		}
	}
	if _, ok, err := ReadTwoSampleReport(writeFile(t, `{"suite": "x", "pieces": []}`)); ok || err != nil {
		t.Errorf("a suite report read as two-sample: %v %v", ok, err)
	}
	// The what-if analysis: a row a family; with every family matched the
	// generated pieces are copies of real ones and nothing can be told.
	if len(rep.WhatIf) != len(eval.Families) || rep.WhatIfRepeats != 2 || rep.WhatIfBase == nil || !slices.Equal(rep.WhatIfGroups, []string{"toy"}) {
		t.Fatalf("what-if: %d rows (want %d), %d repeats, base %v, groups %v", len(rep.WhatIf), len(eval.Families), rep.WhatIfRepeats, rep.WhatIfBase, rep.WhatIfGroups)
	}
	if last := rep.WhatIf[len(rep.WhatIf)-1].Cumulative; last.Accuracy[ForestName] != 0.5 || last.Accuracy[LinearName] != 0.5 || !slices.Equal(last.Strata, []float64{0.5}) {
		t.Errorf("every family matched: %v, want 0.5 for both and in the group", last)
	}
	// Re-read from the saved report with the same options: the same figures.
	if err := back.Reclassify(TwoSampleOptions{Folds: 2, Repeats: 2, Trees: 20}); err != nil {
		t.Fatal(err)
	}
	if back.Pairs != rep.Pairs || back.RF.Accuracy != rep.RF.Accuracy || back.LR.Accuracy != rep.LR.Accuracy ||
		back.WhatIf[0].Alone.Accuracy[ForestName] != rep.WhatIf[0].Alone.Accuracy[ForestName] || len(back.Floors) != len(rep.Floors) {
		t.Errorf("reclassified: pairs %d RF %v LR %v what-if %v; want %d %v %v %v", back.Pairs, back.RF.Accuracy, back.LR.Accuracy,
			back.WhatIf[0].Alone, rep.Pairs, rep.RF.Accuracy, rep.LR.Accuracy, rep.WhatIf[0].Alone)
	}
	back.Features[3].Name = "renamed"
	if err := back.Reclassify(TwoSampleOptions{}); err == nil || !strings.Contains(err.Error(), `"renamed"`) {
		t.Errorf("a report with other features: %v", err)
	}
}

func writeFile(t *testing.T, s string) string {
	p := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// GroupAccuracy counts, per group, the real pieces the forest held to be
// real (ProbReal ≤ 0.5) and the generated ones it held to be generated
// (ProbGenerated > 0.5), over both: worked out by hand below. Pieces
// without an answer are left out.
func TestTwoSampleGroupAccuracy(t *testing.T) {
	g := []eval.Num{1}
	rep := &TwoSampleReport{Pieces: []TwoSamplePiece{
		{Group: "pop909", Generated: g, ProbReal: 0.2, ProbGenerated: 0.9}, // 2 right
		{Group: "pop909", Generated: g, ProbReal: 0.6, ProbGenerated: 0.7}, // 1
		{Group: "game", Generated: g, ProbReal: 0.5, ProbGenerated: 0.5},   // real right, generated wrong: 1
		{Group: "game", Generated: g, ProbReal: 0.9, ProbGenerated: 0.1},   // 0
		{Group: "game", Generated: nil, ProbReal: 0.0, ProbGenerated: 1.0}, // no answer: left out
	}}
	got := rep.GroupAccuracy()
	want := map[string]float64{"pop909": 0.75, "game": 0.25}
	if len(got) != len(want) || got["pop909"] != want["pop909"] || got["game"] != want["game"] {
		t.Errorf("group accuracy %v, want %v", got, want)
	}
	if (&TwoSampleReport{}).GroupAccuracy() != nil {
		t.Error("a report without pieces has group accuracies")
	}
}
