package main

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/pipeline"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
)

// mixtureData writes three sources side by side as make_model exports
// them: pop (6 two-part tunes, genre pop), arranged (6 with drums: rich,
// genre rock) and notation (6 at one velocity, genre folk).
func mixtureData(t *testing.T) string {
	t.Helper()
	v := token.DefaultVocab()
	dir := filepath.Join(t.TempDir(), "data")
	for _, src := range []struct{ name, genre string }{{"pop", "pop"}, {"arranged", "rock"}, {"notation", "folk"}} {
		var pieces [][]uint16
		for i := 0; i < 6; i++ {
			s := madeTune(i)
			switch src.name {
			case "arranged":
				var kit []midi.Note
				for k := 0; k < 16*4; k++ {
					kit = append(kit, midi.Note{Tick: int64(k * 96), Dur: 24, Pitch: uint8(36 + 2*(k%2)), Velocity: uint8(70 + 9*(k%4))})
				}
				s.Tracks = append(s.Tracks, midi.Track{Name: "drums", Channel: 9, IsDrum: true, Notes: kit})
			case "notation":
				for ti := range s.Tracks {
					for j := range s.Tracks[ti].Notes {
						s.Tracks[ti].Notes[j].Velocity = 80
					}
				}
			}
			toks, _, err := v.AppendEncodeMeasuredGenre(nil, s, midi.Analyze(s), src.genre)
			if err != nil {
				t.Fatal(err)
			}
			pieces = append(pieces, toks)
		}
		if _, err := pipeline.WriteShard(filepath.Join(dir, src.name), "shard-00000", pieces); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestMixtureCard: the card (trainmodel --card) states the shares asked
// for with --source-share, the weights that make them (pop 0.5 over its
// natural 6/24, notation 0.2 over 6/24, arranged the 0.3 left over 12/24)
// and the human-made share (all but arranged); a tiny CPU training run on
// the same data prints the same mixture, draws its examples from every
// source, and learns no velocity of the flat source.
func TestMixtureCard(t *testing.T) {
	data := mixtureData(t)
	co := tinyConfig(t, data, "cpu").Cond
	co.DropProb, co.DropAllProb = 0, 0 // each example names its genre, so its source
	if err := co.SetFlatVelocity("notation"); err != nil {
		t.Fatal(err)
	}
	shares := map[string]float64{"pop": 0.5, "notation": 0.2}
	var card bytes.Buffer
	if err := printCard(&card, data, co, shares, 1); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"| pop | 6 | 0 |", "| 2 | yes | 50.0% |",
		"| arranged | 6 | 6 |", "| 0.6 | yes | 30.0% |",
		"| notation | 6 | 0 |", "| 0.8 | no (notation) | 20.0% |",
		"| all | 18 |", "human-made: 70.0% of the examples",
	} {
		if !strings.Contains(card.String(), line) {
			t.Errorf("card lacks %q:\n%s", line, card.String())
		}
	}

	c := tinyConfig(t, data, "cpu")
	c.Cond, c.Shares = co, shares
	c.Train.Steps, c.Train.Batch = 8, 6
	rec := &recorder{batches: map[uint64][]int32{}}
	c.wrap = func(e train.Examples) train.Examples { rec.Examples = e; return rec }
	var out bytes.Buffer
	res, err := run(context.Background(), c, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "mixture (share of the examples): pop 50.0%, arranged 30.0%, notation 20.0%; human-made 70.0%") {
		t.Errorf("the run printed:\n%s", out.String())
	}
	for _, l := range res.Losses {
		if math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) {
			t.Fatalf("losses %v", res.Losses)
		}
	}
	v := token.DefaultVocab()
	T := c.Train.Context
	rows := map[string]int{}
	velTargets := map[string]int{}
	for _, b := range rec.batches {
		in, tg := b[:len(b)/2], b[len(b)/2:]
		for r := 0; r < c.Train.Batch; r++ {
			genre := ""
			for _, x := range in[r*T : (r+1)*T] {
				if k, g := v.Kind(uint16(x)); k == token.KindGenreAttr {
					genre = token.GenreFamilies[g]
				}
			}
			rows[genre]++
			for _, x := range tg[r*T : (r+1)*T] {
				if x >= 0 {
					if k, _ := v.Kind(uint16(x)); k == token.KindVelocity {
						velTargets[genre]++
					}
				}
			}
		}
	}
	if rows["pop"] == 0 || rows["rock"] == 0 || rows["folk"] == 0 {
		t.Errorf("examples by genre %v: every source should be drawn in %d examples", rows, c.Train.Steps*c.Train.Batch)
	}
	if velTargets["folk"] != 0 || velTargets["pop"] == 0 || velTargets["rock"] == 0 {
		t.Errorf("velocity targets by genre %v: none for the flat source (folk), some for the others", velTargets)
	}
}
