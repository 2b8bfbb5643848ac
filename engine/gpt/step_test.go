package gpt

import (
	"math/rand/v2"
	"testing"
)

// TestTrainStepDoesNotAllocate: after the first step has allocated the
// activations and their gradients, forward + backward + AdamW allocate
// nothing (kernels keep their job structs in the backend; the gradient
// buffers are reused across layers and steps).
func TestTrainStepDoesNotAllocate(t *testing.T) {
	m, be := tinyModel(t, 50, 3)
	B, T := 3, 40
	rng := rand.New(rand.NewPCG(4, 5))
	tok := randTokens(rng, B*T+1, 50)
	mo, vo := be.Alloc(m.NumParams()), be.Alloc(m.NumParams())
	step := 0
	run := func() {
		step++
		if _, err := m.Forward(tok[:B*T], tok[1:], B, T); err != nil {
			t.Fatal(err)
		}
		m.ZeroGrad()
		if err := m.Backward(1); err != nil {
			t.Fatal(err)
		}
		be.AdamWUpdate(m.Params(), m.Grads(), mo, vo, nnAdam(step))
	}
	run()
	if n := testing.AllocsPerRun(10, run); n != 0 {
		t.Fatalf("a training step allocated %v times", n)
	}
}
