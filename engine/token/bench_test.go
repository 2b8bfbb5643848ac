package token

import (
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/midi"
)

// loadPOP909 parses every POP909 file once (parse cost stays out of the
// tokenizer benchmarks).
func loadPOP909(b *testing.B) []*midi.Score {
	files := corpus.MIDIFiles(b, corpus.POP909)
	scores := make([]*midi.Score, 0, len(files))
	for _, f := range files {
		s, err := midi.ReadFile(f)
		if err != nil {
			continue
		}
		scores = append(scores, s)
	}
	return scores
}

// BenchmarkTokenizePOP909 measures Score → tokens (measure + encode, one
// goroutine) per file; the target is ≥ 3,000 files/s per core.
func BenchmarkTokenizePOP909(b *testing.B) {
	v := DefaultVocab()
	scores := loadPOP909(b)
	metas := make([]midi.Metadata, len(scores))
	for i, s := range scores {
		metas[i] = midi.Analyze(s)
	}
	var buf []uint16
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		i := n % len(scores)
		var err error
		buf, _, err = v.AppendEncodeMeasured(buf[:0], scores[i], metas[i])
		if err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "files/s")
}

// BenchmarkDecodePOP909 measures tokens → Score.
func BenchmarkDecodePOP909(b *testing.B) {
	v := DefaultVocab()
	scores := loadPOP909(b)
	seqs := make([][]uint16, len(scores))
	for i, s := range scores {
		seqs[i], _ = v.Encode(s, Unspecified())
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		if _, _, err := v.Decode(seqs[n%len(seqs)]); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "files/s")
}
