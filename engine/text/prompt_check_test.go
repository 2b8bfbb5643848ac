package text

import (
	"strings"
	"testing"
)

// TestPromptProblems: numbers a prompt gives that cannot be used are
// reported and the attribute left unset (each was once ignored or
// half-used without a word); prompts within range report nothing.
func TestPromptProblems(t *testing.T) {
	cases := []struct {
		prompt string
		want   string // "" no problem
		check  func(p Prompt) bool
	}{
		{"piano at 0 bpm", "tempo 0 bpm is outside 20–300 bpm", func(p Prompt) bool { return p.Attrs.TempoBPM == 0 }},
		{"piano at 1000 bpm", "tempo 1000 bpm is outside", func(p Prompt) bool { return p.Attrs.TempoBPM == 0 }},
		{"piano at 10 bpm", "tempo 10 bpm", func(p Prompt) bool { return p.Attrs.TempoBPM == 0 }},
		{"piano in 13/7", "13/7 is not a time signature the model knows (4/4, 3/4", func(p Prompt) bool { return p.Attrs.MeterNum == 0 }},
		{"piano in 32/1 time", "32/1 is not a time signature", func(p Prompt) bool { return p.Attrs.MeterNum == 0 && p.Attrs.MeterDen == 0 }},
		{"a waltz in 3/4 in 4/4", "two time signatures (3/4 and 4/4)", func(p Prompt) bool { return p.Attrs.MeterNum == 0 }},
		{"100000 bars of piano", "100000 bars is outside 1–4096 bars", func(p Prompt) bool { return p.Attrs.Bars == 0 }},
		{"0 bars of piano", "0 bars is outside", func(p Prompt) bool { return p.Attrs.Bars == 0 }},
		{"8 bars or 16 bars", "two lengths (8 and 16 bars)", func(p Prompt) bool { return p.Attrs.Bars == 0 }},
		{"90 bpm or 120 bpm", "two tempos (90 bpm and 120 bpm)", func(p Prompt) bool { return p.Attrs.TempoBPM == 0 }},
		{"three hours of ambient", "3 h 0 min is 5400 bars, more than 4096", nil},
		{"5 hours of ambient at 60 bpm", "is 4500 bars, more than 4096", func(p Prompt) bool { return p.Attrs.Bars == 0 }},
		{"a 2 hour piece", "", func(p Prompt) bool { return p.Attrs.Bars == 3600 && p.Seconds == 7200 }},
		{"half an hour of piano", "", func(p Prompt) bool { return p.Attrs.Bars == 900 }},
		{"an hour of piano", "", func(p Prompt) bool { return p.Attrs.Bars == 1800 }},
		// In range: nothing to report.
		{"piano at 90 bpm in 6/8, 32 bars", "", func(p Prompt) bool {
			return p.Attrs.TempoBPM == 90 && p.Attrs.MeterNum == 6 && p.Attrs.Bars == 32
		}},
		{"swung 1/8 notes at 120 bpm", "", func(p Prompt) bool { return p.Attrs.MeterNum == 0 && p.Attrs.TempoBPM == 120 }},
		{"a 90 second lullaby", "", func(p Prompt) bool { return p.Attrs.Bars == 45 }},
		{"allegro waltz in 3/4", "", func(p Prompt) bool { return p.Attrs.MeterNum == 3 }},
	}
	for _, c := range cases {
		p := ParsePrompt(c.prompt)
		got := strings.Join(p.Problems, "; ")
		switch {
		case c.want == "" && got != "":
			t.Errorf("%q: problems %q, want none", c.prompt, got)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%q: problems %q, want %q", c.prompt, got, c.want)
		}
		if c.check != nil && !c.check(p) {
			t.Errorf("%q: attributes %+v, seconds %v", c.prompt, p.Attrs, p.Seconds)
		}
	}
}

// TestPromptSignedNumbers: a minus that starts a number is kept, so a
// negative tempo, length or meter is reported like any number out of range
// ("piano -120 bpm" was read as 120 bpm, "-3 bars" as 3 bars, "-2 minutes"
// as 2 minutes: normalizing turned the minus into a space); a hyphen inside
// a range or a compound ("100-120 bpm", "a 16-bar tune") is not a sign.
func TestPromptSignedNumbers(t *testing.T) {
	cases := []struct {
		prompt string
		want   string // "" no problem
		check  func(p Prompt) bool
	}{
		{"piano -120 bpm", "tempo -120 bpm is outside 20–300 bpm", func(p Prompt) bool { return p.Attrs.TempoBPM == 0 }},
		{"piano at -120bpm", "tempo -120 bpm is outside", func(p Prompt) bool { return p.Attrs.TempoBPM == 0 }},
		{"piano, tempo −90", "tempo -90 bpm is outside", func(p Prompt) bool { return p.Attrs.TempoBPM == 0 }},
		{"-3 bars of piano", "-3 bars is outside 1–4096 bars", func(p Prompt) bool { return p.Attrs.Bars == 0 }},
		{"piano in -3/4", "-3/4 is not a time signature", func(p Prompt) bool { return p.Attrs.MeterNum == 0 }},
		{"-2 minutes of piano", "-2 minutes is not a length", func(p Prompt) bool { return p.Attrs.Bars == 0 && p.Seconds == 0 }},
		{"piano for -30 seconds", "-30 seconds is not a length", func(p Prompt) bool { return p.Attrs.Bars == 0 && p.Seconds == 0 }},
		{"-1 hours of piano", "-1 hours is not a length", func(p Prompt) bool { return p.Attrs.Bars == 0 }},
		{"0 minutes of piano", "0 minutes is not a length", func(p Prompt) bool { return p.Attrs.Bars == 0 }},
		// Hyphens that are not signs.
		{"piano 100-120 bpm", "", func(p Prompt) bool { return p.Attrs.TempoBPM == 120 }},
		{"a 16-bar piano tune", "", func(p Prompt) bool { return p.Attrs.Bars == 16 }},
		{"a 2-minute lo-fi beat", "", func(p Prompt) bool { return p.Seconds == 120 && p.Attrs.Bars == 60 }},
		{"2 minutes 0 seconds of piano", "", func(p Prompt) bool { return p.Seconds == 120 }},
	}
	for _, c := range cases {
		p := ParsePrompt(c.prompt)
		got := strings.Join(p.Problems, "; ")
		switch {
		case c.want == "" && got != "":
			t.Errorf("%q: problems %q, want none", c.prompt, got)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%q: problems %q, want %q", c.prompt, got, c.want)
		}
		if c.check != nil && !c.check(p) {
			t.Errorf("%q: attributes %+v, seconds %v", c.prompt, p.Attrs, p.Seconds)
		}
		for _, w := range p.Unused {
			if strings.HasPrefix(w, "-") {
				t.Errorf("%q: the number %q is listed as not used as well as reported", c.prompt, w)
			}
		}
	}
}

// TestPromptLengthsOfFourDigits: a length in bars is read whatever its
// digits ("1500 bars" was read as no length at all, so a generator gave
// its default 16 bars without a word); the vocabulary's limit still
// applies.
func TestPromptLengthsOfFourDigits(t *testing.T) {
	for _, c := range []struct {
		prompt  string
		bars    int
		problem string
	}{
		{"piano 1500 bars", 1500, ""},
		{"1000 measures of piano", 1000, ""},
		{"piano 4096 bars", 4096, ""},
		{"piano, 1,500 bars", 1500, ""},
		{"1,500,000 bars of piano", 0, "1500000 bars is outside"},
		{"piano 4097 bars", 0, "4097 bars is outside 1–4096 bars"},
		{"piano 99999999999999999999 bars", 0, "99999999999999999999 bars is outside"},
	} {
		p := ParsePrompt(c.prompt)
		got := strings.Join(p.Problems, "; ")
		if p.Attrs.Bars != c.bars || (c.problem == "") != (got == "") || !strings.Contains(got, c.problem) {
			t.Errorf("%q: %d bars, problems %q; want %d bars, problems %q", c.prompt, p.Attrs.Bars, got, c.bars, c.problem)
		}
	}
}

// TestPromptUnreadKeyIsUnused: a key the parser cannot read ("H# minor":
// H is German for B) is listed as not used, the letter and the mode word
// both, though short words and mode words are otherwise left out of the
// list; keys it reads, and "a" as an article, are not listed.
func TestPromptUnreadKeyIsUnused(t *testing.T) {
	for _, c := range []struct {
		prompt string
		unused []string
	}{
		{"piano in H# minor", []string{"h#", "minor"}},
		{"piano in H major", []string{"h", "major"}},
		{"calm piano, X# minor", []string{"x#", "minor"}},
		{"piano in H#", []string{"h#"}},
		{"piano in A minor", nil},
		{"piano in c# minor", nil},
		{"a sad piano piece in a minor key", nil},
		{"a major hit for piano", []string{"hit"}},
	} {
		p := ParsePrompt(c.prompt)
		if strings.Join(p.Unused, ",") != strings.Join(c.unused, ",") {
			t.Errorf("%q: unused %q, want %q", c.prompt, p.Unused, c.unused)
		}
	}
}
