package gpt

import (
	"testing"

	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/cpu"
)

// scratchBackend is the CPU backend saying its attention needs extra
// floats: the model's training activations must grow by exactly that.
type scratchBackend struct {
	nn.Backend
	extra, floats int
}

func (s *scratchBackend) Alloc(n int) nn.Buffer { s.floats += n; return s.Backend.Alloc(n) }
func (s *scratchBackend) AttentionScratch(B, T, C, NH int) int {
	return B*NH*T*T + s.extra
}

// Training activations take the attention scratch the backend asks for
// (nn.AttentionScratch); the sampler's take the full (NH,T,T) AttentionStep
// writes into, or the backend's scratch if that is more (its prefills run
// AttentionForward).
func TestActivationsUseBackendAttentionScratch(t *testing.T) {
	c, _ := Preset("tiny", 50)
	floats := func(extra int) (train, sample int) {
		be := &scratchBackend{Backend: cpu.NewWorkers(1), extra: extra}
		defer be.Close()
		m, err := New(be, c)
		if err != nil {
			t.Fatal(err)
		}
		m.Init(1)
		before := be.floats
		tok := make([]int32, 2*16)
		if extra >= 0 { // the CPU's attention writes the whole (B,NH,T,T)
			if _, err := m.Forward(tok, tok, 2, 16); err != nil {
				t.Fatal(err)
			}
		}
		train = be.floats - before
		before = be.floats
		m.NewSampler(16)
		return train, be.floats - before
	}
	t0, s0 := floats(0)
	t7, s7 := floats(7)
	_, sm := floats(-7)
	if t7-t0 != 7*c.NLayer {
		t.Errorf("training activations grew by %d floats for 7 more per layer's attention, want %d", t7-t0, 7*c.NLayer)
	}
	if sm != s0 {
		t.Errorf("the sampler's activations shrank (%d → %d): AttentionStep needs the full (NH,T,T)", s0, sm)
	}
	if s7-s0 != 7*c.NLayer {
		t.Errorf("the sampler's activations grew by %d floats for a backend asking 7 more per layer, want %d", s7-s0, 7*c.NLayer)
	}
}
