package arrange

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/midi"
)

// Version names the generator; it is part of the build key, so a change
// here (or in the catalogue) rebuilds the corpus.
const Version = "arrange 1"

// Options configure Build.
type Options struct {
	Data string // the folder holding pop909/ and nottingham/ (../shared/data)
	Out  string // the corpus folder to (re)build; written as a whole, then swapped in
	Jobs int    // mma processes at once (≤ 0: 1)
	MMA  string // the mma program ("" : mma on PATH)
	// PerPOP909 and PerNottingham are the grooves per source (0: 4 and 3).
	PerPOP909, PerNottingham int
	// Only, when set, keeps the sources whose id ("pop909/001",
	// "nottingham/jigs12") it returns true for (tests build a few).
	Only func(id string) bool
	// Force rebuilds even when Out holds a corpus built from the same
	// inputs by the same generator.
	Force bool
	// Progress, if set, is called after each piece (from one goroutine at a
	// time) with the pieces done and the total.
	Progress func(done, total int)
}

// Report is what Build made; it is also written to OUT/report.json.
type Report struct {
	Key        string         `json:"key"` // hash of the generator, the catalogue and the inputs
	Version    string         `json:"version"`
	MMA        string         `json:"mma_version"`
	Pieces     int            `json:"pieces"`
	BySource   map[string]int `json:"pieces_by_corpus"`
	ByFamily   map[string]int `json:"pieces_by_family"`
	ByGroove   map[string]int `json:"pieces_by_groove"`
	PianoKept  int            `json:"pieces_keeping_the_piano"`
	Sources    map[string]int `json:"sources_arranged"`
	SourcesAll map[string]int `json:"sources_seen"`
	Skipped    map[string]int `json:"skipped_by_reason"`
	Failed     []string       `json:"failed,omitempty"`
	// Checks on every written file, read back: bars after the pickup that
	// have no drum note; files whose tempo map, meter or bar count differ
	// from the source's; key estimates equal to the source's, or close
	// (same, relative, or a fifth away).
	Bars            int     `json:"bars"`
	BarsNoDrums     int     `json:"bars_without_drums"`
	TempoMismatch   int     `json:"tempo_map_mismatches"`
	MeterMismatch   int     `json:"meter_mismatches"`
	KeySame         int     `json:"key_same"`
	KeyClose        int     `json:"key_close"`
	MaxPrograms     int     `json:"max_pitched_programs"`
	MeanPrograms    float64 `json:"mean_pitched_programs"`
	Notes           int     `json:"notes"`
	Seconds         float64 `json:"-"`
	Reused          bool    `json:"-"`
	ChordMatchTotal int     `json:"nottingham_chords_matched"`
	ChordTotal      int     `json:"nottingham_chords"`
}

// job is one piece to make.
type job struct {
	src *Source
	v   Variant
}

// piece is a made piece's result.
type piece struct {
	job
	info     MergeInfo
	bars     int
	noDrums  int
	tempoBad bool
	meterBad bool
	keySame  bool
	keyClose bool
	notes    int
	err      error
}

// LoadSources reads the POP909 songs and Nottingham tunes under data,
// returning the sources that can be arranged and the skip reasons of the
// others (by reason, shortened).
func LoadSources(data string, only func(string) bool, rep *Report) ([]*Source, error) {
	var out []*Source
	pop := filepath.Join(data, "pop909")
	if _, err := os.Stat(pop); err == nil {
		idx, err := ReadPOP909Index(filepath.Join(pop, "index.csv"))
		if err != nil {
			return nil, err
		}
		ids := make([]string, 0, len(idx))
		for id := range idx {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			if only != nil && !only("pop909/"+id) {
				continue
			}
			rep.SourcesAll["pop909"]++
			s, err := LoadPOP909(filepath.Join(pop, id), idx[id])
			if err != nil {
				if errors.Is(err, ErrSkip) {
					rep.Skipped[reason(err)]++
					continue
				}
				return nil, err
			}
			out = append(out, s)
		}
	}
	not := filepath.Join(data, "nottingham")
	if _, err := os.Stat(not); err == nil {
		books, err := NottinghamBooks(filepath.Join(not, "abc"))
		if err != nil {
			return nil, err
		}
		files, err := filepath.Glob(filepath.Join(not, "*.mid"))
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			id := "nottingham/" + strings.TrimSuffix(filepath.Base(f), ".mid")
			if only != nil && !only(id) {
				continue
			}
			rep.SourcesAll["nottingham"]++
			s, c, err := LoadNottingham(f, books)
			if err != nil {
				if errors.Is(err, ErrSkip) {
					rep.Skipped[reason(err)]++
					continue
				}
				return nil, err
			}
			rep.ChordMatchTotal += c.Matched
			rep.ChordTotal += max(c.ABC, c.MIDI)
			out = append(out, s)
		}
	}
	return out, nil
}

// reason shortens a skip error to its kind, for counting.
func reason(err error) string {
	s := err.Error()
	switch {
	case strings.Contains(s, "line up"):
		return "nottingham: ABC chords do not line up with the MIDI chord track"
	case strings.Contains(s, "meter changes"):
		return "nottingham: meter changes"
	case strings.Contains(s, "has no grooves"):
		return "nottingham: meter without grooves (9/8, 3/2, 6/4, 5/4)"
	case strings.Contains(s, "want a melody and a chord track"):
		return "nottingham: no chord track"
	case strings.Contains(s, "quarter-note grid"):
		return "pop909: beats off the MIDI's quarter-note grid"
	case strings.Contains(s, "abc X:"):
		return "nottingham: ABC body does not parse"
	}
	if i := strings.Index(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return s
}

// buildKey hashes the generator, the catalogue, the mma version and the
// inputs' names, sizes and modification times.
func buildKey(data, mmaVersion string, only func(string) bool) (string, error) {
	h := sha256.New()
	fmt.Fprintln(h, Version, mmaVersion)
	for _, g := range catalogue {
		fmt.Fprintf(h, "%+v\n", g)
	}
	for _, c := range []string{"pop909", "nottingham"} {
		root := filepath.Join(data, c)
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) && p == root {
					return filepath.SkipDir
				}
				return err
			}
			if d.IsDir() {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(data, p)
			fmt.Fprintf(h, "%s %d %d\n", rel, fi.Size(), fi.ModTime().UnixNano())
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	if only != nil {
		fmt.Fprintln(h, "subset") // a subset never counts as the full corpus
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// mmaVersion asks mma for its version ("21.09").
func mmaVersion(ctx context.Context, bin string) string {
	out, err := execOutput(ctx, bin, "-v")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "Warning") {
			return l
		}
	}
	return "unknown"
}

// Build makes the arranged corpus: for each POP909 song and Nottingham
// tune that can be arranged, PerPOP909 or PerNottingham variants (Choose),
// each run through mma, merged (Merge), checked, and written as
// OUT/CORPUS/NAME.mid with NAME.json beside it (Sidecar); then
// OUT/report.json. The corpus is made in OUT.partial and swapped into
// place at the end, so a killed build leaves the previous corpus. When OUT
// holds a corpus with the same build key, Build returns its report (unless
// Force).
func Build(ctx context.Context, o Options) (*Report, error) {
	start := time.Now()
	bin, err := LookMMA(o.MMA)
	if err != nil {
		return nil, err
	}
	if o.Jobs <= 0 {
		o.Jobs = 1
	}
	if o.PerPOP909 <= 0 {
		o.PerPOP909 = 4
	}
	if o.PerNottingham <= 0 {
		o.PerNottingham = 3
	}
	rep := &Report{Version: Version, MMA: mmaVersion(ctx, bin), BySource: map[string]int{}, ByFamily: map[string]int{},
		ByGroove: map[string]int{}, Sources: map[string]int{}, SourcesAll: map[string]int{}, Skipped: map[string]int{}}
	key, err := buildKey(o.Data, rep.MMA, o.Only)
	if err != nil {
		return nil, fmt.Errorf("arrange: inputs: %w", err)
	}
	rep.Key = key
	if !o.Force {
		if old, err := readReport(filepath.Join(o.Out, "report.json")); err == nil && old.Key == key {
			old.Reused = true
			old.Seconds = time.Since(start).Seconds()
			return old, nil
		}
	}
	sources, err := LoadSources(o.Data, o.Only, rep)
	if err != nil {
		return nil, err
	}
	var jobs []job
	for _, s := range sources {
		n := o.PerPOP909
		if s.Corpus == "nottingham" {
			n = o.PerNottingham
		}
		vs := Choose(s, n)
		if len(vs) == 0 {
			rep.Skipped[fmt.Sprintf("%s: no groove fits (%s at %.0f bpm)", s.Corpus, s.Class(), s.BPM())]++
			continue
		}
		rep.Sources[s.Corpus]++
		for _, v := range vs {
			jobs = append(jobs, job{s, v})
		}
	}

	partial := filepath.Clean(o.Out) + ".partial"
	scratch := filepath.Join(partial, ".mma")
	if err := os.RemoveAll(partial); err != nil {
		return nil, fmt.Errorf("arrange: %w", err)
	}
	for _, d := range []string{scratch, filepath.Join(partial, "pop909"), filepath.Join(partial, "nottingham")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("arrange: %w", err)
		}
	}

	results := make([]piece, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < o.Jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = makePiece(ctx, bin, scratch, partial, jobs[i])
				mu.Lock()
				done++
				if o.Progress != nil {
					o.Progress(done, len(jobs))
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range jobs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	progs := 0
	for _, r := range results {
		if r.err != nil {
			rep.Failed = append(rep.Failed, fmt.Sprintf("%s %s: %v", r.src.ID, r.v.Groove.Tag, r.err))
			continue
		}
		rep.Pieces++
		rep.BySource[r.src.Corpus]++
		rep.ByFamily[r.v.Groove.Family]++
		rep.ByGroove[r.v.Groove.Tag]++
		if r.v.KeepPiano {
			rep.PianoKept++
		}
		rep.Bars += r.bars
		rep.BarsNoDrums += r.noDrums
		rep.Notes += r.notes
		if r.tempoBad {
			rep.TempoMismatch++
		}
		if r.meterBad {
			rep.MeterMismatch++
		}
		if r.keySame {
			rep.KeySame++
		}
		if r.keyClose {
			rep.KeyClose++
		}
		rep.MaxPrograms = max(rep.MaxPrograms, r.info.Programs)
		progs += r.info.Programs
	}
	if rep.Pieces > 0 {
		rep.MeanPrograms = math.Round(100*float64(progs)/float64(rep.Pieces)) / 100
	}
	if err := os.RemoveAll(scratch); err != nil {
		return nil, fmt.Errorf("arrange: %w", err)
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(filepath.Join(partial, "report.json"), append(b, '\n')); err != nil {
		return nil, fmt.Errorf("arrange: report: %w", err)
	}
	if err := os.RemoveAll(o.Out); err != nil {
		return nil, fmt.Errorf("arrange: %w", err)
	}
	if err := os.Rename(partial, o.Out); err != nil {
		return nil, fmt.Errorf("arrange: %w", err)
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

func readReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// makePiece runs one job: mma, merge, write, read back and check.
func makePiece(ctx context.Context, bin, scratch, out string, j job) piece {
	p := piece{job: j}
	name := j.v.Name(j.src)
	acc, err := RunMMA(ctx, bin, scratch, j.src.Corpus+"-"+name, MMA(j.src, j.v))
	if err != nil {
		p.err = err
		return p
	}
	sc, info, err := Merge(acc, j.src, j.v)
	if err != nil {
		p.err = err
		return p
	}
	p.info = info
	dir := filepath.Join(out, j.src.Corpus)
	midPath := filepath.Join(dir, name+".mid")
	if err := midi.WriteFile(midPath, sc); err != nil {
		p.err = err
		return p
	}
	side, err := json.MarshalIndent(NewSidecar(j.src, j.v, info), "", "  ")
	if err != nil {
		p.err = err
		return p
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, name+".json"), append(side, '\n')); err != nil {
		p.err = fmt.Errorf("arrange: sidecar %s: %w", name, err)
		return p
	}
	back, err := midi.ReadFile(midPath)
	if err != nil {
		p.err = err
		return p
	}
	c := Check(back, j.src)
	p.bars, p.noDrums, p.tempoBad, p.meterBad = c.Bars, c.BarsWithoutDrums, !c.TempoSame, !c.MeterSame
	p.keySame, p.keyClose = c.KeySame, c.KeyClose
	p.notes = back.NoteCount()
	// Drop the scratch files of a piece that went well.
	_ = os.Remove(filepath.Join(scratch, j.src.Corpus+"-"+name+".mma"))
	_ = os.Remove(filepath.Join(scratch, j.src.Corpus+"-"+name+".mid"))
	return p
}
