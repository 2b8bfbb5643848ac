package text

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
)

// This is a minimal safetensors reader and writer for the BERT encoder.
// engine/gpt has its own for GPT-2 checkpoints; the two are kept apart so
// that text does not depend on the model package (see the package report).

// ErrSafetensors marks a safetensors file that cannot be used.
var ErrSafetensors = errors.New("text: bad safetensors file")

// stTensor is one tensor of a safetensors file, converted to float32.
type stTensor struct {
	DType string
	Shape []int
	Data  []float32
}

type stHeaderEntry struct {
	DType   string   `json:"dtype"`
	Shape   []int    `json:"shape"`
	Offsets [2]int64 `json:"data_offsets"`
}

// maxHeader bounds the JSON header (the format's own limit is 100 MB).
const maxHeader = 100 << 20

// readSafetensors reads every tensor of a safetensors file as float32
// (F32, F16, BF16 and F64 are accepted).
func readSafetensors(path string) (map[string]*stTensor, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSafetensors, err)
	}
	ts, err := parseSafetensors(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ts, nil
}

func parseSafetensors(data []byte) (map[string]*stTensor, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the 8-byte header size", ErrSafetensors, len(data))
	}
	n := binary.LittleEndian.Uint64(data)
	if n > maxHeader || n > uint64(len(data)-8) {
		return nil, fmt.Errorf("%w: header of %d bytes does not fit in %d", ErrSafetensors, n, len(data))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data[8:8+n], &raw); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrSafetensors, err)
	}
	body := data[8+n:]
	out := make(map[string]*stTensor, len(raw))
	for name, msg := range raw {
		if name == "__metadata__" {
			continue
		}
		var e stHeaderEntry
		if err := json.Unmarshal(msg, &e); err != nil {
			return nil, fmt.Errorf("%w: tensor %s: %w", ErrSafetensors, name, err)
		}
		size := map[string]int64{"F32": 4, "F16": 2, "BF16": 2, "F64": 8}[e.DType]
		if size == 0 {
			return nil, fmt.Errorf("%w: tensor %s: dtype %q not supported (F32, F16, BF16, F64)", ErrSafetensors, name, e.DType)
		}
		count := int64(1)
		for _, d := range e.Shape {
			if d < 0 {
				return nil, fmt.Errorf("%w: tensor %s: negative dimension", ErrSafetensors, name)
			}
			count *= int64(d)
		}
		b, end := e.Offsets[0], e.Offsets[1]
		if b < 0 || end < b || end > int64(len(body)) || end-b != count*size {
			return nil, fmt.Errorf("%w: tensor %s: offsets [%d, %d) do not hold %d × %s in %d bytes",
				ErrSafetensors, name, b, end, count, e.DType, len(body))
		}
		src := body[b:end]
		t := &stTensor{DType: e.DType, Shape: e.Shape, Data: make([]float32, count)}
		for i := range t.Data {
			switch e.DType {
			case "F32":
				t.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
			case "F64":
				t.Data[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(src[8*i:])))
			case "BF16":
				t.Data[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(src[2*i:])) << 16)
			case "F16":
				t.Data[i] = halfToFloat(binary.LittleEndian.Uint16(src[2*i:]))
			}
		}
		out[name] = t
	}
	return out, nil
}

// halfToFloat converts an IEEE 754 binary16 value.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0 && man == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: man × 2^-24
		v := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}

// writeSafetensors writes float32 tensors (names sorted, data in that
// order, header padded with spaces to a multiple of 8 bytes) atomically.
func writeSafetensors(path string, tensors map[string]*stTensor) error {
	names := make([]string, 0, len(tensors))
	for n := range tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	header := map[string]any{}
	off := int64(0)
	for _, n := range names {
		t := tensors[n]
		count := 1
		for _, d := range t.Shape {
			count *= d
		}
		if count != len(t.Data) {
			return fmt.Errorf("%w: tensor %s: shape %v holds %d values, data has %d", ErrSafetensors, n, t.Shape, count, len(t.Data))
		}
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		header[n] = stHeaderEntry{DType: "F32", Shape: shape, Offsets: [2]int64{off, off + 4*int64(count)}}
		off += 4 * int64(count)
	}
	hj, err := json.Marshal(header)
	if err != nil {
		return err
	}
	for len(hj)%8 != 0 {
		hj = append(hj, ' ')
	}
	buf := make([]byte, 8, 8+len(hj)+int(off))
	binary.LittleEndian.PutUint64(buf, uint64(len(hj)))
	buf = append(buf, hj...)
	for _, n := range names {
		for _, v := range tensors[n].Data {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		}
	}
	return writeAtomic(path, buf)
}
