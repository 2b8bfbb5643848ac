package nn

// DecodeLayer is one transformer block's weights (the Conv1D layout of
// Backend.MatmulForward) and its key/value cache, for a Decoder.
type DecodeLayer struct {
	LN1W, LN1B, QKVW, QKVB, ProjW, ProjB   Buffer
	LN2W, LN2B, FCW, FCB, FCProjW, FCProjB Buffer
	// QKV (T,3C) is the cache: row p holds position p's q | k | v.
	QKV Buffer
}

// DecodeModel is the GPT-2 stack a Decoder steps over: token and position
// embeddings, the blocks, the final layer norm, and the output embedding
// tied to WTE.
type DecodeModel struct {
	C, NH, V, T          int // channels, heads, vocabulary, cache rows
	Eps                  float32
	WTE, WPE, LNFW, LNFB Buffer
	Layers               []DecodeLayer
}

// Decoder is implemented by a backend that runs a decoding step of one
// sequence as a whole (the CUDA backend: a few fused kernels a layer,
// replayed as one CUDA graph) instead of the dozen Backend calls a layer
// takes one row at a time. engine/gpt's Sampler uses it when the backend
// has it.
type Decoder interface {
	// DecodePlan prepares steps over m; ok is false where the backend
	// cannot (the caller then steps with the Backend calls).
	DecodePlan(m DecodeModel) (p DecodePlan, ok bool)
}

// DecodePlan steps one sequence.
type DecodePlan interface {
	// Step writes token tok's q | k | v at position pos (< T) into every
	// layer's cache and the logits of the token after it into logits (V
	// floats): what the Backend calls of one sampling step compute, rows
	// 0..pos-1 of the caches being the earlier positions.
	Step(tok, pos int, logits []float32)
	// Release frees what the plan holds on the device.
	Release()
}
