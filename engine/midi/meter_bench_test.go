package midi

import "testing"

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
