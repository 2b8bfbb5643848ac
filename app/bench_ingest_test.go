package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/pipeline"
	"github.com/amtstudio/amt/engine/text"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/storage"
)

// BenchmarkIngestPOP909 ingests all 909 POP909 songs into a cold store in
// each read mode ("mmap-warm" keeps the cache file of a first run). The
// "sequential" baseline does the same per-file work (read, parse, caption,
// embed, tokenize) in one goroutine with no store, for ratios measured in
// the same run.
func BenchmarkIngestPOP909(b *testing.B) {
	root := corpus.Path(b, corpus.POP909)
	files, err := corpus.List(root)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("sequential", func(b *testing.B) {
		col, err := text.NewCollector(root, text.CollectorOptions{})
		if err != nil {
			b.Fatal(err)
		}
		p := &realProcessor{vocab: token.DefaultVocab(), col: col, emb: text.NewHashed()}
		for b.Loop() {
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					b.Fatal(err)
				}
				it := &pipeline.Item{Path: f, Abs: f, Data: data}
				if p.Analyze(it) != nil || p.Caption(context.Background(), it) != nil || p.Embed(it) != nil || p.Tokenize(it) != nil {
					continue
				}
			}
		}
		b.ReportMetric(float64(len(files))*float64(b.N)/b.Elapsed().Seconds(), "files/s")
	})
	for _, mode := range []string{"stream", "preload", "mmap-cold", "mmap-warm"} {
		b.Run(mode, func(b *testing.B) {
			m := pipeline.Mode(mode)
			if mode[:4] == "mmap" {
				m = pipeline.MMap
			}
			var cache []byte
			if mode == "mmap-warm" {
				home := b.TempDir()
				st, err := storage.Open(home)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Ingest(context.Background(), st, IngestOptions{Project: "p", Dir: root, Mode: m}); err != nil {
					b.Fatal(err)
				}
				st.Close()
				matches, _ := filepath.Glob(filepath.Join(home, storage.CacheDir, "pre-*.bin"))
				if len(matches) != 1 {
					b.Fatalf("cache files %v", matches)
				}
				if cache, err = os.ReadFile(matches[0]); err != nil {
					b.Fatal(err)
				}
				b.Logf("cache %s: %.1f MiB", filepath.Base(matches[0]), float64(len(cache))/(1<<20))
				cacheName := filepath.Base(matches[0])
				defer func() { _ = cacheName }()
				b.ResetTimer()
				for b.Loop() {
					b.StopTimer()
					home := b.TempDir()
					os.MkdirAll(filepath.Join(home, storage.CacheDir), 0o755)
					os.WriteFile(filepath.Join(home, storage.CacheDir, cacheName), cache, 0o644)
					b.StartTimer()
					benchIngest(b, home, root, m)
				}
				return
			}
			for b.Loop() {
				b.StopTimer()
				home := b.TempDir()
				b.StartTimer()
				benchIngest(b, home, root, m)
			}
		})
	}
}

func benchIngest(b *testing.B, home, root string, m pipeline.Mode) {
	st, err := storage.Open(home)
	if err != nil {
		b.Fatal(err)
	}
	res, err := Ingest(context.Background(), st, IngestOptions{Project: "p", Dir: root, Mode: m})
	st.Close()
	if err != nil {
		b.Fatal(err)
	}
	if res.Report.OK+res.Report.Failed != 909 {
		b.Fatalf("%d items", res.Report.OK+res.Report.Failed)
	}
	b.ReportMetric(float64(res.Report.Cached), "cached")
	b.ReportMetric(res.Report.Seconds, "run-s")
}
