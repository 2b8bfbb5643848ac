// Package gpt owns the GPT-2 model of AMT Studio, exactly as Hugging Face's
// GPT2LMHeadModel computes it (pre-LN blocks, learned positions, tied input
// and output embeddings, GELU tanh form, layer-norm eps 1e-5, attention
// scale 1/sqrt(head size)): its configuration and presets, one parameter
// buffer carved into named tensors with Hugging Face names, forward, loss and
// backward per layer in the manner of llm.c, safetensors and config.json I/O,
// and sampling with a KV cache.
//
// It runs on any nn.Backend and is pure Go, but for the compact sampler
// (compact.go: Compact, NewCompactSampler), which steps on the host with
// int8 weights and a half-precision cache through engine/nn/cpu's kernels
// (cgo, like the CPU backend itself). The reason for the one import: a
// decoding step of the small preset is bound by memory traffic, and reading
// a quarter of the bytes made the prompt path about 3× faster on the CPU
// (docs/BENCHMARKS.md, "Compact decoding"). It must never import app/, ui/,
// storage/, or engine/token (the token grammar reaches sampling through the
// Constraint interface).
package gpt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/userfile"
)

// Config is the shape of a model. JSON uses Hugging Face GPT-2 keys.
type Config struct {
	NLayer       int     `json:"n_layer"`
	NHead        int     `json:"n_head"`
	NEmbd        int     `json:"n_embd"`
	NPositions   int     `json:"n_positions"`
	VocabSize    int     `json:"vocab_size"`
	LayerNormEps float64 `json:"layer_norm_epsilon"`
	BOS          int     `json:"bos_token_id"`
	EOS          int     `json:"eos_token_id"`
	// TrainContext is the context the model was trained with (0: unknown);
	// sampling slides its window at this length, since positions beyond it
	// were never trained. Stored under our own key, which transformers keeps
	// as an attribute and otherwise ignores.
	TrainContext int `json:"amt_train_context,omitempty"`
	// KeyFrame is the frame of the pitches the model writes: "" (absolute:
	// KEY names tonic and mode, bodies are in any key) or KeyFrameTonic.
	// The package does nothing with it; the app reads it to transpose
	// requests and results (app/compose_keyframe.go).
	KeyFrame string `json:"amt_key_frame,omitempty"`
}

// KeyFrameTonic: the model was trained on bodies transposed to C major or A
// minor, so KEY names the mode only (KEY_C or KEY_Am) and the caller moves
// the music to the requested tonic.
const KeyFrameTonic = "tonic"

// ErrBadConfig marks an invalid configuration.
var ErrBadConfig = errors.New("gpt: bad config")

// Presets are the named model sizes (vocabulary set by the caller).
var presets = map[string]Config{
	// tiny: unit tests.
	"tiny": {NLayer: 2, NHead: 2, NEmbd: 32, NPositions: 128},
	// small: ≈3.6 M parameters with a vocabulary of ~600: the CPU default.
	"small": {NLayer: 4, NHead: 4, NEmbd: 256, NPositions: 1024},
	// medium: small with 6 layers, ≈5.3 M parameters: the largest shape
	// whose 16 bars stay within the 1.5 s budget of a whole `amt generate`
	// on the 2-core CPU (1.35 s a piece against small's 0.82 s; 8 layers or
	// width 384 take 2.2 s and more: docs/BENCHMARKS.md, "The next default
	// model's size"). Head size 64, as the GPU's tensor-core attention
	// takes; small's weights start it with two identity layers
	// (scripts/gpu/grow_model.py).
	"medium": {NLayer: 6, NHead: 4, NEmbd: 256, NPositions: 1024},
	// base: ≈26 M parameters: for GPUs.
	"base": {NLayer: 8, NHead: 8, NEmbd: 512, NPositions: 1024},
}

// PresetNames lists the presets, smallest first.
func PresetNames() []string { return []string{"tiny", "small", "medium", "base"} }

// Preset returns a named configuration for a vocabulary of vocab tokens.
func Preset(name string, vocab int) (Config, error) {
	c, ok := presets[name]
	if !ok {
		names := make([]string, 0, len(presets))
		for n := range presets {
			names = append(names, n)
		}
		sort.Strings(names)
		return Config{}, fmt.Errorf("%w: unknown preset %q (one of %s)", ErrBadConfig, name, strings.Join(names, ", "))
	}
	c.VocabSize = vocab
	c.LayerNormEps = 1e-5
	c.BOS, c.EOS = -1, -1
	return c, c.Validate()
}

// Limits of a configuration. They are far above any model this program
// trains (the base preset: 8 layers, width 512, 1,024 positions) and keep a
// hostile config.json from asking for more memory than a machine has: the
// parameters stay under MaxParams (4 GiB of float32), the sampler's
// attention buffer (heads × positions²) under 2^32 values.
const (
	MaxLayers    = 128
	MaxHeads     = 128
	MaxEmbd      = 16384
	MaxPositions = 16384
	MaxParams    = 1 << 30
)

// Validate checks the configuration: each number within its range (errors
// name the key, the value and the range), n_embd a multiple of n_head, and
// the parameter count and attention buffer within the limits above.
func (c Config) Validate() error {
	in := func(key string, v, lo, hi int) error {
		if v < lo || v > hi {
			return fmt.Errorf("%w: %s %d outside %d to %d", ErrBadConfig, key, v, lo, hi)
		}
		return nil
	}
	for _, err := range []error{
		in("n_layer", c.NLayer, 1, MaxLayers),
		in("n_head", c.NHead, 1, MaxHeads),
		in("n_embd", c.NEmbd, 1, MaxEmbd),
		in("n_positions", c.NPositions, 1, MaxPositions),
		in("vocab_size", c.VocabSize, 2, 65536),
	} {
		if err != nil {
			return err
		}
	}
	switch {
	case c.NEmbd%c.NHead != 0:
		return fmt.Errorf("%w: n_embd %d is not a multiple of n_head %d", ErrBadConfig, c.NEmbd, c.NHead)
	case !(c.LayerNormEps > 0) || c.LayerNormEps > 1:
		return fmt.Errorf("%w: layer_norm_epsilon %g outside (0, 1]", ErrBadConfig, c.LayerNormEps)
	case c.TrainContext < 0 || c.TrainContext > c.NPositions:
		return fmt.Errorf("%w: amt_train_context %d outside 0 to n_positions %d", ErrBadConfig, c.TrainContext, c.NPositions)
	case c.KeyFrame != "" && c.KeyFrame != KeyFrameTonic:
		return fmt.Errorf("%w: amt_key_frame %q: want \"\" or %q", ErrBadConfig, c.KeyFrame, KeyFrameTonic)
	}
	if p := c.NumParams(); p > MaxParams {
		return fmt.Errorf("%w: %d parameters (%d layers, width %d, vocabulary %d, %d positions): more than the limit of %d",
			ErrBadConfig, p, c.NLayer, c.NEmbd, c.VocabSize, c.NPositions, MaxParams)
	}
	if a := int64(c.NHead) * int64(c.NPositions) * int64(c.NPositions); a > 1<<32 {
		return fmt.Errorf("%w: attention over %d positions with %d heads needs %d values per sequence, more than the limit of 2^32",
			ErrBadConfig, c.NPositions, c.NHead, a)
	}
	return nil
}

// NumParams is the parameter count (tied embeddings counted once).
func (c Config) NumParams() int {
	n := 0
	for _, t := range c.Tensors() {
		n += t.Size()
	}
	return n
}

// hfConfig is config.json as transformers writes it for GPT-2.
type hfConfig struct {
	Config
	ModelType          string   `json:"model_type"`
	Architectures      []string `json:"architectures"`
	NCtx               int      `json:"n_ctx"`
	ActivationFunction string   `json:"activation_function"`
	TieWordEmbeddings  bool     `json:"tie_word_embeddings"`
	ResidPdrop         float64  `json:"resid_pdrop"`
	EmbdPdrop          float64  `json:"embd_pdrop"`
	AttnPdrop          float64  `json:"attn_pdrop"`
	InitializerRange   float64  `json:"initializer_range"`
	TorchDtype         string   `json:"torch_dtype"`
}

// WriteConfig writes config.json atomically.
func WriteConfig(path string, c Config) error {
	h := hfConfig{Config: c, ModelType: "gpt2", Architectures: []string{"GPT2LMHeadModel"}, NCtx: c.NPositions,
		ActivationFunction: "gelu_new", TieWordEmbeddings: true, InitializerRange: 0.02, TorchDtype: "float32",
		ResidPdrop: 0, EmbdPdrop: 0, AttnPdrop: 0}
	data, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(data, '\n'))
}

// maxConfigFile bounds config.json (a real one is under 2 KB).
const maxConfigFile = 1 << 20

// ReadConfig reads a Hugging Face GPT-2 config.json.
func ReadConfig(path string) (Config, error) {
	data, err := userfile.ReadRegular(context.Background(), path, maxConfigFile) // a FIFO or a device is refused, never waited on
	if err != nil {
		return Config{}, fmt.Errorf("gpt: read config: %w", err)
	}
	h := hfConfig{Config: Config{LayerNormEps: 1e-5, BOS: -1, EOS: -1}, ActivationFunction: "gelu_new", TieWordEmbeddings: true}
	if err := json.Unmarshal(data, &h); err != nil {
		return Config{}, fmt.Errorf("%w: %s: %v", ErrBadConfig, path, err)
	}
	if h.ModelType != "" && h.ModelType != "gpt2" {
		return Config{}, fmt.Errorf("%w: %s: model_type %q, want gpt2", ErrBadConfig, path, h.ModelType)
	}
	if h.ActivationFunction != "gelu_new" && h.ActivationFunction != "gelu_pytorch_tanh" {
		return Config{}, fmt.Errorf("%w: %s: activation_function %q, want gelu_new", ErrBadConfig, path, h.ActivationFunction)
	}
	if !h.TieWordEmbeddings {
		return Config{}, fmt.Errorf("%w: %s: untied embeddings are not supported", ErrBadConfig, path)
	}
	if err := h.Config.Validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return h.Config, nil
}

// writeAtomic writes data to path through a temporary file in the same
// folder, fsync and rename.
func writeAtomic(path string, data []byte) error {
	return writeAtomicFunc(path, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// writeAtomicFunc writes path atomically (engine/atomicfile), naming the
// file in the error.
func writeAtomicFunc(path string, write func(f *os.File) error) error {
	if err := atomicfile.Write(path, write); err != nil {
		return fmt.Errorf("gpt: write %s: %w", path, err)
	}
	return nil
}
