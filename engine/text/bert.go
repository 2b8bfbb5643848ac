package text

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"

	"github.com/amtstudio/amt/engine/userfile"
)

// BERTConfig holds the Hugging Face BertConfig keys the encoder uses.
type BERTConfig struct {
	VocabSize        int     `json:"vocab_size"`
	HiddenSize       int     `json:"hidden_size"`
	NumLayers        int     `json:"num_hidden_layers"`
	NumHeads         int     `json:"num_attention_heads"`
	IntermediateSize int     `json:"intermediate_size"`
	MaxPositions     int     `json:"max_position_embeddings"`
	TypeVocabSize    int     `json:"type_vocab_size"`
	LayerNormEps     float64 `json:"layer_norm_eps"`
	HiddenAct        string  `json:"hidden_act"`
	ModelType        string  `json:"model_type,omitempty"`
}

// ErrBERT marks a BERT folder that cannot be used.
var ErrBERT = errors.New("text: bad BERT model")

type bertLayer struct {
	q, k, v, o linear
	ln1g, ln1b []float32
	inter, out linear
	ln2g, ln2b []float32
}

type linear struct {
	w       []float32 // out × in, as PyTorch stores nn.Linear
	b       []float32
	in, out int
}

// BERT is a BERT-compatible sentence encoder: WordPiece tokens through the
// encoder layers, then the mean of the last hidden states over the tokens
// ([CLS] and [SEP] included, as sentence-transformers' mean pooling does
// with a full attention mask), L2-normalized. It implements Embedder and is
// safe for concurrent use.
type BERT struct {
	name    string
	cfg     BERTConfig
	tok     *WordPiece
	word    []float32 // vocab × H
	pos     []float32 // positions × H
	typ     []float32 // types × H (row 0 is used)
	embG    []float32
	embB    []float32
	layers  []bertLayer
	act     func(float32) float32
	scratch sync.Pool
}

// LoadBERT loads a Hugging Face BERT folder: config.json, vocab.txt and
// model.safetensors (tensor names of BertModel, with or without a "bert."
// prefix; F32, F16 or BF16). Lower-casing follows tokenizer_config.json's
// do_lower_case when present, else true (uncased models).
func LoadBERT(dir string) (*BERT, error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrBERT, dir, fmt.Sprintf(format, a...))
	}
	raw, err := userfile.ReadRegular(context.Background(), filepath.Join(dir, "config.json"), MaxTextFile)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBERT, err)
	}
	var cfg BERTConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fail("config.json: %v", err)
	}
	if cfg.LayerNormEps == 0 {
		cfg.LayerNormEps = 1e-12
	}
	if cfg.HiddenAct == "" {
		cfg.HiddenAct = "gelu"
	}
	if cfg.HiddenSize <= 0 || cfg.NumHeads <= 0 || cfg.HiddenSize%cfg.NumHeads != 0 || cfg.NumLayers <= 0 ||
		cfg.IntermediateSize <= 0 || cfg.MaxPositions <= 2 || cfg.VocabSize <= 0 {
		return nil, fail("config.json: inconsistent sizes %+v", cfg)
	}
	b := &BERT{name: "bert:" + filepath.Base(filepath.Clean(dir)), cfg: cfg}
	switch cfg.HiddenAct {
	case "gelu":
		b.act = geluErf
	case "gelu_new", "gelu_pytorch_tanh", "gelu_fast":
		b.act = geluTanh
	case "relu":
		b.act = func(x float32) float32 { return max(x, 0) }
	default:
		return nil, fail("hidden_act %q not supported (gelu, gelu_new, relu)", cfg.HiddenAct)
	}
	lower := true
	if tc, err := userfile.ReadRegular(context.Background(), filepath.Join(dir, "tokenizer_config.json"), MaxTextFile); err == nil {
		var t struct {
			DoLower *bool `json:"do_lower_case"`
		}
		if json.Unmarshal(tc, &t) == nil && t.DoLower != nil {
			lower = *t.DoLower
		}
	}
	if b.tok, err = LoadWordPiece(filepath.Join(dir, "vocab.txt"), lower); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBERT, err)
	}
	ts, err := readSafetensors(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBERT, err)
	}
	H, I := cfg.HiddenSize, cfg.IntermediateSize
	get := func(name string, shape ...int) ([]float32, error) {
		t, ok := ts[name]
		if !ok {
			t, ok = ts["bert."+name]
		}
		if !ok && strings.HasSuffix(name, "LayerNorm.weight") {
			return b.getAlt(ts, strings.TrimSuffix(name, "weight")+"gamma", shape)
		}
		if !ok && strings.HasSuffix(name, "LayerNorm.bias") {
			return b.getAlt(ts, strings.TrimSuffix(name, "bias")+"beta", shape)
		}
		if !ok {
			return nil, fail("model.safetensors: no tensor %s", name)
		}
		return checkShape(dir, name, t, shape)
	}
	var errs []error
	must := func(name string, shape ...int) []float32 {
		v, err := get(name, shape...)
		if err != nil {
			errs = append(errs, err)
		}
		return v
	}
	lin := func(prefix string, out, in int) linear {
		return linear{w: must(prefix+".weight", out, in), b: must(prefix+".bias", out), in: in, out: out}
	}
	b.word = must("embeddings.word_embeddings.weight", cfg.VocabSize, H)
	b.pos = must("embeddings.position_embeddings.weight", cfg.MaxPositions, H)
	if cfg.TypeVocabSize > 0 {
		b.typ = must("embeddings.token_type_embeddings.weight", cfg.TypeVocabSize, H)
	}
	b.embG = must("embeddings.LayerNorm.weight", H)
	b.embB = must("embeddings.LayerNorm.bias", H)
	for l := 0; l < cfg.NumLayers; l++ {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		b.layers = append(b.layers, bertLayer{
			q:     lin(p+"attention.self.query", H, H),
			k:     lin(p+"attention.self.key", H, H),
			v:     lin(p+"attention.self.value", H, H),
			o:     lin(p+"attention.output.dense", H, H),
			ln1g:  must(p+"attention.output.LayerNorm.weight", H),
			ln1b:  must(p+"attention.output.LayerNorm.bias", H),
			inter: lin(p+"intermediate.dense", I, H),
			out:   lin(p+"output.dense", H, I),
			ln2g:  must(p+"output.LayerNorm.weight", H),
			ln2b:  must(p+"output.LayerNorm.bias", H),
		})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if b.tok.Size() > cfg.VocabSize {
		return nil, fail("vocab.txt has %d tokens, the model %d", b.tok.Size(), cfg.VocabSize)
	}
	return b, nil
}

func (b *BERT) getAlt(ts map[string]*stTensor, name string, shape []int) ([]float32, error) {
	t, ok := ts[name]
	if !ok {
		t, ok = ts["bert."+name]
	}
	if !ok {
		return nil, fmt.Errorf("%w: model.safetensors: no tensor %s", ErrBERT, name)
	}
	return checkShape("", name, t, shape)
}

func checkShape(dir, name string, t *stTensor, shape []int) ([]float32, error) {
	if len(t.Shape) != len(shape) {
		return nil, fmt.Errorf("%w: %s: tensor %s has shape %v, want %v", ErrBERT, dir, name, t.Shape, shape)
	}
	for i := range shape {
		if t.Shape[i] != shape[i] {
			return nil, fmt.Errorf("%w: %s: tensor %s has shape %v, want %v", ErrBERT, dir, name, t.Shape, shape)
		}
	}
	return t.Data, nil
}

// Name implements Embedder.
func (b *BERT) Name() string { return b.name }

// Dim implements Embedder: the hidden size.
func (b *BERT) Dim() int { return b.cfg.HiddenSize }

// Config returns the model's configuration.
func (b *BERT) Config() BERTConfig { return b.cfg }

// Tokenizer returns the model's WordPiece tokenizer.
func (b *BERT) Tokenizer() *WordPiece { return b.tok }

// Embed implements Embedder: mean-pooled, L2-normalized last hidden states.
func (b *BERT) Embed(text string, dst []float32) error {
	H := b.cfg.HiddenSize
	if len(dst) < H {
		return fmt.Errorf("%w: %d < %d", ErrShortDst, len(dst), H)
	}
	ids := b.tok.Encode(text, b.cfg.MaxPositions)
	hs, err := b.Forward(ids)
	if err != nil {
		return err
	}
	T := len(ids)
	dst = dst[:H]
	clear(dst)
	for t := 0; t < T; t++ {
		for j, v := range hs[t*H : (t+1)*H] {
			dst[j] += v
		}
	}
	var n float64
	for j := range dst {
		dst[j] /= float32(T)
		n += float64(dst[j]) * float64(dst[j])
	}
	if n > 0 {
		inv := float32(1 / math.Sqrt(n))
		for j := range dst {
			dst[j] *= inv
		}
	}
	return nil
}

// bertScratch holds the activations of one forward pass.
type bertScratch struct {
	x, q, k, v, ctx, tmp, inter, scores []float32
}

// Forward returns the last hidden states (len(ids) × hidden, row-major) of
// one sequence of token ids (token type 0, no padding).
func (b *BERT) Forward(ids []int) ([]float32, error) {
	cfg := b.cfg
	T, H, I := len(ids), cfg.HiddenSize, cfg.IntermediateSize
	if T == 0 || T > cfg.MaxPositions {
		return nil, fmt.Errorf("%w: %d tokens (1…%d)", ErrBERT, T, cfg.MaxPositions)
	}
	sc, _ := b.scratch.Get().(*bertScratch)
	if sc == nil {
		sc = &bertScratch{}
	}
	defer b.scratch.Put(sc)
	grow := func(s []float32, n int) []float32 {
		if cap(s) < n {
			return make([]float32, n)
		}
		return s[:n]
	}
	sc.x, sc.q, sc.k, sc.v = grow(sc.x, T*H), grow(sc.q, T*H), grow(sc.k, T*H), grow(sc.v, T*H)
	sc.ctx, sc.tmp, sc.inter, sc.scores = grow(sc.ctx, T*H), grow(sc.tmp, T*H), grow(sc.inter, T*I), grow(sc.scores, T)
	x := sc.x
	// Embeddings.
	for t, id := range ids {
		if id < 0 || id >= cfg.VocabSize {
			return nil, fmt.Errorf("%w: token id %d outside the vocabulary (%d)", ErrBERT, id, cfg.VocabSize)
		}
		row := x[t*H : (t+1)*H]
		w, p := b.word[id*H:(id+1)*H], b.pos[t*H:(t+1)*H]
		for j := range row {
			row[j] = w[j] + p[j]
			if b.typ != nil {
				row[j] += b.typ[j]
			}
		}
		layerNorm(row, b.embG, b.embB, float32(cfg.LayerNormEps))
	}
	nh := cfg.NumHeads
	dh := H / nh
	scale := float32(1 / math.Sqrt(float64(dh)))
	for li := range b.layers {
		L := &b.layers[li]
		L.q.apply(sc.q, x, T)
		L.k.apply(sc.k, x, T)
		L.v.apply(sc.v, x, T)
		// Self-attention per head (no mask: one unpadded sequence).
		for h := 0; h < nh; h++ {
			for i := 0; i < T; i++ {
				qi := sc.q[i*H+h*dh : i*H+(h+1)*dh]
				s := sc.scores[:T]
				mx := float32(math.Inf(-1))
				for j := 0; j < T; j++ {
					s[j] = dotf(qi, sc.k[j*H+h*dh:j*H+(h+1)*dh]) * scale
					mx = max(mx, s[j])
				}
				var sum float32
				for j := range s {
					s[j] = float32(math.Exp(float64(s[j] - mx)))
					sum += s[j]
				}
				out := sc.ctx[i*H+h*dh : i*H+(h+1)*dh]
				clear(out)
				for j := range s {
					p := s[j] / sum
					vj := sc.v[j*H+h*dh : j*H+(h+1)*dh]
					for d := range out {
						out[d] += p * vj[d]
					}
				}
			}
		}
		L.o.apply(sc.tmp, sc.ctx, T)
		for t := 0; t < T; t++ {
			row := x[t*H : (t+1)*H]
			for j := range row {
				row[j] += sc.tmp[t*H+j]
			}
			layerNorm(row, L.ln1g, L.ln1b, float32(cfg.LayerNormEps))
		}
		L.inter.apply(sc.inter, x, T)
		for i, v := range sc.inter {
			sc.inter[i] = b.act(v)
		}
		L.out.apply(sc.tmp, sc.inter, T)
		for t := 0; t < T; t++ {
			row := x[t*H : (t+1)*H]
			for j := range row {
				row[j] += sc.tmp[t*H+j]
			}
			layerNorm(row, L.ln2g, L.ln2b, float32(cfg.LayerNormEps))
		}
	}
	return append([]float32(nil), x...), nil
}

// apply computes dst[t] = W·x[t] + b for T rows.
func (l *linear) apply(dst, x []float32, T int) {
	for t := 0; t < T; t++ {
		xt := x[t*l.in : (t+1)*l.in]
		dt := dst[t*l.out : (t+1)*l.out]
		for o := range dt {
			dt[o] = l.b[o] + dotf(xt, l.w[o*l.in:(o+1)*l.in])
		}
	}
}

func layerNorm(x, g, b []float32, eps float32) {
	var mean float32
	for _, v := range x {
		mean += v
	}
	mean /= float32(len(x))
	var vr float32
	for _, v := range x {
		d := v - mean
		vr += d * d
	}
	vr /= float32(len(x))
	inv := float32(1 / math.Sqrt(float64(vr+eps)))
	for i, v := range x {
		x[i] = (v-mean)*inv*g[i] + b[i]
	}
}

func geluErf(x float32) float32 {
	return 0.5 * x * (1 + float32(math.Erf(float64(x)/math.Sqrt2)))
}

func geluTanh(x float32) float32 {
	const c = 0.7978845608028654 // sqrt(2/π)
	return 0.5 * x * (1 + float32(math.Tanh(c*(float64(x)+0.044715*float64(x)*float64(x)*float64(x)))))
}

// dotf is a float32 inner product with four accumulators.
func dotf(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}
