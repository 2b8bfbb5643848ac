package midi

import (
	"fmt"
	"testing"
)

// BenchmarkInferMeterPOP909 is meter inference alone on parsed POP909
// scores (one op is one file).
func BenchmarkInferMeterPOP909(b *testing.B) {
	data := loadPOP909(b)
	scores := make([]*Score, len(data))
	for i, d := range data {
		s, err := Parse("pop909.mid", d)
		if err != nil {
			b.Fatal(err)
		}
		scores[i] = s
	}
	b.ReportAllocs()
	m := startMeter(b)
	for i := 0; i < b.N; i++ {
		_ = InferMeter(scores[i%len(scores)])
	}
	m.report(b)
}

// BenchmarkPreparePOP909 is parse + Prepare (meter inference, re-barring,
// metadata) of POP909 files from memory; one op is one file. Compare with
// BenchmarkParsePOP909 (parse + Analyze) in the same run.
func BenchmarkPreparePOP909(b *testing.B) {
	data := loadPOP909(b)
	b.ReportAllocs()
	m := startMeter(b)
	for i := 0; i < b.N; i++ {
		s, err := Parse("pop909.mid", data[i%len(data)])
		if err != nil {
			b.Fatal(err)
		}
		_ = Prepare(s)
	}
	m.report(b)
}

// BenchmarkInferMeterLength infers the meter of one POP909 song repeated 1,
// 4 and 16 times end to end: ns/note stays flat (linear in the notes and
// the length).
func BenchmarkInferMeterLength(b *testing.B) {
	data := loadPOP909(b)
	one, err := Parse("pop909.mid", data[0])
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range []int{1, 4, 16} {
		s := &Score{TicksPerBeat: one.TicksPerBeat, Tempos: one.Tempos, Meters: one.Meters}
		for _, t := range one.Tracks {
			nt := t
			nt.Notes = nil
			for r := 0; r < k; r++ {
				for _, n := range t.Notes {
					n.Tick += int64(r) * one.EndTick
					nt.Notes = append(nt.Notes, n)
				}
			}
			s.Tracks = append(s.Tracks, nt)
		}
		s.EndTick = int64(k) * one.EndTick
		notes := s.NoteCount()
		b.Run(fmt.Sprintf("x%d", k), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				InferMeter(s)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(notes), "ns/note")
		})
	}
}
