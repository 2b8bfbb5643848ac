package arrange

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/amtstudio/amt/engine/midi"
)

// EWLD (OpenEWLD, ../shared/data/ewld): lead sheets of pop, jazz, rock and
// stage songs. NNNN_Title.mid holds the melody alone; mxl/NNNN_Title.mxl
// is the score it was rendered from, with the chord symbols. The score is
// played through its repeats (or not: whichever order the MIDI's notes
// follow) and must line up with the MIDI melody note for note
// (MinMelodyMatch) before its chords are placed on the MIDI's bars.

// EWLDSong is one row of EWLD's metadata.csv.
type EWLDSong struct {
	File, MXL     string // the MIDI file name; the .mxl path relative to the folder
	Title         string
	Composer      string
	Genre, Style  string // Discogs tags ("Jazz"; "Swing, Big Band")
	Meter         string
	Language, Key string
}

// ReadEWLDIndex reads EWLD's metadata.csv (columns found by their header
// names: file, title, composer, genre, style, mxl, metric).
func ReadEWLDIndex(path string) ([]EWLDSong, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("arrange: ewld index: %w", err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("arrange: ewld index %s: %w", path, err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("arrange: ewld index %s: no rows", path)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.TrimSpace(h)] = i
	}
	for _, need := range []string{"file", "title", "composer", "genre", "style", "mxl"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("arrange: ewld index %s: no %q column", path, need)
		}
	}
	get := func(row []string, name string) string {
		if i, ok := col[name]; ok && i < len(row) {
			return strings.TrimSpace(row[i])
		}
		return ""
	}
	var out []EWLDSong
	for i, row := range rows[1:] {
		if len(row) != len(rows[0]) {
			return nil, fmt.Errorf("arrange: ewld index %s: row %d has %d columns, want %d", path, i+2, len(row), len(rows[0]))
		}
		s := EWLDSong{File: get(row, "file"), MXL: get(row, "mxl"), Title: get(row, "title"), Composer: get(row, "composer"),
			Genre: get(row, "genre"), Style: get(row, "style"), Meter: get(row, "metric"), Language: get(row, "language"),
			Key: get(row, "tonality")}
		if s.File != filepath.Base(s.File) || !strings.HasSuffix(s.File, ".mid") || s.MXL == "" ||
			strings.Contains(s.MXL, "..") || filepath.IsAbs(s.MXL) {
			return nil, fmt.Errorf("arrange: ewld index %s: row %d: file %q, mxl %q: want a .mid name and a relative .mxl path",
				path, i+2, s.File, s.MXL)
		}
		out = append(out, s)
	}
	return out, nil
}

// ewldFamilies maps Discogs genres and styles to the groove families that
// may arrange a song, in the order given (styles first: "Swing" says more
// than "Jazz"). Every song may also take a ballad; a song in 3/4 takes the
// waltzes too (few families have a 3/4 groove).
var ewldStyleFamilies = map[string][]string{
	"swing": {"jazz"}, "big band": {"jazz"}, "dixieland": {"jazz", "march"}, "bop": {"jazz"}, "hard bop": {"jazz"},
	"cool jazz": {"jazz"}, "post bop": {"jazz"}, "soul-jazz": {"jazz", "funk"}, "contemporary jazz": {"jazz"},
	"smooth jazz": {"jazz", "funk"}, "jazz-funk": {"funk", "jazz"}, "latin jazz": {"latin", "jazz"}, "ragtime": {"jazz", "march"},
	"vocal": {"pop", "jazz"}, "easy listening": {"pop", "jazz"}, "ballad": {"ballad"}, "musical": {"pop", "waltz"},
	"soundtrack": {"pop"}, "theme": {"pop"}, "music hall": {"pop", "march"}, "chanson": {"pop", "waltz"},
	"rock & roll": {"rock"}, "rockabilly": {"rock", "country"}, "pop rock": {"rock", "pop"}, "blues rock": {"blues", "rock"},
	"classic rock": {"rock"}, "folk rock": {"rock", "folk"}, "country rock": {"country", "rock"}, "punk": {"rock"},
	"psychedelic rock": {"rock"}, "indie rock": {"rock"}, "doo wop": {"pop", "rock"},
	"rhythm & blues": {"funk", "blues"}, "soul": {"funk"}, "disco": {"electronic", "funk"}, "synth-pop": {"electronic", "pop"},
	"house": {"electronic"}, "delta blues": {"blues"}, "country": {"country"}, "bluegrass": {"country"},
	"honky tonk": {"country"}, "folk": {"folk", "country"}, "celtic": {"folk"}, "gospel": {"gospel"}, "religious": {"gospel"},
	"marches": {"march"}, "military": {"march"}, "tango": {"latin"}, "samba": {"latin"}, "bossa nova": {"latin"},
}

var ewldGenreFamilies = map[string][]string{
	"jazz": {"jazz"}, "pop": {"pop"}, "rock": {"rock", "pop"}, "stage & screen": {"pop", "jazz"},
	"folk, world, & country": {"country", "folk"}, "funk / soul": {"funk"}, "blues": {"blues"}, "latin": {"latin"},
	"reggae": {"reggae"}, "electronic": {"electronic", "pop"}, "brass & military": {"march"}, "classical": {"waltz"},
}

// EWLDFamilies returns the groove families for a song's tags and meter.
func EWLDFamilies(genre, style, meter string) []string {
	var out []string
	add := func(fs ...string) {
		for _, f := range fs {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	for _, s := range strings.Split(style, ",") {
		add(ewldStyleFamilies[strings.ToLower(strings.TrimSpace(s))]...)
	}
	add(ewldGenreFamilies[strings.ToLower(strings.TrimSpace(genre))]...)
	if len(out) == 0 {
		add("pop", "jazz")
	}
	add("ballad")
	if meter == "3/4" {
		add("waltz")
	}
	return out
}

// ewldTags are the song's Discogs genre and styles, lower case, for the
// sidecar ("jazz", "swing", "big band").
func ewldTags(song EWLDSong) []string {
	var out []string
	for _, t := range append([]string{song.Genre}, strings.Split(song.Style, ",")...) {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// MinMelodyMatch is the share of notes that must agree (same onset within
// a 48th of a quarter note, same pitch) between the MIDI melody and the
// score played in one order, for the score's chords to be trusted on the
// MIDI's bars.
const MinMelodyMatch = 0.9

// MelodyCheck is how well a lead sheet's notes line up with its MIDI.
type MelodyCheck struct {
	MIDI, Score, Matched int
	Expanded             bool    // the MIDI plays the repeats through
	Shift                float64 // quarter notes the MIDI places the score later (a pickup padded to a bar)
	Chords               int
	ChordTones           int // melody onsets on a beat that are tones of the chord in force
	BeatNotes            int // melody onsets on a beat under a chord
}

// Share is Matched over the larger count.
func (c MelodyCheck) Share() float64 {
	n := max(c.MIDI, c.Score)
	if n == 0 {
		return 0
	}
	return float64(c.Matched) / float64(n)
}

// LoadEWLD reads one lead sheet: the melody-only MIDI file and the .mxl
// score beside it. The score's meter must hold throughout and have
// grooves; its notes, in the written order or played through its repeats,
// must match the MIDI's (MinMelodyMatch), and its chord symbols are then
// placed at their score times on the MIDI's grid. A pickup becomes a bar
// of rests (bar 0); the tempo map is the MIDI's (120 bpm where the score
// gives none, as EWLD's converter wrote it), the key the MIDI's or else
// the score's. Sections start at repeats, double bars, endings and
// rehearsal marks.
func LoadEWLD(dir string, song EWLDSong) (*Source, MelodyCheck, error) {
	var check MelodyCheck
	stem := strings.TrimSuffix(song.File, ".mid")
	mxlPath := filepath.Join(dir, filepath.FromSlash(song.MXL))
	data, err := os.ReadFile(mxlPath)
	if err != nil {
		return nil, check, skipf("ewld %s: no score: %v", stem, err)
	}
	ls, err := ReadMXL(mxlPath, data)
	if err != nil {
		return nil, check, skipf("ewld %s: score does not read: %v", stem, err)
	}
	if ls.MeterChanges > 0 {
		return nil, check, skipf("ewld %s: meter changes in the score", stem)
	}
	sc, err := midi.ReadFile(filepath.Join(dir, song.File))
	if err != nil {
		return nil, check, fmt.Errorf("arrange: ewld %s: %w", stem, err)
	}
	var melody *midi.Track
	for i := range sc.Tracks {
		if t := &sc.Tracks[i]; !t.IsDrum && len(t.Notes) > 0 {
			if melody != nil {
				return nil, check, skipf("ewld %s: want one melody track, the MIDI has more", stem)
			}
			melody = t
		}
	}
	if melody == nil {
		return nil, check, skipf("ewld %s: no melody", stem)
	}
	for _, m := range sc.Meters {
		if m.Num != ls.Num || m.Den != ls.Den {
			return nil, check, skipf("ewld %s: the MIDI's meter %d/%d is not the score's %d/%d", stem, m.Num, m.Den, ls.Num, ls.Den)
		}
	}
	ppq := int64(sc.TicksPerBeat)
	barQ := ls.BarQuarters()
	barTicks := int64(math.Round(barQ * float64(ppq)))
	src := &Source{ID: "ewld/" + stem, Corpus: "ewld", Name: stem, Title: song.Title, Artist: song.Composer,
		Num: ls.Num, Den: ls.Den, BarTicks: barTicks,
		Licence:  "MIT (OpenEWLD dataset); the score is public domain",
		Families: EWLDFamilies(song.Genre, song.Style, fmt.Sprintf("%d/%d", ls.Num, ls.Den)), Tags: ewldTags(song)}
	if src.Title == "" {
		src.Title = stem
	}
	if src.Class() == "" {
		return nil, check, skipf("ewld %s: meter %d/%d has no grooves", stem, ls.Num, ls.Den)
	}
	if float64(barTicks) != barQ*float64(ppq) {
		return nil, check, skipf("ewld %s: a bar of %g quarter notes is not whole ticks at %d per quarter", stem, barQ, ppq)
	}

	// The MIDI's onsets, and the score's in each order and placement.
	type onset struct {
		tick  int64
		pitch int
	}
	var midiOn []onset
	for _, n := range melody.Notes {
		midiOn = append(midiOn, onset{n.Tick, int(n.Pitch)})
	}
	measures := make([]ABCMeasure, len(ls.Measures))
	for i, m := range ls.Measures {
		measures[i] = m.ABCMeasure
	}
	written := make([]int, len(measures))
	for i := range written {
		written[i] = i
	}
	expanded := expandRepeats(measures, written)
	first := ls.Measures[0]
	pickupLen := 0.0 // a short first measure, or the rests that open a full one
	switch {
	case first.Len < barQ-1e-6:
		pickupLen = first.Len
	case len(first.Notes) > 0 && first.FirstNote >= barQ/2:
		pickupLen = barQ - first.FirstNote
	}
	tol := float64(ppq) / 48
	var bestOrder []int
	for _, order := range [][]int{written, expanded} {
		shifts := []float64{0}
		if first.Len < barQ-1e-6 {
			shifts = append(shifts, barQ-first.Len)
		}
		for _, shift := range shifts {
			var score []onset
			pos := shift
			for _, i := range order {
				for _, n := range ls.Measures[i].Notes {
					if !n.Tied {
						score = append(score, onset{int64(math.Round((pos + n.At) * float64(ppq))), n.Pitch})
					}
				}
				pos += ls.Measures[i].Len
			}
			matched := 0
			byTick := map[int64][]int{}
			for _, o := range score {
				byTick[o.tick] = append(byTick[o.tick], o.pitch)
			}
			for _, o := range midiOn {
				found := false
				for d := -int64(tol); d <= int64(tol) && !found; d++ {
					for _, p := range byTick[o.tick+d] {
						found = found || p == o.pitch
					}
				}
				if found {
					matched++
				}
			}
			c := MelodyCheck{MIDI: len(midiOn), Score: len(score), Matched: matched, Shift: shift,
				Expanded: len(order) != len(written)}
			if bestOrder == nil || c.Share() > check.Share() {
				check, bestOrder = c, order
			}
		}
	}
	if check.Share() < MinMelodyMatch {
		return nil, check, skipf("ewld %s: %d of %d MIDI notes line up with the score's %d (%.0f%% < %.0f%%)",
			stem, check.Matched, check.MIDI, check.Score, 100*check.Share(), 100*MinMelodyMatch)
	}

	// The grid: bar 0 starts at tick 0 and holds the pickup at its end.
	// The MIDI places the score check.Shift quarter notes in; a pickup the
	// MIDI did not pad is moved to the end of bar 0.
	move := 0.0
	if first.Len < barQ-1e-6 && check.Shift == 0 {
		move = barQ - first.Len
	}
	place := check.Shift + move // quarter notes from tick 0 to the score's start
	moveTicks := int64(math.Round(move * float64(ppq)))
	notes := shiftNotes(melody.Notes, -moveTicks)
	sortNotes(notes)
	lastEnd := int64(0)
	for _, n := range notes {
		lastEnd = max(lastEnd, n.Tick+n.Dur)
	}
	scoreEnd := place
	var chords []ChordAt
	for _, i := range bestOrder {
		m := ls.Measures[i]
		for _, h := range m.Harmony {
			chords = append(chords, ChordAt{Tick: int64(math.Round((scoreEnd + h.At) * float64(ppq))), Chord: h.Chord, None: h.None})
		}
		scoreEnd += m.Len
	}
	check.Chords = len(chords)
	end := max(lastEnd, int64(math.Round(scoreEnd*float64(ppq))))
	src.Bars = int(ceilDiv(end, barTicks))
	if pickupLen > 0 {
		src.Pickup = 1
	}
	order := bestOrder
	src.Sections = abcSections(measures, order, place, barQ, src.Pickup, src.Bars)

	out := &midi.Score{TicksPerBeat: sc.TicksPerBeat, Meters: []midi.MeterChange{{Tick: 0, Num: ls.Num, Den: ls.Den}},
		EndTick: src.EndTick()}
	out.Tempos = shiftTempos(sc, 0)
	for i := range out.Tempos {
		if out.Tempos[i].Tick > 0 {
			out.Tempos[i].Tick += moveTicks
		}
	}
	for _, k := range sc.Keys {
		if n := len(out.Keys); n > 0 && out.Keys[n-1].Tick == k.Tick {
			out.Keys[n-1] = k
			continue
		}
		out.Keys = append(out.Keys, k)
	}
	if len(out.Keys) == 0 {
		out.Keys = []midi.KeyChange{{Tick: 0, Sharps: ls.Fifths, Minor: ls.Minor}}
	}
	out.Tracks = []midi.Track{{Name: "Melody", Notes: notes}}
	out.ComputeSeconds()
	src.Score = out
	src.Chords = mergeChords(chords, src.EndTick())
	if len(src.Chords) == 0 {
		return nil, check, skipf("ewld %s: no chord symbols", stem)
	}
	check.ChordTones, check.BeatNotes = chordTones(notes, src.Chords, ppq)
	return src, check, nil
}

// chordTones counts the melody notes that start on a beat under a chord,
// and those of them that are tones of the chord in force: a measure of
// whether the chords sit where the melody implies them.
func chordTones(notes []midi.Note, chords []ChordAt, ppq int64) (tones, onBeat int) {
	k := -1
	for _, n := range notes {
		for k+1 < len(chords) && chords[k+1].Tick <= n.Tick {
			k++
		}
		if k < 0 || chords[k].None || n.Tick%ppq != 0 {
			continue
		}
		onBeat++
		if chords[k].Chord.PitchClassSet()&(1<<(n.Pitch%12)) != 0 {
			tones++
		}
	}
	return tones, onBeat
}
