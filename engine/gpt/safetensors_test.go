package gpt

import (
	"encoding/binary"
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

func TestHalfConversions(t *testing.T) {
	cases := []struct {
		f    float32
		h, b uint16
	}{
		{1, 0x3c00, 0x3f80}, {-2, 0xc000, 0xc000}, {0.5, 0x3800, 0x3f00}, {65504, 0x7bff, 0x4780},
		{0, 0, 0}, {float32(math.Inf(1)), 0x7c00, 0x7f80}, {5.960464477539063e-08, 0x0001, 0x3380},
	}
	for _, c := range cases {
		if got := f32ToF16(c.f); got != c.h {
			t.Errorf("f16(%g) = %#04x, want %#04x", c.f, got, c.h)
		}
		if got := f16ToF32(c.h); got != c.f && c.f != 65504 {
			t.Errorf("f16 %#04x = %g, want %g", c.h, got, c.f)
		}
		if got := f32ToBF16(c.f); got != c.b {
			t.Errorf("bf16(%g) = %#04x, want %#04x", c.f, got, c.b)
		}
	}
}

func stFile(header string, data int) []byte {
	b := make([]byte, 8+len(header)+data)
	binary.LittleEndian.PutUint64(b, uint64(len(header)))
	copy(b[8:], header)
	return b
}

func TestParseSafetensorsRejectsBadFiles(t *testing.T) {
	huge := make([]byte, 8)
	binary.LittleEndian.PutUint64(huge, 1<<62)
	cases := []struct {
		name, want string
		data       []byte
	}{
		{"short", "shorter than", []byte{1, 2, 3}},
		{"header past end", "exceeds the file size", stFile(`{}`, 0)[:9]},
		{"header huge", "exceeds the limit", huge},
		{"not json", "not a JSON object", stFile(`{"a":`, 0)},
		{"bad dtype", "dtype \"I64\"", stFile(`{"a":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}}`, 8)},
		{"offsets past data", "outside the 4 data bytes", stFile(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 4)},
		{"size mismatch", "want 12", stFile(`{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, 8)},
		{"negative dim", "bad shape", stFile(`{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}}`, 0)},
		{"overflow dims", "bad shape", stFile(`{"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`, 0)},
		{"reversed offsets", "outside", stFile(`{"a":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}}`, 4)},
		{"overlap", "overlap", stFile(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8)},
		{"one offset", "data_offsets has 1", stFile(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}}`, 4)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ParseSafetensors("x.safetensors", c.data)
			if !errors.Is(err, ErrBadSafetensors) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "x.safetensors") {
				t.Fatalf("err = %v, want ErrBadSafetensors naming the file and %q", err, c.want)
			}
		})
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

func FuzzParseSafetensors(f *testing.F) {
	f.Add(stFile(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 4))
	f.Add(stFile(`{"__metadata__":{"format":"pt"},"b":{"dtype":"BF16","shape":[2,1],"data_offsets":[0,4]}}`, 4))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, _, err := ParseSafetensors("fuzz", data)
		if err != nil {
			return
		}
		for _, tn := range ts {
			n := 1
			for _, d := range tn.Shape {
				n *= d
			}
			if n != len(tn.Data) {
				t.Fatalf("tensor %s: %d values for shape %v", tn.Name, len(tn.Data), tn.Shape)
			}
		}
	})
}
