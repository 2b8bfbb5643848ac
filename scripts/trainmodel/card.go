package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/engine/train/condition"
)

// synthetic names the sources that are not human-made music: the arranged
// corpus (MMA's grooves under human melodies, docs/DATA.md). Every other
// source of make_model's data was written, and in part played, by people.
var synthetic = map[string]bool{"arranged": true}

// sourceRow is one source's line of the data card's mixture.
type sourceRow struct {
	Name         string  `json:"name"`
	Pieces       int     `json:"pieces"`
	Tokens       int     `json:"tokens"`
	Rich         int     `json:"rich"`       // with drums or 3+ programs (condition.Rich)
	ValPieces    int     `json:"val_pieces"` // held out (split by piece)
	Weight       float64 `json:"source_weight"`
	FlatVelocity bool    `json:"flat_velocity"`
	Share        float64 `json:"share"` // of the training examples (condition.Builder.Shares)
}

// mixture measures what a run on ds with these options sees: each source's
// pieces and tokens, its held-out pieces under the run's split (valFrac,
// splitSeed), its SourceWeight and its expected share of the training
// examples. Rows are sorted by share, largest first.
func mixture(ds *train.Dataset, v *token.Vocab, co condition.Options, valFrac float64, splitSeed uint64) []sourceRow {
	tr, val := ds.Split(valFrac, splitSeed)
	rows := map[string]*sourceRow{}
	row := func(name string) *sourceRow {
		if r, ok := rows[name]; ok {
			return r
		}
		w, ok := co.SourceWeight[name]
		if !ok {
			w = 1
		}
		r := &sourceRow{Name: name, Weight: w, FlatVelocity: co.FlatVelocity[name]}
		rows[name] = r
		return r
	}
	var toks []uint16
	for _, s := range []*train.Split{tr, val} {
		for i := 0; i < s.Pieces(); i++ {
			r := row(s.PieceSource(i))
			r.Pieces++
			r.Tokens += s.PieceLen(i)
			if toks = s.AppendPiece(toks[:0], i); condition.Rich(v, toks) {
				r.Rich++
			}
			if s == val {
				r.ValPieces++
			}
		}
	}
	for name, share := range condition.New(v, co).Shares(tr) {
		row(name).Share = share
	}
	out := make([]sourceRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Share != out[j].Share {
			return out[i].Share > out[j].Share
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// humanShare is the share of the examples that human-made sources give.
func humanShare(rows []sourceRow) float64 {
	h := 0.0
	for _, r := range rows {
		if !synthetic[r.Name] {
			h += r.Share
		}
	}
	return h
}

// writeCard prints the mixture as the data card's table (docs/DATA.md,
// "What the model sees").
func writeCard(w io.Writer, rows []sourceRow) {
	fmt.Fprintln(w, "| source | pieces | with drums or 3+ programs | tokens | held out | weight | velocity learned | share of examples |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	var pieces, tokens, val int
	for _, r := range rows {
		vel := "yes"
		if r.FlatVelocity {
			vel = "no (notation)"
		}
		fmt.Fprintf(w, "| %s | %d | %d | %.2f M | %d | %.3g | %s | %.1f%% |\n", r.Name, r.Pieces, r.Rich, float64(r.Tokens)/1e6, r.ValPieces, r.Weight, vel, 100*r.Share)
		pieces, tokens, val = pieces+r.Pieces, tokens+r.Tokens, val+r.ValPieces
	}
	fmt.Fprintf(w, "| all | %d | | %.2f M | %d | | | 100%% |\n", pieces, float64(tokens)/1e6, val)
	fmt.Fprintf(w, "\nhuman-made: %.1f%% of the examples (synthetic: %s)\n", 100*humanShare(rows), strings.Join(sortedKeys(synthetic), ", "))
	for _, r := range rows {
		if r.ValPieces == 0 && r.Pieces > 1 {
			fmt.Fprintf(w, "note: %s has no held-out piece under this split\n", r.Name)
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
