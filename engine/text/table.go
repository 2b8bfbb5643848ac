package text

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/amtstudio/amt/engine/userfile"
)

// table is a metadata CSV: one row per piece, one column naming the file.
type table struct {
	path   string
	scope  string // rows apply to files under this folder; "" everywhere
	header []string
	keyCol int
	roles  map[string]int // role → column
	rows   map[string][]string
}

// roleColumns are the header names (lower case, spaces and dashes as
// underscores) that fill each PieceInfo field.
var roleColumns = map[string][]string{
	"title":       {"title", "canonical_title", "name", "song", "song_name", "songname", "song_title", "piece", "work"},
	"artist":      {"artist", "artists", "artist_name", "performer", "singer", "band"},
	"composer":    {"composer", "canonical_composer", "composers", "author", "writer"},
	"genre":       {"genre", "genres", "category"},
	"style":       {"style", "styles", "era", "period"},
	"tune_type":   {"tune_type", "type", "beat_type", "dance", "form"},
	"instruments": {"instruments", "instrumentation", "instrument", "ensemble"},
	"born":        {"composer_born", "composer_birth", "born"},
	"died":        {"composer_died", "composer_death", "died"},
	"meter":       {"time_signature", "meter", "metre", "metric"},
	"year":        {"year", "date", "release_year"},
	"desc":        {"description", "comment", "comments", "notes", "caption", "summary"},
	"collection":  {"album", "collection", "set", "song_cycle", "source", "dataset"},
	"tags":        {"tags", "mood", "moods", "keywords"},
}

// keyColumns are header names that usually name the file, in preference order.
var keyColumns = []string{"midi_filename", "filename", "file_name", "file", "path", "midi", "midi_file",
	"song_id", "id", "track_id", "piece_id"}

func normHeader(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	return strings.NewReplacer(" ", "_", "-", "_").Replace(h)
}

// loadTable reads a CSV (comma, semicolon or tab separated, optional UTF-8
// byte-order mark) and indexes its rows by the key column: keyColumn when
// given, else the column whose values match the most of midiKeys.
func loadTable(path, scope, keyColumn string, midiKeys map[string]bool) (*table, error) {
	data, err := userfile.ReadRegular(context.Background(), path, MaxTextFile)
	if err != nil {
		return nil, fmt.Errorf("text: metadata table %s: %w", path, err)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first, _, _ := bufio.NewReader(bytes.NewReader(data)).ReadLine()
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	switch {
	case bytes.Count(first, []byte("\t")) > bytes.Count(first, []byte(",")):
		r.Comma = '\t'
	case bytes.Count(first, []byte(";")) > bytes.Count(first, []byte(",")):
		r.Comma = ';'
	}
	header, err := r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("text: metadata table %s: empty", path)
		}
		return nil, fmt.Errorf("text: metadata table %s: header: %w", path, err)
	}
	var recs [][]string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("text: metadata table %s: %w", path, err)
		}
		recs = append(recs, rec)
	}
	t := &table{path: path, scope: scope, keyCol: -1, roles: map[string]int{}, rows: map[string][]string{}}
	for _, h := range header {
		t.header = append(t.header, normHeader(h))
	}
	if keyColumn != "" {
		want := normHeader(keyColumn)
		for i, h := range t.header {
			if h == want {
				t.keyCol = i
			}
		}
		if t.keyCol < 0 {
			return nil, fmt.Errorf("text: metadata table %s: no column %q (columns: %s)", path, keyColumn, strings.Join(header, ", "))
		}
	} else {
		// One pass over the fields present (columns × rows would be
		// quadratic in a table of many columns and short rows).
		hits := make([]int, len(t.header))
		for _, rec := range recs {
			for i := 0; i < len(rec) && i < len(hits); i++ {
				if midiKeys[normKey(rec[i])] || midiKeys[normKey(filepath.Base(rec[i]))] {
					hits[i]++
				}
			}
		}
		best, bestHits := -1, 0
		for i, h := range hits {
			if h > bestHits || (h == bestHits && h > 0 && preferKey(t.header[i], t.header[best])) {
				best, bestHits = i, h
			}
		}
		if best < 0 {
			if scope != "" {
				return nil, fmt.Errorf("text: metadata table %s: no column matches a MIDI file name", path)
			}
			// A named mapping whose files are not there yet: trust the header.
			best = 0
			for _, k := range keyColumns {
				if i := indexOf(t.header, k); i >= 0 {
					best = i
					break
				}
			}
		}
		t.keyCol = best
	}
	for role, names := range roleColumns {
		for _, n := range names {
			if i := indexOf(t.header, n); i >= 0 && i != t.keyCol {
				t.roles[role] = i
				break
			}
		}
	}
	for _, rec := range recs {
		if t.keyCol >= len(rec) {
			continue
		}
		v := strings.TrimSpace(rec[t.keyCol])
		if v == "" {
			continue
		}
		for _, k := range []string{normKey(v), normKey(filepath.Base(v))} {
			if _, dup := t.rows[k]; !dup {
				t.rows[k] = rec
			}
		}
	}
	return t, nil
}

func preferKey(a, b string) bool {
	ia, ib := indexOf(keyColumns, a), indexOf(keyColumns, b)
	return ia >= 0 && (ib < 0 || ia < ib)
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// lookup returns the row of the first key that matches.
func (t *table) lookup(keys []string) []string {
	for _, k := range keys {
		if row, ok := t.rows[k]; ok {
			return row
		}
	}
	return nil
}

// fill copies the row's known columns into empty fields of info.
func (t *table) fill(info *PieceInfo, row []string) {
	get := func(role string) string {
		i, ok := t.roles[role]
		if !ok || i >= len(row) {
			return ""
		}
		return cleanTitle(row[i])
	}
	if v := get("title"); v != "" && info.Title == "" {
		info.Title, info.TitleSource = v, "table"
	}
	setIfEmpty(&info.Artist, get("artist"))
	if c, years := composerName(get("composer")); c != "" && info.Composer == "" {
		info.Composer = c
		setIfEmpty(&info.ComposerYears, years)
	}
	if b, d := year(get("born")), year(get("died")); b > 0 && info.ComposerYears == "" {
		info.ComposerYears = strconv.Itoa(b) + "–"
		if d > 0 {
			info.ComposerYears += strconv.Itoa(d)
		}
	}
	// Style and tune type have fields of their own (they filled Genre
	// before issue 35); PieceInfo.Family reads all three.
	setIfEmpty(&info.Genre, get("genre"))
	setIfEmpty(&info.TuneType, get("tune_type"))
	setIfEmpty(&info.Style, get("style"))
	if info.Style == "" {
		info.Era = EraOf(year(get("born")), year(get("died")))
	}
	setIfEmpty(&info.Instruments, get("instruments"))
	setIfEmpty(&info.Meter, strings.ReplaceAll(get("meter"), "-", "/"))
	if y := get("year"); year(y) > 0 && len(y) > 4 && y[4] == '-' {
		setIfEmpty(&info.Year, y[:4]) // a date: its year
	} else {
		setIfEmpty(&info.Year, y)
	}
	setIfEmpty(&info.Description, get("desc"))
	setIfEmpty(&info.Collection, get("collection"))
	if v := get("tags"); v != "" {
		info.Tags = appendTags(info.Tags, v)
	}
}

func setIfEmpty(dst *string, v string) {
	if *dst == "" && v != "" {
		*dst = v
	}
}

// appendTags splits a tag list on commas, semicolons or bars.
func appendTags(tags []string, v string) []string {
	for _, t := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' || r == '|' }) {
		if t = strings.TrimSpace(t); t != "" && indexOf(tags, t) < 0 {
			tags = append(tags, t)
		}
	}
	return tags
}
