package arrange

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/amtstudio/amt/engine/midi"
)

// POP909Song is one row of POP909's index.csv.
type POP909Song struct {
	ID             string // "001"
	Name, Artist   string
	BeatsPerBar    int // 2 (4/4 bars are two of these) or 3
	QuaversPerBeat int // 2 (straight) or 3 (triplet feel)
}

// ReadPOP909Index reads POP909's index.csv (song_id, name, artist,
// modify_times, num_beats_per_measure, num_quavers_per_beat), keyed by id.
func ReadPOP909Index(path string) (map[string]POP909Song, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("arrange: pop909 index: %w", err)
	}
	r := csv.NewReader(bytes.NewReader(data))
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("arrange: pop909 index %s: %w", path, err)
	}
	if len(rows) < 2 || len(rows[0]) < 6 {
		return nil, fmt.Errorf("arrange: pop909 index %s: want a header and rows of 6 columns", path)
	}
	out := map[string]POP909Song{}
	for i, row := range rows[1:] {
		if len(row) < 6 {
			return nil, fmt.Errorf("arrange: pop909 index %s: row %d: %d columns, want 6", path, i+2, len(row))
		}
		bpm, err1 := strconv.Atoi(strings.TrimSpace(row[4]))
		qpb, err2 := strconv.Atoi(strings.TrimSpace(row[5]))
		if err1 != nil || err2 != nil || (bpm != 2 && bpm != 3) || (qpb != 2 && qpb != 3) {
			return nil, fmt.Errorf("arrange: pop909 index %s: row %d: beats per measure %q, quavers per beat %q: want 2 or 3",
				path, i+2, row[4], row[5])
		}
		id := strings.TrimSpace(row[0])
		out[id] = POP909Song{ID: id, Name: strings.TrimSpace(row[1]), Artist: strings.TrimSpace(row[2]),
			BeatsPerBar: bpm, QuaversPerBeat: qpb}
	}
	return out, nil
}

// beat is one line of beat_midi.txt.
type beat struct {
	sec         float64
	down, down2 bool // columns 2 and 3
}

func readBeats(path string) ([]beat, error) {
	f, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []beat
	sc := bufio.NewScanner(bytes.NewReader(f))
	for ln := 1; sc.Scan(); ln++ {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if len(fs) < 3 {
			return nil, fmt.Errorf("%s: line %d: %d columns, want 3", filepath.Base(path), ln, len(fs))
		}
		var v [3]float64
		for i := range v {
			x, err := strconv.ParseFloat(fs[i], 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%s: line %d: column %d %q is not a number", filepath.Base(path), ln, i+1, fs[i])
			}
			v[i] = x
		}
		out = append(out, beat{sec: v[0], down: v[1] == 1, down2: v[2] == 1})
	}
	return out, nil
}

// chordSpan is one line of chord_midi.txt.
type chordSpan struct {
	start, end float64
	label      string
}

func readChordSpans(path string) ([]chordSpan, error) {
	f, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []chordSpan
	sc := bufio.NewScanner(bytes.NewReader(f))
	for ln := 1; sc.Scan(); ln++ {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if len(fs) != 3 {
			return nil, fmt.Errorf("%s: line %d: %d columns, want START END CHORD", filepath.Base(path), ln, len(fs))
		}
		a, err1 := strconv.ParseFloat(fs[0], 64)
		b, err2 := strconv.ParseFloat(fs[1], 64)
		if err1 != nil || err2 != nil || math.IsNaN(a) || math.IsNaN(b) || b < a {
			return nil, fmt.Errorf("%s: line %d: times %q %q", filepath.Base(path), ln, fs[0], fs[1])
		}
		out = append(out, chordSpan{a, b, fs[2]})
	}
	return out, nil
}

// maxBeatDrift is how far (in beats) a POP909 beat may lie from the regular
// grid of one beat per quarter note that starts at the first beat. 901 of
// the 909 songs have every beat within a thousandth of a tick of it.
const maxBeatDrift = 1.0 / 16

// LoadPOP909 reads one POP909 song folder (NNN/NNN.mid, beat_midi.txt,
// chord_midi.txt) as a Source: bars of 4 beats on the beats that column 3
// of beat_midi.txt marks (3 beats on column 2 for the 3-beat songs), bar 0
// the bar that holds the first note (a partial bar before the first
// downbeat is a pickup), chords on the nearest half beat (nearest beat for
// triplet-feel songs), the tempo map shifted with the notes.
func LoadPOP909(dir string, song POP909Song) (*Source, error) {
	id := song.ID
	midPath := filepath.Join(dir, id+".mid")
	sc, err := midi.ReadFile(midPath)
	if err != nil {
		return nil, fmt.Errorf("arrange: pop909 %s: %w", id, err)
	}
	beats, err := readBeats(filepath.Join(dir, "beat_midi.txt"))
	if err != nil {
		return nil, fmt.Errorf("arrange: pop909 %s: %w", id, err)
	}
	spans, err := readChordSpans(filepath.Join(dir, "chord_midi.txt"))
	if err != nil {
		return nil, fmt.Errorf("arrange: pop909 %s: %w", id, err)
	}
	if len(beats) < 8 {
		return nil, skipf("pop909 %s: %d beats in beat_midi.txt", id, len(beats))
	}
	ppq := int64(sc.TicksPerBeat)
	// The beats must lie on a regular grid of one quarter note each.
	first := secondsToTick(sc, beats[0].sec)
	for i, b := range beats {
		t := secondsToTick(sc, b.sec)
		if d := math.Abs(t-first-float64(int64(i)*ppq)) / float64(ppq); d > maxBeatDrift {
			return nil, skipf("pop909 %s: beat %d at %.3f s is %.2f beats off the MIDI's quarter-note grid", id, i+1, b.sec, d)
		}
	}
	beatsPerBar := int64(4)
	num := 4
	isDown := func(b beat) bool { return b.down2 }
	if song.BeatsPerBar == 3 {
		beatsPerBar, num = 3, 3
		isDown = func(b beat) bool { return b.down }
	}
	down := -1
	for i, b := range beats {
		if isDown(b) {
			down = i
			break
		}
	}
	if down < 0 {
		return nil, skipf("pop909 %s: no downbeat marked in beat_midi.txt", id)
	}
	d0 := int64(math.Round(first)) + int64(down)*ppq
	barTicks := beatsPerBar * ppq

	tracks := map[string][]midi.Note{}
	firstNote, lastEnd := int64(math.MaxInt64), int64(0)
	for _, tr := range sc.Tracks {
		if tr.IsDrum {
			continue
		}
		name := strings.ToUpper(strings.TrimSpace(tr.Name))
		switch name {
		case "MELODY", "BRIDGE", "PIANO":
		default:
			continue
		}
		tracks[name] = append(tracks[name], tr.Notes...)
		for _, n := range tr.Notes {
			firstNote = min(firstNote, n.Tick)
			lastEnd = max(lastEnd, n.Tick+n.Dur)
		}
	}
	if len(tracks["MELODY"]) == 0 {
		return nil, skipf("pop909 %s: no MELODY notes", id)
	}
	// Bar 0 is the bar (of the downbeat grid) that holds the first note.
	start := d0 + floorDiv(firstNote-d0, barTicks)*barTicks
	pickup := 0
	if start < d0 {
		pickup = int(ceilDiv(d0-start, barTicks))
	}
	bars := int(ceilDiv(lastEnd-start, barTicks))
	end := int64(bars) * barTicks

	// Tempo changes after the last bar (POP909 files have some) would make
	// the file longer than its bars.
	tempos := shiftTempos(sc, start)
	for len(tempos) > 1 && tempos[len(tempos)-1].Tick >= end {
		tempos = tempos[:len(tempos)-1]
	}
	out := &midi.Score{TicksPerBeat: sc.TicksPerBeat, Tempos: tempos,
		Meters: []midi.MeterChange{{Tick: 0, Num: num, Den: 4}}}
	for _, part := range []struct{ src, name string }{{"MELODY", "Melody"}, {"BRIDGE", "Bridge"}, {"PIANO", "Piano"}} {
		notes := shiftNotes(tracks[part.src], start)
		if len(notes) == 0 {
			continue
		}
		sortNotes(notes)
		out.Tracks = append(out.Tracks, midi.Track{Name: part.name, Program: 0, Notes: notes})
	}
	out.EndTick = end
	out.ComputeSeconds()

	grid := ppq / 2
	if song.QuaversPerBeat == 3 {
		grid = ppq
	}
	var chords []ChordAt
	for i, sp := range spans {
		c, none, err := ParsePOP909(sp.label)
		if err != nil {
			return nil, fmt.Errorf("arrange: pop909 %s: chord_midi.txt line %d: %w", id, i+1, err)
		}
		t := roundTo(secondsToTick(sc, sp.start)-float64(start), grid)
		chords = append(chords, ChordAt{Tick: t, Chord: c, None: none})
	}
	chords = mergeChords(chords, end)
	if len(chords) == 0 {
		return nil, skipf("pop909 %s: no chords inside the piece", id)
	}
	title := song.Name
	if title == "" {
		title = "POP909 " + id
	}
	return &Source{
		ID: "pop909/" + id, Corpus: "pop909", Name: id, Title: title, Artist: song.Artist,
		Score: out, Num: num, Den: 4, Triplet: song.QuaversPerBeat == 3,
		BarTicks: barTicks, Bars: bars, Pickup: pickup, Chords: chords,
		Licence: "MIT (POP909 dataset); the songs are published compositions",
	}, nil
}

// sortNotes sorts notes by tick, then pitch (stable for equal keys).
func sortNotes(notes []midi.Note) {
	slices.SortStableFunc(notes, func(a, b midi.Note) int {
		if c := cmp.Compare(a.Tick, b.Tick); c != 0 {
			return c
		}
		return cmp.Compare(a.Pitch, b.Pitch)
	})
}
