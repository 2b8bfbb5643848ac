package app

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/amtstudio/amt/assets"
	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/cpu"
	"github.com/amtstudio/amt/engine/token"
)

// EmbeddedModelDir is the Dir of the default model (it has no folder).
const EmbeddedModelDir = "(embedded default model)"

var defaultModel = sync.OnceValues(func() (*Model, error) { return loadEmbedded() })

// DefaultModel returns the model embedded in the binary (assets/model),
// loaded once and shared; callers must not Close it. Sampling on it must be
// serialised (Model.genMu, as Compose does).
func DefaultModel() (*Model, error) { return defaultModel() }

// loadEmbedded builds the default model from the embedded bytes.
func loadEmbedded() (*Model, error) {
	be := cpu.New()
	m, v, err := embeddedOnto(be)
	if err != nil {
		be.Close()
		return nil, err
	}
	return &Model{Dir: EmbeddedModelDir, Net: m, Vocab: v, be: be}, nil
}

// embeddedOnto builds the embedded default model on be (Compose's copy on
// the CPU; a fine-tune's base on the training device) with its
// vocabulary.
func embeddedOnto(be nn.Backend) (*gpt.Model, *token.Vocab, error) {
	if len(assets.ModelWeights) == 0 {
		return nil, nil, ErrNoModel
	}
	v, err := token.ParseVocab(assets.ModelVocab)
	if err != nil {
		return nil, nil, fmt.Errorf("default model: vocab.json: %w", err)
	}
	var c gpt.Config
	if err := json.Unmarshal(assets.ModelConfig, &c); err != nil {
		return nil, nil, fmt.Errorf("default model: config.json: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, nil, fmt.Errorf("default model: config.json: %w", err)
	}
	if c.VocabSize != v.Size() {
		return nil, nil, fmt.Errorf("default model: model vocabulary %d differs from vocab.json's %d", c.VocabSize, v.Size())
	}
	ts, _, err := gpt.ParseSafetensors("default model.safetensors", assets.ModelWeights)
	if err != nil {
		return nil, nil, fmt.Errorf("default model: %w", err)
	}
	m, err := gpt.New(be, c)
	if err != nil {
		return nil, nil, fmt.Errorf("default model: %w", err)
	}
	if err := m.SetTensors("default model.safetensors", ts); err != nil {
		return nil, nil, fmt.Errorf("default model: %w", err)
	}
	return m, v, nil
}
