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
