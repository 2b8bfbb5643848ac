package text

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/amtstudio/amt/engine/userfile"
)

// abcTune is the header of one tune of an ABC tune book.
type abcTune struct {
	file       string
	x          int
	titles     []string
	meter      string
	key        string
	rhythm     string // R:
	composer   string // C:
	origin     string // S: (source) or O: (origin)
	notes      []string
	collection string // first "% ..." comment of the header
	bookType   string // tune type implied by the book's file name
}

// parseABC reads the tune headers of an ABC file.
func parseABC(path string, data []byte) []*abcTune {
	var tunes []*abcTune
	var cur *abcTune
	inHeader := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if len(line) >= 2 && line[1] == ':' && line[0] == 'X' {
			x, _ := strconv.Atoi(strings.TrimSpace(line[2:]))
			cur = &abcTune{file: path, x: x}
			tunes = append(tunes, cur)
			inHeader = true
			continue
		}
		if cur == nil {
			continue
		}
		if strings.TrimSpace(line) == "" {
			cur = nil // a blank line ends a tune
			continue
		}
		if strings.HasPrefix(line, "%") {
			if inHeader && !strings.HasPrefix(line, "%%") && cur.collection == "" {
				cur.collection = strings.TrimSpace(strings.TrimLeft(line, "%"))
			}
			continue
		}
		if len(line) < 2 || line[1] != ':' || !(line[0] >= 'A' && line[0] <= 'Z' || line[0] >= 'a' && line[0] <= 'z') {
			inHeader = false
			continue
		}
		v := abcUnescape(strings.TrimSpace(line[2:]))
		switch line[0] {
		case 'T':
			if v != "" {
				cur.titles = append(cur.titles, v)
			}
		case 'M':
			if cur.meter == "" {
				cur.meter = v
			}
		case 'K':
			if cur.key == "" {
				cur.key = abcKeyName(v)
			}
			inHeader = false
		case 'R':
			if cur.rhythm == "" {
				cur.rhythm = v
			}
		case 'C':
			if cur.composer == "" {
				cur.composer = v
			}
		case 'S', 'O':
			if cur.origin == "" {
				cur.origin = v
			}
		case 'N':
			if v = strings.TrimSpace(strings.NewReplacer("/f2", "", "/fP", "", `"`, "").Replace(v)); v != "" {
				cur.notes = append(cur.notes, v)
			}
		}
	}
	return tunes
}

// abcUnescape resolves the ABC text escapes that appear in titles: \& and
// TeX-style accents (\'e, \`a, \^o, \"u, \~n, \cc).
func abcUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	acc := map[string]string{
		`\'e`: "é", `\'a`: "á", `\'i`: "í", `\'o`: "ó", `\'u`: "ú", `\'E`: "É",
		"\\`e": "è", "\\`a": "à", "\\`u": "ù", `\^e`: "ê", `\^a`: "â", `\^o`: "ô", `\^i`: "î", `\^u`: "û",
		`\"u`: "ü", `\"o`: "ö", `\"a`: "ä", `\"e`: "ë", `\"i`: "ï", `\~n`: "ñ", `\cc`: "ç", `\ss`: "ß",
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+2 < len(s) {
			if r, ok := acc[s[i:i+3]]; ok {
				b.WriteString(r)
				i += 2
				continue
			}
		}
		if s[i] == '\\' && i+1 < len(s) {
			b.WriteByte(s[i+1])
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// abcKeyName turns an ABC key field (G, Em, Bb, F#m, Ador, "D clef=bass")
// into words: "G major", "E minor", "B♭ major" is written "Bb major",
// "A dorian".
func abcKeyName(k string) string {
	f := strings.Fields(k)
	if len(f) == 0 {
		return ""
	}
	k = f[0]
	if k == "none" || k == "HP" || k == "Hp" {
		return "" // bagpipe or no key signature
	}
	if k[0] < 'A' || k[0] > 'G' {
		return ""
	}
	tonic := k[:1]
	rest := k[1:]
	if rest != "" && (rest[0] == '#' || rest[0] == 'b') {
		tonic += rest[:1]
		rest = rest[1:]
	}
	if rest == "" && len(f) > 1 {
		rest = f[1]
	}
	mode := "major"
	switch r := strings.ToLower(rest); {
	case r == "" || strings.HasPrefix(r, "maj") || strings.HasPrefix(r, "ion"):
	case r == "m" || strings.HasPrefix(r, "min") || strings.HasPrefix(r, "aeo"):
		mode = "minor"
	case strings.HasPrefix(r, "dor"):
		mode = "dorian"
	case strings.HasPrefix(r, "mix"):
		mode = "mixolydian"
	case strings.HasPrefix(r, "phr"):
		mode = "phrygian"
	case strings.HasPrefix(r, "lyd"):
		mode = "lydian"
	case strings.HasPrefix(r, "loc"):
		mode = "locrian"
	}
	return tonic + " " + mode
}

// bookTuneType guesses the tune type from an ABC book's file name, as the
// Nottingham database names them: jigs, reelsa-c, hpps, slip, waltzes, …
// It returns the type and, for books named after a collection, the
// collection.
func bookTuneType(stem string) (typ, collection string) {
	s := strings.ToLower(stem)
	// reelsa-c, reelsd-g: an alphabetical volume of one type.
	if i := strings.LastIndexByte(s, '-'); i >= 2 && i == len(s)-2 {
		s = s[:i-1]
	}
	switch s {
	case "jigs", "jig":
		return "jig", ""
	case "reels", "reel":
		return "reel", ""
	case "hpps":
		return "hornpipe", ""
	case "hornpipes", "hornpipe":
		return "hornpipe", ""
	case "slip", "slipjigs", "slip_jigs":
		return "slip jig", ""
	case "waltzes", "waltz":
		return "waltz", ""
	case "polkas", "polka":
		return "polka", ""
	case "morris":
		return "morris dance", ""
	case "playford":
		return "Playford country dance", "Playford"
	case "xmas", "christmas", "carols":
		return "Christmas carol", ""
	case "ashover":
		return "folk tune", "Ashover"
	case "marches", "march":
		return "march", ""
	}
	return "", ""
}

// loadABC indexes the tunes of one ABC book by STEM+X (and by STEM alone
// when the book holds one tune), for MIDI files in the book's folder and its
// parent (the Nottingham layout keeps the books in abc/ beside the MIDI
// files).
func (c *Collector) loadABC(path string) error {
	data, err := userfile.ReadRegular(context.Background(), path, MaxTextFile)
	if err != nil {
		return fmt.Errorf("text: abc %s: %w", c.rel(path), err)
	}
	stem := strings.ToLower(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	tunes := parseABC(path, data)
	if len(tunes) == 0 {
		return fmt.Errorf("text: abc %s: no tunes (X: lines)", c.rel(path))
	}
	typ, coll := bookTuneType(stem)
	dirs := []string{filepath.Dir(path), filepath.Dir(filepath.Dir(path))}
	for _, t := range tunes {
		t.bookType = typ
		if coll != "" && t.collection == "" {
			t.collection = coll
		} else if coll != "" {
			t.collection = coll + ", " + t.collection
		}
		for _, d := range dirs {
			k := d + "\x00" + stem + strconv.Itoa(t.x)
			if _, dup := c.abc[k]; !dup {
				c.abc[k] = t
			}
			if len(tunes) == 1 {
				c.abc[d+"\x00"+stem] = t
			}
		}
	}
	return nil
}

// abcTune finds the tune of a MIDI file in dir named stem (lower case).
func (c *Collector) abcTune(dir, stem string) *abcTune {
	if len(c.abc) == 0 {
		return nil
	}
	return c.abc[dir+"\x00"+stem]
}

func (t *abcTune) fill(info *PieceInfo) {
	if len(t.titles) > 0 {
		if info.Title == "" {
			info.Title, info.TitleSource = t.titles[0], "abc"
			info.AltTitles = append(info.AltTitles, t.titles[1:]...)
		} else {
			info.AltTitles = append(info.AltTitles, t.titles...)
		}
	}
	genre := strings.ToLower(t.rhythm)
	if genre == "" {
		genre = t.bookType
	}
	setIfEmpty(&info.Genre, genre)
	setIfEmpty(&info.Composer, t.composer)
	setIfEmpty(&info.Meter, t.meter)
	setIfEmpty(&info.Key, t.key)
	setIfEmpty(&info.Origin, t.origin)
	setIfEmpty(&info.Collection, t.collection)
	if len(t.notes) > 0 && info.Description == "" {
		info.Description = strings.Join(t.notes, "; ")
	}
}

// obmEntry is one title of a music-set (.obm) file.
type obmEntry struct {
	file, title, set string
}

// loadOBM reads an OpenTTD music-set description: the [names] section maps
// each MIDI file to its title; [metadata] name is the set's name.
func (c *Collector) loadOBM(path string) error {
	data, err := userfile.ReadRegular(context.Background(), path, MaxTextFile)
	if err != nil {
		return fmt.Errorf("text: obm %s: %w", c.rel(path), err)
	}
	section, set := "", ""
	names := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == ';' || line[0] == '#' {
			continue
		}
		if line[0] == '[' && strings.HasSuffix(line, "]") {
			section = strings.ToLower(line[1 : len(line)-1])
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch section {
		case "metadata":
			if strings.EqualFold(k, "name") {
				set = v
			}
		case "names":
			if v != "" {
				names[k] = v
			}
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("text: obm %s: no [names] section", c.rel(path))
	}
	dir := filepath.Dir(path)
	for f, title := range names {
		stem := strings.ToLower(strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)))
		c.obm[dir+"\x00"+stem] = obmEntry{file: path, title: title, set: set}
	}
	return nil
}
