package gpt

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	m, be := tinyModel(t, 25, 21)
	m.Config.TrainContext = 32
	dir := t.TempDir()
	if err := m.Save(dir, "F32"); err != nil {
		t.Fatal(err)
	}
	m2, err := Load(be, dir)
	if err != nil {
		t.Fatal(err)
	}
	if m2.Config != m.Config {
		t.Fatalf("config %+v, want %+v", m2.Config, m.Config)
	}
	a, b := m.Params().Host(), m2.Params().Host()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("param %d: %g after round trip, want %g", i, b[i], a[i])
		}
	}
	// BF16 and F16 storage round to within their precision.
	for _, dt := range []string{"F16", "BF16"} {
		d := filepath.Join(t.TempDir(), dt)
		if err := m.Save(d, dt); err != nil {
			t.Fatal(err)
		}
		m3, err := Load(be, d)
		if err != nil {
			t.Fatal(err)
		}
		rel := map[string]float64{"F16": 1.0 / 2048, "BF16": 1.0 / 256}[dt]
		for i, v := range m3.Params().Host() {
			if math.Abs(float64(v-a[i])) > rel*math.Abs(float64(a[i]))+1e-7 {
				t.Fatalf("%s param %d: %g, want %g", dt, i, v, a[i])
			}
		}
	}
}

func TestLoadRejectsMismatchedModel(t *testing.T) {
	m, be := tinyModel(t, 25, 22)
	dir := t.TempDir()
	if err := m.Save(dir, "F32"); err != nil {
		t.Fatal(err)
	}
	ts := m.NamedTensors()
	// Wrong shape for one tensor.
	bad := append([]STensor(nil), ts...)
	bad[0].Shape = []int{bad[0].Shape[1], bad[0].Shape[0]}
	if err := WriteSafetensors(filepath.Join(dir, WeightsFile), bad, nil, "F32"); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(be, dir); !errors.Is(err, ErrBadSafetensors) || !strings.Contains(err.Error(), "shape") {
		t.Fatalf("wrong shape: err %v", err)
	}
	// Missing tensor.
	if err := WriteSafetensors(filepath.Join(dir, WeightsFile), ts[1:], nil, "F32"); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(be, dir); !errors.Is(err, ErrBadSafetensors) || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing tensor: err %v", err)
	}
	// Tied head and GPT2Model names (no prefix) are accepted.
	alt := append([]STensor(nil), ts...)
	for i := range alt {
		alt[i].Name = strings.TrimPrefix(alt[i].Name, "transformer.")
	}
	alt = append(alt, STensor{Name: "lm_head.weight", Shape: ts[0].Shape, Data: ts[0].Data})
	if err := WriteSafetensors(filepath.Join(dir, WeightsFile), alt, nil, "F32"); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(be, dir); err != nil {
		t.Fatalf("HF variants: %v", err)
	}
	// Bad config.
	os.WriteFile(filepath.Join(dir, ConfigFile), []byte(`{"model_type":"gpt2","n_layer":2,"n_head":3,"n_embd":32,"n_positions":64,"vocab_size":25}`), 0o644)
	if _, err := Load(be, dir); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("n_embd not a multiple of n_head: err %v", err)
	}
}
