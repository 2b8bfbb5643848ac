package text

import (
	"errors"
	"math"
	"testing"
)

func cosine(a, b []float32) float64 {
	var s, na, nb float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return s / math.Sqrt(na*nb)
}

func embed(t testing.TB, e Embedder, s string) []float32 {
	t.Helper()
	v := make([]float32, e.Dim())
	if err := e.Embed(s, v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestHashedEmbedder(t *testing.T) {
	e := NewHashed()
	if e.Dim() != 256 || e.Name() == "" {
		t.Fatalf("Dim %d Name %q", e.Dim(), e.Name())
	}
	v := embed(t, e, "A fast reel in D major for fiddle")
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if math.Abs(n-1) > 1e-5 {
		t.Errorf("|v|² = %v, want 1", n)
	}
	// Deterministic, case- and accent-insensitive, punctuation-insensitive.
	same := []string{"a FAST reel, in D major; for fiddle!", "A fást réel in D major for fiddle"}
	for _, s := range same {
		if c := cosine(v, embed(t, e, s)); c < 0.9999 {
			t.Errorf("cos(%q) = %v, want 1", s, c)
		}
	}
	// A decomposed accent (e + U+0301) embeds like the precomposed one.
	if c := cosine(embed(t, e, "café waltz"), embed(t, e, "cafe\u0301 waltz")); c < 0.9999 {
		t.Errorf("decomposed accent: cos %v", c)
	}
	// Related texts are nearer than unrelated ones.
	a := embed(t, e, "slow sad waltz for piano in A minor")
	b := embed(t, e, "a sad slow waltz on piano, A minor")
	c := embed(t, e, "energetic rock song with drums and electric guitar")
	d := embed(t, e, "waltzes")
	w := embed(t, e, "waltz")
	if cosine(a, b) <= cosine(a, c)+0.3 {
		t.Errorf("cos(related)=%v not clearly above cos(unrelated)=%v", cosine(a, b), cosine(a, c))
	}
	if cosine(d, w) < 0.3 {
		t.Errorf("waltz/waltzes share trigrams, cos %v", cosine(d, w))
	}
	// Word order matters a little (bigrams), not much.
	if c := cosine(embed(t, e, "piano solo"), embed(t, e, "solo piano")); c > 0.99 || c < 0.5 {
		t.Errorf("cos(piano solo, solo piano) = %v, want in (0.5, 0.99)", c)
	}
	// CJK text embeds to a unit vector and distinct titles differ.
	x, y := embed(t, e, "我真的受伤了 张学友"), embed(t, e, "123我爱你 新乐尘符")
	if cosine(x, y) > 0.5 {
		t.Errorf("distinct CJK titles too close: %v", cosine(x, y))
	}
	// Empty text is the zero vector; a short dst is an error.
	for _, s := range []string{"", "  ,;!  "} {
		for _, z := range embed(t, e, s) {
			if z != 0 {
				t.Fatalf("Embed(%q) not zero", s)
			}
		}
	}
	if err := e.Embed("x", make([]float32, 10)); !errors.Is(err, ErrShortDst) {
		t.Errorf("short dst: %v", err)
	}
}

func TestHashedNoAllocation(t *testing.T) {
	e := NewHashed()
	dst := make([]float32, e.Dim())
	s := `"Jenny Lind". A reel. From Nottingham Music Database. Fast (allegro) tempo, 120 bpm, in D major, 4/4 time, 32 bars. Played on acoustic grand piano (piano). 我爱你`
	if n := testing.AllocsPerRun(100, func() { _ = e.Embed(s, dst) }); n != 0 {
		t.Errorf("Embed allocates %v times per call", n)
	}
}

var benchCaptions = []string{
	`"我真的受伤了" by 张学友. Slow (adagio) tempo, 73 bpm, in G major, 4/4 time, 253 bars, 3:28 long. Played on acoustic grand piano (piano).`,
	`"Billy In The Lowground". A reel. From Nottingham Music Database. Fast (allegro) tempo, 120 bpm, in C major, 4/4 time, 32 bars, 1:04 long. Played on acoustic grand piano (piano).`,
	`"Modern Motion". From OpenMSX. Fast (allegro) tempo, 120 bpm, in C major, 4/4 time, 77 bars, 2:34 long. Played on acoustic grand piano, rock organ, electric guitar (clean), synth bass 1, orchestra hit and synth brass 1 (piano, organ, guitar, bass, ensemble and brass), with drums.`,
}

// BenchmarkHashedEmbed measures captions/s of the built-in embedder (floor
// 20,000/s); BenchmarkCaptionCopyBaseline copies the same captions byte by
// byte into a buffer as a same-run yardstick of memory traffic.
func BenchmarkHashedEmbed(b *testing.B) {
	e := NewHashed()
	dst := make([]float32, e.Dim())
	i := 0
	for b.Loop() {
		_ = e.Embed(benchCaptions[i%len(benchCaptions)], dst)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "captions/s")
}

func BenchmarkCaptionCopyBaseline(b *testing.B) {
	buf := make([]byte, 0, 1024)
	i := 0
	for b.Loop() {
		buf = append(buf[:0], benchCaptions[i%len(benchCaptions)]...)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "captions/s")
}
