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
