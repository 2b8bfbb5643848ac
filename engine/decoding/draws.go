package decoding

import "github.com/amtstudio/amt/internal/splitmix"

// The piece's own draws: whether it starts on an upbeat (Pickup), how many
// bars its strains' second phrase restates (StrainOpening) and when its
// parts enter (Entries) are drawn from its seed, each from a stream of its
// own, so the same request always decodes the same way and the draws do not
// move together.

// unitDraw is a uniform draw in [0, 1) from seed: it decides a piece's
// upbeat (LeverPickup) and, from seeds derived from the piece's, when its
// parts enter (LeverBuild).
func unitDraw(seed uint64) float64 {
	return float64(splitmix.Mix64(seed^0x5851F42D4C957F2D)>>11) / (1 << 53)
}

// UpbeatDraw is the piece's draw of its upbeat: a piece of a genre whose
// tunes start on an upbeat at rate r (Pickup) does when UpbeatDraw(seed) < r.
func UpbeatDraw(seed uint64) float64 { return unitDraw(seed) }

// OpeningDraw is the piece's draw of its strains' opening (StrainOpening),
// independent of its upbeat's (unitDraw).
func OpeningDraw(seed uint64) float64 { return unitDraw(seed ^ 0xD1B54A32D192ED03) }

// entryDraw is the draw of part i's entry (Entries).
func entryDraw(seed uint64, i int) float64 {
	return unitDraw(seed + uint64(i+1)*0x2545F4914F6CDD1D)
}
