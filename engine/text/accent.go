package text

import "unicode"

// accentFrom and accentTo pair the precomposed Latin letters (Latin-1
// Supplement and Latin Extended-A) whose canonical decomposition (NFD) is a
// base letter plus combining marks with that base letter. Letters that do
// not decompose (Æ, Ø, Ð, Þ, ß, Đ, Ł, Œ, ı, …) are left alone, as BERT's
// strip_accents (NFD, then drop Mn) leaves them.
const (
	accentFrom = "ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíîïñòóôõöùúûüýÿ" +
		"ĀāĂăĄąĆćĈĉĊċČčĎďĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĨĩĪīĬĭĮįİĴĵĶķĹĺĻļĽľŃńŅņŇňŌōŎŏŐő" +
		"ŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽž"
	accentTo = "AAAAAACEEEEIIIINOOOOOUUUUYaaaaaaceeeeiiiinooooouuuuyy" +
		"AaAaAaCcCcCcCcDdEeEeEeEeEeGgGgGgGgHhIiIiIiIiIJjKkLlLlLlNnNnNnOoOoOo" +
		"RrRrRrSsSsSsSsTtTtUuUuUuUuUuUuWwYyYZzZzZz"
)

var accentMap = func() map[rune]rune {
	from, to := []rune(accentFrom), []rune(accentTo)
	if len(from) != len(to) {
		panic("text: accent table length mismatch")
	}
	m := make(map[rune]rune, len(from))
	for i, r := range from {
		m[r] = to[i]
	}
	return m
}()

// foldAccent maps a precomposed accented Latin letter to its base letter and
// returns any other rune unchanged.
func foldAccent(r rune) rune {
	if r < 0xC0 || r > 0x17F {
		return r
	}
	if b, ok := accentMap[r]; ok {
		return b
	}
	return r
}

// isMark reports a combining mark (Unicode category Mn), dropped when
// accents are stripped.
func isMark(r rune) bool { return r >= 0x300 && unicode.Is(unicode.Mn, r) }
