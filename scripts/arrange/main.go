// Command arrange builds the arranged corpus (engine/arrange, docs/DATA.md):
// every POP909 song, Nottingham tune and EWLD lead sheet that lines up, over
// MMA grooves that fit its meter and tempo, with a human drummer's
// performance (Groove MIDI Dataset) in place of MMA's drums wherever one
// fits, written as MIDI files with JSON sidecars.
//
//	go run ./scripts/arrange --data ../shared/data --out WORK/arranged [--jobs N] [--force] [--mma-drums]
//	go run ./scripts/arrange --data ../shared/data --out /tmp/a --only 'pop909/00*,nottingham/jigs12,ewld/0024*'
//	go run ./scripts/arrange --drum-feel DIR [DIR...]
//
// --drum-feel measures the drums of the MIDI files under each folder
// (engine/arrange.MeasureDrumFeel) and prints the medians and quartiles
// per folder: velocity spread, onset deviation from the 16th/triplet grid,
// hits per bar, bar-to-bar change.
//
// It needs the mma program (Debian package mma). The output folder is
// replaced as a whole; a folder built from the same inputs by the same
// generator is kept as it is (--force rebuilds it). make model runs it
// (scripts/make_model.sh).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/amtstudio/amt/engine/arrange"
	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/midi"
)

func main() {
	data := flag.String("data", "../shared/data", "folder holding pop909/ and nottingham/")
	out := flag.String("out", "", "corpus folder to build (replaced as a whole)")
	jobs := flag.Int("jobs", 2, "mma processes at once")
	mma := flag.String("mma", "mma", "the mma program")
	only := flag.String("only", "", "comma-separated source ids (pop909/001, nottingham/jigs12) or prefixes ending in * (pop909/00*) to build only those")
	force := flag.Bool("force", false, "rebuild even if OUT was built from the same inputs")
	perPop := flag.Int("per-pop909", 4, "grooves per POP909 song")
	perNot := flag.Int("per-nottingham", 3, "grooves per Nottingham tune")
	perEWLD := flag.Int("per-ewld", 4, "grooves per EWLD lead sheet")
	mmaDrums := flag.Bool("mma-drums", false, "keep MMA's drums under every piece (no human drums)")
	feel := flag.Bool("drum-feel", false, "measure the drums of the MIDI files under the folders given as arguments, and exit")
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.Parse()
	if *feel {
		if flag.NArg() == 0 {
			fmt.Fprintln(os.Stderr, "arrange: --drum-feel wants one or more folders")
			os.Exit(2)
		}
		if err := drumFeel(flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "arrange:", err)
			os.Exit(1)
		}
		return
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "arrange: --out is required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := arrange.Options{Data: *data, Out: *out, Jobs: *jobs, MMA: *mma, Force: *force,
		PerPOP909: *perPop, PerNottingham: *perNot, PerEWLD: *perEWLD, MMADrums: *mmaDrums}
	if *only != "" {
		ids := strings.Split(*only, ",")
		o.Only = func(id string) bool {
			for _, x := range ids {
				x = strings.TrimSpace(x)
				if id == x || (strings.HasSuffix(x, "*") && strings.HasPrefix(id, strings.TrimSuffix(x, "*"))) {
					return true
				}
			}
			return false
		}
	}
	last := time.Now()
	o.Progress = func(done, total int) {
		if done == total || time.Since(last) > 10*time.Second {
			last = time.Now()
			fmt.Fprintf(os.Stderr, "arrange: %d of %d pieces\n", done, total)
		}
	}
	rep, err := arrange.Build(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "arrange:", err)
		os.Exit(1)
	}
	if *asJSON {
		b, _ := json.MarshalIndent(rep, "", "  ")
		fmt.Println(string(b))
		return
	}
	if rep.Reused {
		fmt.Printf("arrange: %s is up to date (key %s): %d pieces\n", *out, rep.Key, rep.Pieces)
		return
	}
	fmt.Printf("arrange: %d pieces in %s (%.0f s, %d jobs); sources arranged %v of %v\n",
		rep.Pieces, *out, rep.Seconds, *jobs, rep.Sources, rep.SourcesAll)
	fmt.Printf("  by corpus %v; %d keep the original piano part\n", rep.BySource, rep.PianoKept)
	fmt.Printf("  by family %s\n", sortedCounts(rep.ByFamily))
	fmt.Printf("  checks: %d bars, %d after the pickup without drums; tempo-map mismatches %d, meter mismatches %d; key same %d, close %d of %d; pitched programs max %d mean %.2f\n",
		rep.Bars, rep.BarsNoDrums, rep.TempoMismatch, rep.MeterMismatch, rep.KeySame, rep.KeyClose, rep.Pieces,
		rep.MaxPrograms, rep.MeanPrograms)
	if rep.EWLDNotes > 0 {
		fmt.Printf("  lead sheets: %d of %d melody notes line up with their scores; %d chords; on-beat notes in the chord %d of %d\n",
			rep.EWLDNotesMatched, rep.EWLDNotes, rep.EWLDChords, rep.EWLDChordTones, rep.EWLDBeatNotes)
	}
	if rep.DrumLibrary != "" {
		fmt.Printf("  human drums under %d of %d pieces (%d performances, at most %d pieces each; %d fills); library: %s\n",
			rep.HumanDrums, rep.Pieces, rep.DrumBeats, rep.DrumMaxUses, rep.Fills, rep.DrumLibrary)
		if len(rep.MMADrumsKept) > 0 {
			fmt.Printf("  MMA's drums kept: %s\n", sortedCounts(rep.MMADrumsKept))
		}
	}
	if len(rep.Skipped) > 0 {
		fmt.Printf("  skipped sources: %s\n", sortedCounts(rep.Skipped))
	}
	for _, f := range rep.Failed {
		fmt.Println("  failed:", f)
	}
	if len(rep.Failed) > 0 {
		os.Exit(1)
	}
}

func sortedCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, m[k])
	}
	return b.String()
}

// drumFeel prints, per folder, the medians and quartiles of the drum
// measures over its MIDI files that have drums.
func drumFeel(dirs []string) error {
	fmt.Printf("%-40s %6s %6s  %-18s %-18s %-18s %-18s\n", "folder", "files", "drums",
		"velocity spread", "onset dev (ms)", "hits per bar", "bar change")
	for _, dir := range dirs {
		files, err := corpus.List(dir)
		if err != nil {
			return err
		}
		var cols [4][]float64
		n := 0
		for _, f := range files {
			sc, err := midi.ReadFile(f)
			if err != nil {
				fmt.Fprintf(os.Stderr, "arrange: %v (left out)\n", err)
				continue
			}
			m, ok := arrange.MeasureDrumFeel(sc)
			if !ok {
				continue
			}
			n++
			for i, v := range []float64{m.VelSpread, m.OnsetDevMS, m.HitsPerBar, m.BarChange} {
				cols[i] = append(cols[i], v)
			}
		}
		fmt.Printf("%-40s %6d %6d", dir, len(files), n)
		for _, c := range cols {
			sort.Float64s(c)
			q := func(p float64) float64 {
				if len(c) == 0 {
					return math.NaN()
				}
				return c[int(p*float64(len(c)-1)+0.5)]
			}
			fmt.Printf("  %5.2f [%5.2f–%5.2f]", q(0.5), q(0.25), q(0.75))
		}
		fmt.Println()
	}
	return nil
}
