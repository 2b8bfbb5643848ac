package app

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// Variations are the pieces Compose makes for consecutive seeds, stored
// only when kept; a kept one is in the history with its request and seed.
func TestVariationsKeepOne(t *testing.T) {
	st, err := OpenStudio(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	model := t.TempDir()
	if err := WriteRandomModel(model, "tiny", 7); err != nil {
		t.Fatal(err)
	}
	req := ComposeRequest{Prompt: "piano waltz, 4 bars", ModelDir: model, Form: "none",
		SampleSettings: SampleSettings{MaxTokens: 200, Temperature: 1, TopP: 0.95, Seed: 40}}
	var seen []int
	var last, most int
	req.Progress = func(done, total int) { last, most = done, total }
	vs, err := st.Variations(context.Background(), req, 3, func(i int, v *Variation) { seen = append(seen, i) })
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 3 || len(seen) != 3 || seen[2] != 2 || most == 0 || last > most {
		t.Fatalf("%d variations, each saw %v, progress %d/%d", len(vs), seen, last, most)
	}
	if ps, _ := st.Pieces(DefaultProject); len(ps) != 0 {
		t.Fatalf("%d pieces stored before any was kept", len(ps))
	}
	for i, v := range vs {
		if v.Request.Seed != 40+uint64(i) || v.Result.Piece.ID != 0 || v.Result.Metrics == nil {
			t.Fatalf("variation %d: seed %d, piece %d", i, v.Request.Seed, v.Result.Piece.ID)
		}
	}
	kept, err := st.Keep(vs[1])
	if err != nil {
		t.Fatal(err)
	}
	again, _ := st.Keep(vs[1])
	ps, _ := st.Pieces(DefaultProject)
	if len(ps) != 1 || ps[0].Seed != 41 || ps[0].Prompt != req.Prompt || ps[0].Form != "none" || again.Piece.ID != kept.Piece.ID {
		t.Fatalf("history %+v after keeping seed 41 (twice)", ps)
	}
	// The kept piece is byte for byte what Compose stores for seed 41.
	r := req
	r.Seed, r.Progress = 41, nil
	res, err := st.Compose(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	a, err1 := os.ReadFile(kept.Piece.Abs)
	b, err2 := os.ReadFile(res.Piece.Abs)
	if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
		t.Fatalf("kept variation differs from Compose with its seed (%v, %v)", err1, err2)
	}
	if _, err := st.Variations(context.Background(), req, MaxVariations+1, nil); err == nil {
		t.Error("too many variations accepted")
	}
}
