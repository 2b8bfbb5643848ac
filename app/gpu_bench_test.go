//go:build cuda && cgo && linux

package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkGPUGenerate16Bars: 16-bar pieces of the default model on the
// prompt path (grammar, form, refills, decoding, measuring; one candidate),
// on the GPU ("device=cuda": prefills on the device, each token one CUDA
// graph of the decoding kernels, sampling on the host) and on the CPU of
// the same machine with the app's default decoding ("device=cpu": compact
// int8 where the CPU has AVX2, else float32), same prompts and seeds, one
// after the other. The two sample different pieces (their logits differ in
// the last bits), so compare tokens/s and s/piece (the issue-26 floor: 16
// bars ≥ 3× faster; -benchtime 16x at least, 4 pieces are too few to say). Needs a GPU (AMT_GPU_REQUIRED=1) or
// the emulator (AMT_CUDA_EMU; very slow there).
func BenchmarkGPUGenerate16Bars(b *testing.B) {
	if d := os.Getenv("AMT_CUDA_EMU"); d != "" {
		b.Setenv("AMT_CUDA_DRIVER", filepath.Join(d, "libcuda.so.1"))
		b.Setenv("AMT_CUBLAS", filepath.Join(d, "libcublas.so.12"))
	} else if os.Getenv("AMT_GPU_REQUIRED") != "1" {
		b.Skip("no GPU to measure on (AMT_GPU_REQUIRED=1 or AMT_CUDA_EMU)")
	}
	prompts := []string{"an upbeat pop song with piano, bass and drums", "a slow sad waltz on strings in a minor key"}
	for _, device := range []string{"cpu", "cuda"} {
		b.Run("device="+device, func(b *testing.B) {
			m, err := loadEmbedded()
			if err != nil {
				b.Skip(err)
			}
			defer m.Close()
			g, ch, err := m.OnDevice(device)
			if err != nil {
				b.Fatal(err)
			}
			if g != m {
				defer g.Close()
			}
			b.Logf("%s: %s", device, ch.Reason)
			toks := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := GenerateFromPrompt(context.Background(), g, PromptRequest{Prompt: prompts[i%len(prompts)], Bars: 16,
					Seed: uint64(i + 1), Candidates: 1, KeyBias: DefaultKeyBias})
				if err != nil {
					b.Fatal(err)
				}
				toks += r.New
			}
			b.ReportMetric(float64(toks)/b.Elapsed().Seconds(), "tokens/s")
			b.ReportMetric(float64(toks)/float64(b.N), "tokens/piece")
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/piece")
		})
	}
}
