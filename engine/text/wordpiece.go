package text

import (
	"bufio"
	"fmt"
	"strings"
	"unicode"

	"github.com/amtstudio/amt/engine/userfile"
)

// WordPiece is BERT's tokenizer: a basic tokenizer (clean-up, CJK
// characters split, optional lower-casing with accent stripping,
// punctuation split) followed by greedy longest-match-first word pieces
// with "##" continuations, as Hugging Face's BertTokenizer does.
type WordPiece struct {
	vocab             map[string]int
	lower             bool
	unk, cls, sep     int
	maxCharsPerWord   int
	unkTok, contToken string
}

// LoadWordPiece reads a vocab.txt (one token a line, the line number is its
// id). lower turns on lower-casing and accent stripping (uncased models).
func LoadWordPiece(path string, lower bool) (*WordPiece, error) {
	f, _, err := userfile.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("text: vocabulary: %w", err)
	}
	defer f.Close()
	w := &WordPiece{vocab: map[string]int{}, lower: lower, maxCharsPerWord: 100, unkTok: "[UNK]", contToken: "##"}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	id := 0
	for sc.Scan() {
		tok := strings.TrimRight(sc.Text(), "\r\n")
		if _, dup := w.vocab[tok]; !dup {
			w.vocab[tok] = id
		}
		id++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("text: vocabulary %s: %w", path, err)
	}
	var ok bool
	for _, sp := range []struct {
		name string
		dst  *int
	}{{"[UNK]", &w.unk}, {"[CLS]", &w.cls}, {"[SEP]", &w.sep}} {
		if *sp.dst, ok = w.vocab[sp.name]; !ok {
			return nil, fmt.Errorf("text: vocabulary %s: no %s token", path, sp.name)
		}
	}
	return w, nil
}

// Size is the number of lines of the vocabulary.
func (w *WordPiece) Size() int { return len(w.vocab) }

// isBertPunct is BERT's punctuation: ASCII symbols and Unicode P*.
func isBertPunct(r rune) bool {
	if (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126) {
		return true
	}
	return unicode.IsPunct(r)
}

// isBertCJK is BERT's "Chinese character" (CJK Unified Ideographs and
// compatibility blocks; kana and Hangul are not in it).
func isBertCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) || (r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) || (r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}

func isBertSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || unicode.Is(unicode.Zs, r)
}

func isBertControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// basic splits text into BERT's basic tokens.
func (w *WordPiece) basic(text string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range text {
		if r == 0 || r == 0xFFFD || isBertControl(r) {
			continue
		}
		if isBertSpace(r) {
			flush()
			continue
		}
		if w.lower {
			r = unicode.ToLower(r)
			if isMark(r) {
				continue
			}
			r = foldAccent(r)
		}
		if isBertCJK(r) || isBertPunct(r) {
			flush()
			words = append(words, string(r))
			continue
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// Tokenize returns the word pieces of text (without [CLS]/[SEP]).
func (w *WordPiece) Tokenize(text string) []string {
	var out []string
	for _, word := range w.basic(text) {
		out = append(out, w.pieces(word)...)
	}
	return out
}

func (w *WordPiece) pieces(word string) []string {
	rs := []rune(word)
	if len(rs) > w.maxCharsPerWord {
		return []string{w.unkTok}
	}
	var out []string
	for start := 0; start < len(rs); {
		end := len(rs)
		found := ""
		for start < end {
			s := string(rs[start:end])
			if start > 0 {
				s = w.contToken + s
			}
			if _, ok := w.vocab[s]; ok {
				found = s
				break
			}
			end--
		}
		if found == "" {
			return []string{w.unkTok}
		}
		out = append(out, found)
		start = end
	}
	return out
}

// Encode returns the ids [CLS] pieces… [SEP], truncated to maxLen ids in
// all (maxLen ≤ 0: no limit).
func (w *WordPiece) Encode(text string, maxLen int) []int {
	ids := []int{w.cls}
	for _, p := range w.Tokenize(text) {
		ids = append(ids, w.vocab[p])
	}
	if maxLen > 0 && len(ids) > maxLen-1 {
		ids = ids[:maxLen-1]
	}
	return append(ids, w.sep)
}
