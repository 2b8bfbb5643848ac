package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/nn/cpu"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
)

// TestHeldOutBySource: --heldout scores each source on its own held-out
// pieces. A tiny model trained on the pop source alone (from a saved
// initialization) lowers pop's held-out loss by far more than the arranged
// source's, whose drum tokens it never saw; both start near ln(vocabulary)
// (the uniform guess of a fresh model); a model scored twice gets the same
// numbers (the same batches); the held-out pieces are the card's.
func TestHeldOutBySource(t *testing.T) {
	data := mixtureData(t)
	c := tinyConfig(t, data, "cpu")
	c.Cond.DropProb, c.Cond.DropAllProb = 0, 0
	v := token.DefaultVocab()

	init0 := filepath.Join(t.TempDir(), "init")
	be := cpu.New()
	defer be.Close()
	cfg, err := gpt.Preset("tiny", v.Size())
	if err != nil {
		t.Fatal(err)
	}
	cfg.BOS, cfg.EOS, cfg.KeyFrame = int(v.BOS), int(v.EOS), gpt.KeyFrameTonic
	m, err := gpt.New(be, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(c.Train.Seed)
	if err := m.Save(init0, "F32"); err != nil {
		t.Fatal(err)
	}
	if err := v.Save(filepath.Join(init0, gpt.VocabFile)); err != nil {
		t.Fatal(err)
	}

	c.Init = init0
	c.Cond.SourceWeight = map[string]float64{"pop": 1, "arranged": 0, "notation": 0}
	c.Train.Steps, c.Train.Warmup, c.Train.LR, c.Train.ValEvery = 60, 5, 3e-3, 0
	if _, err := run(context.Background(), c, io.Discard); err != nil {
		t.Fatal(err)
	}

	co := c.Cond
	co.SourceWeight = nil
	var out bytes.Buffer
	if err := runHeldOut(&out, data, []string{init0, c.Out, c.Out}, co, nil, 1, 4, "cpu", "", 3, 3, 96); err != nil {
		t.Fatal(err)
	}
	rows, err := heldOutLosses(be, data, []string{init0, c.Out, c.Out}, co, 1, 3, 3, 96)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := train.OpenDir(data, v.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	card := map[string]int{}
	for _, r := range mixture(ds, v, co, valFrac, 1) {
		card[r.Name] = r.ValPieces
	}
	ds.Close()
	loss := map[string][]float64{}
	for _, r := range rows {
		loss[r.Source] = r.Loss
		if r.Source != "mixture" && r.Pieces != card[r.Source] {
			t.Errorf("%s: %d held-out pieces, the card holds out %d", r.Source, r.Pieces, card[r.Source])
		}
		if r.Loss[1] != r.Loss[2] {
			t.Errorf("%s: the same model scored %.6f and %.6f", r.Source, r.Loss[1], r.Loss[2])
		}
	}
	if len(rows) != 4 || rows[3].Source != "mixture" {
		t.Fatalf("rows %+v: want arranged, notation, pop, mixture", rows)
	}
	uniform := float64(v.Size())
	for s, l := range loss {
		if d := l[0] - math.Log(uniform); d > 0.5 || d < -0.5 {
			t.Errorf("%s: a fresh model's loss %.3f, want about ln %d = %.3f", s, l[0], int(uniform), math.Log(uniform))
		}
	}
	pop, arr := loss["pop"][0]-loss["pop"][1], loss["arranged"][0]-loss["arranged"][1]
	t.Logf("loss drop: pop %.3f, arranged %.3f, notation %.3f\n%s", pop, arr, loss["notation"][0]-loss["notation"][1], out.String())
	if pop < arr+0.2 {
		t.Errorf("trained on pop alone: pop's held-out loss fell by %.3f, arranged's by %.3f; want pop's ≥ 0.2 more", pop, arr)
	}
	for _, want := range []string{"| pop | 1 |", "| mixture | 3 |", " change |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
}
