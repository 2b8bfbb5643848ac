package text

import (
	"slices"
	"testing"

	"github.com/amtstudio/amt/engine/token"
)

// TestPromptGenre: prompts as users type them, with the genre family a
// musician would file them under ("" where the prompt names none or only a
// word that names no family).
func TestPromptGenre(t *testing.T) {
	cases := []struct{ prompt, want string }{
		{"upbeat pop song with drums, 120 bpm", "pop"},
		{"a K-pop dance track in E minor", "pop"},
		{"mandopop ballad on piano", "pop"}, // the first said
		{"hard rock riff with distorted guitar", "rock"},
		{"punk anthem, fast", "rock"},
		{"heavy metal in D minor", "rock"},
		{"slow piano ballad", "ballad"},
		{"a gentle lullaby for music box", "ballad"},
		{"cool jazz trio with upright bass", "jazz"},
		{"big band swing at 160 bpm", "jazz"},
		{"bebop head for saxophone", "jazz"},
		{"ragtime piano piece", "jazz"},
		{"twelve bar blues in A", "blues"},
		{"boogie woogie piano", "blues"},
		{"bossa nova with nylon guitar", "latin"},
		{"a tango for accordion and strings", "latin"},
		{"salsa with brass and congas", "latin"},
		{"samba groove, 100 bpm", "latin"},
		{"cha cha in G major", "latin"},
		{"funky disco groove with slap bass", "funk"},
		{"70s funk with clavinet", "funk"},
		{"smooth soul with electric piano", "funk"},
		{"hip hop beat with piano loop", "funk"},
		{"roots reggae with organ skank", "reggae"},
		{"ska tune with horns", "reggae"},
		{"country song with steel guitar", "country"},
		{"bluegrass breakdown with banjo and fiddle", "country"},
		{"an Irish jig on the fiddle", "folk"},
		{"scottish reel in D", "folk"},
		{"a hornpipe in 4/4", "folk"},
		{"slip jig for tin whistle", "folk"},
		{"english country dance tune", "folk"}, // the longer phrase wins over "country"
		{"sea shanty for voices", "folk"},
		{"celtic folk melody", "folk"},
		{"a Viennese waltz for strings", "waltz"},
		{"waltzes in 3/4", "waltz"},
		{"mazurka in A minor", "waltz"},
		{"military march for brass band", "march"},
		{"a triumphant march", "march"},
		{"polka for accordion", "polka"},
		{"baroque fugue for harpsichord", "classical"},
		{"classical piano sonata", "classical"},
		{"a minuet for string quartet", "classical"},
		{"nocturne in C# minor", "classical"},
		{"8-bit chiptune boss battle", "game"},
		{"video game music, overworld theme", "game"},
		{"retro game music loop", "game"},
		{"techno at 130 bpm", "electronic"},
		{"deep house with pads", "electronic"},
		{"ambient pads, slow", "electronic"},
		{"lo-fi beat to study to", "electronic"},
		{"synthwave with arpeggios", "electronic"},
		{"drum and bass at 170 bpm", "electronic"},
		{"gospel choir with organ", "gospel"},
		{"a Christmas carol", "gospel"},
		{"a church hymn for organ", "gospel"},
		{"calm piano in D minor, 90 bpm", ""},
		{"something happy with strings", ""},
		{"a dreamy soundtrack cue", ""},
		{"dance music", ""},
		{"moody cinematic strings", ""},
		{"a shuffle blues", "blues"},
		{"latin jazz with piano", "latin"}, // the first said
		{"a slow rock ballad", "rock"},
		{"an 80s power ballad", "ballad"}, // the longer phrase
	}
	if len(cases) < 60 {
		t.Fatalf("only %d prompts", len(cases))
	}
	for _, c := range cases {
		p := ParsePrompt(c.prompt)
		if p.Attrs.Genre != c.want {
			t.Errorf("%q: genre %q (words %v), want %q", c.prompt, p.Attrs.Genre, p.Genres, c.want)
		}
		if c.want != "" && !slices.Contains(token.GenreFamilies, c.want) {
			t.Errorf("%q: %q is not a family", c.prompt, c.want)
		}
	}
}

// TestGenreFamilyCoversTheCorpora: the genre words the collectors find in
// the corpora (Nottingham tune types, MMA groove families in sidecars) all
// map to families, and every family maps to itself.
func TestGenreFamilyCoversTheCorpora(t *testing.T) {
	// The Nottingham book types as the ABC collector names them.
	for _, w := range []string{"Jig", "slip jig", "Reel", "hornpipe", "waltz", "polka", "march", "morris dance", "playford dance",
		"folk tune", "Christmas carol"} {
		if GenreFamily(w) == "" {
			t.Errorf("%q: no family", w)
		}
	}
	for _, f := range token.GenreFamilies {
		if GenreFamily(f) != f {
			t.Errorf("family %q maps to %q", f, GenreFamily(f))
		}
	}
	for w, f := range genreFamily {
		if !slices.Contains(token.GenreFamilies, f) {
			t.Errorf("%q maps to %q, not a family", w, f)
		}
	}
	if GenreFamily("soundtrack") != "" || GenreFamily("") != "" {
		t.Error("words that name no family must map to \"\"")
	}
}
