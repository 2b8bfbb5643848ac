package app

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestPromptProblemsRefused: a prompt whose numbers cannot be used is
// refused with the parser's words instead of generating something else
// (13/7 gave 6/8, 100000 bars gave 1,141), and so is a prompt length beyond
// MaxGenerateBars.
func TestPromptProblemsRefused(t *testing.T) {
	for _, c := range []struct{ prompt, want string }{
		{"piano in 13/7", "13/7 is not a time signature the model knows"},
		{"piano at 0 bpm", "tempo 0 bpm is outside"},
		{"a waltz in 3/4 in 4/4", "two time signatures"},
		{"100000 bars of piano", "100000 bars is outside"},
		{"piano in 32/1 time", "32/1 is not a time signature"},
		{"500 bars of piano", "500 bars: a piece has at most 160"},
		{"an hour of piano", "1800 bars: a piece has at most 160"},
	} {
		_, err := GenerateFromPrompt(context.Background(), nil, PromptRequest{Prompt: c.prompt})
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want a usage error naming %q", c.prompt, err, c.want)
		}
	}
}

// TestPromptLengthsAndSignsRefused (issue 37): a length of four digits is
// refused against MaxGenerateBars ("piano 1500 bars" gave 16 bars, exit
// 0: the parser read no length), and a negative tempo or length is refused
// with its sign ("piano -120 bpm" was 120 bpm), as 0 and 9999 are.
func TestPromptLengthsAndSignsRefused(t *testing.T) {
	for _, c := range []struct{ prompt, want string }{
		{"piano 1500 bars", "1500 bars: a piece has at most 160"},
		{"piano 4096 bars", "4096 bars: a piece has at most 160"},
		{"piano 1,000 bars", "1000 bars: a piece has at most 160"},
		{"piano -120 bpm", "tempo -120 bpm is outside 20–300 bpm"},
		{"piano 9999 bpm", "tempo 9999 bpm is outside"},
		{"piano -3 bars", "-3 bars is outside 1–4096 bars"},
		{"piano in -3/4", "-3/4 is not a time signature"},
		{"-2 minutes of piano", "-2 minutes is not a length"},
	} {
		req := PromptRequest{Prompt: c.prompt}
		u := Understand(UnderstandRequest{Prompt: c.prompt}, nil)
		err := checkPromptRequest(req, &u)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want a usage error naming %q", c.prompt, err, c.want)
		}
	}
}
