package gpt

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateRejectsBadOptions: every option out of range is an error
// naming it before any work (a NaN temperature used to panic in pick with
// an index out of range; -1, top-p 5 and top-k -3 were accepted).
func TestGenerateRejectsBadOptions(t *testing.T) {
	m, _ := tinyModel(t, 21, 3)
	s := m.NewSampler(16)
	nan := math.NaN()
	for _, c := range []struct {
		o    SampleOptions
		want string
	}{
		{SampleOptions{MaxTokens: 4, Temperature: nan, TopP: 0.9}, "temperature NaN"},
		{SampleOptions{MaxTokens: 4, Temperature: math.Inf(1)}, "temperature +Inf"},
		{SampleOptions{MaxTokens: 4, Temperature: -1}, "temperature -1 outside 0 to 100"},
		{SampleOptions{MaxTokens: 4, Temperature: 1, TopP: 5}, "top-p 5 outside 0 to 1"},
		{SampleOptions{MaxTokens: 4, Temperature: 1, TopP: nan}, "top-p NaN"},
		{SampleOptions{MaxTokens: 4, Temperature: 1, TopK: -3}, "top-k -3"},
		{SampleOptions{MaxTokens: 0, Temperature: 1}, "MaxTokens 0"},
	} {
		_, err := s.Generate(context.Background(), []uint16{1}, c.o)
		if !errors.Is(err, ErrBadOption) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want ErrBadOption naming %q", c.o, err, c.want)
		}
	}
}

// TestGenerateStopsAtNaNLogits: a model whose weights went NaN yields NaN
// logits; Generate names that instead of "no token allowed by the
// constraint".
func TestGenerateStopsAtNaNLogits(t *testing.T) {
	m, _ := tinyModel(t, 21, 3)
	h := m.Params().Host()
	for i := range h {
		h[i] = float32(math.NaN())
	}
	_, err := m.NewSampler(16).Generate(context.Background(), []uint16{1}, SampleOptions{MaxTokens: 4, Temperature: 1, EOS: -1})
	if !errors.Is(err, ErrNonFinite) || errors.Is(err, ErrNoToken) || !strings.Contains(err.Error(), "NaN") {
		t.Fatalf("err %v, want ErrNonFinite naming NaN", err)
	}
}

// TestLoadRejectsNaNWeights: a saved model holding NaN is refused at load,
// naming the file and the tensor.
func TestLoadRejectsNaNWeights(t *testing.T) {
	m, be := tinyModel(t, 21, 3)
	h := m.Params().Host()
	h[len(h)-1] = float32(math.Inf(-1))
	dir := t.TempDir()
	if err := m.Save(dir, "F32"); err != nil {
		t.Fatal(err)
	}
	_, err := Load(be, dir)
	if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), WeightsFile) || !strings.Contains(err.Error(), "-Inf") {
		t.Fatalf("err %v, want ErrNonFinite naming %s and -Inf", err, WeightsFile)
	}
}

// TestConfigLimits: the absurd config.json of the audit (1,024 layers,
// width 65,536, 1 M positions) and each of its numbers alone fail
// validation with the value and the limit, instead of a fatal
// out-of-memory when the model is allocated.
func TestConfigLimits(t *testing.T) {
	base, err := Preset("small", 600)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.NLayer, c.NHead, c.NEmbd, c.NPositions = 1024, 16, 65536, 1<<20 }, "n_layer 1024"},
		{func(c *Config) { c.NLayer = 1024 }, "n_layer 1024 outside 1 to 128"},
		{func(c *Config) { c.NEmbd, c.NHead = 65536, 16 }, "n_embd 65536 outside 1 to 16384"},
		{func(c *Config) { c.NPositions = 1 << 20 }, "n_positions 1048576 outside 1 to 16384"},
		{func(c *Config) { c.NHead = 512; c.NEmbd = 512 }, "n_head 512 outside 1 to 128"},
		{func(c *Config) { c.NLayer, c.NEmbd, c.NHead = 128, 16384, 128 }, "parameters"},
		{func(c *Config) { c.LayerNormEps = math.NaN() }, "layer_norm_epsilon"},
	} {
		cfg := base
		c.edit(&cfg)
		err := cfg.Validate()
		if !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want ErrBadConfig naming %q", cfg, err, c.want)
		}
		// Through config.json as a user would give it (JSON has no NaN).
		if math.IsNaN(cfg.LayerNormEps) {
			continue
		}
		dir := t.TempDir()
		if err := WriteConfig(filepath.Join(dir, ConfigFile), cfg); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadConfig(filepath.Join(dir, ConfigFile)); !errors.Is(err, ErrBadConfig) {
			t.Errorf("ReadConfig of %+v: %v", cfg, err)
		}
	}
	if err := base.Validate(); err != nil {
		t.Errorf("small preset: %v", err)
	}
	for _, n := range PresetNames() {
		if _, err := Preset(n, 65536); err != nil {
			t.Errorf("preset %s with the largest vocabulary: %v", n, err)
		}
	}
}
