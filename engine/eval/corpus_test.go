package eval

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/midi"
)

var (
	loadMu sync.Mutex
	loaded = map[string][]*midi.Score{}
)

// loadCorpus parses every file of a real corpus once per test binary
// (skipping when the corpus is absent). Files the reader refuses are
// reported and left out.
func loadCorpus(tb testing.TB, name string) []*midi.Score {
	tb.Helper()
	files := corpus.MIDIFiles(tb, name)
	loadMu.Lock()
	defer loadMu.Unlock()
	if ss, ok := loaded[name]; ok {
		return ss
	}
	var ss []*midi.Score
	bad := 0
	for _, f := range files {
		s, err := midi.ReadFile(f)
		if err != nil {
			bad++
			tb.Logf("skip: %v", err)
			continue
		}
		ss = append(ss, s)
	}
	if len(ss) == 0 {
		tb.Fatalf("%s: no readable file of %d", name, len(files))
	}
	loaded[name] = ss
	return ss
}

// TestCorpusRanges measures every piece of the three corpora and checks
// that each metric lies in its mathematical range, plus a few facts known
// of each corpus.
func TestCorpusRanges(t *testing.T) {
	for _, name := range []string{corpus.POP909, corpus.Nottingham, corpus.OpenMSX} {
		t.Run(name, func(t *testing.T) {
			ss := loadCorpus(t, name)
			ms := make([]Metrics, 0, len(ss))
			for i, s := range ss {
				m, err := Measure(s)
				if err != nil {
					t.Fatalf("piece %d: %v", i, err)
				}
				checkRanges(t, fmt.Sprintf("%s piece %d", name, i), &m)
				ms = append(ms, m)
			}
			sum := Summarize(ms)
			mean := func(k Metric) float64 { return float64(sum[k].Mean) }
			switch name {
			case corpus.POP909:
				// Tonal pop on piano: mostly in one scale, chords
				// sounding, no drum tracks.
				if mean(ScaleConsistency) < 0.85 || mean(Polyphony) < 2 || sum[DrumPatternRate].N != 0 {
					t.Errorf("pop909: scale %.3f polyphony %.2f drum pieces %d", mean(ScaleConsistency), mean(Polyphony), sum[DrumPatternRate].N)
				}
			case corpus.Nottingham:
				// Folk melodies with chords, strictly diatonic and
				// regular: high scale and groove consistency.
				if mean(ScaleConsistency) < 0.9 || mean(GrooveConsistency) < 0.8 {
					t.Errorf("nottingham: scale %.3f groove %.3f", mean(ScaleConsistency), mean(GrooveConsistency))
				}
			case corpus.OpenMSX:
				// Game music with drums in 30 of 31 pieces, sequenced on
				// a grid: drums mostly in pattern.
				if sum[DrumPatternRate].N < 25 || mean(DrumPatternRate) < 0.8 {
					t.Errorf("openmsx: %d pieces with drums, pattern rate %.3f", sum[DrumPatternRate].N, mean(DrumPatternRate))
				}
			}
			t.Logf("%s: %d pieces\n%s", name, len(ms), statTable(sum))
		})
	}
}

func checkRanges(t *testing.T, what string, m *Metrics) {
	t.Helper()
	in := func(k Metric, lo, hi float64) {
		v := m.Value(k)
		if !math.IsNaN(v) && (v < lo || v > hi) {
			t.Errorf("%s: %v = %v outside [%v, %v]", what, k, v, lo, hi)
		}
	}
	in(PitchClassEntropy, 0, math.Log2(12)+1e-12)
	// Each pitch class lies in 7 of the 12 major scales, so the best scale
	// holds at least 7/12 of the notes.
	in(ScaleConsistency, 7.0/12-1e-12, 1)
	in(GrooveConsistency, 0, 1)
	in(Polyphony, 1, 128)
	in(PolyphonyRate, 0, 1)
	in(EmptyBeatRate, 0, 1)
	in(PitchRange, 0, 127)
	in(NotesPerSecond, 0, 1e4)
	in(MeanIOI, 0, 3600)
	in(DrumPatternRate, 0, 1)
	in(TempoBPM, 1, 1000)
	in(NotesPerBeat, 0, 1e4)
	// At most GridPerBeat distinct onset steps a beat (rounding can put one
	// more at a bar's end).
	in(OnsetsPerBeat, 0, GridPerBeat+1)
	in(DrumBarShare, 0, 1)
	in(ProgramCount, 0, 128)
	in(BarRepetition, 0, 1)
	in(RhythmRepetition, 0, 1)
	in(LastBarPileUp, 0, 1)
	in(ScaleShareEstimated, 0, 1)
	if !math.IsNaN(m.BarRepetition) && m.BarRepetition > m.RhythmRepetition {
		t.Errorf("%s: bar repetition %v above rhythm repetition %v (a repeated bar repeats its rhythm)", what, m.BarRepetition, m.RhythmRepetition)
	}
	if m.HasDrums != !math.IsNaN(m.DrumBarShare) || (m.HasDrums && m.DrumBarShare == 0) {
		t.Errorf("%s: drums %v, drum bar share %v", what, m.HasDrums, m.DrumBarShare)
	}
	if (m.PitchedNotes > 0) != !math.IsNaN(m.PitchedBarShare) || m.PitchedBarShare <= 0 || m.PitchedBarShare > 1 {
		if !(m.PitchedNotes == 0 && math.IsNaN(m.PitchedBarShare)) {
			t.Errorf("%s: %d pitched notes, pitched bar share %v", what, m.PitchedNotes, m.PitchedBarShare)
		}
	}
	if m.PitchedNotes > 0 && (math.IsNaN(m.PitchClassEntropy) || math.IsNaN(m.Polyphony) || m.Key.Tonic < 0) {
		t.Errorf("%s: pitched notes but undefined pitch metrics: %+v", what, m)
	}
}

// statTable renders mean ± std per metric as Markdown rows.
func statTable(sum []MetricStat) string {
	var b strings.Builder
	for _, s := range sum {
		fmt.Fprintf(&b, "| %s | %d | %.4g ± %.4g |\n", s.Metric, s.N, float64(s.Mean), float64(s.Std))
	}
	return b.String()
}

// BenchmarkMeasurePOP909 measures every POP909 piece (parsed beforehand):
// the floor is 1,000 pieces/s. For a same-run baseline each iteration also
// runs midi.Analyze alone over the same pieces, interleaved with the
// measurement so both see the same machine load (analyze_pieces/s).
func BenchmarkMeasurePOP909(b *testing.B) {
	ss := loadCorpus(b, corpus.POP909)
	var e Evaluator
	var analyze, measure time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for _, s := range ss {
			midi.Analyze(s)
		}
		t1 := time.Now()
		for _, s := range ss {
			if _, err := e.Measure(s); err != nil {
				b.Fatal(err)
			}
		}
		analyze += t1.Sub(t0)
		measure += time.Since(t1)
	}
	n := float64(b.N * len(ss))
	b.ReportMetric(n/measure.Seconds(), "pieces/s")
	b.ReportMetric(n/analyze.Seconds(), "analyze_pieces/s")
	b.ReportMetric(analyze.Seconds()/measure.Seconds(), "ratio_to_analyze")
}

// BenchmarkCompareSets times the mgeval comparison of POP909 against
// itself (909 × 909 pairs per metric, 11 metrics).
func BenchmarkCompareSets(b *testing.B) {
	ss := loadCorpus(b, corpus.POP909)
	ms := make([]Metrics, len(ss))
	for i, s := range ss {
		ms[i], _ = Measure(s)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Compare(ms, ms)
	}
}

// TestFactsMatchAnalyze holds the facts Measure computes itself equal to
// midi.Analyze's on every piece of the real corpora.
func TestFactsMatchAnalyze(t *testing.T) {
	for _, name := range []string{corpus.POP909, corpus.Nottingham, corpus.OpenMSX} {
		for i, s := range loadCorpus(t, name) {
			m, err := Measure(s)
			if err != nil {
				t.Fatal(err)
			}
			md := midi.Analyze(s)
			if m.TempoBPM != md.TempoBPM || m.MeterNum != md.MeterNum || m.MeterDen != md.MeterDen ||
				math.Abs(m.Bars-md.Bars) > 1e-9 || m.DurationSeconds != md.DurationSeconds || m.HasDrums != md.HasDrums ||
				(m.PitchedNotes > 0 && !m.Key.Same(md.EstimatedKey)) {
				t.Fatalf("%s piece %d: facts %v %d/%d %v bars %v s drums %v key %v; Analyze %v %d/%d %v bars %v s drums %v key %v",
					name, i, m.TempoBPM, m.MeterNum, m.MeterDen, m.Bars, m.DurationSeconds, m.HasDrums, m.Key,
					md.TempoBPM, md.MeterNum, md.MeterDen, md.Bars, md.DurationSeconds, md.HasDrums, md.EstimatedKey)
			}
		}
	}
}

// barStarts returns the ticks where the bars of s start through the bar
// holding tick last, and the end of that bar (the meter map walked as
// Measure walks it).
func barStarts(s *midi.Score, last int64) []int64 {
	tpb := int64(s.TicksPerBeat)
	var out []int64
	num, den := 4, 4
	mi := 0
	pos := int64(0)
	for pos <= last {
		for mi < len(s.Meters) && s.Meters[mi].Tick <= pos {
			if s.Meters[mi].Num > 0 && s.Meters[mi].Den > 0 {
				num, den = s.Meters[mi].Num, s.Meters[mi].Den
			}
			mi++
		}
		next := pos + max(int64(num)*4*tpb/int64(den), 1)
		if mi < len(s.Meters) && s.Meters[mi].Tick < next {
			next = s.Meters[mi].Tick
		}
		out = append(out, pos)
		pos = next
	}
	return append(out, pos)
}

// windows cuts s into consecutive excerpts of n bars from bar 0 (a shorter
// tail is dropped): each holds the notes starting in its bars, moved to
// start at tick 0, with the meter in force at its start.
func windows(s *midi.Score, n int) []*midi.Score {
	last := int64(-1)
	for _, tr := range s.Tracks {
		for _, nt := range tr.Notes {
			last = max(last, nt.Tick)
		}
	}
	if last < 0 {
		return nil
	}
	starts := barStarts(s, last)
	var out []*midi.Score
	for b := 0; b+n < len(starts); b += n {
		t0, t1 := starts[b], starts[b+n]
		w := &midi.Score{Format: 1, TicksPerBeat: s.TicksPerBeat, EndTick: t1 - t0}
		for _, mc := range s.Meters {
			switch {
			case mc.Tick <= t0:
				w.Meters = []midi.MeterChange{{Tick: 0, Num: mc.Num, Den: mc.Den}}
			case mc.Tick < t1:
				w.Meters = append(w.Meters, midi.MeterChange{Tick: mc.Tick - t0, Num: mc.Num, Den: mc.Den})
			}
		}
		for _, tr := range s.Tracks {
			c := tr
			c.Notes = nil
			for _, nt := range tr.Notes {
				if nt.Tick >= t0 && nt.Tick < t1 {
					nt.Tick -= t0
					c.Notes = append(c.Notes, nt)
				}
			}
			w.Tracks = append(w.Tracks, c)
		}
		out = append(out, w)
	}
	return out
}

// TestMusicalityReferences measures the musicality metrics of every real
// corpus, whole pieces (the figures issue 13 quotes) and 16-bar excerpts
// (the length of a generated piece), and checks them against the issue:
//
//   - notes per quarter note, median: POP909 5.05, Nottingham 2.67,
//     OpenMSX 10.9. Measured here 5.25, 2.64, 10.55: within 5% (the issue
//     did not say how it counted the length of a piece; here it is the bars
//     through the bar of the last onset).
//   - share of bars with drums, OpenMSX: 1.00 (median); here 0.98 median.
//   - bars repeating an earlier bar: POP909 whole songs 0.23, Nottingham
//     0.25. Measured here (transposition-invariant pitch + rhythm +
//     duration, musicality.go): POP909 0.32 in the 2/4 bars its files
//     declare, 0.205 in 4/4 bars (the 4-beat bars its beat annotations
//     mark, and what meter inference re-bars it to): the 0.23 was
//     evidently measured in 4-beat bars, and the test checks that figure.
//     Nottingham measures 0.54, and no bar-equality definition can give
//     0.25 there: its MIDI files write the repeats of each strain out (AABB
//     played as A A B B), so half of a typical tune's bars repeat an
//     earlier bar note for note. (Counting each recurring content once, not
//     each repeat, gives 0.29; that is not "bars repeating an earlier bar".)
//     The floor of 0.15 for 16 generated bars stands below every corpus's
//     whole-song figure.
//   - 16-bar excerpts repeat less than whole songs (fewer earlier bars to
//     repeat): POP909 0.02 in 2/4 bars, its repeats being sections (verse,
//     chorus) more than 16 bars apart; Nottingham 0.45; OpenMSX and
//     Freedoom 0.27-0.30.
//   - real music does not pile up at its end: at most a few per cent of
//     pieces (the floor for generated pieces is 10%).
func TestMusicalityReferences(t *testing.T) {
	type want struct {
		notesPerBeat        float64 // issue figure, median (0: none quoted)
		repLo, repHi        float64 // mean bar repetition, whole pieces
		drumShareMedianLo   float64 // 0: no drums
		rhythmLo, pileUpMax float64
	}
	for _, c := range []struct {
		name string
		want want
	}{
		{corpus.POP909, want{5.05, 0.18, 0.40, 0, 0.5, 0.03}},
		{corpus.Nottingham, want{2.67, 0.45, 0.65, 0, 0.6, 0.03}},
		{corpus.OpenMSX, want{10.9, 0.25, 0.50, 0.95, 0.6, 0.03}},
		{corpus.Freedoom, want{0, 0.25, 0.50, 0.95, 0.6, 0.05}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ss := loadCorpus(t, c.name)
			var whole, win []Metrics
			var e Evaluator
			for _, s := range ss {
				m, err := e.Measure(s)
				if err != nil {
					t.Fatal(err)
				}
				whole = append(whole, m)
				for _, w := range windows(s, 16) {
					if w.NoteCount() == 0 {
						continue
					}
					m, err := e.Measure(w)
					if err != nil {
						t.Fatal(err)
					}
					win = append(win, m)
				}
			}
			sw, s16 := Summarize(whole), Summarize(win)
			var b strings.Builder
			fmt.Fprintf(&b, "%s: %d pieces, %d 16-bar excerpts (mean / median)\n", c.name, len(whole), len(win))
			for k := NotesPerBeat; int(k) < NumMetrics; k++ {
				fmt.Fprintf(&b, "| %s | %.3f / %.3f | %.3f / %.3f |\n", k, float64(sw[k].Mean), float64(sw[k].Median), float64(s16[k].Mean), float64(s16[k].Median))
			}
			t.Log(b.String())
			if c.name == corpus.POP909 {
				// In 4-beat bars (the figure: 0.23).
				var reps []float64
				for _, s := range ss {
					s4 := *s
					s4.Meters = []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}}
					m, err := e.Measure(&s4)
					if err != nil {
						t.Fatal(err)
					}
					reps = append(reps, m.BarRepetition)
				}
				rep := float64(Describe(reps).Mean)
				t.Logf("pop909 in 4/4 bars: bar repetition mean %.3f", rep)
				if math.Abs(rep-0.23) > 0.04 {
					t.Errorf("pop909 bar repetition in 4/4 bars %.3f, issue 0.23: more than 0.04 apart", rep)
				}
			}
			w := c.want
			if npb := float64(sw[NotesPerBeat].Median); w.notesPerBeat > 0 && math.Abs(npb/w.notesPerBeat-1) > 0.05 {
				t.Errorf("notes per beat median %.3f, issue %.2f: more than 5%% apart", npb, w.notesPerBeat)
			}
			if rep := float64(sw[BarRepetition].Mean); rep < w.repLo || rep > w.repHi {
				t.Errorf("bar repetition mean %.3f outside [%.2f, %.2f]", rep, w.repLo, w.repHi)
			}
			if r := float64(sw[RhythmRepetition].Mean); r < w.rhythmLo {
				t.Errorf("rhythm repetition mean %.3f below %.2f", r, w.rhythmLo)
			}
			if p := float64(sw[LastBarPileUp].Mean); p > w.pileUpMax {
				t.Errorf("last-bar pile-up in %.1f%% of pieces, above %.0f%%", 100*p, 100*w.pileUpMax)
			}
			if w.drumShareMedianLo > 0 {
				if d := float64(sw[DrumBarShare].Median); d < w.drumShareMedianLo {
					t.Errorf("drum bar share median %.3f below %.2f", d, w.drumShareMedianLo)
				}
			} else if sw[DrumBarShare].N != 0 {
				t.Errorf("%d pieces with drums in a corpus without drums", sw[DrumBarShare].N)
			}
		})
	}
}
