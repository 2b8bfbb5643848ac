package gpt

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/nn/cpu"
)

// TestParityWithTransformers compares logits, loss and every gradient with
// a fixture written by scripts/gpt2_parity.py (PyTorch + transformers
// GPT2LMHeadModel). Tolerances: logits 1e-4 absolute, loss 1e-5 relative,
// gradients 1e-5 absolute + 1e-3 relative.
func TestParityWithTransformers(t *testing.T) {
	dir := filepath.Join("testdata", "parity")
	if _, err := os.Stat(filepath.Join(dir, "expected.safetensors")); err != nil {
		t.Skip("PyTorch parity fixture not present (testdata/parity): run scripts/gpt2_parity.py on a machine with transformers; the float64 reference tests stand in meanwhile")
	}
	be := cpu.NewWorkers(2)
	defer be.Close()
	m, err := Load(be, filepath.Join(dir, "model"))
	if err != nil {
		t.Fatal(err)
	}
	exp, _, err := ReadSafetensors(filepath.Join(dir, "expected.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	ids := exp["input_ids"]
	B, T := ids.Shape[0], ids.Shape[1]
	tokens, targets := make([]int32, B*T), make([]int32, B*T)
	for i, v := range ids.Data {
		tokens[i] = int32(v)
	}
	for b := 0; b < B; b++ {
		for t := 0; t < T; t++ {
			targets[b*T+t] = -1
			if t+1 < T {
				targets[b*T+t] = tokens[b*T+t+1]
			}
		}
	}
	loss, err := m.Forward(tokens, targets, B, T)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(exp["loss"].Data[0]); math.Abs(float64(loss)-want) > 1e-5*want {
		t.Errorf("loss %v, transformers %v", loss, want)
	}
	logits := make([]float32, B*T*m.Config.VocabSize)
	m.Logits(logits)
	for i, want := range exp["logits"].Data {
		if math.Abs(float64(logits[i]-want)) > 1e-4 {
			t.Fatalf("logit %d: %v, transformers %v", i, logits[i], want)
		}
	}
	m.ZeroGrad()
	m.Backward(1)
	g := m.Grads().Host()
	for _, tn := range m.Config.Tensors() {
		e, ok := exp["grad."+tn.Name]
		if !ok {
			e, ok = exp["grad."+strings.TrimPrefix(tn.Name, "transformer.")]
		}
		if !ok {
			t.Errorf("fixture lacks the gradient of %s", tn.Name)
			continue
		}
		for i, want := range e.Data {
			got := g[tn.Off+i]
			if math.Abs(float64(got-want)) > 1e-5+1e-3*math.Abs(float64(want)) {
				t.Errorf("grad %s[%d]: %v, transformers %v", tn.Name, i, got, want)
				break
			}
		}
	}
}
