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
