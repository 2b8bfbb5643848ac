package gpt

// TrainBytes estimates the memory a training step of batch B and context
// T asks for: the parameters, their gradients and the two AdamW moments
// (16 bytes a parameter), the forward activations (as newActivations lays
// them out, the attention weights B × heads × T² included) and the
// activation gradients (as newGradActs). It is an estimate for refusing
// a run that cannot fit before allocating it, computed in int64 so that
// absurd sizes do not overflow.
func (c Config) TrainBytes(B, T int) int64 {
	N, C, V, L, NH := int64(B)*int64(T), int64(c.NEmbd), int64(c.VocabSize), int64(c.NLayer), int64(c.NHead)
	P := int64(c.NumParams())
	perLayer := 16*N*C + 4*N + int64(B)*NH*int64(T)*int64(T)
	acts := N*C + L*perLayer + N*C + 3*N + 2*N*V
	grads := N*V + 14*N*C
	return 4 * (4*P + acts + grads)
}

// InferenceBytes estimates the memory of sampling with a window of W
// tokens: the parameters and one (1, W) activation set.
func (c Config) InferenceBytes(W int) int64 {
	T, C, V, L, NH := int64(W), int64(c.NEmbd), int64(c.VocabSize), int64(c.NLayer), int64(c.NHead)
	perLayer := 16*T*C + 4*T + NH*T*T
	return 4 * (int64(c.NumParams()) + T*C + L*perLayer + T*C + 3*T + 2*T*V)
}
