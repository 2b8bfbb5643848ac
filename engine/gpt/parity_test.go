package gpt

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/amtstudio/amt/engine/nn/cpu"
)

// parityDir holds the fixture scripts/gpt2_parity.py writes with PyTorch
// (Debian's python3-torch): a tiny model with random weights, biases and
// layer norms, and what PyTorch computed for it.
var parityDir = filepath.Join("testdata", "parity")

// parityBatch reads the fixture's batch: tokens and targets (B,T), -1 where
// a position has no target.
func parityBatch(t *testing.T, exp map[string]STensor) (tokens, targets []int32, B, T int) {
	t.Helper()
	ids, tg := exp["input_ids"], exp["targets"]
	if len(ids.Shape) != 2 || len(tg.Shape) != 2 || ids.Shape[0] != tg.Shape[0] || ids.Shape[1] != tg.Shape[1] {
		t.Fatalf("fixture batch shapes %v, %v", ids.Shape, tg.Shape)
	}
	B, T = ids.Shape[0], ids.Shape[1]
	tokens, targets = make([]int32, B*T), make([]int32, B*T)
	for i := range tokens {
		tokens[i], targets[i] = int32(ids.Data[i]), int32(tg.Data[i])
	}
	return tokens, targets, B, T
}

// TestParityWithPyTorch compares the logits, the loss and the gradient of
// every parameter after one forward and backward with PyTorch's (float32 on
// both sides). Tolerances: logits 1e-4 absolute, loss 1e-5 relative,
// gradients 1e-5 absolute + 1e-3 relative. The fixture's targets leave the
// last positions of a row empty, as padded training examples do.
func TestParityWithPyTorch(t *testing.T) {
	be := cpu.NewWorkers(2)
	defer be.Close()
	m, err := Load(be, filepath.Join(parityDir, "model"))
	if err != nil {
		t.Fatal(err)
	}
	exp, meta, err := ReadSafetensors(filepath.Join(parityDir, "expected.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fixture: %s, torch %s", meta["impl"], meta["torch"])
	tokens, targets, B, T := parityBatch(t, exp)
	loss, err := m.Forward(tokens, targets, B, T)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(exp["loss"].Data[0]); math.Abs(float64(loss)-want) > 1e-5*want {
		t.Errorf("loss %v, PyTorch %v", loss, want)
	}
	logits := make([]float32, B*T*m.Config.VocabSize)
	m.Logits(logits)
	worst := 0.0
	for i, want := range exp["logits"].Data {
		d := math.Abs(float64(logits[i] - want))
		worst = max(worst, d)
		if d > 1e-4 {
			t.Fatalf("logit %d: %v, PyTorch %v", i, logits[i], want)
		}
	}
	m.ZeroGrad()
	if err := m.Backward(1); err != nil {
		t.Fatal(err)
	}
	g := m.Grads().Host()
	worstG := 0.0
	for _, tn := range m.Config.Tensors() {
		e, ok := exp["grad."+tn.Name]
		if !ok || len(e.Data) != tn.Size() {
			t.Errorf("fixture lacks the gradient of %s (or its size differs)", tn.Name)
			continue
		}
		for i, want := range e.Data {
			got := g[tn.Off+i]
			d := math.Abs(float64(got - want))
			worstG = max(worstG, d)
			if d > 1e-5+1e-3*math.Abs(float64(want)) {
				t.Errorf("grad %s[%d]: %v, PyTorch %v", tn.Name, i, got, want)
				break
			}
		}
	}
	t.Logf("largest differences: logits %.2g, gradients %.2g", worst, worstG)
}
