package text

import (
	"errors"
	"fmt"
	"math"
	"unicode"
	"unicode/utf8"

	"github.com/amtstudio/amt/internal/splitmix"
)

// Embedder turns a text into a fixed-size vector. Embed writes Dim() values
// into dst (which must hold at least that many) and may be called from
// several goroutines at once.
type Embedder interface {
	Name() string
	Dim() int
	Embed(text string, dst []float32) error
}

// ErrShortDst is returned by Embed when dst is smaller than Dim().
var ErrShortDst = errors.New("text: destination shorter than the embedding dimension")

// HashedDim is the dimension of the built-in hashed embedder.
const HashedDim = 256

// Feature weights of the hashed embedder: whole words carry the meaning,
// word pairs some phrase structure, character trigrams make near spellings
// ("waltz"/"waltzes", "Bb"/"B flat") land near each other.
const (
	wWord    = 1.0
	wBigram  = 0.6
	wTrigram = 0.35
	wStop    = 0.15 // words in every caption ("a", "in", "bpm") barely count
)

// Hashed is the built-in embedder: hashed word unigrams, word bigrams and
// character trigrams of the lower-cased words (with boundary marks), signed
// feature hashing into 256 buckets, L2-normalized. It needs no weights and
// allocates nothing per call.
type Hashed struct {
	stop map[uint64]struct{}
}

// NewHashed returns the built-in 256-dimension hashed n-gram embedder.
func NewHashed() Embedder {
	h := &Hashed{stop: map[uint64]struct{}{}}
	for _, w := range []string{"a", "an", "the", "and", "or", "of", "in", "on", "at", "for", "with", "by",
		"to", "is", "it", "its", "piece", "bpm", "bars", "bar", "time", "tempo", "about", "seconds", "from"} {
		hw := uint64(fnvOffset)
		for _, r := range w {
			hw = fnvRune(hw, r)
		}
		h.stop[hw] = struct{}{}
	}
	return h
}

// Name implements Embedder.
func (h *Hashed) Name() string { return "hashed-ngram-256" }

// Dim implements Embedder.
func (h *Hashed) Dim() int { return HashedDim }

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvRune(h uint64, r rune) uint64 {
	// Hash the rune as up to four bytes of its code point.
	v := uint32(r)
	for {
		h ^= uint64(v & 0xff)
		h *= fnvPrime
		v >>= 8
		if v == 0 {
			return h
		}
	}
}

// add puts weight w on the bucket of feature hash f, with a sign from
// another bit of the hash so that collisions cancel on average.
func add(dst []float32, f uint64, w float32) {
	f = splitmix.Mix64(f)
	i := f & (HashedDim - 1)
	if f>>63 != 0 {
		w = -w
	}
	dst[i] += w
}

// Embed implements Embedder. An empty (or letterless) text embeds to the
// zero vector.
func (h *Hashed) Embed(text string, dst []float32) error {
	if len(dst) < HashedDim {
		return fmt.Errorf("%w: %d < %d", ErrShortDst, len(dst), HashedDim)
	}
	dst = dst[:HashedDim]
	clear(dst)
	var (
		word     uint64 // hash of the current word so far
		prevWord uint64 // hash of the previous word (0: none)
		inWord   bool
		r1, r2   rune // the two runes before the current one, '^' at a word start
		isCJK    bool
	)
	endWord := func() {
		// Closing trigram with the end mark.
		add(dst, trigram(r1, r2, '$'), wTrigram)
		w := float32(wWord)
		if _, ok := h.stop[word]; ok {
			w = wStop
		}
		add(dst, word^0x5bd1e995, w)
		if prevWord != 0 {
			add(dst, (prevWord*31+word)^0x27d4eb2f165667c5, wBigram)
		}
		prevWord = word
		inWord = false
	}
	for i := 0; i < len(text); {
		var r rune
		if c := text[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			r = rune(c)
			i++
		} else {
			var n int
			r, n = utf8.DecodeRuneInString(text[i:])
			i += n
			if isMark(r) {
				continue // a combining accent stays inside its word
			}
			r = unicode.ToLower(foldAccent(r))
		}
		letter := ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || r == '#' ||
			(r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)))
		if !letter {
			if inWord {
				endWord()
			}
			continue
		}
		cjk := r >= 0x2E80 && isCJKRune(r)
		if inWord && cjk != isCJK {
			endWord() // a switch between CJK and other scripts separates words
		}
		if !inWord {
			inWord, word, r1, r2, isCJK = true, fnvOffset, '^', '^', cjk
		}
		word = fnvRune(word, r)
		add(dst, trigram(r1, r2, r), wTrigram)
		r1, r2 = r2, r
	}
	if inWord {
		endWord()
	}
	var s float64
	for _, v := range dst {
		s += float64(v) * float64(v)
	}
	if s == 0 {
		return nil
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range dst {
		dst[i] *= inv
	}
	return nil
}

func trigram(a, b, c rune) uint64 {
	h := uint64(0x84222325cbf29ce4)
	h = fnvRune(h, a)
	h = fnvRune(h, b)
	h = fnvRune(h, c)
	return h
}

// isCJKRune reports Han ideographs, kana and Hangul.
func isCJKRune(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}
