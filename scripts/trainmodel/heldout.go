package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/device"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/engine/train/condition"
)

// heldOutSeed draws the held-out batches: fixed, so that two models (before
// and after a run) are scored on the same examples.
const heldOutSeed = 0x6f1d

// heldOutRow is one source's held-out loss under each model.
type heldOutRow struct {
	Source string
	Pieces int       // held-out pieces of the source
	Loss   []float64 // mean loss a target, one a model
}

// heldOutLosses scores each model folder on the held-out pieces of the data
// under dir (the split of valFrac and splitSeed, as a run with those
// numbers holds them out), source by source: batches of B × T conditioned
// examples built with co (the run's key labels, frame and flat
// velocities) from that source's pieces alone, the same batches for every
// model. The last row, "mixture", draws the pieces by co.SourceWeight as a
// run's validation does.
func heldOutLosses(be nn.Backend, dir string, models []string, co condition.Options, splitSeed uint64, batches, B, T int) ([]heldOutRow, error) {
	v := token.DefaultVocab()
	ds, err := train.OpenDir(dir, v.Size(), nil)
	if err != nil {
		return nil, err
	}
	defer ds.Close()
	_, val := ds.Split(valFrac, splitSeed)
	count := map[string]int{}
	for i := 0; i < val.Pieces(); i++ {
		count[val.PieceSource(i)]++
	}
	var sources []string
	for s := range count {
		sources = append(sources, s)
	}
	sort.Strings(sources)
	rows := make([]heldOutRow, 0, len(sources)+1)
	for _, s := range sources {
		rows = append(rows, heldOutRow{Source: s, Pieces: count[s]})
	}
	rows = append(rows, heldOutRow{Source: "mixture", Pieces: val.Pieces()})
	in, tg := make([]int32, B*T), make([]int32, B*T)
	for _, dirM := range models {
		m, err := initModel(be, dirM, v)
		if err != nil {
			return nil, err
		}
		if (m.Config.KeyFrame == gpt.KeyFrameTonic) != co.TonicFrame {
			return nil, fmt.Errorf("%s: key frame %q, but the examples' is %q (--key-frame)", dirM, m.Config.KeyFrame, map[bool]string{true: "tonic", false: "absolute"}[co.TonicFrame])
		}
		if T > m.Config.NPositions {
			return nil, fmt.Errorf("%s: --context %d beyond its %d positions", dirM, T, m.Config.NPositions)
		}
		for r := range rows {
			o := co
			if rows[r].Source != "mixture" {
				o.SourceWeight = map[string]float64{}
				for _, s := range sources {
					o.SourceWeight[s] = 0
				}
				o.SourceWeight[rows[r].Source] = 1
			}
			ex := condition.New(v, o)
			sum := 0.0
			for k := 0; k < batches; k++ {
				if err = val.Read(func() error { return ex.Fill(val, uint64(k), heldOutSeed, B, T, in, tg) }); err != nil {
					break
				}
				var l float32
				if l, err = m.Forward(in, tg, B, T); err != nil {
					break
				}
				sum += float64(l)
			}
			if err != nil {
				return nil, fmt.Errorf("held-out %s with %s: %w", rows[r].Source, dirM, err)
			}
			rows[r].Loss = append(rows[r].Loss, sum/float64(batches))
		}
	}
	return rows, nil
}

// writeHeldOut prints the rows as a Markdown table, a column per model and,
// with two models, the change from the first to the last.
func writeHeldOut(w io.Writer, rows []heldOutRow, models []string, batches, B, T int) {
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = filepath.Clean(m)
	}
	head := "| source | held-out pieces | " + strings.Join(names, " | ") + " |"
	sep := "|---|---|" + strings.Repeat("---|", len(models))
	if len(models) > 1 {
		head += " change |"
		sep += "---|"
	}
	fmt.Fprintf(w, "held-out loss a target (nats), %d batches of %d × %d a source:\n%s\n%s\n", batches, B, T, head, sep)
	for _, r := range rows {
		cells := make([]string, len(r.Loss))
		for i, l := range r.Loss {
			cells[i] = fmt.Sprintf("%.4f", l)
		}
		line := fmt.Sprintf("| %s | %d | %s |", r.Source, r.Pieces, strings.Join(cells, " | "))
		if n := len(r.Loss); n > 1 {
			line += fmt.Sprintf(" %+.4f |", r.Loss[n-1]-r.Loss[0])
		}
		fmt.Fprintln(w, line)
	}
}

// runHeldOut is --heldout: the models scored on the held-out pieces of data
// on the device asked for, the table printed to w.
func runHeldOut(w io.Writer, data string, models []string, co condition.Options, shares map[string]float64, splitSeed, seed uint64, dev, precision string, batches, B, T int) error {
	if batches < 1 || B < 1 || T < 2 {
		return fmt.Errorf("--heldout-batches %d, --batch %d, --context %d: want ≥ 1, ≥ 1, ≥ 2", batches, B, T)
	}
	if splitSeed == 0 {
		splitSeed = seed
	}
	v := token.DefaultVocab()
	ds, err := train.OpenDir(data, v.Size(), nil)
	if err != nil {
		return err
	}
	co, err = resolveShares(ds, v, co, shares, valFrac, splitSeed)
	if err == nil {
		err = checkSources(ds.Sources(), co, data)
	}
	ds.Close()
	if err != nil {
		return err
	}
	be, choice, err := device.OpenWith(dev, 0, precision)
	if err != nil {
		return err
	}
	defer be.Close()
	fmt.Fprintf(w, "device: %s\n", choice.Reason)
	rows, err := heldOutLosses(be, data, models, co, splitSeed, batches, B, T)
	if err != nil {
		return err
	}
	writeHeldOut(w, rows, models, batches, B, T)
	return nil
}
