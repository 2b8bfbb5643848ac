package text

import (
	"strings"
	"sync"
)

// The WordNet table (wordnet_table.go, made by scripts/wordnet from the
// Debian package wordnet-base, WordNet 3.0, with its licence): a word the
// parser does not know → the known word it stands for ("doleful" →
// "melancholy", "bongos" → "drum"). It is built into the binary; nothing
// reads WordNet at run time.

var wordnetOnce sync.Once
var wordnetMap map[string]string

// wordnetLookup is the known word the WordNet table gives for w.
func wordnetLookup(w string) (string, bool) {
	wordnetOnce.Do(func() {
		wordnetMap = make(map[string]string, strings.Count(wordnetData, "\n"))
		for _, l := range strings.Split(wordnetData, "\n") {
			if u, k, ok := strings.Cut(l, "\t"); ok {
				wordnetMap[u] = k
			}
		}
	})
	k, ok := wordnetMap[w]
	return k, ok
}
