package gpt

import "github.com/amtstudio/amt/engine/safetensors"

// The model's files are safetensors in Hugging Face GPT-2 layout; the
// format itself lives in engine/safetensors. These names keep the model's
// API in one place for its callers (engine/train, app).

// STensor is one named float32 tensor of a safetensors file.
type STensor = safetensors.Tensor

// ErrBadSafetensors marks a safetensors file that is malformed or does not
// fit the model.
var ErrBadSafetensors = safetensors.ErrFormat

// ReadSafetensors reads and validates a safetensors file.
func ReadSafetensors(path string) (map[string]STensor, map[string]string, error) {
	return safetensors.Read(path)
}

// ParseSafetensors validates and converts safetensors bytes; name is used
// in errors.
func ParseSafetensors(name string, data []byte) (map[string]STensor, map[string]string, error) {
	return safetensors.Parse(name, data)
}

// WriteSafetensors writes tensors in order as dtype (F32, F16, BF16) with
// metadata, atomically.
func WriteSafetensors(path string, tensors []STensor, meta map[string]string, dtype string) error {
	return safetensors.Write(path, tensors, meta, dtype)
}
