package midi

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
)

// trustCase is what the trust rule read of one file.
type trustCase struct {
	z, loss, dr    float64 // as contradiction returns them
	agree, replace bool    // the maps coincide; decide re-bars
	chords         float64 // chordShare
	pickup         bool    // the first note is not on a declared bar line
}

// trustOf runs inference on s and the trust rule's decision.
func trustOf(s *Score) (trustCase, bool) {
	buf := new(gridBuf)
	gr, why := buildGrid(s, buf)
	if why != "" {
		return trustCase{}, false
	}
	gr.em = emissions(buf, gr.n, &weights)
	sh, starts, _ := place(gr, buf, shapes(), &weights, s.TicksPerBeat)
	bars, _ := barsOf(gr, sh, starts)
	g := MeterGuess{Num: sh.num, Den: sh.den, Bars: bars, Offset: gr.o2 / 2}
	var c trustCase
	c.z, c.loss, c.dr, c.agree = contradiction(s, gr, buf, g)
	m := s.Meters[0]
	c.replace, _ = decide(s, gr, buf, m.Num, m.Den, g)
	c.chords = chordShare(s)
	if bar, ok := BarTicks(m.Num, m.Den, s.TicksPerBeat); ok {
		c.pickup = gr.first%bar != 0
	}
	return c, true
}

// melodyOnly keeps the first pitched track of s (Nottingham's tune; its
// second track holds the chords).
func melodyOnly(s *Score) {
	for i, t := range s.Tracks {
		if !t.IsDrum {
			s.Tracks = s.Tracks[i : i+1]
			return
		}
	}
}

// trustSet reads a corpus's files with a declared meter, as written or
// with only their tune (melody) and every note a beat later (late: the
// declared bar lines wrong), and runs the trust rule on each.
func trustSet(t *testing.T, name string, melody, late bool) []trustCase {
	var cs []trustCase
	for _, f := range corpus.MIDIFiles(t, name) {
		s, err := ReadFile(f)
		if err != nil || len(s.Meters) == 0 {
			continue
		}
		if melody {
			melodyOnly(s)
		}
		if late {
			for ti := range s.Tracks {
				for i := range s.Tracks[ti].Notes {
					s.Tracks[ti].Notes[i].Tick += int64(s.TicksPerBeat)
				}
			}
		}
		if c, ok := trustOf(s); ok {
			cs = append(cs, c)
		}
	}
	return cs
}

func rebarred(cs []trustCase) int {
	n := 0
	for _, c := range cs {
		if c.replace {
			n++
		}
	}
	return n
}

// TestMeterMelodyTrust checks the trust rule on tunes without their chords
// (issue 33: the generator's solo tunes were re-barred, "jig in 6/8 on the
// flute" read as contradicted). Truth: Nottingham's declared meters (its
// ABC files'), right as written and wrong with every note a beat later. The
// tunes alone, their meter right, were re-barred in 172 of 1,034 before
// the loss floor (contradictLoss); now at most 3% may be, while the tunes
// with their chords keep theirs (at most 1% re-barred) and a beat late are
// still re-barred (at least 90%). METER_MELODY=1 also reports EWLD's
// lead sheets, the lieder, the Groove drum performances, the game corpora,
// and the MIDI files of a folder (METER_GEN=DIR: generated pieces), with
// the quantiles of the evidence and the pickups apart.
func TestMeterMelodyTrust(t *testing.T) {
	type set struct {
		corpus      string
		melody      bool
		late        bool
		most, least float64 // % re-barred allowed, required
	}
	sets := []set{
		{corpus.Nottingham, false, false, 1, 0},
		{corpus.Nottingham, false, true, 100, 90},
		{corpus.Nottingham, true, false, 3, 0},
		{corpus.Nottingham, true, true, 100, 0},
	}
	by := os.Getenv("METER_MELODY") != ""
	if by {
		sets = append(sets, set{corpus.EWLD, false, false, 100, 0}, set{corpus.EWLD, false, true, 100, 0},
			set{corpus.Lieder, false, false, 100, 0}, set{corpus.Groove, false, false, 100, 0},
			set{corpus.Freedoom, false, false, 100, 0}, set{corpus.OpenMSX, false, false, 100, 0},
			set{corpus.OpenMSX, false, true, 100, 0})
	}
	report := func(name string, cs []trustCase) {
		q := func(x []float64, p float64) float64 {
			if len(x) == 0 {
				return math.NaN()
			}
			sort.Float64s(x)
			return x[int(p*float64(len(x)-1))]
		}
		var z, loss, ch []float64
		var np, rp int
		for _, c := range cs {
			ch = append(ch, c.chords)
			if !c.agree && !math.IsNaN(c.z) {
				z, loss = append(z, c.z), append(loss, c.loss)
			}
			if c.pickup {
				np++
				if c.replace {
					rp++
				}
			}
		}
		t.Logf("%s: %d files, re-barred %d; with a pickup %d of %d; where the maps disagree (%d): z p10 %.2f p50 %.2f p90 %.2f, loss p10 %.3f p50 %.3f p90 %.3f; chord share p10 %.2f p50 %.2f p90 %.2f",
			name, len(cs), rebarred(cs), rp, np, len(z), q(z, .1), q(z, .5), q(z, .9), q(loss, .1), q(loss, .5), q(loss, .9), q(ch, .1), q(ch, .5), q(ch, .9))
	}
	for _, st := range sets {
		cs := trustSet(t, st.corpus, st.melody, st.late)
		name := fmt.Sprintf("%s (tune alone %v, a beat late %v)", st.corpus, st.melody, st.late)
		pc := 100 * float64(rebarred(cs)) / float64(max(1, len(cs)))
		if by {
			report(name, cs)
		} else {
			t.Logf("%s: re-barred %d of %d (%.1f%%)", name, rebarred(cs), len(cs), pc)
		}
		if pc > st.most || pc < st.least {
			t.Errorf("%s: re-barred %.1f%%, want %.0f–%.0f%%", name, pc, st.least, st.most)
		}
	}
	if dir := os.Getenv("METER_GEN"); dir != "" {
		fs, _ := filepath.Glob(filepath.Join(dir, "*.mid"))
		var cs []trustCase
		for _, f := range fs {
			s, err := ReadFile(f)
			if err != nil || len(s.Meters) == 0 {
				continue
			}
			if c, ok := trustOf(s); ok {
				cs = append(cs, c)
				if c.replace {
					t.Logf("%s: z %.2f loss %.3f dr %.2f chords %.2f", filepath.Base(f), c.z, c.loss, c.dr, c.chords)
				}
			}
		}
		report(dir, cs)
	}
}

// TestGeneratedJigKept: the tune of "jig in 6/8 on the flute" (seed 1, the
// embedded model, 2026-11-28), a flute alone in running eighths after an
// eighth's upbeat at the end of a bar of rest (the generator's pickup, as
// Nottingham's files write theirs). Its notes mark the bar faintly
// (confidence 0.01); the declared 6/8 was re-barred an eighth later
// before the loss floor, and is kept now, its bar lines where a notation
// program puts them.
func TestGeneratedJigKept(t *testing.T) {
	bars := [][]uint8{
		{65, 66, 73, 77, 75, 73}, {72, 73, 72, 70, 68, 66}, {65, 66, 73, 75, 0, 0}, {77, 0, 78, 77, 75, 73},
		{65, 66, 73, 77, 75, 73}, {72, 73, 75, 73, 72, 73}, {72, 70, 75, 73, 72, 73}, {72, 73, 75, 73, 72, 73},
	}
	var notes []ev
	notes = append(notes, ev{2.5, 0.5, 68, 80}) // the upbeat: the last eighth of bar 0
	for i := range 16 {
		for k, p := range bars[i%8] {
			if p == 0 {
				continue
			}
			d := 0.5
			if k+1 < 6 && bars[i%8][k+1] == 0 {
				d = 1 // held over the next eighth
			}
			notes = append(notes, ev{3 + 3*float64(i) + 0.5*float64(k), d, p, 80})
		}
	}
	s := piece(notes, nil, []MeterChange{{0, 6, 8}})
	g := InferMeter(s)
	if g.Replace {
		t.Fatalf("re-barred: %s (inferred %s phase %d, confidence %.2f)", g.Reason, g, g.Phase, g.Confidence)
	}
	if m := Prepare(s); m.Rebarred || s.Tracks[0].Notes[0].Tick != 1200 {
		t.Errorf("Prepare moved the tune: re-barred %v, upbeat at %d (want 1200)", m.Rebarred, s.Tracks[0].Notes[0].Tick)
	}
}
