package app

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/eval"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
)

// Copying (issue 34): how many bars in a row a generated piece repeats
// from one training piece (eval.CopyIndex: pitched notes on the grid, any
// one transposition). Training pieces are indexed as the model saw them,
// tokenized and decoded, so the tokenizer's quantization cannot hide a
// copy. `amt eval-model --two-sample --copies DIR` measures the model's
// answers against a folder of its training pieces; the fine-tune report
// against the dataset's pieces it learned from (and, as the baseline,
// the held-out real pieces against the same).

// MaxCopyRun is issue 34's floor: a generated piece's longest copied run
// is at most this many bars in CopyFloorShare of the pieces.
const (
	MaxCopyRun     = 2
	CopyFloorShare = 0.95
)

// CopyReport sums up the longest copied run of each piece measured.
type CopyReport struct {
	Training string `json:"training"`        // what was indexed
	Pieces   int    `json:"training_pieces"` // pieces indexed
	Bars     int    `json:"training_bars"`   // bars with pitched notes indexed
	Measured int    `json:"measured"`
	// Runs is each measured piece's longest copied run in bars, in order.
	Runs []int `json:"runs"`
	// Longest is the longest run of all, in the measured piece LongestIn.
	Longest   eval.Copy `json:"longest"`
	LongestIn string    `json:"longest_in"`
	// AtMost is the share of measured pieces whose longest run is at most
	// MaxCopyRun bars; P95 the 95th percentile of the runs.
	AtMost float64 `json:"share_at_most_2_bars"`
	P95    int     `json:"p95_bars"`
	Median float64 `json:"median_bars"`
}

// Met reports issue 34's floor on copying.
func (r *CopyReport) Met() bool { return r != nil && r.Measured > 0 && r.AtMost >= CopyFloorShare }

// indexPiece adds one tokenized piece, decoded, to x.
func indexPiece(x *eval.CopyIndex, v *token.Vocab, name string, toks []uint16) {
	sc, _, err := v.Decode(toks)
	if err == nil {
		x.Add(name, sc)
	}
}

// copyIndexOfFiles indexes MIDI files as the model saw them (the
// training tokenizer, then decoded). Files that do not read are skipped.
func copyIndexOfFiles(ctx context.Context, v *token.Vocab, files []string) (*eval.CopyIndex, error) {
	x := eval.NewCopyIndex()
	tok := midiTokenizer(v)
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		toks, err := tok(f)
		if err != nil {
			continue
		}
		indexPiece(x, v, f, toks)
	}
	return x, nil
}

// copyIndexOfSplit indexes the pieces of a training split, named by their
// origin.
func copyIndexOfSplit(ctx context.Context, v *token.Vocab, s *train.Split) (*eval.CopyIndex, error) {
	x := eval.NewCopyIndex()
	origins := s.Origins()
	var buf []uint16
	for i := 0; i < s.Pieces(); i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var err error
		if err = s.Read(func() error { buf = s.AppendPiece(buf[:0], i); return nil }); err != nil {
			return nil, err
		}
		indexPiece(x, v, originName(origins[i]), buf)
	}
	return x, nil
}

// measureCopies measures each score's longest copied run against x.
func measureCopies(x *eval.CopyIndex, what string, names []string, scores []*midi.Score) *CopyReport {
	r := &CopyReport{Training: what, Pieces: x.Pieces(), Bars: x.Bars()}
	for i, sc := range scores {
		if sc == nil {
			continue
		}
		c := x.LongestCopy(sc)
		r.Runs = append(r.Runs, c.Bars)
		if c.Bars > r.Longest.Bars {
			r.Longest, r.LongestIn = c, names[i]
		}
	}
	r.Measured = len(r.Runs)
	if r.Measured == 0 {
		return r
	}
	s := append([]int(nil), r.Runs...)
	sort.Ints(s)
	n := 0
	for _, b := range s {
		if b <= MaxCopyRun {
			n++
		}
	}
	r.AtMost = float64(n) / float64(len(s))
	r.P95 = s[min(len(s)-1, (95*len(s)+99)/100-1)]
	if m := len(s); m%2 == 1 {
		r.Median = float64(s[m/2])
	} else {
		r.Median = float64(s[m/2-1]+s[m/2]) / 2
	}
	return r
}

// MeasureCopies measures the generated pieces of a two-sample report
// against the MIDI files under dirs (a model's training corpora) and keeps
// the result in rep.Copies.
func (rep *TwoSampleReport) MeasureCopies(ctx context.Context, v *token.Vocab, dirs []string) error {
	var files []string
	for _, d := range dirs {
		fs, err := corpus.List(d)
		if err != nil {
			return fmt.Errorf("copies: %w", err)
		}
		files = append(files, fs...)
	}
	if len(files) == 0 {
		return fmt.Errorf("copies: no MIDI files under %s", strings.Join(dirs, ", "))
	}
	x, err := copyIndexOfFiles(ctx, v, files)
	if err != nil {
		return err
	}
	names, scores := rep.generated()
	what := make([]string, len(dirs))
	for i, d := range dirs {
		what[i] = filepath.Base(filepath.Clean(d))
	}
	rep.Copies = measureCopies(x, strings.Join(what, ", "), names, scores)
	return nil
}

// generated lists the report's generated pieces (named by the real piece
// they answer) with their scores (nil where generation failed).
func (rep *TwoSampleReport) generated() ([]string, []*midi.Score) {
	names := make([]string, len(rep.Pieces))
	scores := make([]*midi.Score, len(rep.Pieces))
	for i, p := range rep.Pieces {
		names[i], scores[i] = "answer to "+p.File, p.genScore
	}
	return names, scores
}
