package arrange

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ABCTune is one tune of an ABC book, parsed far enough to place its chord
// symbols in time: the header fields and the body as measures with their
// lengths, chord symbols and repeat marks.
type ABCTune struct {
	X        int
	Title    string
	Meter    string // first M: ("6/8", "C" is returned as "4/4", "C|" as "2/2")
	Key      string // first K:
	Parts    string // Y: (the Nottingham database's play order of the parts), P: in the header otherwise
	Measures []ABCMeasure
	// MeterChanges counts M: fields after the first note.
	MeterChanges int
	// Err is why the body could not be parsed (the tune is then unusable).
	Err error
}

// ABCMeasure is the music between two bar lines.
type ABCMeasure struct {
	Len    float64    // in quarter notes
	Chords []ABCChord // chord symbols with their offsets in quarter notes
	Part   string     // the P: part it belongs to ("" before any)
	// Bar-line marks: RepeatStart (|: before it), RepeatEnd (:| after it),
	// Ending (1 or 2: a first or second ending starts at or runs through
	// it), EndingStart (the ending's mark is at its start), SectionEnd (a
	// double bar line after it).
	RepeatStart, RepeatEnd bool
	Ending                 int
	EndingStart            bool
	SectionEnd             bool
}

// ABCChord is a chord symbol at an offset in its measure.
type ABCChord struct {
	At     float64 // quarter notes from the measure's start
	Symbol string
}

// ParseABCBook splits an ABC file into tunes (from X: to a blank line) and
// parses each one's body; a tune whose body cannot be parsed keeps its
// header and the reason in Err.
func ParseABCBook(data string) ([]*ABCTune, error) {
	var tunes []*ABCTune
	var cur []string
	flush := func() error {
		if len(cur) == 0 {
			return nil
		}
		t, err := ParseABCTune(strings.Join(cur, "\n"))
		if err != nil {
			t.Err = err
		}
		tunes = append(tunes, t)
		cur = nil
		return nil
	}
	for _, line := range strings.Split(strings.ReplaceAll(data, "\r\n", "\n"), "\n") {
		if strings.HasPrefix(line, "X:") {
			if err := flush(); err != nil {
				return nil, err
			}
			cur = []string{line}
			continue
		}
		if cur == nil {
			continue
		}
		if strings.TrimSpace(line) == "" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		cur = append(cur, line)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return tunes, nil
}

// parseFraction reads "6/8", "1/4", "C" (4/4), "C|" (2/2).
func parseFraction(s string) (num, den int, ok bool) {
	s = strings.TrimSpace(s)
	switch s {
	case "C":
		return 4, 4, true
	case "C|":
		return 2, 2, true
	}
	a, b, found := strings.Cut(s, "/")
	if !found {
		return 0, 0, false
	}
	n, err1 := strconv.Atoi(strings.TrimSpace(a))
	d, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || n <= 0 || d <= 0 {
		return 0, 0, false
	}
	return n, d, true
}

// abcParser walks a tune's body.
type abcParser struct {
	unit      float64 // the unit note length L: in quarter notes
	unitSet   bool    // L: given
	meter     string
	measures  []ABCMeasure
	cur       ABCMeasure
	part      string
	tupletN   int     // notes left in a tuplet
	tupletF   float64 // their time factor
	started   bool    // a note or rest has been read
	prevNote  float64 // duration of the previous note (broken rhythm)
	broken    float64 // factor for the next note from a broken rhythm
	pendEnd   int     // an ending mark waiting for the next measure
	ending    int     // the ending running through the measures
	repStart  bool    // |: waiting for the next measure
	lastChord bool    // the previous token was a chord symbol (alternate pairs)
	meterChg  int
}

// defaultUnit is ABC's default L: 1/16 for meters below 3/4, else 1/8, in
// quarter notes.
func defaultUnit(meter string) float64 {
	n, d, ok := parseFraction(meter)
	if ok && float64(n)/float64(d) < 0.75 {
		return 0.25
	}
	return 0.5
}

// ParseABCTune parses one tune: header fields, then the body's notes,
// rests, chords, tuplets, broken rhythms, grace notes (no time), chord
// symbols (of two adjacent symbols the first is kept, as the Nottingham
// MIDI files do), decorations, inline fields and bar lines with repeats
// and endings.
func ParseABCTune(text string) (*ABCTune, error) {
	t := &ABCTune{}
	p := &abcParser{meter: "4/4", unit: 0.5}
	inHeader := true
	firstMeter := ""
	for _, raw := range strings.Split(text, "\n") {
		line := raw
		if i := strings.IndexByte(line, '%'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimRight(line, " \t")
		if len(line) >= 2 && line[1] == ':' && (line[0] >= 'A' && line[0] <= 'Z' || line[0] >= 'a' && line[0] <= 'z') {
			v := strings.TrimSpace(line[2:])
			switch line[0] {
			case 'X':
				t.X, _ = strconv.Atoi(v)
			case 'T':
				if t.Title == "" {
					t.Title = v
				}
			case 'K':
				if t.Key == "" {
					t.Key = v
				}
				inHeader = false
			case 'Y':
				t.Parts = v
			case 'P':
				if inHeader {
					if t.Parts == "" {
						t.Parts = v
					}
				} else {
					p.part = v
				}
			case 'M', 'L':
				if err := p.field(line[0], v); err != nil {
					return t, fmt.Errorf("arrange: abc X:%d: %w", t.X, err)
				}
			}
			continue
		}
		inHeader = false
		if !p.started {
			firstMeter = p.meter
		}
		if err := p.body(line); err != nil {
			return t, fmt.Errorf("arrange: abc X:%d %q: %w", t.X, t.Title, err)
		}
	}
	p.endMeasure(false)
	t.Meter = firstMeter
	if t.Meter == "" {
		t.Meter = p.meter
	}
	t.Measures = p.measures
	t.MeterChanges = p.meterChg
	return t, nil
}

func normMeter(v string) string {
	v = strings.TrimSpace(v)
	if n, d, ok := parseFraction(v); ok {
		return strconv.Itoa(n) + "/" + strconv.Itoa(d)
	}
	return v
}

// field applies an M: or L: field (in the header, on a line of its own in
// the body, or inline).
func (p *abcParser) field(kind byte, v string) error {
	switch kind {
	case 'M':
		m := normMeter(v)
		if p.started && m != p.meter {
			p.meterChg++
		}
		p.meter = m
		if !p.unitSet {
			p.unit = defaultUnit(m)
		}
	case 'L':
		n, d, ok := parseFraction(v)
		if !ok {
			return fmt.Errorf("L:%s is not a fraction", v)
		}
		p.unit = 4 * float64(n) / float64(d)
		p.unitSet = true
	}
	return nil
}

// endMeasure closes the current measure at a bar line (or at the end).
func (p *abcParser) endMeasure(atBar bool) {
	m := p.cur
	if m.Len == 0 && len(m.Chords) == 0 && !atBar {
		return
	}
	if m.Len == 0 && len(m.Chords) == 0 {
		// An empty measure between two bar lines ("| |", "|| [2"): fold
		// its marks into the neighbours.
		return
	}
	p.measures = append(p.measures, m)
	p.cur = ABCMeasure{}
}

// touch marks the current measure as begun in the current part.
func (p *abcParser) touch() {
	if p.cur.Len == 0 && len(p.cur.Chords) == 0 {
		p.cur.Part = p.part
	}
}

// note adds a note or rest of length mult (in units).
func (p *abcParser) note(mult float64) {
	p.touch()
	d := mult * p.unit
	if p.broken != 0 {
		d *= p.broken
		p.broken = 0
	}
	if p.tupletN > 0 {
		d *= p.tupletF
		p.tupletN--
	}
	p.cur.Len += d
	p.prevNote = d
	p.started = true
	p.lastChord = false
}

// readLength reads a note length after a note: "", "2", "/2", "3/2", "/",
// "//".
func readLength(s string, i int) (float64, int) {
	num, den := 1.0, 1.0
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j > i {
		n, _ := strconv.Atoi(s[i:j])
		num = float64(n)
	}
	for j < len(s) && s[j] == '/' {
		j++
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			d, _ := strconv.Atoi(s[j:k])
			if d > 0 {
				den *= float64(d)
			}
			j = k
		} else {
			den *= 2
		}
	}
	return num / den, j
}

// skipPitch skips accidentals, a note letter and octave marks at i and
// reports whether there was a note.
func skipPitch(s string, i int) (int, bool) {
	for i < len(s) && (s[i] == '^' || s[i] == '_' || s[i] == '=') {
		i++
	}
	if i >= len(s) {
		return i, false
	}
	c := s[i]
	if !(c >= 'A' && c <= 'G' || c >= 'a' && c <= 'g') {
		return i, false
	}
	i++
	for i < len(s) && (s[i] == '\'' || s[i] == ',') {
		i++
	}
	return i, true
}

// body parses one line of music.
func (p *abcParser) body(s string) error {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\\' || c == '-' || c == ')' || c == '~' || c == '.':
			i++
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return fmt.Errorf("unclosed chord symbol at %q", s[i:])
			}
			sym := s[i+1 : i+1+j]
			i += j + 2
			if p.lastChord {
				continue // the second of an alternate pair
			}
			p.touch()
			p.cur.Chords = append(p.cur.Chords, ABCChord{At: p.cur.Len, Symbol: sym})
			p.lastChord = true
		case c == '!' || c == '+':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				i++
				continue
			}
			i += j + 2
		case c == '{':
			j := strings.IndexByte(s[i:], '}')
			if j < 0 {
				return fmt.Errorf("unclosed grace notes at %q", s[i:])
			}
			i += j + 1
		case c == '(':
			if i+1 < len(s) && s[i+1] >= '2' && s[i+1] <= '9' {
				n := int(s[i+1] - '0')
				q := map[int]int{2: 3, 3: 2, 4: 3, 6: 2, 8: 3}[n]
				if q == 0 {
					q = 2
					if nn, dd, ok := parseFraction(p.meter); ok && dd == 8 && nn%3 == 0 {
						q = 3
					}
				}
				i += 2
				r := n
				// (p:q:r
				if i < len(s) && s[i] == ':' {
					j := i + 1
					k := j
					for k < len(s) && s[k] >= '0' && s[k] <= '9' {
						k++
					}
					if k > j {
						q, _ = strconv.Atoi(s[j:k])
					}
					i = k
					if i < len(s) && s[i] == ':' {
						j = i + 1
						k = j
						for k < len(s) && s[k] >= '0' && s[k] <= '9' {
							k++
						}
						if k > j {
							r, _ = strconv.Atoi(s[j:k])
						}
						i = k
					}
				}
				p.tupletN, p.tupletF = r, float64(q)/float64(n)
			} else {
				i++ // a slur
			}
		case c == '>' || c == '<':
			n := 0
			for i < len(s) && s[i] == c {
				n++
				i++
			}
			f := math.Pow(0.5, float64(n))
			// a>b: the first is longer by what the second loses.
			if c == '>' {
				p.cur.Len += p.prevNote * (1 - f)
				p.broken = f
			} else {
				p.cur.Len -= p.prevNote * (1 - f)
				p.broken = 2 - f
			}
		case c == '|' || c == ':' || (c == '[' && i+1 < len(s) && (s[i+1] == '|' || s[i+1] >= '1' && s[i+1] <= '9')):
			i = p.barLine(s, i)
		case c == '[' && i+2 < len(s) && s[i+2] == ':' && (s[i+1] >= 'A' && s[i+1] <= 'Z' || s[i+1] >= 'a' && s[i+1] <= 'z'):
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				return fmt.Errorf("unclosed inline field at %q", s[i:])
			}
			if err := p.field(s[i+1], strings.TrimSpace(s[i+3:i+j])); err != nil {
				return err
			}
			i += j + 1
		case c == '[':
			// A chord of notes: its length is its first note's.
			j := i + 1
			first := -1.0
			for j < len(s) && s[j] != ']' {
				k, ok := skipPitch(s, j)
				if !ok {
					j++
					continue
				}
				l, k2 := readLength(s, k)
				if first < 0 {
					first = l
				}
				j = k2
			}
			if j >= len(s) {
				return fmt.Errorf("unclosed chord at %q", s[i:])
			}
			j++
			mult, k := readLength(s, j)
			if first < 0 {
				first = 1
			}
			p.note(first * mult)
			i = k
		case c == 'z' || c == 'x':
			l, k := readLength(s, i+1)
			p.note(l)
			i = k
		case c == 'Z':
			l, k := readLength(s, i+1)
			n, d, ok := parseFraction(p.meter)
			if !ok {
				return fmt.Errorf("multi-measure rest without a meter")
			}
			p.cur.Len += l * 4 * float64(n) / float64(d)
			p.started = true
			i = k
		default:
			k, ok := skipPitch(s, i)
			if ok {
				l, k2 := readLength(s, k)
				p.note(l)
				i = k2
				continue
			}
			// Decoration letters (T, H, u, v, …) and anything else: skip.
			i++
		}
	}
	return nil
}

// barLine reads a run of bar-line characters at i ("|", "||", "|:", ":|",
// "::", ":|:", "|]", "[|", "|1", ":|2", "[1", "[2") and marks the measures.
func (p *abcParser) barLine(s string, i int) int {
	j := i
	for j < len(s) && (s[j] == '|' || s[j] == ':' || s[j] == ']' || (s[j] == '[' && j+1 < len(s) && s[j+1] == '|')) {
		j++
	}
	tok := s[i:j]
	// An ending number right after the bar line or after "[".
	ending := 0
	k := j
	if k < len(s) && s[k] == '[' && k+1 < len(s) && s[k+1] >= '1' && s[k+1] <= '9' {
		k++
	}
	if k < len(s) && s[k] >= '1' && s[k] <= '9' && (k > i || s[i] == '[') {
		ending = int(s[k] - '0')
		k++
		for k < len(s) && (s[k] == ',' || s[k] == '-' || s[k] >= '0' && s[k] <= '9') {
			k++
		}
		j = k
	} else if tok == "" && s[i] == '[' {
		// "[1" alone
		j = i + 1
		if j < len(s) && s[j] >= '1' && s[j] <= '9' {
			ending = int(s[j] - '0')
			j++
		}
	}
	hasBar := strings.Contains(tok, "|")
	repEnd := strings.HasPrefix(tok, ":") || strings.Contains(tok, ":|")
	repStart := strings.HasSuffix(tok, ":") || strings.Contains(tok, "|:")
	if tok == "::" {
		repEnd, repStart = true, true
	}
	double := strings.Contains(tok, "||") || strings.Contains(tok, "|]") || strings.Contains(tok, "[|")
	if hasBar || tok == "::" {
		m := &p.cur
		if m.Len > 0 || len(m.Chords) > 0 {
			m.RepeatEnd = m.RepeatEnd || repEnd
			m.SectionEnd = m.SectionEnd || double || repEnd
			if m.Ending == 0 {
				m.Ending = p.ending
			}
			p.endMeasure(true)
		} else if n := len(p.measures); n > 0 {
			// "|| [2", "|[1": a bar line right after another one.
			last := &p.measures[n-1]
			last.RepeatEnd = last.RepeatEnd || repEnd
			last.SectionEnd = last.SectionEnd || double || repEnd
		}
		if repEnd || double || repStart {
			p.ending = 0
		}
	}
	if repStart {
		p.cur.RepeatStart = true
	}
	if ending > 0 {
		p.ending = ending
		p.cur.Ending = ending
		p.cur.EndingStart = true
	} else if p.ending > 0 {
		p.cur.Ending = p.ending
	}
	p.lastChord = false
	return j
}

// Timeline is a tune played through: its chord symbols at their times in
// quarter notes from the first note, and its length.
type Timeline struct {
	Chords []ABCChord // At: quarter notes from the start of the first measure
	Len    float64
	// Pickup is the length of the opening partial measure (0 if the first
	// measure is full).
	Pickup float64
	// Measures played, in order (indices into Tune.Measures).
	Order []int
}

// BarQuarters returns the tune's bar length in quarter notes.
func (t *ABCTune) BarQuarters() (float64, error) {
	n, d, ok := parseFraction(t.Meter)
	if !ok {
		return 0, fmt.Errorf("arrange: abc X:%d: meter %q", t.X, t.Meter)
	}
	return 4 * float64(n) / float64(d), nil
}

// Expand plays the tune through its repeats: a ":|" goes back to the last
// "|:" (or the start, or the end of the previous repeat) once; on the
// second pass a first ending is skipped for the second. With byParts, the
// parts are played in the order of Parts (Y:, or a P: in the header),
// each part expanded on its own.
func (t *ABCTune) Expand(byParts bool) (*Timeline, error) {
	bar, err := t.BarQuarters()
	if err != nil {
		return nil, err
	}
	var order []int
	if byParts && t.Parts != "" {
		parts := map[string][]int{}
		for i, m := range t.Measures {
			parts[m.Part] = append(parts[m.Part], i)
		}
		for _, r := range expandPartOrder(t.Parts) {
			idx, ok := parts[string(r)]
			if !ok {
				return nil, fmt.Errorf("arrange: abc X:%d: part %c of %q not in the tune", t.X, r, t.Parts)
			}
			order = append(order, expandRepeats(t.Measures, idx)...)
		}
	} else {
		all := make([]int, len(t.Measures))
		for i := range all {
			all[i] = i
		}
		order = expandRepeats(t.Measures, all)
	}
	tl := &Timeline{Order: order}
	if len(t.Measures) > 0 && t.Measures[0].Len < bar-1e-6 {
		tl.Pickup = t.Measures[0].Len
	}
	for _, i := range order {
		m := t.Measures[i]
		for _, c := range m.Chords {
			tl.Chords = append(tl.Chords, ABCChord{At: tl.Len + c.At, Symbol: c.Symbol})
		}
		tl.Len += m.Len
	}
	return tl, nil
}

// expandPartOrder turns a play order like "AABABAC" or "(AB)2C" into part
// letters (letters only; a digit repeats the previous letter or group).
func expandPartOrder(s string) []rune {
	var out []rune
	var group []rune
	inGroup := false
	var last []rune
	for _, r := range s {
		switch {
		case r == '(':
			inGroup, group = true, nil
		case r == ')':
			inGroup = false
			out = append(out, group...)
			last = append([]rune(nil), group...)
		case r >= '2' && r <= '9':
			for k := 1; k < int(r-'0'); k++ {
				out = append(out, last...)
			}
		case r >= 'A' && r <= 'Z':
			if inGroup {
				group = append(group, r)
			} else {
				out = append(out, r)
				last = []rune{r}
			}
		}
	}
	return out
}

// expandRepeats plays the measures idx (in order) through their repeats:
// a ":|" sends the player back once to the last "|:" (or the start, or the
// measure after the previous repeat); on the second pass the measures of a
// first ending are skipped, and leaving a second ending ends the pass.
func expandRepeats(ms []ABCMeasure, idx []int) []int {
	var out []int
	start := 0 // position in idx where the current repeat begins
	second, inEnding2 := false, false
	for k := 0; k < len(idx); k++ {
		m := ms[idx[k]]
		if second && m.Ending == 1 {
			continue
		}
		if second && inEnding2 && m.Ending == 0 {
			second, inEnding2 = false, false
			start = k
		}
		if m.RepeatStart && !second {
			start = k
		}
		out = append(out, idx[k])
		if second && m.Ending >= 2 {
			inEnding2 = true
		}
		if m.RepeatEnd {
			if !second {
				second = true
				k = start - 1
				continue
			}
			second, inEnding2 = false, false
			start = k + 1
		}
	}
	return out
}
