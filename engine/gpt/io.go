package gpt

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/amtstudio/amt/engine/nn"
)

// File names inside a model folder.
const (
	ConfigFile  = "config.json"
	WeightsFile = "model.safetensors"
	VocabFile   = "vocab.json" // written by the caller (engine/token)
)

// NamedTensors returns the parameters as safetensors tensors with Hugging
// Face names (copied to the host).
func (m *Model) NamedTensors() []STensor {
	host := make([]float32, m.params.Len())
	m.be.Download(host, m.params)
	return namedFrom(m.Config, host, "")
}

// CopyOnto returns a model of config c on be holding m's parameters: the
// same model as another sampling lane or on another device (c has m's
// shapes; its window may differ). name names the copy in errors.
func (m *Model) CopyOnto(be nn.Backend, c Config, name string) (*Model, error) {
	net, err := New(be, c)
	if err != nil {
		return nil, err
	}
	ts := map[string]STensor{}
	for _, t := range m.NamedTensors() {
		ts[t.Name] = t
	}
	if err := net.SetTensors(name, ts); err != nil {
		return nil, err
	}
	return net, nil
}

func namedFrom(c Config, host []float32, prefix string) []STensor {
	ts := c.Tensors()
	out := make([]STensor, len(ts))
	for i, t := range ts {
		out[i] = STensor{Name: prefix + t.Name, Shape: t.Shape, Data: host[t.Off : t.Off+t.Size()]}
	}
	return out
}

// Save writes config.json and model.safetensors (dtype F32, F16 or BF16)
// into dir, each atomically. The vocabulary file is the caller's.
func (m *Model) Save(dir, dtype string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("gpt: save: %w", err)
	}
	if err := WriteSafetensors(filepath.Join(dir, WeightsFile), m.NamedTensors(), map[string]string{"format": "pt"}, dtype); err != nil {
		return err
	}
	return WriteConfig(filepath.Join(dir, ConfigFile), m.Config)
}

// Load reads a model folder (config.json + model.safetensors) onto be.
func Load(be nn.Backend, dir string) (*Model, error) {
	c, err := ReadConfig(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, WeightsFile)
	ts, _, err := ReadSafetensors(path)
	if err != nil {
		return nil, err
	}
	m, err := New(be, c)
	if err != nil {
		return nil, err
	}
	if err := m.SetTensors(path, ts); err != nil {
		return nil, err
	}
	return m, nil
}

// SetTensors fills the parameters from Hugging Face-named tensors: every
// parameter must be present with its exact shape. The tied lm_head.weight and
// the attention-mask buffers old transformers versions saved are accepted and
// ignored; names may lack the "transformer." prefix (GPT2Model files). Any
// other tensor is an error, and so is a NaN or infinite weight
// (ErrNonFinite). name is used in errors.
func (m *Model) SetTensors(name string, ts map[string]STensor) error {
	norm := make(map[string]STensor, len(ts))
	for k, t := range ts {
		switch {
		case k == "lm_head.weight", strings.HasSuffix(k, ".attn.bias"), strings.HasSuffix(k, ".attn.masked_bias"):
			continue
		case !strings.HasPrefix(k, "transformer."):
			k = "transformer." + k
		}
		norm[k] = t
	}
	host := make([]float32, m.params.Len())
	want := m.Config.Tensors()
	for _, w := range want {
		t, ok := norm[w.Name]
		if !ok {
			return fmt.Errorf("%w: %s: tensor %s missing", ErrBadSafetensors, name, w.Name)
		}
		if !sameShape(t.Shape, w.Shape) {
			return fmt.Errorf("%w: %s: tensor %s has shape %v, config wants %v", ErrBadSafetensors, name, w.Name, t.Shape, w.Shape)
		}
		for i, v := range t.Data {
			if v != v || math.IsInf(float64(v), 0) {
				return fmt.Errorf("%w: %s: tensor %s holds %v at index %d (a diverged or corrupt model)", ErrNonFinite, name, w.Name, v, i)
			}
		}
		copy(host[w.Off:w.Off+w.Size()], t.Data)
		delete(norm, w.Name)
	}
	for k := range norm {
		return fmt.Errorf("%w: %s: unexpected tensor %s", ErrBadSafetensors, name, k)
	}
	m.be.Upload(m.params, host)
	return nil
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
