package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Safe returns s fit to print on a terminal. Text from files (track names,
// titles, file names, SoundFont names, stored project names, error
// messages quoting them) may hold control characters: ESC ] 0 ; … BEL
// retitles a terminal window, ESC [ 2 J clears it, and worse sequences
// exist. Safe writes every C0 control (tab and newline included: they would
// break a table's columns), DEL, every C1 control and each invalid UTF-8
// byte as a visible escape (\x1b, \u009b), leaving printable text alone.
// JSON output needs none of this: encoding/json escapes them itself.
func Safe(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7F || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 || r == 0x7F:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9F:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
