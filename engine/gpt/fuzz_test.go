package gpt

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/amtstudio/amt/internal/fuzzbudget"
)

// FuzzReadConfig: any bytes as config.json give a configuration within the
// limits (so the model it describes can be allocated: at most MaxParams
// parameters) or an error wrapping ErrBadConfig, within the time budget.
func FuzzReadConfig(f *testing.F) {
	c, _ := Preset("small", 600)
	dir := f.TempDir()
	WriteConfig(filepath.Join(dir, ConfigFile), c)
	good, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
	f.Add(good)
	f.Add([]byte(`{"n_layer":1024,"n_head":16,"n_embd":65536,"n_positions":1048576,"vocab_size":600}`))
	f.Add([]byte(`{"n_layer":2,"n_head":2,"n_embd":32,"n_positions":128,"vocab_size":50,"model_type":"bert"}`))
	f.Add([]byte(`{"n_layer":2,"n_head":2,"n_embd":32,"n_positions":128,"vocab_size":50,"layer_norm_epsilon":-1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), ConfigFile)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fuzzbudget.Check(t, len(data), func() {
			c, err := ReadConfig(p)
			if err != nil {
				if !errors.Is(err, ErrBadConfig) {
					t.Fatalf("error %v does not wrap ErrBadConfig", err)
				}
				return
			}
			if c.NumParams() > MaxParams || c.NLayer > MaxLayers || c.NEmbd > MaxEmbd || c.NPositions > MaxPositions {
				t.Fatalf("config beyond the limits passed: %+v", c)
			}
			if _, err := json.Marshal(c); err != nil {
				t.Fatalf("a valid config does not marshal: %v", err)
			}
		})
	})
}
