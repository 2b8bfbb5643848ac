package safetensors

import (
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/internal/fuzzbudget"
)

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

func TestHalfSpecials(t *testing.T) {
	for h, want := range map[uint16]float32{0x7BFF: 65504, 0x3555: 0.333251953125, 0x8000: float32(math.Copysign(0, -1)), 0x0400: float32(math.Ldexp(1, -14))} {
		if got := f16ToF32(h); got != want || math.Signbit(float64(got)) != math.Signbit(float64(want)) {
			t.Errorf("half %#04x = %v, want %v", h, got, want)
		}
	}
	if !math.IsInf(float64(f16ToF32(0x7C00)), 1) || !math.IsNaN(float64(f16ToF32(0x7E00))) {
		t.Error("half inf/nan")
	}
}

func stFile(header string, data int) []byte {
	b := make([]byte, 8+len(header)+data)
	binary.LittleEndian.PutUint64(b, uint64(len(header)))
	copy(b[8:], header)
	return b
}

func TestParseRejectsBadFiles(t *testing.T) {
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
			_, _, err := Parse("x.safetensors", c.data)
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "x.safetensors") {
				t.Fatalf("err = %v, want ErrFormat naming the file and %q", err, c.want)
			}
		})
	}
}

func TestWriteReadRoundTripEveryDType(t *testing.T) {
	dir := t.TempDir()
	ts := []Tensor{{Name: "a", Shape: []int{2, 2}, Data: []float32{1, -2, 0.5, 1024}}, {Name: "s", Shape: []int{}, Data: []float32{3}}}
	for _, dt := range []string{"F32", "F16", "BF16"} {
		p := filepath.Join(dir, dt+".safetensors")
		if err := Write(p, ts, map[string]string{"k": "v"}, dt); err != nil {
			t.Fatal(err)
		}
		got, meta, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if meta["k"] != "v" || len(got) != 2 || got["a"].DType != dt {
			t.Fatalf("%s: meta %v, %d tensors, dtype %s", dt, meta, len(got), got["a"].DType)
		}
		for _, want := range ts { // every value is exact in all three dtypes
			g := got[want.Name]
			if len(g.Data) != len(want.Data) || len(g.Shape) != len(want.Shape) {
				t.Fatalf("%s %s: %v %v", dt, want.Name, g.Shape, g.Data)
			}
			for i := range want.Data {
				if g.Data[i] != want.Data[i] {
					t.Errorf("%s %s[%d] = %g, want %g", dt, want.Name, i, g.Data[i], want.Data[i])
				}
			}
		}
	}
	if err := Write(filepath.Join(dir, "bad.safetensors"), []Tensor{{Name: "x", Shape: []int{2}, Data: []float32{1}}}, nil, "F32"); !errors.Is(err, ErrFormat) {
		t.Errorf("short data: %v, want ErrFormat", err)
	}
	if err := Write(filepath.Join(dir, "f64.safetensors"), ts, nil, "F64"); err == nil {
		t.Error("writing F64 succeeded")
	}
}

func TestParseReadsF64(t *testing.T) {
	b := stFile(`{"x":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}}`, 16)
	h := len(b) - 16
	binary.LittleEndian.PutUint64(b[h:], math.Float64bits(1.5))
	binary.LittleEndian.PutUint64(b[h+8:], math.Float64bits(-3))
	ts, _, err := Parse("f64", b)
	if err != nil {
		t.Fatal(err)
	}
	if d := ts["x"].Data; len(d) != 2 || d[0] != 1.5 || d[1] != -3 {
		t.Fatalf("F64 read as %v", d)
	}

}

func FuzzParse(f *testing.F) {
	f.Add(stFile(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 4))
	f.Add(stFile(`{"__metadata__":{"format":"pt"},"b":{"dtype":"BF16","shape":[2,1],"data_offsets":[0,4]}}`, 4))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Check(t, len(data), func() {
			ts, _, err := Parse("fuzz", data)
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
	})
}
