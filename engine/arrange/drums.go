package arrange

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/amtstudio/amt/engine/midi"
)

// Human drums (issue 35): the Groove MIDI Dataset (Gillick et al.,
// Magenta; ../shared/data/groove) holds 1,150 performances by ten drummers
// on a Roland TD-11 kit, recorded to a click: tick 0 is a downbeat and a
// beat is a quarter note at the file's tempo. A DrumLibrary cuts them into
// bars of hits measured in beats from the bar line, so a bar can be laid
// under any piece's bar at any tempo keeping the drummer's timing and
// velocities relative to the beat.

// gmdToGM maps the TD-11 notes that are not the General MIDI drum of the
// same name to the one they sound as (the Magenta GMD documentation's
// General MIDI column): the hi-hat edge hits (22, 26) lie below the GM
// drum range, the third tom's rim (58) would be a vibraslap, the crash
// edges (55, 52) a splash and a China cymbal, and the TD-11's first and
// second toms (48, 45) are GM's high and low-mid toms.
var gmdToGM = map[uint8]uint8{
	22: 42, // hi-hat closed, edge
	26: 46, // hi-hat open, edge
	58: 43, // tom 3 rim
	55: 49, // crash 1 edge
	52: 57, // crash 2 edge
	48: 50, // tom 1 head
	45: 47, // tom 2 head
}

// gmdSame are the TD-11 notes whose General MIDI drum is the same number.
var gmdSame = map[uint8]bool{36: true, 37: true, 38: true, 40: true, 42: true, 43: true, 44: true, 46: true,
	47: true, 49: true, 50: true, 51: true, 53: true, 57: true, 59: true}

// GMDrum returns the General MIDI drum that a Groove MIDI (TD-11) note
// sounds as, and false for a note outside the kit's map.
func GMDrum(p uint8) (uint8, bool) {
	if q, ok := gmdToGM[p]; ok {
		return q, true
	}
	return p, gmdSame[p]
}

// Hit is one drum hit of a performance's bar.
type Hit struct {
	At    float64 // beats (quarter notes) from the bar line; a little below 0 when played early
	Dur   float64 // beats
	Pitch uint8   // General MIDI drum
	Vel   uint8
}

// Performance is one Groove MIDI file, cut into bars.
type Performance struct {
	File    string // file name in the groove folder
	Drummer string // "drummer3"
	Style   string // "funk/groove1", "rock"
	BPM     float64
	Fill    bool
	Num     int // meter
	Den     int
	// Triplet is measured (tripletFeel): the off-beat hits lie nearer the
	// triplet eighths (1/3, 2/3 of a beat) than the straight ones.
	Triplet bool
	// Bars are the bars played, from the first that holds a fair share of
	// hits to the last (a count-in or a lone final crash left out). For a
	// fill, Bars holds one bar ending where the fill ends (cutFill),
	// Landing the hits it puts on the next downbeat, if any, and Start the
	// beat of its first hit in the bar.
	Bars    [][]Hit
	Landing []Hit
	Start   float64
}

// BarBeats returns the performance's bar length in beats.
func (p *Performance) BarBeats() float64 { return 4 * float64(p.Num) / float64(p.Den) }

// MainStyle is the style before the "/": "funk" of "funk/groove1".
func (p *Performance) MainStyle() string {
	s, _, _ := strings.Cut(p.Style, "/")
	return s
}

// Class returns the meter class of Source.Class that the performance can
// play under: "4/4", "12/8" (4/4 with a triplet feel), "3/4", "6/8"; ""
// for other meters.
func (p *Performance) Class() string {
	switch {
	case p.Num == 4 && p.Den == 4 && p.Triplet:
		return "12/8"
	case p.Num == 4 && p.Den == 4:
		return "4/4"
	case p.Num == 3 && p.Den == 4:
		return "3/4"
	case p.Num == 6 && p.Den == 8:
		return "6/8"
	}
	return ""
}

// DrumLibrary is the Groove MIDI Dataset ready to lay under pieces.
type DrumLibrary struct {
	Beats, Fills []*Performance
	// Skipped counts the files left out, by reason.
	Skipped map[string]int
	// Unmapped counts hits on notes outside the kit's map (dropped).
	Unmapped int
}

// MaxGrooveFile bounds the size of one Groove MIDI file read (the largest
// is under 60 KB).
const MaxGrooveFile = 1 << 20

// ReadDrumLibrary reads dir/metadata.csv (file, …, style, …, bpm,
// beat_type, time_signature, …; the columns found by their header names)
// and the MIDI files it lists.
func ReadDrumLibrary(dir string) (*DrumLibrary, error) {
	metaPath := filepath.Join(dir, "metadata.csv")
	data, err := os.ReadFile(metaPath)
	if err != nil {
		return nil, fmt.Errorf("arrange: groove: %w", err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("arrange: groove %s: %w", metaPath, err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("arrange: groove %s: no rows", metaPath)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.TrimSpace(h)] = i
	}
	for _, need := range []string{"file", "artist", "style", "bpm", "beat_type", "time_signature"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("arrange: groove %s: no %q column", metaPath, need)
		}
	}
	lib := &DrumLibrary{Skipped: map[string]int{}}
	for i, row := range rows[1:] {
		if len(row) != len(rows[0]) {
			return nil, fmt.Errorf("arrange: groove %s: row %d has %d columns, want %d", metaPath, i+2, len(row), len(rows[0]))
		}
		file := row[col["file"]]
		if file != filepath.Base(file) || !strings.HasSuffix(file, ".mid") {
			return nil, fmt.Errorf("arrange: groove %s: row %d: file %q is not a .mid name in the folder", metaPath, i+2, file)
		}
		bpm, err := strconv.ParseFloat(row[col["bpm"]], 64)
		if err != nil || bpm < 20 || bpm > 400 {
			return nil, fmt.Errorf("arrange: groove %s: row %d: bpm %q: want 20–400", metaPath, i+2, row[col["bpm"]])
		}
		ns, ds, ok := strings.Cut(row[col["time_signature"]], "-")
		num, err1 := strconv.Atoi(ns)
		den, err2 := strconv.Atoi(ds)
		if !ok || err1 != nil || err2 != nil || num < 1 || num > 16 || (den != 2 && den != 4 && den != 8) {
			return nil, fmt.Errorf("arrange: groove %s: row %d: time signature %q: want N-D", metaPath, i+2, row[col["time_signature"]])
		}
		p := &Performance{File: file, Drummer: row[col["artist"]], Style: row[col["style"]], BPM: bpm,
			Fill: row[col["beat_type"]] == "fill", Num: num, Den: den}
		if p.Class() == "" {
			lib.Skipped[fmt.Sprintf("meter %d/%d", num, den)]++
			continue
		}
		sc, err := readGrooveMIDI(filepath.Join(dir, file))
		if err != nil {
			return nil, err
		}
		lib.Unmapped += p.cut(sc)
		switch {
		case len(p.Bars) == 0:
			lib.Skipped["no bar with hits"]++
		case !p.Fill && len(p.Bars) < MinPerformanceBars:
			lib.Skipped[fmt.Sprintf("beat shorter than %d bars", MinPerformanceBars)]++
		case p.Fill:
			lib.Fills = append(lib.Fills, p)
		default:
			lib.Beats = append(lib.Beats, p)
		}
	}
	return lib, nil
}

// MinPerformanceBars is the fewest bars a beat must hold to be looped
// under a piece (a shorter one repeats every bar or two).
const MinPerformanceBars = 4

func readGrooveMIDI(path string) (*midi.Score, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("arrange: groove: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxGrooveFile+1))
	if err != nil {
		return nil, fmt.Errorf("arrange: groove %s: %w", path, err)
	}
	if len(data) > MaxGrooveFile {
		return nil, fmt.Errorf("arrange: groove %s: larger than %d bytes", path, MaxGrooveFile)
	}
	sc, err := midi.Parse(path, data)
	if err != nil {
		return nil, fmt.Errorf("arrange: groove: %w", err)
	}
	return sc, nil
}

// cut fills Bars (and Landing, Triplet) from the performance's score and
// returns the hits dropped for a note outside the kit's map. A hit belongs
// to the bar whose line lies at most a 32nd note after it (played early);
// its time is kept to the tick, in beats.
func (p *Performance) cut(sc *midi.Score) (unmapped int) {
	ppq := float64(sc.TicksPerBeat)
	barBeats := p.BarBeats()
	byBar := map[int][]Hit{}
	last := -1
	for _, t := range sc.Tracks {
		for _, n := range t.Notes {
			pitch, ok := GMDrum(n.Pitch)
			if !ok {
				unmapped++
				continue
			}
			beats := float64(n.Tick) / ppq
			b := int(math.Floor((beats + 1.0/8) / barBeats))
			if b < 0 {
				continue
			}
			byBar[b] = append(byBar[b], Hit{At: beats - float64(b)*barBeats, Dur: float64(n.Dur) / ppq,
				Pitch: pitch, Vel: n.Velocity})
			last = max(last, b)
		}
	}
	if last < 0 {
		return unmapped
	}
	for _, hs := range byBar {
		slices.SortStableFunc(hs, func(a, b Hit) int {
			if a.At != b.At {
				if a.At < b.At {
					return -1
				}
				return 1
			}
			return int(a.Pitch) - int(b.Pitch)
		})
	}
	counts := make([]int, last+1)
	for b, hs := range byBar {
		counts[b] = len(hs)
	}
	p.Triplet = tripletFeel(byBar)
	if p.Fill {
		p.cutFill(byBar, last)
		return unmapped
	}
	// A bar "holds a fair share" with at least a quarter of the median
	// count of the bars with hits: a count-in, a lone last crash, a drummer
	// stopping mid-file do not.
	var nz []int
	for _, c := range counts {
		if c > 0 {
			nz = append(nz, c)
		}
	}
	sort.Ints(nz)
	floor := max(2, nz[len(nz)/2]/4)
	first, end := -1, -1
	for b, c := range counts {
		if c >= floor {
			if first < 0 {
				first = b
			}
			end = b + 1
		}
	}
	if first < 0 {
		return unmapped
	}
	for b := first; b < end; b++ {
		p.Bars = append(p.Bars, byBar[b])
	}
	return unmapped
}

// cutFill makes a fill's bar: the bar-long window that ends where the
// fill does. A fill ends on its last hit's beat (rounded up), or, when the
// last hits fall on a bar line or hold a crash within a 32nd of a beat,
// on that beat, those hits being its landing. A fill shorter than a bar
// starts later in its window (Start); Lay plays the beat before it.
func (p *Performance) cutFill(byBar map[int][]Hit, last int) {
	barBeats := p.BarBeats()
	var all []Hit // At from the file's start
	for b := 0; b <= last; b++ {
		for _, h := range byBar[b] {
			h.At += float64(b) * barBeats
			all = append(all, h)
		}
	}
	if len(all) == 0 {
		return
	}
	lastAt := all[len(all)-1].At
	end := math.Ceil(lastAt - 1e-9)
	landing := false
	if r := math.Round(lastAt); math.Abs(lastAt-r) < 1.0/8 && all[0].At < r-1.0/8 {
		onBar := math.Abs(r/barBeats-math.Round(r/barBeats)) < 1e-9
		crash := false
		for _, h := range all {
			crash = crash || (h.At >= r-1.0/8 && (h.Pitch == 49 || h.Pitch == 57))
		}
		if onBar || crash {
			end, landing = r, true
		}
	}
	start := end - barBeats
	var bar []Hit
	for _, h := range all {
		switch {
		case landing && h.At >= end-1.0/8:
			h.At -= end
			p.Landing = append(p.Landing, h)
		case h.At >= start-1.0/8:
			h.At -= start
			bar = append(bar, h)
		}
	}
	if len(bar) == 0 {
		return
	}
	p.Bars = [][]Hit{bar}
	p.Start = bar[0].At
}

// tripletFeel reports whether the performance swings: more hits within
// 0.05 beats of 2/3 of a beat than of 1/2, and more near 1/3 or 2/3 than
// near 1/4 or 3/4. Fast jazz swing (eighths near 0.6 of a beat) falls
// between the grids and is classed by whichever it leans to; a samba's
// late sixteenths can read as triplets.
func tripletFeel(byBar map[int][]Hit) bool {
	near := func(f, x float64) bool { return math.Abs(f-x) < 0.05 }
	var n13, n23, n14, n12, n34 int
	for _, hs := range byBar {
		for _, h := range hs {
			f := h.At - math.Floor(h.At)
			switch {
			case near(f, 1.0/3):
				n13++
			case near(f, 2.0/3):
				n23++
			case near(f, 0.25):
				n14++
			case near(f, 0.5):
				n12++
			case near(f, 0.75):
				n34++
			}
		}
	}
	return n23 > n12 && n13+n23 > n14+n34
}
