// Package splitmix is splitmix64's finaliser, the one 64-bit mixer the
// project uses wherever neighbouring inputs must give unrelated outputs:
// seeds of pieces, tonics and file orders (app, engine/decoding), hashed
// n-grams (engine/text), bar signatures (engine/eval), training draws
// (engine/train). It imports nothing.
package splitmix

// Mix64 is splitmix64's finaliser (Steele, Lea and Flood, 2014): a
// bijection of 64 bits in which every input bit moves about half the output
// bits.
func Mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Gamma is splitmix64's increment (2^64 / φ, odd): the step between the
// states of one stream.
const Gamma = 0x9E3779B97F4A7C15
