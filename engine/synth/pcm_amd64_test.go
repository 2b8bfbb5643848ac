//go:build amd64 && !amd64.v3

package synth

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"testing"
)

// renderHash renders pcmPiece over sf and hashes the PCM's bits.
func renderHash(t *testing.T, sf *SoundFont, opts Options) string {
	t.Helper()
	p, err := NewSoundFontRenderer(sf, opts).Render(context.Background(), pcmPiece())
	if err != nil {
		t.Fatal(err)
	}
	return pcmHash(p)
}

// pcmHash is the number of samples and the start of the SHA-256 of their
// float32 bits.
func pcmHash(p *PCM) string {
	h := sha256.New()
	for _, v := range p.Samples {
		binary.Write(h, binary.LittleEndian, math.Float32bits(v))
	}
	return fmt.Sprintf("%d:%x", len(p.Samples), h.Sum(nil)[:8])
}

// The PCM of a small piece is what it was when the points were kept as
// float32 (hashes recorded with that code: engine/synth as of 05c8f32): 16-bit and
// 24-bit points, with and without effects, and TimGM6mb when installed.
// amd64 without FMA only: fused multiply-adds round differently.
func TestPCMUnchangedByInt16Samples(t *testing.T) {
	f24, err := ParseSoundFont("f24.sf2", withSM24(t, func(i int) byte { return byte(i*37 + 11) }))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		sf   func() *SoundFont
		opts Options
		want string
	}{
		{"16-bit", func() *SoundFont { return fixtureFont(t) }, Options{}, "87552:c97a7eb719d0d328"},
		{"16-bit effects 48 kHz", func() *SoundFont { return fixtureFont(t) }, Options{Reverb: true, Chorus: true, SampleRate: 48000}, "95744:2af0350b0f8836ab"},
		{"24-bit", func() *SoundFont { return f24 }, Options{}, "87552:f605ceda0761a7b0"},
		{"TimGM6mb", func() *SoundFont { return timFont(t) }, Options{}, "158720:b11ad695989f2f26"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "TimGM6mb" {
				if _, err := os.Stat(timGM); err != nil {
					t.Skip("TimGM6mb not installed")
				}
			}
			if got := renderHash(t, c.sf(), c.opts); got != c.want {
				t.Errorf("PCM %s, want %s (as with float32 points)", got, c.want)
			}
		})
	}
}
