package midi

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/amtstudio/amt/engine/corpus"
	gomidi "gitlab.com/gomidi/midi/v2/smf"
)

// loadPOP909 reads every POP909 file into memory once, so the benchmarks
// measure decoding, not the disk.
func loadPOP909(b testing.TB) [][]byte {
	b.Helper()
	files := corpus.MIDIFiles(b, corpus.POP909)
	out := make([][]byte, len(files))
	for i, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = d
	}
	return out
}

// meter measures one benchmark loop: files per wall second and files per
// CPU-second of the process (the per-core rate, steady under load).
type meter struct {
	wall time.Time
	cpu  time.Duration
}

func startMeter(b *testing.B) meter {
	b.ResetTimer()
	return meter{time.Now(), cpuTime()}
}

func (m meter) report(b *testing.B) {
	b.ReportMetric(float64(b.N)/time.Since(m.wall).Seconds(), "files/s")
	if cpu := cpuTime() - m.cpu; cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "files/cpu-s")
	}
}

// BenchmarkParsePOP909 is parse + metadata (Parse and Analyze) of POP909
// files from memory on one goroutine; one op is one file.
func BenchmarkParsePOP909(b *testing.B) {
	data := loadPOP909(b)
	b.ReportAllocs()
	m := startMeter(b)
	for i := 0; i < b.N; i++ {
		s, err := Parse("pop909.mid", data[i%len(data)])
		if err != nil {
			b.Fatal(err)
		}
		_ = Analyze(s)
	}
	m.report(b)
}

// BenchmarkParseOnlyPOP909 is Parse without Analyze.
func BenchmarkParseOnlyPOP909(b *testing.B) {
	data := loadPOP909(b)
	b.ReportAllocs()
	m := startMeter(b)
	for i := 0; i < b.N; i++ {
		if _, err := Parse("pop909.mid", data[i%len(data)]); err != nil {
			b.Fatal(err)
		}
	}
	m.report(b)
}

// BenchmarkGomidiPOP909 is the baseline: gomidi's plain read of the same
// files (no note pairing, no metadata).
func BenchmarkGomidiPOP909(b *testing.B) {
	data := loadPOP909(b)
	b.ReportAllocs()
	m := startMeter(b)
	for i := 0; i < b.N; i++ {
		if _, err := gomidi.ReadFrom(bytes.NewReader(data[i%len(data)])); err != nil {
			b.Fatal(err)
		}
	}
	m.report(b)
}

// BenchmarkWritePOP909 encodes parsed POP909 scores.
func BenchmarkWritePOP909(b *testing.B) {
	data := loadPOP909(b)
	scores := make([]*Score, len(data))
	for i, d := range data {
		s, err := Parse("pop909.mid", d)
		if err != nil {
			b.Fatal(err)
		}
		scores[i] = s
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	m := startMeter(b)
	for i := 0; i < b.N; i++ {
		buf.Reset()
		if err := scores[i%len(scores)].Write(&buf); err != nil {
			b.Fatal(err)
		}
	}
	m.report(b)
}

// BenchmarkAnalyzePOP909 is Analyze alone on parsed POP909 scores.
func BenchmarkAnalyzePOP909(b *testing.B) {
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
		_ = Analyze(scores[i%len(scores)])
	}
	m.report(b)
}
