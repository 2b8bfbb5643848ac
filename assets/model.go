package assets

import _ "embed"

// The default text-to-music model (issue 8; docs/MODEL.md is its report
// card): a GPT-2 in Hugging Face layout with float16 weights, rebuilt by
// `make model`. app.DefaultModel loads it.
var (
	//go:embed model/config.json
	ModelConfig []byte
	//go:embed model/model.safetensors
	ModelWeights []byte
	//go:embed model/vocab.json
	ModelVocab []byte
)
