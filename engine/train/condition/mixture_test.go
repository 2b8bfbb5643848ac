package condition

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/pipeline"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
)

// tinyPiece encodes 8 bars of quarter notes on the given programs (drums
// when drum) with the genre in the prefix.
func tinyPiece(t *testing.T, v *token.Vocab, programs []int, drum bool, genre string, seed int) []uint16 {
	t.Helper()
	s := &midi.Score{Format: 1, TicksPerBeat: 480, Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}},
		Meters: []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}}, EndTick: 32 * 480}
	for k, p := range programs {
		var notes []midi.Note
		for b := int64(0); b < 32; b++ {
			notes = append(notes, midi.Note{Tick: b * 480, Dur: 400, Pitch: uint8(48 + 7*k + int(b+int64(seed))%5), Velocity: uint8(40 + (3*b+int64(seed))%60)})
		}
		s.Tracks = append(s.Tracks, midi.Track{Channel: k, Program: p, Notes: notes})
	}
	if drum {
		var notes []midi.Note
		for b := int64(0); b < 64; b++ {
			notes = append(notes, midi.Note{Tick: b * 240, Dur: 60, Pitch: uint8(36 + 2*(b%2)), Velocity: uint8(60 + b%50)})
		}
		s.Tracks = append(s.Tracks, midi.Track{Channel: 9, IsDrum: true, Notes: notes})
	}
	s.ComputeSeconds()
	toks, _, err := v.AppendEncodeMeasuredGenre(nil, s, midi.Analyze(s), genre)
	if err != nil {
		t.Fatal(err)
	}
	return toks
}

// mixtureDir writes three sources as a make_model export lays them out:
// pop (4 piano pieces, weight 1 each), drums (3 pieces with drums: 1 +
// RichWeight) and quartets (2 pieces of four programs: 1 + RichWeight).
func mixtureDir(t *testing.T, v *token.Vocab) string {
	t.Helper()
	dir := t.TempDir()
	for _, src := range []struct {
		name, genre string
		n           int
		programs    []int
		drum        bool
	}{
		{"pop", "pop", 4, []int{0}, false},
		{"drums", "rock", 3, []int{33}, true},
		{"quartets", "classical", 2, []int{40, 41, 42, 43}, false},
	} {
		var ps [][]uint16
		for i := 0; i < src.n; i++ {
			ps = append(ps, tinyPiece(t, v, src.programs, src.drum, src.genre, i))
		}
		if err := os.Mkdir(filepath.Join(dir, src.name), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := pipeline.WriteShard(filepath.Join(dir, src.name), "s", ps); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSharesMatchDraws: the shares the data card states (Shares) are the
// hand-computed weights, and the examples drawn come out in those shares.
// With RichWeight 1 and SourceWeight drums 0.5, quartets 3: pop 4 × 1,
// drums 3 × 2 × 0.5, quartets 2 × 2 × 3, so 4/19, 3/19 and 12/19.
func TestSharesMatchDraws(t *testing.T) {
	v := token.DefaultVocab()
	ds, err := train.OpenDir(mixtureDir(t, v), v.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	tr, _ := ds.Split(0, 1)
	o := DefaultOptions()
	o.SourceWeight = map[string]float64{"drums": 0.5, "quartets": 3}
	o.DropProb, o.DropAllProb = 0, 0 // every example names its genre: its source
	b := New(v, o)
	want := map[string]float64{"pop": 4.0 / 19, "drums": 3.0 / 19, "quartets": 12.0 / 19}
	got := b.Shares(tr)
	for s, w := range want {
		if math.Abs(got[s]-w) > 1e-12 {
			t.Errorf("Shares[%s] = %.6f, want %.6f", s, got[s], w)
		}
	}
	genreOf := map[string]string{"pop": "pop", "rock": "drums", "classical": "quartets"}
	const n, T = 6000, 64
	counts := map[string]int{}
	in, tg := make([]int32, T), make([]int32, T)
	for r := 0; r < n; r++ {
		if err := b.FillRow(tr, uint64(r/8), 7, r%8, T, in, tg); err != nil {
			t.Fatal(err)
		}
		src := ""
		for _, x := range in {
			if k, g := v.Kind(uint16(x)); k == token.KindGenreAttr {
				src = genreOf[token.GenreFamilies[g]]
			}
		}
		counts[src]++
	}
	for s, w := range want {
		sd := math.Sqrt(w * (1 - w) / n)
		if f := float64(counts[s]) / n; math.Abs(f-w) > 4*sd {
			t.Errorf("%s: %.4f of %d examples, the card says %.4f (±%.4f)", s, f, n, w, 4*sd)
		}
	}
	if counts[""] != 0 {
		t.Errorf("%d examples without a genre", counts[""])
	}
}

// TestFlatVelocity: a flat source's Velocity targets are out of the loss
// and nothing else changes (the same inputs, every other target kept); the
// other sources' velocities are still learned.
func TestFlatVelocity(t *testing.T) {
	v := token.DefaultVocab()
	ds, err := train.OpenDir(mixtureDir(t, v), v.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	tr, _ := ds.Split(0, 1)
	o := DefaultOptions()
	o.DropProb, o.DropAllProb = 0, 0
	plain := New(v, o)
	if err := o.SetFlatVelocity("quartets, pop"); err != nil {
		t.Fatal(err)
	}
	flat := New(v, o)
	const T = 128
	in0, tg0, in1, tg1 := make([]int32, T), make([]int32, T), make([]int32, T), make([]int32, T)
	masked := map[string]int{}
	kept := map[string]int{}
	for r := 0; r < 300; r++ {
		if err := plain.FillRow(tr, 3, 5, r, T, in0, tg0); err != nil {
			t.Fatal(err)
		}
		if err := flat.FillRow(tr, 3, 5, r, T, in1, tg1); err != nil {
			t.Fatal(err)
		}
		src := ""
		for _, x := range in0 {
			if k, g := v.Kind(uint16(x)); k == token.KindGenreAttr {
				src = token.GenreFamilies[g]
			}
		}
		for j := 0; j < T; j++ {
			if in0[j] != in1[j] {
				t.Fatalf("row %d: input %d differs", r, j)
			}
			isVel := tg0[j] >= 0 && func() bool { k, _ := v.Kind(uint16(tg0[j])); return k == token.KindVelocity }()
			switch {
			case isVel && (src == "pop" || src == "classical"):
				if tg1[j] != -1 {
					t.Fatalf("row %d (%s): velocity target %d kept", r, src, j)
				}
				masked[src]++
			case tg1[j] != tg0[j]:
				t.Fatalf("row %d (%s): target %d changed %d → %d", r, src, j, tg0[j], tg1[j])
			case isVel:
				kept[src]++
			}
		}
	}
	if masked["pop"] == 0 || masked["classical"] == 0 || kept["rock"] == 0 {
		t.Errorf("velocity targets masked %v, kept %v: every source should be drawn", masked, kept)
	}
	for _, bad := range []string{"a,,b", "a=1", "x,x"} {
		if err := o.SetFlatVelocity(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if err := o.SetFlatVelocity(""); err != nil || o.FlatVelocity != nil {
		t.Errorf("empty: %v %v", err, o.FlatVelocity)
	}
}

// TestWeightsForShares: the weights that make the card's shares, by hand
// on the tiny mixture (natural shares pop 4/14, drums 6/14, quartets 4/14),
// reproduced by Shares and by the draws; the refusals.
func TestWeightsForShares(t *testing.T) {
	v := token.DefaultVocab()
	ds, err := train.OpenDir(mixtureDir(t, v), v.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	tr, _ := ds.Split(0, 1)
	natural := New(v, DefaultOptions()).Shares(tr)
	for s, want := range map[string]float64{"pop": 4.0 / 14, "drums": 6.0 / 14, "quartets": 4.0 / 14} {
		if math.Abs(natural[s]-want) > 1e-12 {
			t.Fatalf("natural share of %s %.6f, want %.6f", s, natural[s], want)
		}
	}
	want, err := ParseShares("pop=50%, quartets=0.2")
	if err != nil {
		t.Fatal(err)
	}
	w, err := WeightsForShares(natural, want)
	if err != nil {
		t.Fatal(err)
	}
	for s, x := range map[string]float64{"pop": 1.75, "quartets": 0.7, "drums": 0.7} { // drums: the 0.3 left over its 6/14
		if math.Abs(w[s]-x) > 1e-12 {
			t.Errorf("weight of %s %.6f, want %.6f", s, w[s], x)
		}
	}
	o := DefaultOptions()
	o.SourceWeight = w
	got := New(v, o).Shares(tr)
	for s, x := range map[string]float64{"pop": 0.5, "quartets": 0.2, "drums": 0.3} {
		if math.Abs(got[s]-x) > 1e-12 {
			t.Errorf("share of %s %.6f, want %.6f", s, got[s], x)
		}
	}
	for _, c := range []struct{ shares, why string }{
		{"pop=0.5,rock=0.1", "a source the data lacks"},
		{"pop=0.5,quartets=0.5", "drums left without a share"},
		{"pop=0.5,quartets=0.2,drums=0.2", "named shares short of 1"},
	} {
		want, err := ParseShares(c.shares)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := WeightsForShares(natural, want); err == nil {
			t.Errorf("%s (%s) accepted", c.shares, c.why)
		}
	}
	for _, bad := range []string{"pop=1.5", "pop=0.6,drums=0.6", "pop", "pop=x", "pop=0.1,pop=0.2", "pop=-0.1"} {
		if _, err := ParseShares(bad); err == nil {
			t.Errorf("ParseShares(%q) accepted", bad)
		}
	}
}
