package gpt

import "github.com/amtstudio/amt/engine/nn"

func nnAdam(step int) nn.AdamW {
	return nn.AdamW{LR: 1e-2, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: step}
}
