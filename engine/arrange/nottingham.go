package arrange

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/amtstudio/amt/engine/midi"
)

// NottinghamBooks reads every ABC book in dir (the Nottingham layout keeps
// them in abc/ beside the MIDI files) and returns their tunes by book stem
// and X: number.
func NottinghamBooks(dir string) (map[string]map[int]*ABCTune, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.abc"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("arrange: nottingham: no .abc books in %s", dir)
	}
	sort.Strings(paths)
	out := map[string]map[int]*ABCTune{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("arrange: nottingham: %w", err)
		}
		tunes, err := ParseABCBook(string(data))
		if err != nil {
			return nil, fmt.Errorf("arrange: nottingham %s: %w", filepath.Base(p), err)
		}
		stem := strings.ToLower(strings.TrimSuffix(filepath.Base(p), ".abc"))
		byX := map[int]*ABCTune{}
		for _, t := range tunes {
			if _, dup := byX[t.X]; !dup {
				byX[t.X] = t
			}
		}
		out[stem] = byX
	}
	return out, nil
}

// SplitTuneName splits a Nottingham MIDI stem ("reelsa-c12") into its book
// stem and tune number.
func SplitTuneName(stem string) (book string, x int, ok bool) {
	i := len(stem)
	for i > 0 && stem[i-1] >= '0' && stem[i-1] <= '9' {
		i--
	}
	if i == len(stem) || i == 0 {
		return "", 0, false
	}
	x, err := strconv.Atoi(stem[i:])
	if err != nil {
		return "", 0, false
	}
	return strings.ToLower(stem[:i]), x, true
}

// TuneKind names the tune type of a Nottingham book.
func TuneKind(book string) string {
	switch {
	case strings.HasPrefix(book, "reels"):
		return "reel"
	case book == "jigs":
		return "jig"
	case book == "hpps":
		return "hornpipe"
	case book == "slip":
		return "slip jig"
	case book == "waltzes":
		return "waltz"
	case book == "morris":
		return "morris dance"
	case book == "playford":
		return "Playford dance"
	case book == "xmas":
		return "Christmas carol"
	case book == "ashover":
		return "folk tune"
	}
	return "folk tune"
}

// ChordCheck is how well a tune's expanded chord symbols line up with the
// chord track of its MIDI file.
type ChordCheck struct {
	ABC, MIDI, Matched int
	ByParts            bool // the parts were played in the Y: order
}

// Share is Matched over the larger of the two counts.
func (c ChordCheck) Share() float64 {
	n := max(c.ABC, c.MIDI)
	if n == 0 {
		return 0
	}
	return float64(c.Matched) / float64(n)
}

// MinChordMatch is the share of chord symbols that must match the MIDI's
// chord track (same onset, same pitch classes) for a tune to be arranged.
const MinChordMatch = 0.9

// midiChord is a chord-track onset: its tick and pitch-class set.
type midiChord struct {
	tick int64
	pcs  uint16
}

func chordTrackOnsets(t *midi.Track) []midiChord {
	var out []midiChord
	for _, n := range t.Notes {
		if k := len(out); k > 0 && out[k-1].tick == n.Tick {
			out[k-1].pcs |= 1 << (n.Pitch % 12)
			continue
		}
		out = append(out, midiChord{n.Tick, 1 << (n.Pitch % 12)})
	}
	return out
}

// checkChords matches the timeline's chords (placed offset quarter notes
// into the MIDI file) that start before end against the MIDI chord onsets.
func checkChords(tl *Timeline, offset float64, ppq, end int64, onsets []midiChord) (ChordCheck, []ChordAt) {
	c := ChordCheck{MIDI: len(onsets)}
	byTick := map[int64]uint16{}
	for _, o := range onsets {
		byTick[o.tick] = o.pcs
	}
	var out []ChordAt
	for _, ch := range tl.Chords {
		sym, err := ParseABC(ch.Symbol)
		if err != nil {
			continue // an annotation or an optional "(D7)": not a chord the MIDI plays
		}
		c.ABC++
		tick := int64(math.Round((ch.At + offset) * float64(ppq)))
		if tick >= end {
			break
		}
		if pcs, ok := byTick[tick]; ok && pcs == sym.PitchClassSet() {
			c.Matched++
		}
		out = append(out, ChordAt{Tick: tick, Chord: sym})
	}
	return c, out
}

// LoadNottingham reads one Nottingham tune: its MIDI file (melody track,
// chord track, meter, key; 120 bpm, the MIDI default) and its ABC tune,
// whose chord symbols, repeats expanded, must line up with the MIDI's
// chord track (MinChordMatch) in one of the two play orders (written
// order, or the Y: order of the parts). The MIDI file already starts a
// pickup at the end of a bar of rests, so its bar 0 is the pickup bar.
func LoadNottingham(midPath string, books map[string]map[int]*ABCTune) (*Source, ChordCheck, error) {
	stem := strings.TrimSuffix(filepath.Base(midPath), filepath.Ext(midPath))
	var check ChordCheck
	book, x, ok := SplitTuneName(stem)
	if !ok {
		return nil, check, skipf("nottingham %s: file name is not BOOK+NUMBER", stem)
	}
	tune := books[book][x]
	if tune == nil {
		return nil, check, skipf("nottingham %s: no tune X:%d in %s.abc", stem, x, book)
	}
	if tune.Err != nil {
		return nil, check, skipf("nottingham %s: %v", stem, tune.Err)
	}
	sc, err := midi.ReadFile(midPath)
	if err != nil {
		return nil, check, fmt.Errorf("arrange: nottingham %s: %w", stem, err)
	}
	var melody, chordTr *midi.Track
	for i := range sc.Tracks {
		t := &sc.Tracks[i]
		if t.IsDrum || len(t.Notes) == 0 {
			continue
		}
		switch {
		case melody == nil:
			melody = t
		case chordTr == nil:
			chordTr = t
		}
	}
	if melody == nil || chordTr == nil {
		return nil, check, skipf("nottingham %s: want a melody and a chord track", stem)
	}
	if len(sc.Meters) == 0 {
		return nil, check, skipf("nottingham %s: no time signature", stem)
	}
	m := sc.Meters[0]
	for _, mc := range sc.Meters[1:] {
		if mc.Num != m.Num || mc.Den != m.Den {
			return nil, check, skipf("nottingham %s: meter changes (%d/%d to %d/%d)", stem, m.Num, m.Den, mc.Num, mc.Den)
		}
	}
	if tune.MeterChanges > 0 {
		return nil, check, skipf("nottingham %s: meter changes inside the ABC tune", stem)
	}
	ppq := int64(sc.TicksPerBeat)
	barQ := 4 * float64(m.Num) / float64(m.Den)
	barTicks := int64(math.Round(barQ * float64(ppq)))
	src := &Source{ID: "nottingham/" + stem, Corpus: "nottingham", Name: stem, Title: tune.Title,
		Kind: TuneKind(book), Num: m.Num, Den: m.Den, BarTicks: barTicks,
		Licence: "GPL-3.0 (Nottingham Music Database, cleaned by Jukedeck)"}
	if src.Title == "" {
		src.Title = stem
	}
	if src.Class() == "" {
		return nil, check, skipf("nottingham %s: meter %d/%d has no grooves", stem, m.Num, m.Den)
	}
	onsets := chordTrackOnsets(chordTr)
	lastEnd := int64(0)
	for _, t := range []*midi.Track{melody, chordTr} {
		for _, n := range t.Notes {
			lastEnd = max(lastEnd, n.Tick+n.Dur)
		}
	}
	var best []ChordAt
	var bestTL *Timeline
	orders := []bool{false}
	if tune.Parts != "" {
		orders = append(orders, true)
	}
	for _, byParts := range orders {
		tl, err := tune.Expand(byParts)
		if err != nil {
			continue
		}
		offset := 0.0
		if tl.Pickup > 0 {
			offset = barQ - tl.Pickup
		}
		c, ev := checkChords(tl, offset, ppq, lastEnd, onsets)
		c.ByParts = byParts
		if bestTL == nil || c.Share() > check.Share() {
			check, best, bestTL = c, ev, tl
		}
	}
	if bestTL == nil {
		return nil, check, skipf("nottingham %s: cannot expand the ABC tune", stem)
	}
	if check.Share() < MinChordMatch {
		return nil, check, skipf("nottingham %s: %d of %d ABC chords line up with the MIDI's %d (%.0f%% < %.0f%%)",
			stem, check.Matched, check.ABC, check.MIDI, 100*check.Share(), 100*MinChordMatch)
	}
	src.Bars = int(ceilDiv(lastEnd, barTicks))
	offset := 0.0
	if bestTL.Pickup > 0 {
		src.Pickup = 1
		offset = barQ - bestTL.Pickup
	}
	src.Sections = abcSections(tune.Measures, bestTL.Order, offset, barQ, src.Pickup, src.Bars)
	out := &midi.Score{TicksPerBeat: sc.TicksPerBeat, Meters: []midi.MeterChange{{Tick: 0, Num: m.Num, Den: m.Den}},
		EndTick: src.EndTick()}
	out.Tempos = shiftTempos(sc, 0)
	for _, k := range sc.Keys {
		if n := len(out.Keys); n > 0 && out.Keys[n-1].Tick == k.Tick {
			out.Keys[n-1] = k
			continue
		}
		out.Keys = append(out.Keys, k)
	}
	notes := shiftNotes(melody.Notes, 0)
	sortNotes(notes)
	chordNotes := shiftNotes(chordTr.Notes, 0)
	sortNotes(chordNotes)
	// The chord track stays for the key comparison (Check); Merge uses only
	// the melody.
	out.Tracks = []midi.Track{{Name: "Melody", Notes: notes}, {Name: "Chords", Channel: 1, Notes: chordNotes}}
	out.ComputeSeconds()
	src.Score = out
	src.Chords = mergeChords(best, src.EndTick())
	if len(src.Chords) == 0 {
		return nil, check, skipf("nottingham %s: no chords", stem)
	}
	return src, check, nil
}

// abcSections returns the bars of the MIDI grid (the measures ms played in
// order, placed offset quarter notes in) where a section starts: after a
// jump in the play order (a repeat played again, the next part), after a
// double bar line or a repeat sign, at a |: or where the part changes.
// Only boundaries on a bar line between the first downbeat and the last
// bar count; nil when there are none.
func abcSections(ms []ABCMeasure, order []int, offset, barQ float64, first, bars int) []int {
	var out []int
	pos := 0.0
	for k, i := range order {
		if k > 0 {
			prev := order[k-1]
			m, pm := ms[i], ms[prev]
			if i != prev+1 || pm.SectionEnd || pm.RepeatEnd || m.RepeatStart || m.Part != pm.Part {
				b := (pos + offset) / barQ
				r := math.Round(b)
				if math.Abs(b-r) < 1e-6 && int(r) > first && int(r) < bars && (len(out) == 0 || out[len(out)-1] < int(r)) {
					out = append(out, int(r))
				}
			}
		}
		pos += ms[i].Len
	}
	return out
}
