package arrange

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"strconv"
	"strings"
)

// A lead sheet's MusicXML score (the .mxl beside each EWLD melody): a
// zip holding META-INF/container.xml, which names the score file, and
// the score, score-partwise. Only the first part is read: its time
// signatures, key, measures, notes (onsets, pitches, ties), chord symbols
// (<harmony>), bar lines (repeats, endings, double bars) and rehearsal
// marks.

// Limits on what a .mxl may make the reader hold.
const (
	MaxMXLFile     = 16 << 20 // the zipped file
	MaxMusicXML    = 64 << 20 // the score, unzipped
	MaxMXLMeasures = 10000
)

// LeadSheet is a MusicXML score's first part, as written (repeats not
// played through).
type LeadSheet struct {
	Num, Den     int // the first time signature
	MeterChanges int // later time signatures that differ from the first
	Fifths       int
	Minor        bool
	Tempo        float64 // the first <sound tempo>, quarter notes per minute; 0 if none
	Measures     []LSMeasure
}

// LSMeasure is one measure of a lead sheet. Its repeat and ending marks
// are those of ABCMeasure, so the two play through their repeats alike.
type LSMeasure struct {
	Number string
	ABCMeasure
	Notes   []LSNote
	Harmony []LSChord
	// FirstNote is the offset of the first sounding note (Len if none).
	FirstNote float64
}

// LSNote is a note of a lead sheet: onset in quarter notes from the
// measure's start, MIDI pitch; Tied marks the continuation of a tied note
// (no new onset).
type LSNote struct {
	At    float64
	Pitch int
	Tied  bool
}

// LSChord is a chord symbol at an offset in its measure (None: "N.C.").
type LSChord struct {
	At    float64
	Chord Chord
	None  bool
	Text  string // the symbol as read, for messages ("D m7", "G 7b9")
}

type mxScore struct {
	XMLName xml.Name `xml:"score-partwise"`
	Parts   []struct {
		Measures []mxMeasure `xml:"measure"`
	} `xml:"part"`
}

type mxMeasure struct {
	Number   string   `xml:"number,attr"`
	Implicit string   `xml:"implicit,attr"`
	Children []mxElem `xml:",any"`
}

type mxStep struct {
	Step   string  `xml:"step"`
	Alter  float64 `xml:"alter"`
	Octave int     `xml:"octave"`
}

// mxElem is any child of a measure; the fields of each kind (attributes,
// note, backup, forward, harmony, barline, direction, sound) are filled
// for that kind only.
type mxElem struct {
	XMLName xml.Name
	// attributes
	Divisions float64 `xml:"divisions"`
	Times     []struct {
		Beats    string `xml:"beats"`
		BeatType string `xml:"beat-type"`
	} `xml:"time"`
	Keys []struct {
		Fifths int    `xml:"fifths"`
		Mode   string `xml:"mode"`
	} `xml:"key"`
	Transpose []struct {
		Chromatic    float64 `xml:"chromatic"`
		OctaveChange int     `xml:"octave-change"`
	} `xml:"transpose"`
	// note, backup, forward
	Duration float64   `xml:"duration"`
	Rest     *struct{} `xml:"rest"`
	Chord    *struct{} `xml:"chord"`
	Grace    *struct{} `xml:"grace"`
	Pitch    *mxStep   `xml:"pitch"`
	Ties     []struct {
		Type string `xml:"type,attr"`
	} `xml:"tie"`
	// harmony
	Root *struct {
		Step  string  `xml:"root-step"`
		Alter float64 `xml:"root-alter"`
	} `xml:"root"`
	Kind *struct {
		Value string `xml:",chardata"`
		Text  string `xml:"text,attr"`
	} `xml:"kind"`
	Bass *struct {
		Step  string  `xml:"bass-step"`
		Alter float64 `xml:"bass-alter"`
	} `xml:"bass"`
	Degrees []mxDegree `xml:"degree"`
	Offset  float64    `xml:"offset"`
	// barline
	Location string `xml:"location,attr"`
	BarStyle string `xml:"bar-style"`
	Repeat   *struct {
		Direction string `xml:"direction,attr"`
	} `xml:"repeat"`
	Ending *struct {
		Number string `xml:"number,attr"`
		Type   string `xml:"type,attr"`
	} `xml:"ending"`
	// direction
	Rehearsal []string `xml:"direction-type>rehearsal"`
	Sound     *struct {
		Tempo string `xml:"tempo,attr"`
	} `xml:"sound"`
	// sound as a measure's child
	Tempo string `xml:"tempo,attr"`
}

type mxDegree struct {
	Value int     `xml:"degree-value"`
	Alter float64 `xml:"degree-alter"`
	Type  string  `xml:"degree-type"`
}

// ReadMXL reads a compressed MusicXML file (.mxl). The container's
// rootfile names the score; when the container does not parse (OpenEWLD
// writes names with an apostrophe inside single-quoted attributes) the
// archive's one file outside META-INF is the score.
func ReadMXL(name string, data []byte) (*LeadSheet, error) {
	if len(data) > MaxMXLFile {
		return nil, fmt.Errorf("arrange: %s: %d bytes, more than %d", name, len(data), MaxMXLFile)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("arrange: %s: not a zipped MusicXML file: %w", name, err)
	}
	files := map[string]*zip.File{}
	var others []string
	for _, f := range zr.File {
		files[f.Name] = f
		if !strings.HasPrefix(f.Name, "META-INF/") && !strings.HasSuffix(f.Name, "/") {
			others = append(others, f.Name)
		}
	}
	root := ""
	if c, ok := files["META-INF/container.xml"]; ok {
		b, err := readZipped(c, 1<<20)
		if err == nil {
			var ct struct {
				Rootfiles []struct {
					Path string `xml:"full-path,attr"`
				} `xml:"rootfiles>rootfile"`
			}
			if xml.Unmarshal(b, &ct) == nil && len(ct.Rootfiles) > 0 {
				root = ct.Rootfiles[0].Path
			}
		}
	}
	if root == "" {
		if len(others) != 1 {
			return nil, fmt.Errorf("arrange: %s: no readable META-INF/container.xml and %d files besides it, want 1", name, len(others))
		}
		root = others[0]
	}
	f, ok := files[root]
	if !ok {
		return nil, fmt.Errorf("arrange: %s: the container names %q, which the archive lacks", name, root)
	}
	b, err := readZipped(f, MaxMusicXML)
	if err != nil {
		return nil, fmt.Errorf("arrange: %s: %s: %w", name, root, err)
	}
	ls, err := ParseMusicXML(b)
	if err != nil {
		return nil, fmt.Errorf("arrange: %s: %s: %w", name, path.Base(root), err)
	}
	return ls, nil
}

func readZipped(f *zip.File, limit int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("more than %d bytes unzipped", limit)
	}
	return b, nil
}

var stepPC = map[string]int{"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}

// ParseMusicXML reads an uncompressed score-partwise document's first
// part. Durations are in divisions of a quarter note (<divisions>);
// <backup> and <forward> move the position (a second voice's notes are
// read too); a <chord/> note sounds with the one before; grace notes take
// no time and are left out.
func ParseMusicXML(data []byte) (*LeadSheet, error) {
	var sc mxScore
	if err := xml.Unmarshal(data, &sc); err != nil {
		return nil, fmt.Errorf("MusicXML: %w", err)
	}
	if len(sc.Parts) == 0 || len(sc.Parts[0].Measures) == 0 {
		return nil, errors.New("MusicXML: no part with measures (is it score-timewise?)")
	}
	ms := sc.Parts[0].Measures
	if len(ms) > MaxMXLMeasures {
		return nil, fmt.Errorf("MusicXML: %d measures, more than %d", len(ms), MaxMXLMeasures)
	}
	ls := &LeadSheet{}
	div := 0.0
	transpose := 0 // semitones from written to sounding pitch (a transposing part)
	ending := 0    // the ending running through the measures, 0 outside one
	for mi, m := range ms {
		out := LSMeasure{Number: m.Number}
		out.Ending = ending
		pos, end := 0.0, 0.0
		lastOnset := 0.0
		for _, c := range m.Children {
			switch c.XMLName.Local {
			case "attributes":
				if c.Divisions > 0 {
					div = c.Divisions
				}
				for _, t := range c.Times {
					n, err1 := strconv.Atoi(strings.TrimSpace(t.Beats))
					d, err2 := strconv.Atoi(strings.TrimSpace(t.BeatType))
					if err1 != nil || err2 != nil || n < 1 || n > 64 || d < 1 || d > 64 || d&(d-1) != 0 {
						return nil, fmt.Errorf("MusicXML: measure %s: time signature %q/%q", m.Number, t.Beats, t.BeatType)
					}
					if ls.Num == 0 {
						ls.Num, ls.Den = n, d
					} else if n != ls.Num || d != ls.Den {
						ls.MeterChanges++
					}
				}
				for _, t := range c.Transpose {
					transpose = int(math.Round(t.Chromatic)) + 12*t.OctaveChange
				}
				if len(c.Keys) > 0 && mi == 0 {
					ls.Fifths, ls.Minor = c.Keys[0].Fifths, c.Keys[0].Mode == "minor"
				}
			case "note":
				if c.Grace != nil {
					continue
				}
				if div <= 0 {
					return nil, fmt.Errorf("MusicXML: measure %s: a note before <divisions>", m.Number)
				}
				at := pos
				if c.Chord != nil {
					at = lastOnset
				}
				dur := c.Duration / div
				if dur < 0 || math.IsNaN(dur) || dur > 64 {
					return nil, fmt.Errorf("MusicXML: measure %s: note duration %g divisions", m.Number, c.Duration)
				}
				if c.Rest == nil && c.Pitch != nil {
					pc, ok := stepPC[strings.TrimSpace(c.Pitch.Step)]
					if !ok {
						return nil, fmt.Errorf("MusicXML: measure %s: pitch step %q", m.Number, c.Pitch.Step)
					}
					p := 12*(c.Pitch.Octave+1) + pc + int(math.Round(c.Pitch.Alter)) + transpose
					if p < 0 || p > 127 {
						return nil, fmt.Errorf("MusicXML: measure %s: pitch %d outside MIDI's 0–127", m.Number, p)
					}
					tied := false
					for _, t := range c.Ties {
						tied = tied || t.Type == "stop"
					}
					out.Notes = append(out.Notes, LSNote{At: at, Pitch: p, Tied: tied})
				}
				if c.Chord == nil {
					lastOnset = pos
					pos += dur
				}
			case "backup":
				pos -= c.Duration / div
				if pos < 0 {
					pos = 0
				}
			case "forward":
				pos += c.Duration / div
			case "harmony":
				at := pos
				if div > 0 {
					at += c.Offset / div
				}
				ch, none, text, err := harmonyChord(c, transpose)
				if err != nil {
					return nil, fmt.Errorf("MusicXML: measure %s: %w", m.Number, err)
				}
				out.Harmony = append(out.Harmony, LSChord{At: max(at, 0), Chord: ch, None: none, Text: text})
			case "barline":
				if c.Repeat != nil {
					switch c.Repeat.Direction {
					case "forward":
						out.RepeatStart = true
					case "backward":
						out.RepeatEnd = true
					}
				}
				if c.BarStyle == "light-light" || c.BarStyle == "light-heavy" || c.BarStyle == "heavy-light" {
					if c.Location != "left" {
						out.SectionEnd = true
					} else if n := len(ls.Measures); n > 0 {
						ls.Measures[n-1].SectionEnd = true
					}
				}
				if e := c.Ending; e != nil {
					switch e.Type {
					case "start":
						ending = endingNumber(e.Number)
						out.Ending, out.EndingStart = ending, true
					case "stop", "discontinue":
						ending = 0
					}
				}
			case "direction":
				for _, r := range c.Rehearsal {
					if r = strings.TrimSpace(r); r != "" {
						out.Part = r
					}
				}
				if c.Sound != nil && ls.Tempo == 0 {
					ls.Tempo, _ = strconv.ParseFloat(c.Sound.Tempo, 64)
				}
			case "sound":
				if ls.Tempo == 0 {
					ls.Tempo, _ = strconv.ParseFloat(c.Tempo, 64)
				}
			}
			end = max(end, pos)
		}
		if ls.Num == 0 {
			ls.Num, ls.Den = 4, 4 // MusicXML's default
		}
		out.Len = end
		if len(out.Notes) == 0 && end == 0 {
			out.Len = 4 * float64(ls.Num) / float64(ls.Den)
		}
		out.FirstNote = out.Len
		for _, n := range out.Notes {
			out.FirstNote = min(out.FirstNote, n.At)
		}
		ls.Measures = append(ls.Measures, out)
	}
	// A rehearsal mark starts a part: the measures after it carry it on.
	part := ""
	for i := range ls.Measures {
		if ls.Measures[i].Part != "" {
			part = ls.Measures[i].Part
		}
		ls.Measures[i].Part = part
	}
	return ls, nil
}

// endingNumber reads an ending's number attribute ("1", "2", "1, 2",
// "1.") as expandRepeats counts endings: 1 for a first ending, 2 for any
// later one.
func endingNumber(s string) int {
	f := strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if len(f) == 0 {
		return 1
	}
	n, _ := strconv.Atoi(f[0])
	if n <= 1 {
		return 1
	}
	return 2
}

// BarQuarters returns the bar length of the first time signature.
func (ls *LeadSheet) BarQuarters() float64 { return 4 * float64(ls.Num) / float64(ls.Den) }

// xmlKinds maps MusicXML chord kinds to qualities. Extensions the
// catalogue's grooves would only colour (11ths, 13ths) fold into the
// seventh chord they extend.
var xmlKinds = map[string]Quality{
	"major": Major, "minor": Minor, "augmented": Augmented, "diminished": Diminished,
	"dominant": Dominant7, "dominant-seventh": Dominant7, "major-seventh": Major7, "minor-seventh": Minor7,
	"diminished-seventh": Diminished7, "augmented-seventh": Augmented7, "half-diminished": HalfDiminished7,
	"major-minor": MinorMajor7, "major-sixth": Major6, "minor-sixth": Minor6,
	"dominant-ninth": Dominant9, "major-ninth": Major9, "minor-ninth": Minor9,
	"dominant-11th": Dominant7Sus4, "dominant-13th": Dominant13,
	"minor-11th": Minor7, "minor-13th": Minor7, "major-11th": Major7, "major-13th": Major7,
	"suspended-second": Sus2, "suspended-fourth": Sus4, "power": Power,
	"augmented-ninth": Augmented7, "maj69": Major6, "minor-major": MinorMajor7,
}

// harmonyChord reads a <harmony> element: root, kind, bass and the
// degrees that change the chord's type (a dominant with a flat or sharp
// ninth or fifth, a suspended fourth with an added seventh). A kind of
// "none" (or an empty kind) is "no chord". A transposing part's symbols
// are written like its notes: transpose semitones give the sounding root.
func harmonyChord(c mxElem, transpose int) (Chord, bool, string, error) {
	if c.Kind == nil {
		return Chord{}, false, "", errors.New("harmony without a <kind>")
	}
	kind := strings.TrimSpace(c.Kind.Value)
	text := kind
	if c.Kind.Text != "" {
		text = c.Kind.Text
	}
	if kind == "none" || kind == "" || kind == "other" && c.Root == nil {
		return Chord{}, true, "N.C.", nil
	}
	if c.Root == nil {
		return Chord{}, false, "", fmt.Errorf("harmony %q without a <root>", kind)
	}
	pc, ok := stepPC[strings.TrimSpace(c.Root.Step)]
	if !ok {
		return Chord{}, false, "", fmt.Errorf("harmony root step %q", c.Root.Step)
	}
	alter := int(math.Round(c.Root.Alter))
	text = c.Root.Step + accidental(alter) + " " + text
	q, ok := xmlKinds[kind]
	if !ok {
		return Chord{}, false, "", fmt.Errorf("harmony %q: unknown kind %q", text, kind)
	}
	for _, d := range c.Degrees {
		a := int(math.Round(d.Alter))
		switch {
		case q == Dominant7 && d.Type == "alter" && d.Value == 9 && a == -1,
			q == Dominant7 && d.Type == "add" && d.Value == 9 && a == -1:
			q = Dominant7Flat9
		case q == Dominant7 && d.Type == "add" && d.Value == 9 && a == 1,
			q == Dominant7 && d.Type == "alter" && d.Value == 9 && a == 1:
			q = Dominant7Sharp9
		case q == Dominant7 && d.Type == "alter" && d.Value == 5 && a == -1:
			q = Dominant7Flat5
		case (q == Dominant7 || q == Dominant9) && d.Type == "alter" && d.Value == 5 && a == 1:
			q = Augmented7
		case q == Sus4 && d.Type == "add" && d.Value == 7 && a == -1,
			q == Sus4 && d.Type == "add" && d.Value == 7 && a == 0 && strings.Contains(c.Kind.Text, "7"):
			q = Dominant7Sus4
		}
	}
	if q == Sus4 && (strings.HasPrefix(c.Kind.Text, "7") || strings.HasPrefix(c.Kind.Text, "9")) {
		q = Dominant7Sus4 // "7sus", "9sus4" written as text only
	}
	ch := Chord{Root: mod12(pc + alter + transpose), Quality: q, Bass: -1, rootAcc: accByte(alter)}
	if c.Bass != nil {
		bpc, ok := stepPC[strings.TrimSpace(c.Bass.Step)]
		if !ok {
			return Chord{}, false, "", fmt.Errorf("harmony %q: bass step %q", text, c.Bass.Step)
		}
		ba := int(math.Round(c.Bass.Alter))
		if b := mod12(bpc + ba + transpose); b != ch.Root {
			ch.Bass, ch.bassAcc = b, accByte(ba)
		}
		text += "/" + c.Bass.Step + accidental(ba)
	}
	return ch, false, text, nil
}

func accidental(a int) string {
	switch {
	case a < 0:
		return strings.Repeat("b", -a)
	case a > 0:
		return strings.Repeat("#", a)
	}
	return ""
}

func accByte(a int) byte {
	switch {
	case a < 0:
		return 'b'
	case a > 0:
		return '#'
	}
	return 0
}

func mod12(x int) int { return (x%12 + 12) % 12 }
