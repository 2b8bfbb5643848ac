package arrange

import (
	"slices"
	"testing"
)

func TestParsePOP909(t *testing.T) {
	for _, tc := range []struct {
		in   string
		mma  string
		pcs  []int // hand-computed: root first, then chord tones, then a slash bass
		none bool
	}{
		{in: "B:maj", mma: "B", pcs: []int{11, 3, 6}},
		{in: "E:min7", mma: "Em7", pcs: []int{4, 7, 11, 2}},
		{in: "A:7", mma: "A7", pcs: []int{9, 1, 4, 7}},
		{in: "C:maj/3", mma: "C/E", pcs: []int{0, 4, 7}},
		{in: "C:maj/5", mma: "C/G", pcs: []int{0, 4, 7}},
		{in: "A:min/b3", mma: "Am/C", pcs: []int{9, 0, 4}},
		{in: "F#:maj7/5", mma: "F#M7/C#", pcs: []int{6, 10, 1, 5}},
		{in: "Bb:min/b3", mma: "Bbm/Db", pcs: []int{10, 1, 5}},
		{in: "C:maj7/7", mma: "CM7/B", pcs: []int{0, 4, 7, 11}},
		{in: "D:min7/b7", mma: "Dm7/C", pcs: []int{2, 5, 9, 0}},
		{in: "G:sus4(b7)", mma: "G7sus", pcs: []int{7, 0, 2, 5}},
		{in: "B:hdim7", mma: "Bm7b5", pcs: []int{11, 2, 5, 9}},
		{in: "C#:dim", mma: "C#mb5", pcs: []int{1, 4, 7}},
		{in: "Eb:aug", mma: "Ebaug", pcs: []int{3, 7, 11}},
		{in: "F:maj6", mma: "F6", pcs: []int{5, 9, 0, 2}},
		{in: "A:minmaj7", mma: "AmM7", pcs: []int{9, 0, 4, 8}},
		{in: "C:maj/b7", mma: "C/Bb", pcs: []int{0, 4, 7, 10}},
		{in: "N", none: true},
	} {
		c, none, err := ParsePOP909(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if none != tc.none {
			t.Errorf("%s: none = %v", tc.in, none)
		}
		if tc.none {
			continue
		}
		if got := c.MMA(); got != tc.mma {
			t.Errorf("%s: MMA %q, want %q", tc.in, got, tc.mma)
		}
		if got := c.PitchClasses(); !slices.Equal(got, tc.pcs) {
			t.Errorf("%s: pitch classes %v, want %v", tc.in, got, tc.pcs)
		}
	}
	for _, bad := range []string{"", "H:maj", "C", "C:weird", "C:maj/9", "Cx:maj"} {
		if _, _, err := ParsePOP909(bad); err == nil {
			t.Errorf("ParsePOP909(%q): no error", bad)
		}
	}
}

func TestParseABC(t *testing.T) {
	for _, tc := range []struct {
		in, mma string
		pcs     []int
	}{
		{"G", "G", []int{7, 11, 2}},
		{"D7", "D7", []int{2, 6, 9, 0}},
		{"Em", "Em", []int{4, 7, 11}},
		{"F#m", "F#m", []int{6, 9, 1}},
		{"A/C#", "A/C#", []int{9, 1, 4}},
		{"A/c+", "A/C#", []int{9, 1, 4}},
		{"D7/a", "D7/A", []int{2, 6, 9, 0}},
		{"Gm/bb", "Gm/Bb", []int{7, 10, 2}},
		{"G/b", "G/B", []int{7, 11, 2}},
		{"C/c", "C", []int{0, 4, 7}},
		{"Bbd", "Bbmb5", []int{10, 1, 4}},
		{"Ea", "Eaug", []int{4, 8, 0}},
		{"Fa7", "Faug7", []int{5, 9, 1, 3}},
		{"D m", "Dm", []int{2, 5, 9}},
		{"C6", "C6", []int{0, 4, 7, 9}},
		{"E7b9", "E7b9", []int{4, 8, 11, 2, 5}},
		{"Am/f+", "Am/F#", []int{9, 0, 4, 6}},
	} {
		c, err := ParseABC(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if got := c.MMA(); got != tc.mma {
			t.Errorf("%s: MMA %q, want %q", tc.in, got, tc.mma)
		}
		if got := c.PitchClasses(); !slices.Equal(got, tc.pcs) {
			t.Errorf("%s: pitch classes %v, want %v", tc.in, got, tc.pcs)
		}
	}
	for _, bad := range []string{"", " ", "(D7)", "x", "Gweird", "A/", "A/h"} {
		if _, err := ParseABC(bad); err == nil {
			t.Errorf("ParseABC(%q): no error", bad)
		}
	}
}

func TestChordPitchClassSet(t *testing.T) {
	c, _ := ParseABC("G7")
	// G B D F: bits 7, 11, 2, 5.
	if got, want := c.PitchClassSet(), uint16(1<<7|1<<11|1<<2|1<<5); got != want {
		t.Fatalf("set %012b, want %012b", got, want)
	}
}
