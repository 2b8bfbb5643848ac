package midi

import (
	"image/color"
	"testing"
)

// The palette by hand: piano (family 0) sits at hue 210° (a blue), the
// strings (family 5) at (35 mod 16)·22.5 + 210 = 277.5°; HSL to RGB at
// s 0.65, l 0.45 computed by hand: C = (1 − |0.9 − 1|)·0.65 = 0.585, m =
// 0.1575. Hue 210 (sector 180–240): X = C·(1 − |3.5 mod 2 − 1|) = 0.2925,
// (0, X, C) + m = (0.1575, 0.45, 0.7425) → (40, 115, 189). A second track
// of the family turns by 67.5° (to 277.5°, the strings' hue).
func TestFamilyColor(t *testing.T) {
	if got, want := FamilyColor(0, 0, 0.45), (color.NRGBA{40, 115, 189, 255}); got != want {
		t.Errorf("piano = %v, want %v", got, want)
	}
	if FamilyColor(3, 0, 0.45) != FamilyColor(0, 0, 0.45) {
		t.Error("programs of one family differ")
	}
	if FamilyColor(0, 1, 0.45) != FamilyColor(40, 0, 0.45) {
		t.Error("the piano's second track is not turned to 277.5° (the strings' hue)")
	}
	if FamilyColor(-5, 0, 0.45) != FamilyColor(0, 0, 0.45) || FamilyColor(300, 0, 0.45) != FamilyColor(127, 0, 0.45) {
		t.Error("programs outside 0–127 are not clamped")
	}
}
