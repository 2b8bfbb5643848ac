// Package safetensors reads and writes the safetensors format (an 8-byte
// little-endian header length, a JSON header of dtype/shape/data_offsets per
// tensor, then the raw bytes) as float32 tensors: models in Hugging Face
// layout (engine/gpt), training checkpoints (engine/train) and the BERT
// encoder's weights (engine/text). Every header length, dtype, shape and
// offset is checked against the file size before a byte of tensor data is
// read, so no input makes it panic or allocate beyond the file.
//
// It imports only the standard library, engine/atomicfile and
// engine/userfile.
package safetensors

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/userfile"
)

// ErrFormat marks a safetensors file that is malformed (engine/gpt also
// uses it for a file that does not fit the model).
var ErrFormat = errors.New("bad safetensors")

// maxHeader bounds the JSON header (the format's own limit is 100 MB).
const maxHeader = 100 << 20

// Tensor is one tensor of a safetensors file, converted to float32.
type Tensor struct {
	Name  string
	DType string // as stored: F32, F16, BF16 (or F64, read only)
	Shape []int
	Data  []float32
}

type stEntry struct {
	DType   string  `json:"dtype"`
	Shape   []int64 `json:"shape"`
	Offsets []int64 `json:"data_offsets"`
}

func dtypeSize(dt string) int {
	switch dt {
	case "F32":
		return 4
	case "F16", "BF16":
		return 2
	case "F64":
		return 8
	}
	return 0
}

// MaxFile bounds a safetensors file: 64 GiB, far above a checkpoint of
// gpt.MaxParams with its optimizer moments; it keeps a stream or a huge
// file from being read without end.
const MaxFile = 64 << 30

// Read reads and validates a safetensors file; it returns the tensors by
// name and the __metadata__ strings.
func Read(path string) (map[string]Tensor, map[string]string, error) {
	data, err := userfile.ReadRegular(context.Background(), path, MaxFile) // a FIFO or a device is refused, never waited on
	if err != nil {
		return nil, nil, fmt.Errorf("safetensors: read %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse validates every header length, dtype, shape and offset
// against the size of data before touching the tensor bytes, then converts
// each tensor to float32. name is used in errors.
func Parse(name string, data []byte) (map[string]Tensor, map[string]string, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrFormat, name, fmt.Sprintf(format, a...))
	}
	if len(data) < 8 {
		return nil, nil, bad("file of %d bytes is shorter than the 8-byte header length", len(data))
	}
	hl := binary.LittleEndian.Uint64(data)
	if hl > maxHeader {
		return nil, nil, bad("header length %d exceeds the limit of %d", hl, maxHeader)
	}
	if hl > uint64(len(data)-8) {
		return nil, nil, bad("header length %d exceeds the file size %d", hl, len(data))
	}
	body := data[8+hl:]
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data[8:8+hl], &raw); err != nil {
		return nil, nil, bad("header is not a JSON object: %v", err)
	}
	meta := map[string]string{}
	type span struct {
		name       string
		begin, end int64
	}
	var spans []span
	out := make(map[string]Tensor, len(raw))
	for k, v := range raw {
		if k == "__metadata__" {
			if err := json.Unmarshal(v, &meta); err != nil {
				return nil, nil, bad("__metadata__ is not a string map: %v", err)
			}
			continue
		}
		var e stEntry
		if err := json.Unmarshal(v, &e); err != nil {
			return nil, nil, bad("tensor %q: %v", k, err)
		}
		size := dtypeSize(e.DType)
		if size == 0 {
			return nil, nil, bad("tensor %q: dtype %q not supported (F32, F16, BF16, F64)", k, e.DType)
		}
		if len(e.Offsets) != 2 {
			return nil, nil, bad("tensor %q: data_offsets has %d values, want 2", k, len(e.Offsets))
		}
		count := int64(1)
		shape := make([]int, len(e.Shape))
		for i, d := range e.Shape {
			if d < 0 || (d > 0 && count > math.MaxInt32/d) {
				return nil, nil, bad("tensor %q: bad shape %v", k, e.Shape)
			}
			count *= d
			shape[i] = int(d)
		}
		b, en := e.Offsets[0], e.Offsets[1]
		if b < 0 || en < b || en > int64(len(body)) {
			return nil, nil, bad("tensor %q: data_offsets [%d,%d] outside the %d data bytes", k, b, en, len(body))
		}
		if en-b != count*int64(size) {
			return nil, nil, bad("tensor %q: %d bytes for shape %v of %s (want %d)", k, en-b, e.Shape, e.DType, count*int64(size))
		}
		spans = append(spans, span{k, b, en})
		out[k] = Tensor{Name: k, DType: e.DType, Shape: shape, Data: decode(e.DType, body[b:en], int(count))}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].begin < spans[j].begin })
	for i := 1; i < len(spans); i++ {
		if spans[i].begin < spans[i-1].end {
			return nil, nil, bad("tensors %q and %q overlap", spans[i-1].name, spans[i].name)
		}
	}
	return out, meta, nil
}

func decode(dt string, b []byte, n int) []float32 {
	out := make([]float32, n)
	switch dt {
	case "F32":
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case "F64":
		for i := range out {
			out[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
		}
	case "BF16":
		for i := range out {
			out[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[2*i:])) << 16)
		}
	case "F16":
		for i := range out {
			out[i] = f16ToF32(binary.LittleEndian.Uint16(b[2*i:]))
		}
	}
	return out
}

func f16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := int(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0:
		// subnormal or zero
		v := float32(man) / 1024 / 16384
		if sign != 0 {
			v = -v
		}
		return v
	case exp == 31:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	}
	return math.Float32frombits(sign | uint32(exp-15+127)<<23 | man<<13)
}

func f32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	man := b & 0x7fffff
	switch {
	case b&0x7fffffff >= 0x7f800000: // Inf or NaN
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint(14 - exp)
		half := uint32(1) << (shift - 1)
		r := man >> shift
		if man&(2*half-1) > half || (man&(2*half-1) == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(exp)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++ // may carry into the exponent, which is right
	}
	return sign | uint16(r)
}

func f32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1 // round to nearest even
	return uint16(b >> 16)
}

// Write writes tensors (in the given order) as dtype (F32, F16 or BF16)
// with metadata, atomically. A tensor whose data does not fill its shape
// is refused.
func Write(path string, tensors []Tensor, meta map[string]string, dtype string) error {
	size := dtypeSize(dtype)
	if size == 0 || dtype == "F64" {
		return fmt.Errorf("safetensors: write %s: dtype %q not supported (F32, F16, BF16)", path, dtype)
	}
	for _, t := range tensors {
		n := 1
		for _, d := range t.Shape {
			n *= d
		}
		if n != len(t.Data) {
			return fmt.Errorf("%w: write %s: tensor %s: shape %v holds %d values, data has %d", ErrFormat, path, t.Name, t.Shape, n, len(t.Data))
		}
	}
	var hdr strings.Builder
	hdr.WriteByte('{')
	if len(meta) > 0 {
		mb, err := json.Marshal(meta)
		if err != nil {
			return err
		}
		hdr.WriteString(`"__metadata__":`)
		hdr.Write(mb)
	}
	off := int64(0)
	for i, t := range tensors {
		if len(meta) > 0 || i > 0 {
			hdr.WriteByte(',')
		}
		nb, _ := json.Marshal(t.Name)
		shape := make([]string, len(t.Shape))
		for j, d := range t.Shape {
			shape[j] = strconv.Itoa(d)
		}
		n := int64(len(t.Data)) * int64(size)
		fmt.Fprintf(&hdr, `%s:{"dtype":"%s","shape":[%s],"data_offsets":[%d,%d]}`, nb, dtype, strings.Join(shape, ","), off, off+n)
		off += n
	}
	hdr.WriteByte('}')
	for (hdr.Len()+8)%8 != 0 {
		hdr.WriteByte(' ')
	}
	err := atomicfile.Write(path, func(f *os.File) error {
		w := bufio.NewWriterSize(f, 1<<20)
		var lb [8]byte
		binary.LittleEndian.PutUint64(lb[:], uint64(hdr.Len()))
		w.Write(lb[:])
		w.WriteString(hdr.String())
		var buf [4]byte
		for _, t := range tensors {
			for _, v := range t.Data {
				switch dtype {
				case "F32":
					binary.LittleEndian.PutUint32(buf[:], math.Float32bits(v))
				case "F16":
					binary.LittleEndian.PutUint16(buf[:], f32ToF16(v))
				case "BF16":
					binary.LittleEndian.PutUint16(buf[:], f32ToBF16(v))
				}
				w.Write(buf[:size])
			}
		}
		return w.Flush()
	})
	if err != nil {
		return fmt.Errorf("safetensors: write %s: %w", path, err)
	}
	return nil
}
