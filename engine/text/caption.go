package text

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/amtstudio/amt/engine/midi"
)

// maxSummary bounds the encyclopedia text kept in a caption.
const maxSummary = 300

// tempoWords name tempo ranges (bpm, upper bound exclusive) with a plain word
// and the Italian marking; ParsePrompt reads the same words back.
var tempoWords = []struct {
	below       float64
	plain, mark string
}{
	{60, "very slow", "largo"},
	{76, "slow", "adagio"},
	{108, "moderate", "andante"},
	{120, "moderate", "moderato"},
	{168, "fast", "allegro"},
	{200, "very fast", "presto"},
	{math.Inf(1), "very fast", "prestissimo"},
}

// TempoWord names a tempo: "slow (adagio)", "fast (allegro)".
func TempoWord(bpm float64) string {
	for _, t := range tempoWords {
		if bpm < t.below {
			return t.plain + " (" + t.mark + ")"
		}
	}
	return ""
}

// Caption writes one English paragraph about a piece from what is known
// (title, artist, genre, collection, descriptions) and what was measured
// (tempo, key, meter, length, instruments). The same inputs always give the
// same caption.
func Caption(info PieceInfo, m midi.Metadata) string {
	var b strings.Builder
	// Who and what.
	if info.Title != "" {
		fmt.Fprintf(&b, "%q", info.Title)
	} else {
		b.WriteString("An untitled piece")
	}
	if info.Artist != "" {
		b.WriteString(" by " + info.Artist)
	}
	if info.Composer != "" && !strings.EqualFold(info.Composer, info.Artist) {
		if info.Artist != "" {
			b.WriteString(", composed by " + info.Composer)
		} else {
			b.WriteString(" by " + info.Composer)
		}
		if info.ComposerYears != "" {
			b.WriteString(" (" + info.ComposerYears + ")")
		}
	}
	if info.Year != "" {
		if info.ComposerYears != "" && info.Composer != "" {
			b.WriteString(", " + info.Year)
		} else {
			b.WriteString(" (" + info.Year + ")")
		}
	}
	b.WriteString(".")
	if g := info.Genre; g != "" {
		b.WriteString(" " + capitalize(article(g)+" "+g) + ".")
	}
	if k := info.TuneType; k != "" && !strings.EqualFold(k, info.Genre) {
		if l := strings.ToLower(k); l == "beat" || l == "fill" {
			k = "drum " + l // Groove's beat_type
		}
		b.WriteString(" " + capitalize(article(k)+" "+k) + ".")
	}
	switch {
	case info.Style != "" && !strings.EqualFold(info.Style, info.Genre):
		b.WriteString(" Style: " + info.Style + ".")
	case info.Style == "" && info.Era != "":
		b.WriteString(" " + info.Era + " era.")
	}
	if inst := plainInstruments(info.Instruments); inst != "" {
		b.WriteString(" Instruments: " + inst + ".")
	}
	if info.Collection != "" {
		b.WriteString(" From " + info.Collection + ".")
	}
	if len(info.AltTitles) > 0 {
		b.WriteString(" Also known as " + strings.Join(info.AltTitles, ", ") + ".")
	}
	if info.Description != "" {
		b.WriteString(" " + sentence(info.Description))
	}
	if len(info.Tags) > 0 {
		b.WriteString(" Mood and style: " + strings.Join(info.Tags, ", ") + ".")
	}
	if info.Summary != "" {
		b.WriteString(" " + sentence(clip(info.Summary, maxSummary)))
	}

	// What was measured.
	var facts []string
	bpm := m.MedianTempoBPM
	if bpm <= 0 {
		bpm = m.TempoBPM
	}
	if bpm > 0 {
		facts = append(facts, fmt.Sprintf("%s tempo, %.0f bpm", TempoWord(bpm), bpm))
	}
	// Key is the declared key signature, else the estimate (kept only when
	// it correlates at all).
	if m.Notes > 0 && (m.DeclaredKey != nil || m.Key.Confidence > 0) {
		facts = append(facts, "in "+m.Key.String())
	}
	if m.MeterNum > 0 && m.MeterDen > 0 {
		facts = append(facts, fmt.Sprintf("%d/%d time", m.MeterNum, m.MeterDen))
	}
	if m.Bars > 0 {
		facts = append(facts, fmt.Sprintf("%.0f bars", math.Round(m.Bars)))
	}
	if m.DurationSeconds > 0 {
		sec := int(math.Round(m.DurationSeconds))
		facts = append(facts, fmt.Sprintf("%d:%02d long", sec/60, sec%60))
	}
	if len(facts) > 0 {
		b.WriteString(" " + capitalize(strings.Join(facts, ", ")) + ".")
	}
	if inst := instrumentPhrase(m.Programs, m.HasDrums); inst != "" {
		b.WriteString(" " + inst)
	}
	return b.String()
}

// plainInstruments drops the parenthesized notes of an instruments
// description ("voice (program 68), piano (program 0)" → "voice, piano"):
// programs and file details are no words a listener uses.
func plainInstruments(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	out = strings.ReplaceAll(out, " ,", ",")
	return strings.Trim(out, " ,;.")
}

// instrumentPhrase lists the instruments by name, with their family where
// it adds a word ("Played on acoustic grand piano, violin and cello
// (strings), with drums.").
func instrumentPhrase(programs []int, drums bool) string {
	var names []string
	seen := map[string]bool{}
	fams := map[string]bool{}
	var famOrder []string
	for _, p := range programs {
		if p < 0 || p > 127 {
			continue
		}
		n := midi.ProgramName(p)
		if n == "" {
			n = gmNames[p]
		}
		n = strings.ToLower(n)
		if seen[n] {
			continue
		}
		seen[n] = true
		names = append(names, n)
		f := strings.ToLower(midi.GMFamily(p))
		if f == "" {
			f = gmFamilies[p/8]
		}
		if !fams[f] {
			fams[f] = true
			famOrder = append(famOrder, f)
		}
	}
	const maxNames = 6
	if len(names) > maxNames {
		names = append(names[:maxNames], fmt.Sprintf("%d more", len(names)-maxNames))
	}
	var b strings.Builder
	if len(names) > 0 {
		b.WriteString("Played on " + joinAnd(names))
		if len(famOrder) > 0 {
			b.WriteString(" (" + joinAnd(famOrder) + ")")
		}
		if drums {
			b.WriteString(", with drums")
		}
		b.WriteString(".")
	} else if drums {
		b.WriteString("Drums only.")
	}
	return b.String()
}

func joinAnd(list []string) string {
	switch len(list) {
	case 0:
		return ""
	case 1:
		return list[0]
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}

func article(word string) string {
	if word == "" {
		return "a"
	}
	switch strings.ToLower(word[:1]) {
	case "a", "e", "i", "o", "u":
		return "an"
	}
	return "a"
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || r < 'a' || r > 'z' {
		return s
	}
	return string(r-'a'+'A') + s[n:]
}

// sentence makes s end with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	switch s[len(s)-1] {
	case '.', '!', '?':
		return s
	}
	return s + "."
}

// clip shortens s to at most n bytes at a sentence or word boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := s[:n]
	if i := strings.LastIndex(cut, ". "); i > n/3 {
		return cut[:i+1]
	}
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		cut = cut[:i]
	}
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut + "…"
}
