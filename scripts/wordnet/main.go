// Command wordnet builds engine/text's synonym table from WordNet 3.0 (the
// Debian package wordnet-base: apt-get install -y wordnet-base): for each
// word the prompt parser does not know, the known word (text.KnownWords)
// it stands for, through WordNet's synonyms, similar adjectives,
// pertainyms ("sadly" → sad), derivations and attributes ("darkness" →
// dark), and hyponyms ("dirge" is a kind of song, "bongo" a kind of drum).
// The table is written once and committed (engine/text/wordnet_table.go);
// the program never reads WordNet at run time.
//
//	go run ./scripts/wordnet -dict /usr/share/wordnet -o engine/text/wordnet_table.go
//
// A word maps to the known word it is nearest to: fewest links, then its
// most frequent sense, then the known word's most frequent sense. Only the
// first senses of each word count (maxSense), so rare senses ("blue" as a
// political party) do not decide, and nouns of the body, animals, plants,
// food and substances are left out ("organ" the body part is not the
// instrument).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/amtstudio/amt/engine/text"
)

// noTarget are known words too broad in WordNet to stand for others
// ("finish" is no "finale", "garland" no "grace"): they keep their own
// meaning but receive no synonyms.
var noTarget = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`game finale romance holiday holidays light moving power serious secret real set
		beat run service mass station trailer action boom grace intimate soul strong emotive touching healing
		depression departure spring fall drive rest still energy intensity comfort finish drama moody cool
		blue black heavy bright grand pure empty fair sweet cute warm cold ice fire wild strange weird mad
		store shop market court bar club party wake work study focus exam revision office reading library`) {
		noTarget[w] = true
	}
}

// maxSense is how many senses of a word (in WordNet's frequency order) are
// read for it, for the unknown word and for the known one.
const maxSense = 3

// skipLex are noun lexicographer files whose senses never stand for a
// musical meaning: body, animal, food, plant, substance, possession,
// quantity, relation, shape, person, Tops, motive.
var skipLex = map[int]bool{8: true, 5: true, 13: true, 20: true, 27: true, 21: true, 23: true, 24: true, 25: true, 18: true, 3: true, 16: true}

// openLex are noun lexicographer files whose senses of a known word are
// read as they are (feelings, states, attributes, times, phenomena,
// events); the senses of a known noun in the other files count only when
// they are music (musicalRoots).
var openLex = map[int]bool{12: true, 26: true, 7: true, 28: true, 19: true, 11: true}

// musicalRoots are the noun senses a known word's sense must descend from
// (hypernyms) when its file is not open: musical instruments, music and
// musical compositions, songs, dances, musical styles and organizations.
var musicalRoots = [][2]string{{"musical instrument", "1"}, {"music", "1"}, {"music", "2"}, {"musical composition", "1"},
	{"song", "1"}, {"dance", "1"}, {"dance", "2"}, {"music genre", "1"}, {"musical organization", "1"}, {"percussion instrument", "1"}}

type ptr struct {
	sym      string
	key      string // pos:offset
	src, dst int    // word numbers (1-based) of a lexical pointer; 0: the synsets
}

type synset struct {
	key   string
	lex   int
	words []string
	ptrs  []ptr
}

type candidate struct {
	known      string
	dist       int
	senseU     int
	senseKnown int
}

func better(a, b candidate) bool {
	if a.dist != b.dist {
		return a.dist < b.dist
	}
	if a.senseU != b.senseU {
		return a.senseU < b.senseU
	}
	if a.senseKnown != b.senseKnown {
		return a.senseKnown < b.senseKnown
	}
	return a.known < b.known
}

func main() {
	dict := flag.String("dict", "/usr/share/wordnet", "WordNet dictionary folder (wordnet-base)")
	out := flag.String("o", "", "Go file to write (default: stdout)")
	flag.Parse()

	synsets := map[string]*synset{}
	index := map[string][]string{} // lemma → synset keys in sense order, per pos concatenated n, v, a, r
	senseOf := map[string]int{}    // lemma + "|" + key → sense number (1-based)
	for _, pos := range []struct{ file, tag string }{{"noun", "n"}, {"verb", "v"}, {"adj", "a"}, {"adv", "r"}} {
		if err := readData(filepath.Join(*dict, "data."+pos.file), synsets); err != nil {
			log.Fatal(err)
		}
		if err := readIndex(filepath.Join(*dict, "index."+pos.file), pos.tag, index, senseOf); err != nil {
			log.Fatal(err)
		}
	}
	known := map[string]bool{}
	for _, w := range text.KnownWords() {
		known[w] = true
	}
	roots := map[string]bool{}
	for _, r := range musicalRoots {
		n, _ := strconv.Atoi(r[1])
		for _, key := range index[r[0]] {
			if strings.HasPrefix(key, "n:") && senseOf[r[0]+"|"+key] == n {
				roots[key] = true
			}
		}
	}
	musical := func(key string) bool {
		seen := map[string]bool{}
		stack := []string{key}
		for len(stack) > 0 {
			k := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if roots[k] {
				return true
			}
			if seen[k] || synsets[k] == nil {
				continue
			}
			seen[k] = true
			for _, p := range synsets[k].ptrs {
				if p.sym == "@" || p.sym == "@i" {
					stack = append(stack, p.key)
				}
			}
		}
		return false
	}

	best := map[string]candidate{}
	offer := func(u string, c candidate) {
		if known[u] || !usable(u) {
			return
		}
		if old, ok := best[u]; !ok || better(c, old) {
			best[u] = c
		}
	}
	// reach lists, for a known word's synset, the synsets whose words stand
	// for it, with their distance.
	for k := range known {
		if noTarget[k] {
			continue
		}
		keys := index[k]
		for _, key := range keys {
			sk := senseOf[k+"|"+key]
			if sk > maxSense {
				continue
			}
			s := synsets[key]
			switch {
			case s == nil, strings.HasPrefix(key, "v:"):
				continue // verbs are reached through their nouns and adjectives
			case strings.HasPrefix(key, "n:") && (skipLex[s.lex] || !openLex[s.lex] && !musical(key)):
				continue
			case strings.HasPrefix(key, "a:") && sk > 2:
				continue
			}
			kw := wordIndex(s, k)
			reached := map[string]int{key: 1}
			only := map[string]int{} // synset → the one word a lexical pointer reaches (absent: all)
			frontier := []string{key}
			for depth := 1; depth <= 2 && len(frontier) > 0; depth++ {
				var next []string
				for _, fk := range frontier {
					for _, p := range synsets[fk].ptrs {
						switch p.sym {
						case "~", "&":
						case "+", "\\":
							// Lexical: from the known word only, to one word.
							if depth > 1 || p.src != kw {
								continue
							}
						default:
							continue
						}
						// Similar adjectives and derivations link once;
						// hyponyms may go two levels.
						if depth == 2 && p.sym != "~" {
							continue
						}
						if _, ok := reached[p.key]; !ok && synsets[p.key] != nil {
							reached[p.key] = depth + 1
							if p.dst > 0 {
								only[p.key] = p.dst
							}
							next = append(next, p.key)
						}
					}
				}
				frontier = next
			}
			// Adverbs point to their adjectives ("sadly" \ sad): reverse.
			for _, rp := range pertainymsTo(synsets, key) {
				if _, ok := reached[rp.key]; !ok && rp.dst == kw {
					reached[rp.key] = 2
					only[rp.key] = rp.src
				}
			}
			for rk, dist := range reached {
				rs := synsets[rk]
				if strings.HasPrefix(rk, "n:") && skipLex[rs.lex] {
					continue
				}
				for wi, u := range rs.words {
					if o, ok := only[rk]; ok && o != wi+1 {
						continue
					}
					su := senseOf[u+"|"+rk]
					if su == 0 || su > maxSense {
						continue
					}
					offer(u, candidate{known: k, dist: dist, senseU: su, senseKnown: sk})
				}
			}
		}
	}

	var words []string
	for u := range best {
		words = append(words, u)
	}
	sort.Strings(words)
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString("const wordnetData = \"\" +\n")
	for i, u := range words {
		sep := " +"
		if i == len(words)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "\t%q%s\n", u+"\t"+best[u].known+"\n", sep)
	}
	if len(words) == 0 {
		b.WriteString("\t\"\"\n")
	}
	if *out == "" {
		os.Stdout.Write(b.Bytes())
		return
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "%d words → %d known words\n", len(words), len(known))
}

const header = `// Code generated by scripts/wordnet from WordNet 3.0 (Debian package
// wordnet-base 1:3.0); DO NOT EDIT.
//
//	go run ./scripts/wordnet -dict /usr/share/wordnet -o engine/text/wordnet_table.go
//
// Each line maps a word the prompt parser does not know to the known word
// it stands for (a synonym, a similar adjective, a pertainym or derivation,
// or a kind of it). WordNet's licence asks that this notice go with every
// copy:
//
// WordNet Release 3.0. This software and database is being provided to you,
// the LICENSEE, by Princeton University under the following license. By
// obtaining, using and/or copying this software and database, you agree that
// you have read, understood, and will comply with these terms and
// conditions.: Permission to use, copy, modify and distribute this software
// and database and its documentation for any purpose and without fee or
// royalty is hereby granted, provided that you agree to comply with the
// following copyright notice and statements, including the disclaimer, and
// that the same appear on ALL copies of the software, database and
// documentation, including modifications that you make for internal use or
// for distribution. WordNet 3.0 Copyright 2006 by Princeton University. All
// rights reserved. THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND
// PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR
// IMPLIED. BY WAY OF EXAMPLE, BUT NOT LIMITATION, PRINCETON UNIVERSITY MAKES
// NO REPRESENTATIONS OR WARRANTIES OF MERCHANT- ABILITY OR FITNESS FOR ANY
// PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED SOFTWARE, DATABASE OR
// DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS,
// TRADEMARKS OR OTHER RIGHTS. The name of Princeton University or Princeton
// may not be used in advertising or publicity pertaining to distribution of
// the software and/or database. Title to copyright in this software,
// database and any associated documentation shall at all times remain with
// Princeton University and LICENSEE agrees to preserve same.

package text

`

// usable keeps words a prompt can hold: letters (and one space or hyphen
// inside), at most two words, three letters or more.
func usable(u string) bool {
	if len(u) < 3 || strings.Count(u, " ") > 1 {
		return false
	}
	for _, r := range u {
		if (r < 'a' || r > 'z') && r != ' ' {
			return false
		}
	}
	return true
}

// wordIndex is the 1-based number of word w in synset s (0 if absent).
func wordIndex(s *synset, w string) int {
	for i, x := range s.words {
		if x == w {
			return i + 1
		}
	}
	return 0
}

// revPtr is an adverb's pertainym seen from its adjective: the adverb's
// synset (key) and word (src), the adjective's word (dst).
type revPtr struct {
	key      string
	src, dst int
}

func pertainymsTo(synsets map[string]*synset, key string) []revPtr {
	return pertainymIndex(synsets)[key]
}

var pertIdx map[string][]revPtr

func pertainymIndex(synsets map[string]*synset) map[string][]revPtr {
	if pertIdx != nil {
		return pertIdx
	}
	pertIdx = map[string][]revPtr{}
	for k, s := range synsets {
		if !strings.HasPrefix(k, "r:") {
			continue
		}
		for _, p := range s.ptrs {
			if p.sym == "\\" {
				pertIdx[p.key] = append(pertIdx[p.key], revPtr{key: k, src: p.src, dst: p.dst})
			}
		}
	}
	return pertIdx
}

func posTag(c string) string {
	if c == "s" {
		return "a"
	}
	return c
}

// normWord writes a WordNet lemma as the parser's words: lower case,
// underscores and hyphens as spaces, adjective markers dropped.
func normWord(w string) string {
	if i := strings.IndexByte(w, '('); i > 0 {
		w = w[:i]
	}
	w = strings.ToLower(strings.NewReplacer("_", " ", "-", " ").Replace(w))
	return strings.Join(strings.Fields(w), " ")
}

func readData(path string, synsets map[string]*synset) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w (install the Debian package wordnet-base)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue // licence header
		}
		body, _, _ := strings.Cut(line, " | ")
		fs := strings.Fields(body)
		if len(fs) < 6 {
			continue
		}
		lex, _ := strconv.Atoi(fs[1])
		s := &synset{key: posTag(fs[2]) + ":" + fs[0], lex: lex}
		n, err := strconv.ParseInt(fs[3], 16, 32)
		if err != nil {
			return fmt.Errorf("%s: %q: word count", path, fs[0])
		}
		i := 4
		for k := 0; k < int(n); k++ {
			s.words = append(s.words, normWord(fs[i]))
			i += 2
		}
		pc, err := strconv.Atoi(fs[i])
		if err != nil {
			return fmt.Errorf("%s: %q: pointer count", path, fs[0])
		}
		i++
		for k := 0; k < pc && i+3 < len(fs)+1; k++ {
			st, _ := strconv.ParseUint(fs[i+3], 16, 16)
			s.ptrs = append(s.ptrs, ptr{sym: fs[i], key: posTag(fs[i+2]) + ":" + fs[i+1], src: int(st >> 8), dst: int(st & 0xff)})
			i += 4
		}
		synsets[s.key] = s
	}
	return sc.Err()
}

func readIndex(path, tag string, index map[string][]string, senseOf map[string]int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 6 {
			continue
		}
		lemma := normWord(fs[0])
		nsyn, _ := strconv.Atoi(fs[2])
		np, _ := strconv.Atoi(fs[3])
		offs := fs[4+np+2:]
		if len(offs) > nsyn {
			offs = offs[:nsyn]
		}
		for i, o := range offs {
			key := tag + ":" + o
			index[lemma] = append(index[lemma], key)
			senseOf[lemma+"|"+key] = i + 1
		}
	}
	return sc.Err()
}
