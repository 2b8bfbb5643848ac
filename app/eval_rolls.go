package app

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/roll"
)

// RollOptions control DrawRolls.
type RollOptions struct {
	Bars      int // bars drawn from bar 0 (0: 16)
	Cols      int // panels a row (0: 1)
	PxPerBeat int // 0: 12
	Height    int // pitched area, pixels (0: 150)
}

// DrawRolls draws one piano-roll panel per score (captions beside them,
// same order) in a grid and writes it as a PNG. beats, when given (same
// order, 0: o.Bars bars), draws a panel over that many quarter notes.
func DrawRolls(out string, scores []*midi.Score, captions []string, beats []int, o RollOptions) error {
	panels := make([]*image.RGBA, len(scores))
	for i, s := range scores {
		c, b := "", 0
		if i < len(captions) {
			c = captions[i]
		}
		if i < len(beats) {
			b = beats[i]
		}
		panels[i], _ = roll.Draw(s, roll.Options{Bars: o.Bars, Beats: b, PxPerBeat: o.PxPerBeat, Height: o.Height, Caption: c})
	}
	img := roll.Grid(panels, max(o.Cols, 1), 6)
	if err := WriteOutput(Stopping(), out, func(w io.Writer) error { return png.Encode(w, img) }); err != nil {
		return fmt.Errorf("roll: %w", err)
	}
	return nil
}

// RollFiles draws the first o.Bars bars of each MIDI file as a panel
// captioned with its folder and name, in the files' order, and writes the
// grid as the PNG out (amt roll).
func RollFiles(ctx context.Context, out string, files []string, o RollOptions) error {
	if err := CheckOutput(out); err != nil { // before reading: a folder fails at once
		return fmt.Errorf("roll: %w", err)
	}
	bars, px := o.Bars, o.PxPerBeat
	if bars == 0 {
		bars = 16
	}
	if px == 0 {
		px = 12
	}
	var scores []*midi.Score
	var captions []string
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, err := readMIDI(ctx, f)
		if err != nil {
			return fmt.Errorf("roll: %w", err)
		}
		scores = append(scores, s)
		captions = append(captions, captionFit(filepath.Join(filepath.Base(filepath.Dir(f)), filepath.Base(f)), bars, px))
	}
	return DrawRolls(out, scores, captions, nil, o)
}

// captionFit clips a caption to the width of a panel of bars 4/4 bars.
func captionFit(s string, bars, pxPerBeat int) string {
	n := (bars*4*pxPerBeat - 4) / 6
	return clip(s, max(n, 8))
}

// WriteSuiteRolls writes, for count suite pieces spread evenly over the
// valid ones, their MIDI files (suite-NNN.mid, NNN the prompt's number) and
// one image dir/rolls.png: a row per piece, the generated piece (first 16
// bars) on the left and on the right a real piece of its matched corpus
// over as many quarter notes from its start (whole bars: a real piece in
// 2/4 gets 32 bars beside 16 generated bars of 4/4), chosen
// deterministically: the j-th piece matched to
// a corpus gets the file at (2j+1)/(2·count) of the corpus's sorted list.
// Without corpora (corpusDir "") only the generated pieces are drawn.
func WriteSuiteRolls(dir string, rep *SuiteReport, corpusDir string, count int) error {
	if err := CheckOutputDir(dir); err != nil {
		return fmt.Errorf("rolls: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("rolls: %w", err)
	}
	var valid []int
	for i, p := range rep.Pieces {
		if p.Valid && p.score != nil {
			valid = append(valid, i)
		}
	}
	if len(valid) == 0 {
		return fmt.Errorf("rolls: no valid piece to draw")
	}
	count = min(count, len(valid))
	files := map[string][]string{}
	list := func(name string) []string {
		if fs, ok := files[name]; ok {
			return fs
		}
		var fs []string
		names := []string{name}
		if name == RefDrums {
			names = []string{RefOpenMSX, RefFreedoom}
		}
		for _, n := range names {
			var p string
			switch r := rep.References[n]; {
			case r != nil && r.Path != "":
				p = r.Path
			case corpusDir != "":
				p = filepath.Join(corpusDir, n)
			default:
				continue
			}
			if got, err := corpus.List(p); err == nil {
				fs = append(fs, got...)
			}
		}
		files[name] = fs
		return fs
	}
	const bars, px = 16, 12
	used := map[string]int{}
	var scores []*midi.Score
	var captions []string
	var beats []int
	cols := 1
	for k := 0; k < count; k++ {
		i := valid[k*len(valid)/count]
		p := &rep.Pieces[i]
		name := fmt.Sprintf("suite-%03d.mid", i+1)
		if err := WriteMIDI(filepath.Join(dir, name), p.score); err != nil {
			return fmt.Errorf("rolls: %w", err)
		}
		scores = append(scores, p.score)
		captions = append(captions, captionFit(fmt.Sprintf("%d: %s", i+1, p.Prompt), bars, px))
		beats = append(beats, 0)
		fs := list(p.Corpus)
		if len(fs) == 0 {
			continue
		}
		cols = 2
		j := used[p.Corpus]
		used[p.Corpus]++
		f := fs[(2*j+1)*len(fs)/(2*count)%len(fs)]
		s, err := midi.ReadFile(f)
		if err != nil {
			return fmt.Errorf("rolls: %w", err)
		}
		scores = append(scores, s)
		beats = append(beats, int(roll.BarsEnd(p.score, bars)/int64(p.score.TicksPerBeat)))
		rel := f
		if r, err := filepath.Rel(corpusDir, f); err == nil && !strings.HasPrefix(r, "..") {
			rel = r
		}
		captions = append(captions, captionFit("real: "+rel, bars, px))
	}
	if cols == 2 && len(scores) != 2*count {
		// Some pieces found no real partner: draw one column.
		cols = 1
	}
	return DrawRolls(filepath.Join(dir, "rolls.png"), scores, captions, beats, RollOptions{Bars: bars, Cols: cols, PxPerBeat: px})
}
