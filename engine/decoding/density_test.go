package decoding

import (
	"math"
	"strconv"
	"testing"

	"github.com/amtstudio/amt/engine/token"
)

// DensityHold by hand: a prefix asking 1–1.5 notes a quarter note, 4/4 at
// 12 steps a quarter (48 a bar), held to 1.25; then the open-ended last
// bin.
func TestDensityHold(t *testing.T) {
	v := token.DefaultVocab()
	if lo, hi := v.DensityRange(v.DensityBin(1.2)); lo != 1 || hi != 1.5 {
		t.Fatalf("bin of 1.2: [%v, %v), want [1, 1.5)", lo, hi)
	}
	if lo, hi := v.DensityRange(0); lo != 0 || hi != 0.5 {
		t.Fatalf("first bin [%v, %v), want [0, 0.5)", lo, hi)
	}
	if _, hi := v.DensityRange(v.DensityBin(1000)); !math.IsInf(hi, 1) {
		t.Fatalf("last bin ends at %v, want +Inf", hi)
	}
	if DensityHold(v, NewBars(v, v.NewGrammar(), 4), 0) != nil {
		t.Fatal("weight 0: want no hook")
	}
	const w = 2
	c := NewBars(v, v.NewGrammar(), 4)
	push := pusher(t, c)
	hook := DensityHold(v, c, w)
	vlo, _ := v.Range(token.KindVelocity)
	dlo, _ := v.Range(token.KindDuration)
	note := func(p int) {
		t.Helper()
		push("Pitch_"+strconv.Itoa(p), v.Name(vlo+4), v.Name(dlo+2))
	}
	pitch0, _ := v.Range(token.KindPitch)
	prog0, _ := v.Range(token.KindProgram)
	pos0, _ := v.Range(token.KindPosition)
	// check runs the hook on zero logits (one of them -Inf) and compares
	// every touched kind with its hand-computed offset for bias b.
	check := func(what string, b float64, pos int) {
		t.Helper()
		logits := make([]float32, v.Size())
		logits[pitch0+70] = float32(math.Inf(-1))
		hook(logits)
		near := func(got float32, want float64, name string) {
			t.Helper()
			if math.Abs(float64(got)-want) > 1e-5 {
				t.Errorf("%s: %s offset %.5f, want %.5f", what, name, got, want)
			}
		}
		near(logits[pitch0+60], -b, "Pitch_60")
		near(logits[prog0+33], -b, "Program_33")
		if !math.IsInf(float64(logits[pitch0+70]), -1) {
			t.Errorf("%s: a masked pitch came back", what)
		}
		for p := pos + 1; p < 48; p++ {
			want := 0.0
			if p-pos < 12 {
				want = -b * float64(12-(p-pos)) / 12
			}
			near(logits[int(pos0)+p], want, "Position_"+strconv.Itoa(p))
		}
		near(logits[v.Bar], 0, "Bar")
		near(logits[v.EOS], 0, "EOS")
	}
	// The bin [1, 1.5) is held to its middle, 1.25 notes a quarter.
	push("BOS", "INSTRUMENT_0", "DENSITY_1-1.5", "SEP", "Bar", "TimeSig_4/4", "Tempo_120-125", "Position_0", "Program_0")
	for _, p := range []int{48, 52, 55, 60} {
		note(p) // 4 notes over at least a bar (48 steps): 1.0 a quarter
	}
	check("the first bar, under the middle (not judged from below)", 0, 0)
	note(62)
	note(64) // 6 notes over a bar: 1.5
	check("the first bar, above the middle", w*math.Log(6*12.0/48/1.25), 0)
	push("Bar", "Position_24", "Program_0")
	note(60) // 7 notes over 73 steps: 1.15
	check("under the middle", w*math.Log(7*12.0/73/1.25), 24)
	push("Bar", "Position_47", "Program_0")
	note(60) // 8 notes over 144 steps: 0.67
	check("further under", w*math.Log(8*12.0/144/1.25), 47)

	// The open-ended last bin is held from below only.
	c3 := NewBars(v, v.NewGrammar(), 4)
	hook = DensityHold(v, c3, w)
	push = pusher(t, c3)
	push("BOS", "INSTRUMENT_0", "DENSITY_>=24", "SEP", "Bar", "TimeSig_4/4", "Tempo_120-125", "Position_0", "Program_0")
	for p := 40; p < 70; p++ {
		note(p) // 30 notes over a bar: 7.5 a quarter, under 24
	}
	check("the last bin, first bar", 0, 0)
	push("Bar", "Position_0", "Program_0")
	note(70) // 31 notes over 49 steps: 7.6
	check("the last bin, under it", w*math.Log(31*12.0/49/24), 0)

	// Without a DENSITY token the hook holds nothing.
	c2 := NewBars(v, v.NewGrammar(), 4)
	hook2 := DensityHold(v, c2, w)
	push2 := pusher(t, c2)
	push2("BOS", "INSTRUMENT_0", "SEP", "Bar", "TimeSig_4/4", "Tempo_120-125", "Position_0", "Program_0")
	for range 2 {
		push2("Pitch_60", v.Name(vlo+4), v.Name(dlo+2), "Bar", "Position_0", "Program_0")
	}
	push2("Pitch_60", v.Name(vlo+4), v.Name(dlo+2))
	for _, p := range []int{62, 64, 65, 67, 69, 71, 72} {
		push2("Pitch_"+strconv.Itoa(p), v.Name(vlo+4), v.Name(dlo+2))
	}
	logits := make([]float32, v.Size())
	hook2(logits)
	for i, x := range logits {
		if x != 0 {
			t.Fatalf("no DENSITY: token %s moved by %v", v.Name(uint16(i)), x)
		}
	}
}
