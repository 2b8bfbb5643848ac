package text

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/amtstudio/amt/engine/userfile"
)

// maxSidecar bounds a sidecar file; larger ones are not descriptions.
const maxSidecar = 1 << 20

// MaxTextFile bounds a metadata table, an ABC book or a music-set file the
// collector reads (the largest real one, Nottingham's ABC books, is
// under 1 MB).
const MaxTextFile = 64 << 20

// maxDescription bounds the free text kept from a sidecar.
const maxDescription = 1000

// sidecarKey maps a (lower-case) sidecar field name to a role.
var sidecarKey = map[string]string{
	"title": "title", "name": "title", "song": "title",
	"artist": "artist", "performer": "artist", "singer": "artist", "band": "artist",
	"composer": "composer", "author": "composer",
	"genre": "genre", "style": "genre", "type": "genre",
	"description": "desc", "comment": "desc", "comments": "desc", "notes": "desc", "caption": "desc",
	"tags": "tags", "mood": "tags", "moods": "tags", "keywords": "tags",
	"year": "year", "date": "year",
	"album": "collection", "collection": "collection",
}

// readSidecar reads song.txt / song.json (or song.mid.txt / .json) into
// info. A .json sidecar is an object with fields such as title, artist,
// composer, genre, description, tags (string or list) and year; a .txt
// sidecar is either "Field: value" lines with the same names or free text,
// kept as the description.
func readSidecar(path string, info *PieceInfo) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("text: sidecar %s: %w", filepath.Base(path), err)
	}
	if st.Size() > maxSidecar {
		return fmt.Errorf("text: sidecar %s: %d bytes is too large for a description", filepath.Base(path), st.Size())
	}
	data, err := userfile.ReadRegular(context.Background(), path, maxSidecar) // a FIFO named song.txt is refused, not waited on
	if err != nil {
		return fmt.Errorf("text: sidecar %s: %w", filepath.Base(path), err)
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("text: sidecar %s: not UTF-8 text", filepath.Base(path))
	}
	fields := map[string]string{}
	var tags []string
	if strings.EqualFold(filepath.Ext(path), ".json") {
		var obj map[string]any
		if err := json.Unmarshal(data, &obj); err != nil {
			return fmt.Errorf("text: sidecar %s: invalid JSON: %w", filepath.Base(path), err)
		}
		for k, v := range obj {
			role, ok := sidecarKey[strings.ToLower(k)]
			if !ok {
				continue
			}
			switch v := v.(type) {
			case string:
				if role == "tags" {
					tags = appendTags(tags, v)
				} else if fields[role] == "" {
					fields[role] = v
				}
			case float64:
				if fields[role] == "" {
					fields[role] = fmt.Sprint(v)
				}
			case []any:
				for _, e := range v {
					if s, ok := e.(string); ok {
						if role == "tags" {
							tags = appendTags(tags, s)
						} else if fields[role] == "" {
							fields[role] = s
						}
					}
				}
			}
		}
	} else {
		text := strings.TrimSpace(strings.TrimPrefix(string(data), "\ufeff"))
		var free []string
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if k, v, ok := strings.Cut(line, ":"); ok {
				if role, known := sidecarKey[strings.ToLower(strings.TrimSpace(k))]; known {
					v = strings.TrimSpace(v)
					if role == "tags" {
						tags = appendTags(tags, v)
					} else if fields[role] == "" {
						fields[role] = v
					}
					continue
				}
			}
			if line != "" {
				free = append(free, line)
			}
		}
		if len(free) > 0 {
			d := strings.Join(free, " ")
			if fields["desc"] != "" {
				d = fields["desc"] + " " + d
			}
			fields["desc"] = d
		}
	}
	if d := fields["desc"]; len(d) > maxDescription {
		cut := maxDescription
		for cut > 0 && !utf8.RuneStart(d[cut]) {
			cut--
		}
		fields["desc"] = d[:cut]
	}
	for k, v := range fields {
		fields[k] = cleanTitle(v)
	}
	// A sidecar is the most specific source: its title wins over a file
	// name or a title inside the file, not over a table the user named.
	if t := fields["title"]; t != "" && (info.Title == "" || info.TitleSource == "midi" || info.TitleSource == "file name") {
		info.Title, info.TitleSource = t, "sidecar"
	}
	setIfEmpty(&info.Artist, fields["artist"])
	setIfEmpty(&info.Composer, fields["composer"])
	setIfEmpty(&info.Genre, fields["genre"])
	setIfEmpty(&info.Year, fields["year"])
	setIfEmpty(&info.Collection, fields["collection"])
	if d := fields["desc"]; d != "" {
		if info.Description == "" {
			info.Description = d
		} else {
			info.Description += " " + d
		}
	}
	for _, t := range tags {
		info.Tags = appendTags(info.Tags, t)
	}
	return nil
}
