//go:build race

package synth

// raceEnabled: built with -race, whose runtime counts every allocation
// twice in runtime.MemStats.TotalAlloc.
const raceEnabled = true
