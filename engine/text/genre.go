package text

import (
	"strings"

	"github.com/amtstudio/amt/engine/token"
)

// genreFamily maps genre words, tune types and dance names (lower case, as
// ParsePrompt's Genres and the collectors' PieceInfo.Genre hold them) to a
// genre family of token.GenreFamilies. Words that name no family a
// listener would agree on ("soundtrack", "dance", "musical") are left out:
// no family is better than a wrong one.
var genreFamily = map[string]string{
	// pop
	"pop": "pop", "c pop": "pop", "k pop": "pop", "j pop": "pop", "mandopop": "pop", "cantopop": "pop",
	"anime": "pop", "pop song": "pop",
	// rock
	"rock": "rock", "metal": "rock", "punk": "rock", "grunge": "rock", "indie": "rock", "rock and roll": "rock",
	// ballad
	"ballad": "ballad", "lullaby": "ballad", "love song": "ballad", "power ballad": "ballad",
	// jazz
	"jazz": "jazz", "swing": "jazz", "bebop": "jazz", "big band": "jazz", "ragtime": "jazz", "jazz waltz": "jazz",
	// blues
	"blues": "blues", "boogie": "blues", "boogie woogie": "blues", "shuffle": "blues",
	// latin
	"latin": "latin", "bossa nova": "latin", "bossa": "latin", "tango": "latin", "samba": "latin",
	"salsa": "latin", "cumbia": "latin", "cha cha": "latin", "rumba": "latin", "mambo": "latin",
	"zouk": "latin", "flamenco": "latin", "bolero": "latin", "beguine": "latin", "merengue": "latin",
	"calypso": "latin",
	// funk
	"funk": "funk", "disco": "funk", "soul": "funk", "r&b": "funk", "hip hop": "funk", "rap": "funk",
	"afrobeat": "funk", "motown": "funk",
	// reggae
	"reggae": "reggae", "ska": "reggae", "dub": "reggae", "rocksteady": "reggae",
	// country
	"country": "country", "bluegrass": "country", "western": "country", "honky tonk": "country",
	"americana": "country",
	// folk: the Nottingham tune types and the dances of the British Isles
	"folk": "folk", "jig": "folk", "slip jig": "folk", "reel": "folk", "hornpipe": "folk", "celtic": "folk",
	"irish": "folk", "scottish": "folk", "english folk": "folk", "morris": "folk", "playford": "folk",
	"country dance": "folk", "shanty": "folk", "sea shanty": "folk", "strathspey": "folk",
	"klezmer": "folk", "tarantella": "folk", "folk song": "folk", "highlife": "folk",
	// waltz
	"waltz": "waltz", "mazurka": "waltz", "valse": "waltz",
	// march
	"march": "march", "marching band": "march", "military": "march", "anthem": "march",
	// polka
	"polka": "polka",
	// classical
	"classical": "classical", "baroque": "classical", "sonata": "classical", "etude": "classical",
	"fugue": "classical", "prelude": "classical", "chorale": "classical", "minuet": "classical",
	"nocturne": "classical", "chamber music": "classical", "orchestral": "classical", "romantic era": "classical",
	// game
	"game music": "game", "video game": "game", "chiptune": "game", "8 bit": "game", "game": "game",
	// electronic
	"electronic": "electronic", "edm": "electronic", "techno": "electronic", "house": "electronic",
	"trance": "electronic", "synthwave": "electronic", "dubstep": "electronic", "drum and bass": "electronic",
	"jungle": "electronic", "trap": "electronic", "ambient": "electronic", "new age": "electronic",
	"lo fi": "electronic", "lofi": "electronic", "synthpop": "electronic",
	// gospel
	"gospel": "gospel", "hymn": "gospel", "carol": "gospel", "christmas": "gospel", "spiritual": "gospel",
}

// GenreFamily maps a genre word, tune type or family name ("bossa nova",
// "Slip Jig", "rock") to its genre family (token.GenreFamilies), or "" when
// the word names none.
func GenreFamily(word string) string {
	w := strings.Join(strings.Fields(strings.ToLower(strings.NewReplacer("-", " ", "_", " ").Replace(word))), " ")
	if f, ok := genreFamily[w]; ok {
		return f
	}
	for _, f := range token.GenreFamilies {
		if w == f {
			return f
		}
	}
	// A phrase the table lacks ("morris dance", "folk tune", "Christmas
	// carol"): its longest part that names a family.
	ws := strings.Fields(w)
	for n := len(ws) - 1; n >= 1; n-- {
		for i := 0; i+n <= len(ws); i++ {
			if f, ok := genreFamily[strings.Join(ws[i:i+n], " ")]; ok {
				return f
			}
		}
	}
	return ""
}

// PromptGenre is the genre family a prompt asks for, from its genre words
// (ParsePrompt's Genres, in the prompt's order): the longest phrase that
// names a family wins, as the more specific ("english country dance" is
// folk, not country), then the first said ("punk anthem" is rock); "" when
// none names one.
func PromptGenre(genres []string) string {
	best, words := "", 0
	for _, g := range genres {
		if f := GenreFamily(g); f != "" && len(strings.Fields(g)) > words {
			best, words = f, len(strings.Fields(g))
		}
	}
	return best
}
