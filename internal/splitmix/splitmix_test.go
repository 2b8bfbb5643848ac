package splitmix

import "testing"

// The reference values of splitmix64 seeded with 0 (Vigna's splitmix64.c:
// state += Gamma, then the finaliser), the first three outputs.
func TestMix64Reference(t *testing.T) {
	want := []uint64{0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F}
	var state uint64
	for i, w := range want {
		state += Gamma
		if got := Mix64(state); got != w {
			t.Errorf("output %d = %#x, want %#x", i, got, w)
		}
	}
}
