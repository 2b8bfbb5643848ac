package text

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/userfile"
)

// PieceInfo is what is known of one piece besides its notes. Every field is
// optional; Sources lists the files the facts came from (relative to the
// import root where possible).
type PieceInfo struct {
	Title string `json:"title,omitempty"`
	// TitleSource says where Title came from: "table" (a metadata CSV),
	// "abc", "obm" (an OpenMSX/OpenTTD music set), "sidecar", "midi" (a
	// title or track name in the file) or "file name" (a last resort made
	// from the file name, not real metadata).
	TitleSource string   `json:"title_source,omitempty"`
	AltTitles   []string `json:"alt_titles,omitempty"`
	Artist      string   `json:"artist,omitempty"`
	Composer    string   `json:"composer,omitempty"`
	// Genre is a genre or tune type ("jig", "reel", "waltz", "pop").
	Genre string `json:"genre,omitempty"`
	// Style is the era or style a metadata table names beside the genre
	// (Mutopia's "Baroque", OpenEWLD's "Big Band", Groove's
	// "funk/purdieshuffle"); Era is guessed from the composer's dates
	// (EraOf) where no style is named; TuneType is the kind of piece (a
	// reel, a polka; a drum beat or fill).
	Style    string `json:"style,omitempty"`
	Era      string `json:"era,omitempty"`
	TuneType string `json:"tune_type,omitempty"`
	// Instruments is the metadata's description of the instrumentation
	// ("Voice and Piano", "2 violins (40), viola (41), cello (42)").
	Instruments string `json:"instruments,omitempty"`
	// ComposerYears are the composer's dates ("1797–1828").
	ComposerYears string `json:"composer_years,omitempty"`
	Collection    string `json:"collection,omitempty"` // e.g. "OpenMSX", "ABC reelsh-l"
	Year          string `json:"year,omitempty"`
	// Meter and Key are as declared by the metadata (ABC M: and K:), not
	// measured.
	Meter       string   `json:"meter,omitempty"`
	Key         string   `json:"key,omitempty"`
	Origin      string   `json:"origin,omitempty"`      // ABC S: (source) line
	Description string   `json:"description,omitempty"` // sidecar text, table comment, ABC N: notes
	Tags        []string `json:"tags,omitempty"`        // sidecar tags, moods
	Summary     string   `json:"summary,omitempty"`     // Wikipedia summary, when enabled
	TrackNames  []string `json:"track_names,omitempty"`
	Sources     []string `json:"sources,omitempty"`
	// Warnings are problems met while collecting (a bad sidecar, a failed
	// summary request); they never stop a caption.
	Warnings []string `json:"warnings,omitempty"`
}

// HasTitle reports whether the title came from real metadata rather than
// the file name.
func (p PieceInfo) HasTitle() bool { return p.Title != "" && p.TitleSource != "file name" }

// CollectorOptions configure NewCollector. The zero value finds everything
// it can under the root and makes no network requests.
type CollectorOptions struct {
	// MappingCSV names a metadata table the user points at (absolute, or
	// relative to the root): a CSV with a header row, one row per piece, one
	// column naming the MIDI file (file name, relative path or id such as
	// POP909's song_id). It applies to every file, wherever it lives.
	MappingCSV string
	// KeyColumn is the column of MappingCSV naming the file; "" guesses it
	// (the column whose values match the most MIDI files).
	KeyColumn string
	// NoAutoTables turns off the discovery of index.csv-style tables under
	// the root (files named index.csv, metadata.csv, meta.csv, songs.csv,
	// catalog.csv or mapping.csv).
	NoAutoTables bool
	// Summaries, when not nil, adds a Wikipedia summary of the title. Off by
	// default.
	Summaries *Wiki
}

// Collector finds the metadata under an import root once and answers Info
// for each MIDI file. Info is safe for concurrent use.
type Collector struct {
	root string
	opts CollectorOptions

	tables   []*table            // user mapping first, then discovered tables
	abc      map[string]*abcTune // "dir\x00key" → tune; key = lower(stem)+X
	obm      map[string]obmEntry // "dir\x00stem" → title
	sidecars map[string][]string // MIDI path without extension → sidecar files
	notes    []string            // problems met while loading (bad table, unreadable abc)
}

// Errors callers can test with errors.Is.
var (
	ErrNoRoot  = errors.New("text: import root is not a folder")
	ErrMapping = errors.New("text: bad mapping table")
)

// autoTableNames are the file names of metadata tables found without being
// named.
var autoTableNames = map[string]bool{
	"index.csv": true, "metadata.csv": true, "meta.csv": true, "songs.csv": true,
	"catalog.csv": true, "mapping.csv": true,
}

// NewCollector walks root and loads the metadata it finds: index.csv-style
// tables, abc/ folders (ABC tune books whose tunes match MIDI files named
// STEM+X, as the Nottingham database does), .obm music-set files (OpenTTD's
// OpenMSX title lists) and sidecar .txt/.json files next to MIDI files. A
// user-named MappingCSV that cannot be read is an error; a discovered file
// that cannot be read is skipped and noted (see Notes).
func NewCollector(root string, opts CollectorOptions) (*Collector, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNoRoot, root, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%w: %s", ErrNoRoot, root)
	}
	if a, err := filepath.Abs(root); err == nil {
		root = a
	}
	c := &Collector{
		root:     filepath.Clean(root),
		opts:     opts,
		abc:      map[string]*abcTune{},
		obm:      map[string]obmEntry{},
		sidecars: map[string][]string{},
	}
	var csvs, abcs, obms []string
	midiKeys := map[string]bool{} // every lookup key of every MIDI file
	sideCand := map[string][]string{}
	midiBases := map[string]bool{}
	err = filepath.WalkDir(c.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == c.root {
				return err
			}
			c.notes = append(c.notes, fmt.Sprintf("%s: %v", c.rel(p), err))
			return nil
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && p != c.root {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		ext := strings.ToLower(filepath.Ext(name))
		switch ext {
		case ".csv", ".abc", ".obm", ".txt", ".json":
			// Only regular files are read: a FIFO named index.csv
			// would wait for a writer forever.
			if why, _ := userfile.Skip(p, d); why != "" {
				c.notes = append(c.notes, fmt.Sprintf("%s: skipped: %s", c.rel(p), why))
				return nil
			}
		}
		switch ext {
		case ".mid", ".midi":
			for _, k := range c.lookupKeys(p) {
				midiKeys[k] = true
			}
			midiBases[strings.TrimSuffix(p, filepath.Ext(p))] = true
		case ".csv":
			if !opts.NoAutoTables && autoTableNames[strings.ToLower(name)] {
				csvs = append(csvs, p)
			}
		case ".abc":
			abcs = append(abcs, p)
		case ".obm":
			obms = append(obms, p)
		case ".txt", ".json":
			base := strings.TrimSuffix(p, filepath.Ext(p))
			// song.txt and song.mid.txt both describe song.mid.
			if e := strings.ToLower(filepath.Ext(base)); e == ".mid" || e == ".midi" {
				base = strings.TrimSuffix(base, filepath.Ext(base))
			}
			sideCand[base] = append(sideCand[base], p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("text: walk %s: %w", root, err)
	}
	for base, files := range sideCand {
		if midiBases[base] {
			c.sidecars[base] = files
		}
	}
	if opts.MappingCSV != "" {
		p := opts.MappingCSV
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.root, p)
		}
		t, err := loadTable(p, "", opts.KeyColumn, midiKeys)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMapping, err)
		}
		c.tables = append(c.tables, t)
	}
	for _, p := range csvs {
		if opts.MappingCSV != "" && sameFile(p, opts.MappingCSV, c.root) {
			continue
		}
		t, err := loadTable(p, filepath.Dir(p), "", midiKeys)
		if err != nil {
			c.notes = append(c.notes, err.Error())
			continue
		}
		c.tables = append(c.tables, t)
	}
	for _, p := range abcs {
		if err := c.loadABC(p); err != nil {
			c.notes = append(c.notes, err.Error())
		}
	}
	for _, p := range obms {
		if err := c.loadOBM(p); err != nil {
			c.notes = append(c.notes, err.Error())
		}
	}
	return c, nil
}

func sameFile(a, b, root string) bool {
	if !filepath.IsAbs(b) {
		b = filepath.Join(root, b)
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// Notes returns the problems met while loading metadata (unreadable or
// unusable files that were skipped).
func (c *Collector) Notes() []string { return append([]string(nil), c.notes...) }

func (c *Collector) rel(p string) string {
	if r, err := filepath.Rel(c.root, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}

// normKey normalizes an identifier for matching: lower case, slashes,
// extension removed, and leading zeros of a purely numeric id dropped
// ("001" and "1" match).
func normKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(filepath.ToSlash(s)))
	s = strings.TrimPrefix(s, "./")
	if e := filepath.Ext(s); e == ".mid" || e == ".midi" || e == ".kar" {
		s = strings.TrimSuffix(s, e)
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0 {
		s = strings.TrimLeft(s, "0")
		if s == "" {
			s = "0"
		}
	}
	return s
}

// lookupKeys returns the keys a MIDI file is known by, most specific first:
// its path relative to the root, its stem, and its folder's name (POP909
// keeps song 001 as 001/001.mid).
func (c *Collector) lookupKeys(p string) []string {
	stem := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
	keys := []string{normKey(c.rel(p)), normKey(stem)}
	// The folder's name, unless the folder is the root itself (whose name
	// says nothing of one file).
	if d := filepath.Dir(p); d != c.root && d != "." && d != filepath.Dir(d) {
		keys = append(keys, normKey(filepath.Base(d)))
	}
	return keys
}

// under reports whether p lies inside dir ("" matches everything).
func under(p, dir string) bool {
	if dir == "" {
		return true
	}
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// Info gathers what is known of the MIDI file at midiPath (whose parsed
// score s may be nil): metadata tables, ABC tunes, music-set titles,
// sidecars, then titles in the file, then the file name. It never fails:
// problems become Warnings.
func (c *Collector) Info(ctx context.Context, midiPath string, s *midi.Score) PieceInfo {
	var info PieceInfo
	abs := midiPath
	if a, err := filepath.Abs(midiPath); err == nil {
		abs = a
	}
	keys := c.lookupKeys(abs)

	// 1. Metadata tables (the user's mapping first).
	for _, t := range c.tables {
		if !under(abs, t.scope) {
			continue
		}
		if row := t.lookup(keys); row != nil {
			t.fill(&info, row)
			info.Sources = append(info.Sources, c.rel(t.path))
			break
		}
	}
	// 2. ABC tune books.
	dir := filepath.Dir(abs)
	stem := strings.ToLower(strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs)))
	if tune := c.abcTune(dir, stem); tune != nil {
		tune.fill(&info)
		info.Sources = append(info.Sources, c.rel(tune.file))
	}
	// 3. Music-set title lists.
	if e, ok := c.obm[dir+"\x00"+stem]; ok {
		if info.Title == "" {
			info.Title, info.TitleSource = e.title, "obm"
		}
		if info.Collection == "" {
			info.Collection = e.set
		}
		info.Sources = append(info.Sources, c.rel(e.file))
	}
	// 4. Sidecars.
	base := strings.TrimSuffix(abs, filepath.Ext(abs))
	side, known := c.sidecars[base]
	if !known && !under(abs, c.root) {
		side = statSidecars(abs)
	}
	for _, p := range side {
		if err := readSidecar(p, &info); err != nil {
			info.Warnings = append(info.Warnings, err.Error())
			continue
		}
		info.Sources = append(info.Sources, c.rel(p))
	}
	// 5. The file itself.
	if s != nil {
		seen := map[string]bool{}
		for _, tr := range s.Tracks {
			n := cleanTitle(tr.Name)
			if n == "" || seen[n] || genericName(n) {
				continue
			}
			seen[n] = true
			info.TrackNames = append(info.TrackNames, n)
		}
		if info.Title == "" {
			if t := cleanTitle(s.Title); t != "" && !genericName(t) {
				info.Title, info.TitleSource = t, "midi"
			}
		}
	}
	// 6. Last resort: the file name, when it has words in it.
	if info.Title == "" {
		if t := titleFromFileName(stem); t != "" {
			info.Title, info.TitleSource = t, "file name"
		}
	}
	// 7. Optional encyclopedia summary.
	if c.opts.Summaries != nil && info.HasTitle() && info.Summary == "" {
		sum, err := c.opts.Summaries.Summary(ctx, info.Title)
		if err != nil {
			info.Warnings = append(info.Warnings, err.Error())
		} else {
			info.Summary = sum
		}
	}
	return info
}

func statSidecars(midiPath string) []string {
	base := strings.TrimSuffix(midiPath, filepath.Ext(midiPath))
	var out []string
	for _, p := range []string{base + ".txt", base + ".json", midiPath + ".txt", midiPath + ".json"} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

// cleanTitle trims a title and collapses its white space; control
// characters and NULs (common padding in MIDI text events) are dropped.
func cleanTitle(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == 0 || r == unicode.ReplacementChar {
			return -1
		}
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// genericName reports names that say nothing of the piece: "Track 1",
// "MELODY", "Piano", "untitled", instrument and channel labels.
func genericName(s string) bool {
	l := strings.ToLower(strings.TrimSpace(s))
	l = strings.TrimRight(l, " 0123456789.:#-_")
	if l == "" {
		return true
	}
	switch l {
	case "track", "melody", "bridge", "piano", "chords", "chord", "harmony", "bass", "drums", "drum",
		"percussion", "untitled", "new song", "song", "sequence", "seq", "staff", "channel", "ch",
		"instrument", "voice", "lead", "accomp", "accompaniment", "rhythm", "strings", "guitar", "solo",
		"right hand", "left hand", "rh", "lh", "tempo", "tempo track", "conductor", "copyright",
		"generated by", "midi", "noname", "unnamed", "title", "music", "part":
		return true
	}
	for _, n := range gmNames {
		if l == n {
			return true
		}
	}
	return strings.HasPrefix(l, "track ") || strings.HasPrefix(l, "copyright") || strings.HasPrefix(l, "(c)")
}

// titleFromFileName makes "Keep on rolling" of keep_on_rolling, or "" for
// names without letters (001) or with one-letter words only.
func titleFromFileName(stem string) string {
	s := strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || r == '+' {
			return ' '
		}
		return r
	}, stem)
	words := strings.Fields(s)
	letters := 0
	for _, w := range words {
		for _, r := range w {
			if unicode.IsLetter(r) {
				letters++
			}
		}
	}
	if letters < 3 {
		return ""
	}
	t := strings.Join(words, " ")
	r := []rune(t)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
