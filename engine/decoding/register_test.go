package decoding

import (
	"testing"

	"github.com/amtstudio/amt/engine/token"
)

// RegisterBias lowers a pitch by bias per octave outside the register (two
// octaves at most), as heard after the key frame's shift, only for pitched
// programs that are not basses.
func TestRegisterBias(t *testing.T) {
	v := token.DefaultVocab()
	g := v.NewGrammar()
	c := NewBars(v, g, 4)
	f := RegisterBias(v, c, 48, 72, 2, 3) // heard = frame + 3
	logits := make([]float32, v.Size())
	f(logits)
	for _, l := range logits {
		if l != 0 {
			t.Fatal("bias applied outside a note")
		}
	}
	i40, _ := v.Lookup("INSTRUMENT_40")
	i33, _ := v.Lookup("INSTRUMENT_33")
	ts, _ := v.Lookup("TimeSig_4/4")
	tp, _ := v.Lookup("Tempo_120-125")
	pos, _ := v.Lookup("Position_0")
	prog, _ := v.Lookup("Program_40")
	for _, tk := range []uint16{v.BOS, i33, i40, v.SEP, v.Bar, ts, tp, pos, prog} {
		if err := c.Push(tk); err != nil {
			t.Fatal(err)
		}
	}
	first, _ := v.Range(token.KindPitch)
	f(logits)
	for frame, want := range map[int]float32{45: 0, 69: 0, 44: -2.0 / 12, 33: -2, 21: -4, 0: -4, 81: -2, 93: -4, 127: -4} {
		if got := logits[int(first)+frame]; got != want {
			t.Errorf("frame pitch %d (heard %d): %v, want %v", frame, frame+3, got, want)
		}
	}
	// A bass keeps its register.
	clear(logits)
	vlo, _ := v.Range(token.KindVelocity)
	dlo, _ := v.Range(token.KindDuration)
	p33, _ := v.Lookup("Program_33")
	for _, tk := range []uint16{first + 60, vlo + 4, dlo + 6, p33} {
		if err := c.Push(tk); err != nil {
			t.Fatal(err)
		}
	}
	f(logits)
	for _, l := range logits {
		if l != 0 {
			t.Fatal("bias applied to a bass")
		}
	}
	if RegisterBias(v, c, 60, 50, 2, 0) != nil || RegisterBias(v, c, 40, 60, 0, 0) != nil {
		t.Fatal("an empty register or no bias must give no hook")
	}
}
