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
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/midi"
)

// Version names the generator; it is part of the build key, so a change
// here (or in the catalogue) rebuilds the corpus.
const Version = "arrange 2"

// Options configure Build.
type Options struct {
	Data string // the folder holding pop909/, nottingham/, ewld/ and groove/ (../shared/data)
	Out  string // the corpus folder to (re)build; written as a whole, then swapped in
	Jobs int    // mma processes at once (≤ 0: 1)
	MMA  string // the mma program ("" : mma on PATH)
	// PerPOP909, PerNottingham and PerEWLD are the grooves per source (0:
	// 4, 3 and 4).
	PerPOP909, PerNottingham, PerEWLD int
	// MMADrums keeps MMA's drums under every piece; otherwise a human
	// performance from Data/groove replaces them wherever one fits
	// (DrumLibrary.Plan).
	MMADrums bool
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
	// Lead sheets: MIDI melody notes that line up with the score, of all;
	// chord symbols placed; on-beat melody notes that are tones of the
	// chord in force, of all on-beat notes under a chord.
	EWLDNotesMatched int `json:"ewld_melody_notes_matched"`
	EWLDNotes        int `json:"ewld_melody_notes"`
	EWLDChords       int `json:"ewld_chords"`
	EWLDChordTones   int `json:"ewld_beat_notes_in_chord"`
	EWLDBeatNotes    int `json:"ewld_beat_notes"`
	// Human drums: pieces whose drums a Groove MIDI performance plays, the
	// others by why MMA's stayed, the performances used and the most
	// pieces one of them plays under, fills laid, and the library read.
	HumanDrums   int            `json:"pieces_with_human_drums"`
	MMADrumsKept map[string]int `json:"mma_drums_kept_by_reason,omitempty"`
	DrumBeats    int            `json:"drum_performances_used"`
	DrumMaxUses  int            `json:"drum_performance_max_pieces"`
	DrumMostUsed string         `json:"drum_performance_most_used,omitempty"`
	Fills        int            `json:"fills_laid"`
	DrumLibrary  string         `json:"drum_library,omitempty"`
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
	fills    int
	err      error
}

// LoadSources reads the POP909 songs, Nottingham tunes and EWLD lead
// sheets under data, returning the sources that can be arranged and the
// skip reasons of the others (by reason, shortened).
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
	ewld := filepath.Join(data, "ewld")
	if _, err := os.Stat(ewld); err == nil {
		songs, err := ReadEWLDIndex(filepath.Join(ewld, "metadata.csv"))
		if err != nil {
			return nil, err
		}
		for _, song := range songs {
			id := "ewld/" + strings.TrimSuffix(song.File, ".mid")
			if only != nil && !only(id) {
				continue
			}
			rep.SourcesAll["ewld"]++
			s, c, err := LoadEWLD(ewld, song)
			if err != nil {
				if errors.Is(err, ErrSkip) {
					rep.Skipped[reason(err)]++
					continue
				}
				return nil, err
			}
			rep.EWLDNotesMatched += c.Matched
			rep.EWLDNotes += max(c.MIDI, c.Score)
			rep.EWLDChords += c.Chords
			rep.EWLDChordTones += c.ChordTones
			rep.EWLDBeatNotes += c.BeatNotes
			out = append(out, s)
		}
	}
	return out, nil
}

// reason shortens a skip error to its kind, for counting.
func reason(err error) string {
	s := err.Error()
	switch {
	case strings.Contains(s, "ewld") && strings.Contains(s, "line up with the score"):
		return "ewld: the MIDI melody does not line up with the score (D.C./D.S., verses, edits)"
	case strings.Contains(s, "ewld") && strings.Contains(s, "has no grooves"):
		return "ewld: meter without grooves (12/8, 6/4, 3/2)"
	case strings.Contains(s, "ewld") && strings.Contains(s, "meter"):
		return "ewld: meter changes"
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
func buildKey(data, mmaVersion string, only func(string) bool, mmaDrums bool) (string, error) {
	h := sha256.New()
	fmt.Fprintln(h, Version, mmaVersion, mmaDrums)
	for _, g := range catalogue {
		fmt.Fprintf(h, "%+v\n", g)
	}
	for _, c := range []string{"pop909", "nottingham", "ewld", "groove"} {
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
	if o.PerEWLD <= 0 {
		o.PerEWLD = 4
	}
	rep := &Report{Version: Version, MMA: mmaVersion(ctx, bin), BySource: map[string]int{}, ByFamily: map[string]int{},
		ByGroove: map[string]int{}, Sources: map[string]int{}, SourcesAll: map[string]int{}, Skipped: map[string]int{},
		MMADrumsKept: map[string]int{}}
	key, err := buildKey(o.Data, rep.MMA, o.Only, o.MMADrums)
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
	var lib *DrumLibrary
	if groove := filepath.Join(o.Data, "groove"); !o.MMADrums {
		if _, err := os.Stat(groove); err == nil {
			if lib, err = ReadDrumLibrary(groove); err != nil {
				return nil, err
			}
			rep.DrumLibrary = fmt.Sprintf("%d beats, %d fills; left out %v; %d hits off the kit's map", len(lib.Beats),
				len(lib.Fills), lib.Skipped, lib.Unmapped)
		}
	}
	var jobs []job
	uses, beatUses := map[string]int{}, map[string]int{} // beats and fills; beats
	for _, s := range sources {
		n := o.PerPOP909
		switch s.Corpus {
		case "nottingham":
			n = o.PerNottingham
		case "ewld":
			n = o.PerEWLD
		}
		vs := Choose(s, n)
		if len(vs) == 0 {
			rep.Skipped[fmt.Sprintf("%s: no groove fits (%s at %.0f bpm)", s.Corpus, s.Class(), s.BPM())]++
			continue
		}
		rep.Sources[s.Corpus]++
		for _, v := range vs {
			if lib != nil {
				plan, why := lib.Plan(s, v, uses)
				if plan == nil {
					rep.MMADrumsKept[why]++
				} else {
					v.Drums = plan
					beatUses[plan.Beat.File]++
				}
			}
			jobs = append(jobs, job{s, v})
		}
	}
	for f, n := range beatUses {
		rep.DrumBeats++
		if n > rep.DrumMaxUses || (n == rep.DrumMaxUses && f < rep.DrumMostUsed) {
			rep.DrumMaxUses, rep.DrumMostUsed = n, f
		}
	}

	partial := filepath.Clean(o.Out) + ".partial"
	scratch := filepath.Join(partial, ".mma")
	if err := os.RemoveAll(partial); err != nil {
		return nil, fmt.Errorf("arrange: %w", err)
	}
	for _, d := range []string{scratch, filepath.Join(partial, "pop909"), filepath.Join(partial, "nottingham"),
		filepath.Join(partial, "ewld")} {
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
		if r.v.Drums != nil {
			rep.HumanDrums++
			rep.Fills += r.fills
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
	if j.v.Drums != nil {
		notes, fills := j.v.Drums.Lay(j.src)
		sc.Tracks = slices.DeleteFunc(sc.Tracks, func(t midi.Track) bool { return t.IsDrum })
		sc.Tracks = append(sc.Tracks, midi.Track{Name: "Drums", Channel: 9, IsDrum: true, Notes: notes})
		sc.ComputeSeconds()
		p.fills = fills
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
