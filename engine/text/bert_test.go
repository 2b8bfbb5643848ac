package text

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateFixture = flag.Bool("update-fixture", false, "rewrite testdata/tinybert (a tiny random BERT)")

// tinyVocab is the vocabulary of the fixture and the tokenizer tests.
var tinyVocab = []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "un", "##aff",
	"##able", ",", "!", ".", "我", "爱", "cafe", "piano", "slow", "fast", "waltz", "jig", "reel", "in",
	"d", "major", "minor", "a", "for", "strings", "##s", "happy", "sad", "song", "music", "the", "of",
	"folk", "tune", "##ing", "play"}

const tinyDir = "testdata/tinybert"

func TestSafetensorsReadHandMade(t *testing.T) {
	// Header and data written by hand from the format description.
	header := `{"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},` +
		`"b":{"dtype":"F16","shape":[1,3],"data_offsets":[8,14]},"c":{"dtype":"BF16","shape":[],"data_offsets":[14,16]}}`
	var buf bytes.Buffer
	binary.Write(&buf, binary.LittleEndian, uint64(len(header)))
	buf.WriteString(header)
	binary.Write(&buf, binary.LittleEndian, []float32{1.5, -2})
	binary.Write(&buf, binary.LittleEndian, []uint16{0x3C00, 0xC000, 0x0001}) // 1, −2, 2^-24
	binary.Write(&buf, binary.LittleEndian, uint16(0x3FC0))                   // bf16 1.5
	ts, err := parseSafetensors(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 3 {
		t.Fatalf("%d tensors", len(ts))
	}
	if !slices.Equal(ts["a"].Data, []float32{1.5, -2}) || !slices.Equal(ts["b"].Data, []float32{1, -2, float32(math.Ldexp(1, -24))}) ||
		!slices.Equal(ts["c"].Data, []float32{1.5}) || !slices.Equal(ts["b"].Shape, []int{1, 3}) {
		t.Errorf("values a=%v b=%v c=%v", ts["a"].Data, ts["b"].Data, ts["c"].Data)
	}
	// Damaged files.
	data := buf.Bytes()
	bad := map[string][]byte{
		"short":       data[:5],
		"huge header": append(binary.LittleEndian.AppendUint64(nil, 1<<40), data[8:]...),
		"truncated":   data[:len(data)-1],
		"bad json":    append(binary.LittleEndian.AppendUint64(nil, 3), []byte("{x}")...),
	}
	for name, d := range bad {
		if _, err := parseSafetensors(d); !errors.Is(err, ErrSafetensors) {
			t.Errorf("%s: %v, want ErrSafetensors", name, err)
		}
	}
}

func TestSafetensorsWriteExact(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.safetensors")
	if err := writeSafetensors(p, map[string]*stTensor{"x": {Shape: []int{1}, Data: []float32{2}}}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	hdr := `{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`
	for len(hdr)%8 != 0 {
		hdr += " "
	}
	want := binary.LittleEndian.AppendUint64(nil, uint64(len(hdr)))
	want = append(want, hdr...)
	want = binary.LittleEndian.AppendUint32(want, math.Float32bits(2))
	if !bytes.Equal(got, want) {
		t.Errorf("bytes\n got %q\nwant %q", got, want)
	}
	if err := writeSafetensors(p, map[string]*stTensor{"x": {Shape: []int{2}, Data: []float32{2}}}); !errors.Is(err, ErrSafetensors) {
		t.Errorf("shape mismatch: %v", err)
	}
}

func writeVocab(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "vocab.txt")
	if err := os.WriteFile(p, []byte(strings.Join(tinyVocab, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWordPiece(t *testing.T) {
	wp, err := LoadWordPiece(writeVocab(t, t.TempDir()), true)
	if err != nil {
		t.Fatal(err)
	}
	// Worked out by hand with BERT's rules: lower case, accents stripped,
	// punctuation and CJK characters split, greedy longest match with ##.
	cases := map[string][]string{
		"Héllo, World!":          {"hello", ",", "world", "!"},
		"unaffable":              {"un", "##aff", "##able"},
		"我爱音乐":                   {"我", "爱", "[UNK]", "[UNK]"},
		"CAFÉ\tpianos":           {"cafe", "piano", "##s"},
		"  playing\u00a0folk  ":  {"play", "##ing", "folk"},
		"xyz":                    {"[UNK]"},
		"a\u0000b\u200b":         {"[UNK]"}, // NUL dropped, zero-width (Cf) dropped: "ab"
		strings.Repeat("a", 101): {"[UNK]"},
		"":                       nil,
	}
	for in, want := range cases {
		if got := wp.Tokenize(in); !slices.Equal(got, want) {
			t.Errorf("Tokenize(%q) = %q, want %q", in, got, want)
		}
	}
	ids := wp.Encode("hello world", 0)
	if !slices.Equal(ids, []int{2, 5, 6, 3}) {
		t.Errorf("Encode = %v", ids)
	}
	if ids := wp.Encode("hello world hello world", 4); !slices.Equal(ids, []int{2, 5, 6, 3}) {
		t.Errorf("truncated Encode = %v", ids)
	}
	// Cased tokenizer keeps case and accents.
	cased, _ := LoadWordPiece(writeVocab(t, t.TempDir()), false)
	if got := cased.Tokenize("Hello café"); !slices.Equal(got, []string{"[UNK]", "[UNK]"}) {
		t.Errorf("cased: %q", got)
	}
}

// TestWriteTinyBERT rewrites the fixture with -update-fixture: a 2-layer,
// 16-wide random BERT with the tiny vocabulary, saved with our own writer.
func TestWriteTinyBERT(t *testing.T) {
	if !*updateFixture {
		t.Skip("run with -update-fixture to rewrite testdata/tinybert")
	}
	cfg := BERTConfig{VocabSize: len(tinyVocab), HiddenSize: 16, NumLayers: 2, NumHeads: 2, IntermediateSize: 32,
		MaxPositions: 24, TypeVocabSize: 2, LayerNormEps: 1e-12, HiddenAct: "gelu", ModelType: "bert"}
	rng := rand.New(rand.NewPCG(2026, 11))
	ts := map[string]*stTensor{}
	add := func(name string, scale, offset float64, shape ...int) {
		n := 1
		for _, d := range shape {
			n *= d
		}
		d := make([]float32, n)
		for i := range d {
			d[i] = float32(offset + scale*rng.NormFloat64())
		}
		ts[name] = &stTensor{Shape: shape, Data: d}
	}
	H, I := cfg.HiddenSize, cfg.IntermediateSize
	add("embeddings.word_embeddings.weight", 0.5, 0, cfg.VocabSize, H)
	add("embeddings.position_embeddings.weight", 0.2, 0, cfg.MaxPositions, H)
	add("embeddings.token_type_embeddings.weight", 0.2, 0, cfg.TypeVocabSize, H)
	add("embeddings.LayerNorm.weight", 0.1, 1, H)
	add("embeddings.LayerNorm.bias", 0.1, 0, H)
	for l := 0; l < cfg.NumLayers; l++ {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		for _, n := range []string{"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"} {
			add(p+n+".weight", 0.3, 0, H, H)
			add(p+n+".bias", 0.1, 0, H)
		}
		add(p+"attention.output.LayerNorm.weight", 0.1, 1, H)
		add(p+"attention.output.LayerNorm.bias", 0.1, 0, H)
		add(p+"intermediate.dense.weight", 0.3, 0, I, H)
		add(p+"intermediate.dense.bias", 0.1, 0, I)
		add(p+"output.dense.weight", 0.2, 0, H, I)
		add(p+"output.dense.bias", 0.1, 0, H)
		add(p+"output.LayerNorm.weight", 0.1, 1, H)
		add(p+"output.LayerNorm.bias", 0.1, 0, H)
	}
	add("pooler.dense.weight", 0.3, 0, H, H) // present in real checkpoints, unused
	add("pooler.dense.bias", 0.1, 0, H)
	if err := os.MkdirAll(tinyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cj, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(tinyDir, "config.json"), append(cj, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	writeVocab(t, tinyDir)
	if err := writeSafetensors(filepath.Join(tinyDir, "model.safetensors"), ts); err != nil {
		t.Fatal(err)
	}
}

// refBERT is a float64 reference of BertModel's forward written directly
// from the tensors by name (no code shared with BERT.Forward).
func refBERT(t *testing.T, ts map[string]*stTensor, cfg BERTConfig, ids []int) [][]float64 {
	t.Helper()
	w := func(name string) []float64 {
		x, ok := ts[name]
		if !ok {
			t.Fatalf("fixture lacks %s", name)
		}
		out := make([]float64, len(x.Data))
		for i, v := range x.Data {
			out[i] = float64(v)
		}
		return out
	}
	H, T := cfg.HiddenSize, len(ids)
	ln := func(x []float64, g, b []float64) []float64 {
		m, v := 0.0, 0.0
		for _, a := range x {
			m += a
		}
		m /= float64(len(x))
		for _, a := range x {
			v += (a - m) * (a - m)
		}
		v /= float64(len(x))
		out := make([]float64, len(x))
		for i, a := range x {
			out[i] = (a-m)/math.Sqrt(v+cfg.LayerNormEps)*g[i] + b[i]
		}
		return out
	}
	dense := func(x []float64, W, bias []float64, out int) []float64 {
		in := len(x)
		y := make([]float64, out)
		for o := 0; o < out; o++ {
			y[o] = bias[o]
			for i := 0; i < in; i++ {
				y[o] += W[o*in+i] * x[i]
			}
		}
		return y
	}
	we, pe, te := w("embeddings.word_embeddings.weight"), w("embeddings.position_embeddings.weight"), w("embeddings.token_type_embeddings.weight")
	hs := make([][]float64, T)
	for i, id := range ids {
		e := make([]float64, H)
		for j := range e {
			e[j] = we[id*H+j] + pe[i*H+j] + te[j]
		}
		hs[i] = ln(e, w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"))
	}
	nh, dh := cfg.NumHeads, H/cfg.NumHeads
	for l := 0; l < cfg.NumLayers; l++ {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		q, k, v := make([][]float64, T), make([][]float64, T), make([][]float64, T)
		for i := range hs {
			q[i] = dense(hs[i], w(p+"attention.self.query.weight"), w(p+"attention.self.query.bias"), H)
			k[i] = dense(hs[i], w(p+"attention.self.key.weight"), w(p+"attention.self.key.bias"), H)
			v[i] = dense(hs[i], w(p+"attention.self.value.weight"), w(p+"attention.self.value.bias"), H)
		}
		next := make([][]float64, T)
		for i := 0; i < T; i++ {
			ctx := make([]float64, H)
			for h := 0; h < nh; h++ {
				sc := make([]float64, T)
				mx := math.Inf(-1)
				for j := 0; j < T; j++ {
					for d := 0; d < dh; d++ {
						sc[j] += q[i][h*dh+d] * k[j][h*dh+d]
					}
					sc[j] /= math.Sqrt(float64(dh))
					mx = math.Max(mx, sc[j])
				}
				z := 0.0
				for j := range sc {
					sc[j] = math.Exp(sc[j] - mx)
					z += sc[j]
				}
				for j := range sc {
					for d := 0; d < dh; d++ {
						ctx[h*dh+d] += sc[j] / z * v[j][h*dh+d]
					}
				}
			}
			a := dense(ctx, w(p+"attention.output.dense.weight"), w(p+"attention.output.dense.bias"), H)
			for j := range a {
				a[j] += hs[i][j]
			}
			a = ln(a, w(p+"attention.output.LayerNorm.weight"), w(p+"attention.output.LayerNorm.bias"))
			mid := dense(a, w(p+"intermediate.dense.weight"), w(p+"intermediate.dense.bias"), cfg.IntermediateSize)
			for j, x := range mid {
				mid[j] = 0.5 * x * (1 + math.Erf(x/math.Sqrt2))
			}
			o := dense(mid, w(p+"output.dense.weight"), w(p+"output.dense.bias"), H)
			for j := range o {
				o[j] += a[j]
			}
			next[i] = ln(o, w(p+"output.LayerNorm.weight"), w(p+"output.LayerNorm.bias"))
		}
		hs = next
	}
	return hs
}

func TestBERTForwardMatchesFloat64Reference(t *testing.T) {
	b, err := LoadBERT(tinyDir)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := readSafetensors(filepath.Join(tinyDir, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"hello world", "A slow, sad waltz in D minor for strings!", "我爱 music", "x"} {
		ids := b.Tokenizer().Encode(text, b.Config().MaxPositions)
		got, err := b.Forward(ids)
		if err != nil {
			t.Fatal(err)
		}
		ref := refBERT(t, ts, b.Config(), ids)
		H := b.Dim()
		worst := 0.0
		for i := range ref {
			for j := range ref[i] {
				worst = math.Max(worst, math.Abs(float64(got[i*H+j])-ref[i][j]))
			}
		}
		if worst > 2e-5 {
			t.Errorf("%q: max |float32 − float64 reference| = %g", text, worst)
		}
		// Embed is the normalized mean of those rows.
		e := make([]float32, H)
		if err := b.Embed(text, e); err != nil {
			t.Fatal(err)
		}
		mean := make([]float64, H)
		n := 0.0
		for j := 0; j < H; j++ {
			for i := range ref {
				mean[j] += ref[i][j] / float64(len(ref))
			}
			n += mean[j] * mean[j]
		}
		for j := range mean {
			if d := math.Abs(float64(e[j]) - mean[j]/math.Sqrt(n)); d > 2e-5 {
				t.Fatalf("%q: pooled[%d] off by %g", text, j, d)
			}
		}
	}
	// The fixture is a BERT and the encoder an Embedder.
	var _ Embedder = b
	if b.Dim() != 16 || !strings.HasPrefix(b.Name(), "bert:") {
		t.Errorf("Dim %d Name %q", b.Dim(), b.Name())
	}
	// A sequence longer than the positions is truncated, not an error.
	long := strings.Repeat("hello ", 100)
	if err := b.Embed(long, make([]float32, 16)); err != nil {
		t.Errorf("long text: %v", err)
	}
	if _, err := b.Forward(make([]int, 25)); !errors.Is(err, ErrBERT) {
		t.Errorf("too many tokens: %v", err)
	}
	if _, err := b.Forward([]int{999}); !errors.Is(err, ErrBERT) {
		t.Errorf("bad id: %v", err)
	}
}

func TestLoadBERTErrors(t *testing.T) {
	if _, err := LoadBERT(t.TempDir()); !errors.Is(err, ErrBERT) {
		t.Errorf("empty folder: %v", err)
	}
	// A checkpoint missing one tensor names it.
	dir := t.TempDir()
	for _, f := range []string{"config.json", "vocab.txt"} {
		data, err := os.ReadFile(filepath.Join(tinyDir, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), data, 0o644)
	}
	ts, err := readSafetensors(filepath.Join(tinyDir, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	delete(ts, "encoder.layer.1.output.dense.bias")
	// Also store the rest under "bert." as BertForMaskedLM checkpoints do.
	pref := map[string]*stTensor{}
	for n, v := range ts {
		pref["bert."+n] = v
	}
	if err := writeSafetensors(filepath.Join(dir, "model.safetensors"), pref); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadBERT(dir); !errors.Is(err, ErrBERT) || !strings.Contains(err.Error(), "encoder.layer.1.output.dense.bias") {
		t.Errorf("missing tensor: %v", err)
	}
	pref["bert.encoder.layer.1.output.dense.bias"] = &stTensor{Shape: []int{16}, Data: make([]float32, 16)}
	if err := writeSafetensors(filepath.Join(dir, "model.safetensors"), pref); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadBERT(dir); err != nil {
		t.Errorf("bert. prefix: %v", err)
	}
}

// BenchmarkBERTEmbedTiny measures the tiny fixture (a floor of nothing: it
// shows the per-token overhead); the hashed embedder is the baseline.
func BenchmarkBERTEmbedTiny(b *testing.B) {
	m, err := LoadBERT(tinyDir)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]float32, m.Dim())
	for b.Loop() {
		_ = m.Embed("a slow sad waltz in d minor for strings", dst)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "captions/s")
}

// TestGELU checks both activations against values computed from their
// formulas by hand (Python math.erf/math.tanh, 16 digits).
func TestGELU(t *testing.T) {
	for _, c := range []struct{ x, erf, tanh float64 }{
		{1, 0.8413447460685429, 0.8411919906082768},
		{-1, -0.15865525393145707, -0.15880800939172324},
		{0, 0, 0},
	} {
		if g := float64(geluErf(float32(c.x))); math.Abs(g-c.erf) > 1e-6 {
			t.Errorf("geluErf(%v) = %v, want %v", c.x, g, c.erf)
		}
		if g := float64(geluTanh(float32(c.x))); math.Abs(g-c.tanh) > 1e-6 {
			t.Errorf("geluTanh(%v) = %v, want %v", c.x, g, c.tanh)
		}
	}
}
