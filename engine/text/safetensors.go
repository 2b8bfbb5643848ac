package text

import (
	"errors"
	"fmt"
	"sort"

	"github.com/amtstudio/amt/engine/safetensors"
)

// The BERT encoder's weights are safetensors (engine/safetensors); these
// helpers give them the shape the encoder uses: tensors by name, pointers.

// ErrSafetensors marks a safetensors file that cannot be used (it wraps
// safetensors.ErrFormat or the I/O error).
var ErrSafetensors = errors.New("text: bad safetensors file")

// stTensor is one tensor of a safetensors file, converted to float32.
type stTensor struct {
	DType string
	Shape []int
	Data  []float32
}

// readSafetensors reads every tensor of a safetensors file as float32
// (F32, F16, BF16 and F64 are accepted).
func readSafetensors(path string) (map[string]*stTensor, error) {
	ts, _, err := safetensors.Read(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSafetensors, err)
	}
	return fromTensors(ts), nil
}

func parseSafetensors(data []byte) (map[string]*stTensor, error) {
	ts, _, err := safetensors.Parse("model.safetensors", data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSafetensors, err)
	}
	return fromTensors(ts), nil
}

func fromTensors(ts map[string]safetensors.Tensor) map[string]*stTensor {
	out := make(map[string]*stTensor, len(ts))
	for name, t := range ts {
		out[name] = &stTensor{DType: t.DType, Shape: t.Shape, Data: t.Data}
	}
	return out
}

// writeSafetensors writes float32 tensors (names sorted) atomically.
func writeSafetensors(path string, tensors map[string]*stTensor) error {
	names := make([]string, 0, len(tensors))
	for n := range tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	ts := make([]safetensors.Tensor, len(names))
	for i, n := range names {
		t := tensors[n]
		ts[i] = safetensors.Tensor{Name: n, Shape: t.Shape, Data: t.Data}
	}
	if err := safetensors.Write(path, ts, nil, "F32"); err != nil {
		return fmt.Errorf("%w: %w", ErrSafetensors, err)
	}
	return nil
}
