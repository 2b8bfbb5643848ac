package text

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// TestLexicon: every entry of the vocabulary of meaning reads, moods sit
// on the plane, scenes name moods and ensembles that exist, every mood
// word the parser kept before (moodWords) now means something, and the
// choices a front end offers are the lexicon's.
func TestLexicon(t *testing.T) {
	if _, err := parseLexicon(lexiconText); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		"mood x | 2 0",                      // valence off the plane
		"mood x | .5",                       // no arousal
		"dyn loud | very",                   // no such level
		"ens x | progs=200",                 // no such program
		"scene x | mood=nosuchmood",         // unknown mood
		"scene x | ens=nosuchensemble",      // unknown ensemble
		"scene x | tempo=90-60",             // empty range
		"mood a | .1 .1\nmood b, a | .2 .2", // a phrase twice
	} {
		if _, err := parseLexicon(bad); err == nil {
			t.Errorf("%q: read without error", bad)
		}
	}
	for _, w := range moodWords {
		if _, ok := lex.phrases[w]; !ok {
			t.Errorf("mood word %q is not in the lexicon: it would mean nothing", w)
		}
	}
	if len(Moods()) < 50 || len(Ensembles()) < 25 || len(lex.scenes) < 150 {
		t.Errorf("%d moods, %d ensembles, %d scenes and styles", len(Moods()), len(Ensembles()), len(lex.scenes))
	}
	for _, e := range lex.ensembles {
		for _, set := range e.options {
			if len(set) > 5 {
				t.Errorf("ensemble %q: %d programs in a set (at most 5 can be heard in 16 bars)", e.name, len(set))
			}
		}
	}
	if got := DynamicsLevels(); !slices.Equal(got, []string{"pp", "p", "mp", "mf", "f", "ff"}) {
		t.Errorf("dynamics %v", got)
	}
}

// expect is what a listener expects a prompt's request to hold, worked out
// by hand: tempo range, mode, drums, programs present, dynamics level.
type expect struct {
	tempoLo, tempoHi float64
	mode             string // "", "major", "minor"
	drums            string // "", "yes", "no"
	progs            []int  // each present
	progsAny         []int  // at least one present
	dyn              string // "-": none
	genre            string
	unused           []string
	as               string // a word read through WordNet or a word form: "word=known"
	ens, register    string // the ensemble and register understood ("-": none)
}

// TestMeaning: prompts as a new user types them, with what the request
// must hold for seeds 1–5 (implied values are drawn, so each is checked
// over several seeds).
func TestMeaning(t *testing.T) {
	cases := []struct {
		prompt string
		want   expect
	}{
		{"a soothing bedtime song", expect{tempoLo: 55, tempoHi: 80, drums: "no", dyn: "p"}},
		{"a lullaby", expect{tempoLo: 60, tempoHi: 76, drums: "no", dyn: "p", mode: "major"}},
		{"a wistful autumn afternoon", expect{tempoLo: 65, tempoHi: 100, mode: "minor"}},
		{"retro NES dungeon theme", expect{progs: []int{80}, mode: "minor", drums: "yes", genre: "game"}},
		{"zen garden ambience", expect{tempoLo: 50, tempoHi: 70, drums: "no", dyn: "p"}},
		{"chillhop for late-night coding", expect{tempoLo: 70, tempoHi: 90, drums: "yes", progsAny: []int{0, 4}}},
		{"a joyful wedding dance", expect{tempoLo: 100, tempoHi: 130, mode: "major", drums: "yes"}},
		{"symphonic film score", expect{drums: "no", progsAny: []int{48, 49}}},
		{"thunderous war drums and brass", expect{tempoLo: 120, tempoHi: 170, drums: "yes", progs: []int{61}, dyn: "ff", mode: "minor"}},
		{"grunge with fuzzy guitars", expect{progs: []int{30}, drums: "yes", genre: "rock"}},
		{"a mournful violin lament", expect{tempoLo: 55, tempoHi: 95, mode: "minor", progs: []int{40}, drums: "no"}},
		{"punk rock", expect{tempoLo: 160, tempoHi: 200, drums: "yes", progs: []int{30}, dyn: "ff"}},
		{"an 8-bit boss battle without drums", expect{tempoLo: 140, tempoHi: 180, drums: "no", progs: []int{80}}},
		{"EDM drop", expect{tempoLo: 120, tempoHi: 132, drums: "yes", progs: []int{38}}},
		{"big band swing", expect{drums: "yes", progs: []int{65}, progsAny: []int{56, 61}}},
		{"a haunted house", expect{mode: "minor", drums: "no", genre: ""}},
		{"a synth pop song", expect{drums: "yes", progsAny: []int{80, 81, 90}, genre: "electronic"}},
		{"a funeral procession", expect{mode: "minor", tempoHi: 70, tempoLo: 50, drums: "no"}},
		{"a string quartet", expect{drums: "no", progs: []int{40, 41, 42}}},
		{"a happy upbeat tune", expect{tempoLo: 110, tempoHi: 160, mode: "major"}},
		{"a calm and peaceful piece", expect{drums: "no", dyn: "p", tempoLo: 55, tempoHi: 80}},
		{"furious and chaotic", expect{drums: "yes", dyn: "ff", tempoLo: 140}},
		{"a dark cello piece", expect{mode: "minor", progs: []int{42}, drums: "no"}},
		{"an angry, aggressive track", expect{tempoLo: 130, tempoHi: 200, dyn: "ff", mode: "minor"}},
		{"a gentle piano piece", expect{progs: []int{0}, drums: "no", dyn: "p"}},
		{"soft guitar music", expect{progs: []int{25}, dyn: "p", drums: "no"}},
		{"a loud brass fanfare", expect{progs: []int{61}, dyn: "f"}},
		{"fortissimo, for full orchestra", expect{dyn: "ff", progs: []int{48}, drums: "no"}},
		{"pianissimo strings", expect{dyn: "pp", progs: []int{48}}},
		// Tempo words of other languages are explicit.
		{"très vif", expect{tempoLo: 176, tempoHi: 176}},
		{"langsam, for cello", expect{tempoLo: 56, tempoHi: 56, progs: []int{42}, drums: "no"}},
		{"Largo", expect{tempoLo: 50, tempoHi: 50}},
		{"ziemlich langsam", expect{tempoLo: 66, tempoHi: 66}},
		// Feels, limits and negation.
		{"a half-time groove", expect{tempoLo: 60, tempoHi: 90, drums: "yes"}},
		{"a dubstep track in half time", expect{tempoLo: 69, tempoHi: 71, drums: "yes"}},
		{"not too fast, for piano", expect{tempoLo: 60, tempoHi: 112, progs: []int{0}}},
		{"not too slow, a sad song", expect{tempoLo: 84, tempoHi: 110, mode: "minor"}},
		{"without drums, an upbeat song", expect{drums: "no", mode: "major"}},
		{"not sad at all, a piano piece", expect{mode: "", progs: []int{0}}},
		// Explicit words beat implied ones.
		{"a sad song in C major", expect{mode: "major"}},
		{"a lullaby at 140 bpm", expect{tempoLo: 140, tempoHi: 140, drums: "no"}},
		{"a lullaby with drums", expect{drums: "yes", tempoLo: 60, tempoHi: 76}},
		{"a punk song for piano", expect{progs: []int{0}, drums: "yes", tempoLo: 160}},
		// "Solo" before an instrument: it plays alone, whatever the style;
		// after it ("a saxophone solo"), a band may play along.
		{"a punk song for solo piano", expect{progs: []int{0}, drums: "no", tempoLo: 160}},
		{"a smooth jazz saxophone solo", expect{drums: "yes"}},
		// A dance's or a scene's mood sets no dynamics (nor density): a
		// jig is not loud by name; "a lively jig" is.
		{"a jig in D major", expect{dyn: "-", mode: "major"}},
		{"a lively jig", expect{dyn: "f"}},
		// Words read through their forms and WordNet.
		{"circuses", expect{tempoLo: 126, tempoHi: 160, as: "circuses=circus"}},
		{"bongos and marimba", expect{drums: "yes", progs: []int{12}, as: "bongos=drum"}},
		{"an ebullient tune", expect{mode: "major", as: "ebullient=exuberant"}},
		{"a tempestuous sea", expect{mode: "minor", as: "tempestuous=stormy"}},
		{"a wistful zorbly afternoon", expect{mode: "minor", unused: []string{"zorbly"}}},
		// MidiCaps-style captions.
		{"A short classical piece for piano, in the key of D major, with a 3/4 time signature and a moderate tempo. It evokes a romantic and nostalgic mood.",
			expect{tempoLo: 100, tempoHi: 100, mode: "major", progs: []int{0}, drums: "no", genre: "classical"}},
		{"This electronic song features synth lead, synth bass and drums, in A minor at 128 bpm; the mood is energetic and the genre is techno.",
			expect{tempoLo: 128, tempoHi: 128, mode: "minor", progs: []int{80, 38}, drums: "yes", genre: "electronic"}},
		{"A cinematic orchestral track with a dark, suspenseful atmosphere, played by strings, brass and timpani without percussion.",
			expect{mode: "minor", progs: []int{47, 48, 61}, drums: "no"}},
		{"A melodic electronic song with ambient elements, set in G minor at a lively Presto tempo. The piece features piano, synth pad and drums, and evokes relaxation and darkness.",
			expect{tempoLo: 184, tempoHi: 184, mode: "minor", drums: "yes", progs: []int{0, 89}, unused: []string{"melodic"}}},
		// Captions list instruments: "string ensemble" or "choir" among
		// others is an instrument of the list, not the ensemble; a voice
		// ("alto", "tenor") is the saxophone's, not a register; the
		// Italian marking is the tempo, its plain word ("moderate",
		// "slow") qualifies it.
		{"A short classical piece performed by a string ensemble, violin and cello. Set in D major at a moderate Andante tempo, it evokes a calm and romantic mood.",
			expect{tempoLo: 92, tempoHi: 92, mode: "major", progs: []int{40, 42, 48}, drums: "no", ens: "-"}},
		{"A jazz piece featuring tenor saxophone, acoustic bass, piano and drums, swinging at a medium tempo with a relaxed mood.",
			expect{tempoLo: 100, tempoHi: 100, progs: []int{66, 32, 0}, drums: "yes", register: "-"}},
		{"A slow Largo for alto saxophone, strings and a choir.",
			expect{tempoLo: 50, tempoHi: 50, progs: []int{65, 48, 52}, drums: "no", register: "-", ens: "-"}},
		{"a string ensemble", expect{drums: "no", progs: []int{48}, ens: "string orchestra"}},
	}
	for _, c := range cases {
		t.Run(c.prompt, func(t *testing.T) {
			p := ParsePrompt(c.prompt)
			w := c.want
			for seed := uint64(1); seed <= 5; seed++ {
				r := p.Resolve(seed, Choices{})
				a := r.Attrs
				if w.tempoHi > 0 && (a.TempoBPM < w.tempoLo || a.TempoBPM > w.tempoHi) {
					t.Errorf("seed %d: tempo %v, want %v–%v (%v)", seed, a.TempoBPM, w.tempoLo, w.tempoHi, r.Items)
				}
				if w.tempoHi == 0 && w.tempoLo > 0 && a.TempoBPM < w.tempoLo {
					t.Errorf("seed %d: tempo %v, want ≥ %v", seed, a.TempoBPM, w.tempoLo)
				}
				mode := ""
				if a.KeyTonic >= 0 {
					mode = map[bool]string{true: "minor", false: "major"}[a.KeyMinor]
				}
				if mode != w.mode && (w.mode != "" || c.prompt == "not sad at all, a piano piece") {
					t.Errorf("seed %d: mode %q, want %q", seed, mode, w.mode)
				}
				drums := ""
				if a.Drums != nil {
					drums = yesNo(*a.Drums)
				}
				if w.drums != "" && drums != w.drums {
					t.Errorf("seed %d: drums %q, want %q", seed, drums, w.drums)
				}
				for _, pr := range w.progs {
					if !slices.Contains(a.Programs, pr) {
						t.Errorf("seed %d: programs %v lack %d", seed, a.Programs, pr)
					}
				}
				if len(w.progsAny) > 0 && !slices.ContainsFunc(w.progsAny, func(p int) bool { return slices.Contains(a.Programs, p) }) {
					t.Errorf("seed %d: programs %v hold none of %v", seed, a.Programs, w.progsAny)
				}
				if w.dyn == "-" && r.Dynamics != "" || w.dyn != "" && w.dyn != "-" && r.Dynamics != w.dyn {
					t.Errorf("seed %d: dynamics %q, want %q", seed, r.Dynamics, w.dyn)
				}
				if got := orDash(r.Ensemble); w.ens != "" && got != w.ens {
					t.Errorf("seed %d: ensemble %q, want %q", seed, got, w.ens)
				}
				if got := orDash(r.Register); w.register != "" && got != w.register {
					t.Errorf("seed %d: register %q (%v), want %q", seed, got, r.RegisterRange, w.register)
				}
				if w.genre != "" && a.Genre != w.genre {
					t.Errorf("seed %d: genre %q, want %q", seed, a.Genre, w.genre)
				}
			}
			for _, u := range w.unused {
				if !slices.Contains(p.Unused, u) {
					t.Errorf("unused %v lacks %q", p.Unused, u)
				}
			}
			if len(w.unused) == 0 && len(p.Unused) > 0 {
				t.Errorf("unused %v, want none", p.Unused)
			}
			if w.as != "" {
				text, known, _ := strings.Cut(w.as, "=")
				found := false
				for _, x := range p.Words {
					found = found || x.Text == text && x.As == known
				}
				if !found {
					t.Errorf("%q not read as %q: %+v", text, known, p.Words)
				}
			}
		})
	}
}

// TestImpliedDefaultsAreDrawn: an unnamed tempo is drawn from the range the
// words imply, so it varies with the seed and is never the same for a
// lullaby and a punk song; each implied value names its source.
func TestImpliedDefaultsAreDrawn(t *testing.T) {
	lull, punk := ParsePrompt("a lullaby"), ParsePrompt("a punk song")
	tempos := map[float64]bool{}
	for seed := uint64(0); seed < 40; seed++ {
		l, p := lull.Resolve(seed, Choices{}), punk.Resolve(seed, Choices{})
		if l.Attrs.TempoBPM == p.Attrs.TempoBPM || l.Attrs.TempoBPM > 80 || p.Attrs.TempoBPM < 150 {
			t.Fatalf("seed %d: lullaby %v bpm, punk %v bpm", seed, l.Attrs.TempoBPM, p.Attrs.TempoBPM)
		}
		tempos[l.Attrs.TempoBPM] = true
	}
	if len(tempos) < 8 {
		t.Errorf("the lullaby's tempo took %d values over 40 seeds: %v", len(tempos), tempos)
	}
	it, ok := itemOf(lull.Resolve(1, Choices{}), "tempo")
	if !ok || !it.Implied || it.Range != "60–76 bpm" || !slices.Contains(it.From, "'lullaby'") {
		t.Errorf("tempo item %+v", it)
	}
	if got := it.String(); !strings.HasPrefix(got, "tempo ") || !strings.Contains(got, "(60–76 bpm from 'lullaby'") {
		t.Errorf("tempo item reads %q", got)
	}
	// Explicit: no range, not implied.
	it, _ = itemOf(ParsePrompt("a lullaby at 66 bpm").Resolve(1, Choices{}), "tempo")
	if it.Implied || it.Value != "66 bpm" {
		t.Errorf("explicit tempo item %+v", it)
	}
}

func itemOf(r Resolution, attr string) (Item, bool) {
	for _, it := range r.Items {
		if it.Attr == attr {
			return it, true
		}
	}
	return Item{}, false
}

// TestMoodsChangeTheRequest: prompts that differ only in mood ask for
// different music at the same seed: tempo, mode, density or dynamics
// differ, or, for moods near each other on the plane ("sad" and
// "melancholy"), the seed mix the prompt path samples with.
func TestMoodsChangeTheRequest(t *testing.T) {
	moods := []string{"sad", "happy", "calm", "angry", "dreamy", "tense", "triumphant", "playful", "dark", "romantic",
		"mysterious", "energetic", "melancholy", "peaceful", "epic", "nostalgic", "scary", "sleepy"}
	for seed := uint64(1); seed <= 5; seed++ {
		seen := map[string]string{}
		for _, m := range moods {
			r := ParsePrompt("a "+m+" piano piece").Resolve(seed, Choices{})
			key := fmt.Sprintf("%g|%v|%g|%s|%x", r.Attrs.TempoBPM, r.Attrs.KeyMinor, r.NotesPerBeat, r.Dynamics, r.SeedMix)
			if other, ok := seen[key]; ok {
				t.Errorf("seed %d: %q and %q ask the same (%s)", seed, m, other, key)
			}
			seen[key] = m
		}
	}
}

// TestChoices: the user's mood, ensemble and dynamics replace the words'.
func TestChoices(t *testing.T) {
	p := ParsePrompt("a lullaby")
	r := p.Resolve(3, Choices{Mood: "angry", Ensemble: "rock band", Dynamics: "ff"})
	if r.Mood != "angry" || r.Dynamics != "ff" || r.Ensemble != "rock band" || !slices.Contains(r.Attrs.Programs, 33) {
		t.Errorf("choices not taken: %+v", r)
	}
	// The scene's tempo stays (a scene beats a mood), the mode follows the mood.
	if r.Attrs.TempoBPM < 60 || r.Attrs.TempoBPM > 76 || !r.Attrs.KeyMinor {
		t.Errorf("tempo %v minor %v", r.Attrs.TempoBPM, r.Attrs.KeyMinor)
	}
	r = ParsePrompt("a sad tune").Resolve(3, Choices{Mood: "none", Dynamics: "none"})
	if r.Mood != "" || r.Dynamics != "" || r.Attrs.KeyTonic >= 0 || r.Attrs.TempoBPM != 0 {
		t.Errorf("none: %+v", r)
	}
}

// TestShapeVelocities: the mean moves to the target and every accent keeps
// its order and its distance, scaled only where the range would overflow
// (values worked out by hand).
func TestShapeVelocities(t *testing.T) {
	mk := func(vs ...uint8) *midi.Score {
		s := &midi.Score{TicksPerBeat: 480}
		tr := midi.Track{}
		for i, v := range vs {
			tr.Notes = append(tr.Notes, midi.Note{Tick: int64(i * 480), Dur: 240, Pitch: 60, Velocity: v})
		}
		s.Tracks = []midi.Track{tr}
		return s
	}
	vel := func(s *midi.Score) []uint8 {
		var out []uint8
		for _, n := range s.Tracks[0].Notes {
			out = append(out, n.Velocity)
		}
		return out
	}
	s := mk(60, 80, 100)
	ShapeVelocities(s, 50) // mean 80 → 50: every note −30
	if got := vel(s); !slices.Equal(got, []uint8{30, 50, 70}) {
		t.Errorf("soft: %v", got)
	}
	s = mk(60, 80, 100)
	ShapeVelocities(s, 120) // +40 would put 100 at 140: spread ×(127−120)/20 = 0.35
	if got := vel(s); !slices.Equal(got, []uint8{113, 120, 127}) {
		t.Errorf("loud: %v", got)
	}
	s = mk(10, 80, 90)
	ShapeVelocities(s, 20) // mean 60; 10 → −30: spread ×(20−1)/50 = 0.38
	if got := vel(s); !slices.Equal(got, []uint8{1, 28, 31}) {
		t.Errorf("soft with a ghost note: %v", got)
	}
	s = mk(60, 80, 100)
	ShapeVelocities(s, 0)
	if got := vel(s); !slices.Equal(got, []uint8{60, 80, 100}) {
		t.Errorf("no target: %v", got)
	}
	ShapeVelocities(&midi.Score{}, 60) // no notes: nothing to do
}

// TestWordNetTable: the generated table maps words to words the parser
// knows, carries WordNet's licence, and holds the links it was built for.
func TestWordNetTable(t *testing.T) {
	n := 0
	for _, l := range strings.Split(wordnetData, "\n") {
		u, k, ok := strings.Cut(l, "\t")
		if !ok {
			continue
		}
		n++
		if !isKnownWord(k) {
			t.Errorf("%q → %q: not a word the parser knows", u, k)
		}
		if isKnownWord(u) {
			t.Errorf("%q is known itself", u)
		}
	}
	if n < 2000 {
		t.Errorf("%d entries", n)
	}
	for u, k := range map[string]string{"bongo": "drum", "kettledrum": "timpani", "cither": "guitar", "ebullient": "exuberant",
		"tempestuous": "stormy", "woeful": "sorrowful"} {
		if got, _ := wordnetLookup(u); got != k {
			t.Errorf("%q → %q, want %q", u, got, k)
		}
	}
	src, err := os.ReadFile("wordnet_table.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"WordNet 3.0 Copyright 2006 by Princeton University", "scripts/wordnet", "wordnet-base"} {
		if !strings.Contains(string(src), s) {
			t.Errorf("wordnet_table.go lacks %q", s)
		}
	}
}

// BenchmarkUnderstandCaption: reading a MidiCaps-length caption and drawing
// its implications (the Compose screen does it on every keystroke).
func BenchmarkUnderstandCaption(b *testing.B) {
	const caption = "A melodic electronic song with ambient elements, set in G minor at a lively Presto tempo. The piece features piano, synth pad and drums, and evokes relaxation and darkness."
	wordnetLookup("warm")
	for i := 0; i < b.N; i++ {
		p := ParsePrompt(caption)
		p.Resolve(uint64(i), Choices{})
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// TestSeedMix: prompts that say different words of meaning sample apart
// even when they resolve alike (two phrases of one scene, a dynamics word
// the style already implies); function words do not count;
// a prompt without such words samples with the seed itself.
func TestSeedMix(t *testing.T) {
	mix := func(s string) uint64 { return ParsePrompt(s).Resolve(1, Choices{}).SeedMix }
	for _, pair := range [][2]string{
		{"a lullaby", "a bedtime story"}, {"a thunderstorm", "a stormy sea"}, {"a techno track", "a pounding techno beat"},
		{"a battle scene", "a sword fight"}, {"meditation", "a spa day"}, {"a sad piano piece", "a melancholy piano piece"},
		{"a sad piano piece", "a piano piece, not sad"},
	} {
		if mix(pair[0]) == mix(pair[1]) {
			t.Errorf("%q and %q sample with one seed", pair[0], pair[1])
		}
	}
	for _, pair := range [][2]string{{"a sad piano piece", "sad piano piece"}, {"calm and dreamy", "a calm, dreamy one"}} {
		if mix(pair[0]) != mix(pair[1]) {
			t.Errorf("%q and %q sample apart", pair[0], pair[1])
		}
	}
	if m := mix("a piano piece in C major"); m != 0 {
		t.Errorf("a prompt of attributes only mixes %x into its seed", m)
	}
}

// TestStyleMeter checks the style's own meter (meters.go): a style heard
// in one meter is asked in it when the prompt names none, with the words
// it came from; a named meter, a scene's own and a style heard in several
// meters are as before.
func TestStyleMeter(t *testing.T) {
	for _, c := range []struct {
		prompt, meter, from string
		explicit            bool
	}{
		{"bossa nova on a sunny afternoon", "4/4", "'bossa nova'", false},
		{"heavy metal with distorted guitars", "4/4", "'heavy metal'", false},
		{"8-bit chiptune boss fight", "4/4", "'8 bit'", false},
		{"a reggae groove by the beach", "4/4", "'reggae'", false},
		{"a hip hop beat", "4/4", "'hip hop'", false},
		{"an edm track for the club", "4/4", "'edm'", false},
		{"a samba for carnival", "4/4", "'samba'", false},
		{"a fast punk song", "4/4", "'punk'", false},
		{"a rock band", "4/4", "'rock'", false},              // its genre word
		{"a marching band", "2/4", "'marching band'", false}, // the ensemble's genre
		{"a pirate shanty", "6/8", "'pirate'", false},        // the scene's own
		{"a military march", "2/4", "", true},
		{"a slip jig", "9/8", "", true},
		{"a waltz", "3/4", "", true},
		{"bossa nova in 3/4", "3/4", "", true},
		{"a gavotte", "", "", false},         // beside "minuet" in its scene, but not in 3/4
		{"a rainy afternoon", "", "", false}, // no style: the model draws it
		{"a folk song", "", "", false},       // a style heard in several meters
	} {
		r := ParsePrompt(c.prompt).Resolve(1, Choices{})
		got := ""
		var it Item
		for _, x := range r.Items {
			if x.Attr == "meter" {
				got, it = x.Value, x
			}
		}
		if got != c.meter {
			t.Errorf("%q: meter %q, want %q (%v)", c.prompt, got, c.meter, r.Items)
			continue
		}
		if got != fmt.Sprintf("%d/%d", r.Attrs.MeterNum, r.Attrs.MeterDen) && got != "" {
			t.Errorf("%q: item %q but attributes %d/%d", c.prompt, got, r.Attrs.MeterNum, r.Attrs.MeterDen)
		}
		if got == "" {
			if r.Attrs.MeterNum != 0 {
				t.Errorf("%q: meter %d/%d forced, want it left to the model", c.prompt, r.Attrs.MeterNum, r.Attrs.MeterDen)
			}
			continue
		}
		if it.Explicit != c.explicit || it.Implied == c.explicit {
			t.Errorf("%q: explicit %v implied %v, want explicit %v", c.prompt, it.Explicit, it.Implied, c.explicit)
		}
		if !c.explicit && (len(it.From) != 1 || it.From[0] != c.from) {
			t.Errorf("%q: from %v, want [%s]", c.prompt, it.From, c.from)
		}
	}
}

// TestStyleMetersAreStyles keeps the style meters table honest: every key
// is a scene's name, a genre word of the parser or an ensemble's genre
// (a key nothing reads would be a style silently drawn), and every meter
// one the vocabulary has.
func TestStyleMetersAreStyles(t *testing.T) {
	known := map[string]bool{}
	for n := range lex.scenes {
		known[n] = true
	}
	for _, g := range genreTerms {
		known[g] = true
	}
	for _, e := range lex.ensembles {
		known[e.genre] = true
	}
	for k, m := range styleMeters {
		if !known[k] {
			t.Errorf("style meter %q: neither a scene, a genre word nor an ensemble's genre", k)
		}
		if _, ok := token.DefaultVocab().Lookup(fmt.Sprintf("METER_%d/%d", m[0], m[1])); !ok {
			t.Errorf("style meter %q: %d/%d is not in the vocabulary", k, m[0], m[1])
		}
	}
}

// TestTextureWords checks that moods, scenes and ensembles set the
// texture (issue 33) as they set the tempo: calm words a sparse one,
// excited words a dense one, each shown with its words; a style's mood
// sets none; the user's choice replaces the words' and "none" drops it.
func TestTextureWords(t *testing.T) {
	for _, c := range []struct {
		prompt, level, from string
	}{
		{"a melancholy rainy evening, solo cello and piano", "sparse", "'melancholy'"},
		{"a lullaby", "sparse", "'lullaby'"},
		{"meditation music", "sparse", "'meditation'"},
		{"rain on the window", "sparse", "'rain'"},
		{"a nocturne for piano", "sparse", "'nocturne'"},
		{"a drone", "sparse", "'drone'"}, // the ensemble's texture
		{"an epic battle", "dense", "'epic'"},
		{"a battle", "dense", "'battle'"},
		{"a dance party", "dense", "'dance party'"},
		{"an energetic workout track", "dense", "'energetic'"},
		{"a rock song", "", ""},       // a style's mood sets no texture
		{"a christmas carol", "", ""}, // nor a form's (festive)
		{"a jig", "", ""},
		{"a piano piece", "", ""},
		{"a sparse battle", "sparse", ""}, // the words themselves
	} {
		r := ParsePrompt(c.prompt).Resolve(1, Choices{})
		it, ok := Item{}, false
		for _, x := range r.Items {
			if x.Attr == "density" {
				it, ok = x, true
			}
		}
		if r.Density != c.level || ok != (c.level != "") {
			t.Errorf("%q: density %q (item %v), want %q", c.prompt, r.Density, ok, c.level)
			continue
		}
		if c.from == "" {
			continue
		}
		if !slices.Contains(it.From, c.from) || !it.Implied {
			t.Errorf("%q: from %v implied %v, want %s among the words", c.prompt, it.From, it.Implied, c.from)
		}
		lo, hi, _ := DensityRange(c.level, r.Attrs.Drums != nil && *r.Attrs.Drums)
		if r.NotesPerBeat < lo || r.NotesPerBeat > hi {
			t.Errorf("%q: %v notes a beat, outside %v–%v", c.prompt, r.NotesPerBeat, lo, hi)
		}
	}
	// An instrument of one line alone is dense at running sixteenths; a
	// piano alone is not held to a line.
	for _, c := range []struct {
		prompt string
		hi     float64
	}{{"a lively jig for fiddle", 4.5}, {"an energetic trumpet solo", 4.5}, {"an energetic piano piece", 9}} {
		r := ParsePrompt(c.prompt).Resolve(1, Choices{})
		if r.Density != "dense" || r.NotesPerBeat > c.hi || r.NotesPerBeat < c.hi-3 {
			t.Errorf("%q: %q %v notes a beat, want dense up to %v", c.prompt, r.Density, r.NotesPerBeat, c.hi)
		}
	}
	// The user's choice.
	p := ParsePrompt("an epic battle")
	if r := p.Resolve(1, Choices{Density: "moderate"}); r.Density != "moderate" || r.NotesPerBeat < 7 || r.NotesPerBeat > 10 {
		t.Errorf("chosen moderate: %q %v notes a beat, want moderate 7–10 (drums)", r.Density, r.NotesPerBeat)
	}
	if r := p.Resolve(1, Choices{Density: "none"}); r.Density != "" || r.NotesPerBeat != 0 {
		t.Errorf("chosen none: %q %v notes a beat, want none", r.Density, r.NotesPerBeat)
	}
	// Calm words ask for fewer notes than excited ones, with or without
	// drums, and the levels do not overlap.
	for _, drums := range []bool{false, true} {
		prev := 0.0
		for _, l := range DensityLevels() {
			lo, hi, ok := DensityRange(l, drums)
			if !ok || lo < prev || hi <= lo {
				t.Errorf("level %s (drums %v): %v–%v after %v", l, drums, lo, hi, prev)
			}
			prev = hi
		}
	}
}
