package synth

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/amtstudio/amt/engine/midi"
)

// rebuildSdta is the SoundFont data with its sdta list's chunks replaced
// by what sdta returns for them.
func rebuildSdta(t testing.TB, data []byte, sdta func(smpl []byte) [][]byte) []byte {
	t.Helper()
	top, err := readChunks(data[12:])
	if err != nil {
		t.Fatal(err)
	}
	body := []byte("sfbk")
	for _, c := range top {
		if c.id != "LIST" || string(c.body[:4]) != "sdta" {
			body = append(body, chunkBytes(c.id, c.body)...)
			continue
		}
		subs, err := readChunks(c.body[4:])
		if err != nil || len(subs) != 1 || subs[0].id != "smpl" {
			t.Fatalf("fixture's sdta: %v %v", subs, err)
		}
		body = append(body, listBytes("sdta", sdta(subs[0].body)...)...)
	}
	return chunkBytes("RIFF", body)
}

// withSM24 is the fixture with an sm24 chunk (24-bit points; lo(i) the low
// byte of point i).
func withSM24(t testing.TB, lo func(i int) byte) []byte {
	return rebuildSdta(t, fixtureSF2(), func(smpl []byte) [][]byte {
		b := make([]byte, len(smpl)/2)
		for i := range b {
			b[i] = lo(i)
		}
		return [][]byte{chunkBytes("smpl", smpl), chunkBytes("sm24", b)}
	})
}

// pcmPiece is a small piece over the fixture's presets: held notes that
// loop, a one-shot, a drum and overlapping notes at three velocities.
func pcmPiece() *midi.Score {
	s := &midi.Score{TicksPerBeat: 480}
	s.Tracks = append(s.Tracks, midi.Track{Program: 0, Notes: []midi.Note{
		{Pitch: 69, Velocity: 100, Start: 0, Duration: 0.6},
		{Pitch: 76, Velocity: 60, Start: 0.2, Duration: 0.5},
		{Pitch: 57, Velocity: 127, Start: 0.5, Duration: 0.3},
	}})
	s.Tracks = append(s.Tracks, midi.Track{Program: 1, Channel: 1, Notes: []midi.Note{{Pitch: 81, Velocity: 90, Start: 0.1, Duration: 0.4}}})
	s.Tracks = append(s.Tracks, midi.Track{IsDrum: true, Channel: 9, Notes: []midi.Note{{Pitch: 36, Velocity: 110, Start: 0.3, Duration: 0.2}}})
	return s
}

// The voices read the points as stored (int16, with sm24's low byte) and
// scale after interpolating; the samples were float32, scaled first. The
// two agree bit for bit: scaling by a power of two commutes with float32
// rounding. Checked on every 16-bit point against random neighbours and
// fractions, and on random 24-bit points.
func TestInterpolationAsStoredIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(f0, f1 int32, fr float32, bits uint) {
		k := float32(1) / float32(int32(1)<<(bits-1))
		s0, s1 := float32(f0)*k, float32(f1)*k // the float32 samples as they were
		was := s0 + (s1-s0)*fr
		now := (float32(f0) + (float32(f1)-float32(f0))*fr) * k
		if math.Float32bits(was) != math.Float32bits(now) {
			t.Fatalf("%d-bit points %d, %d at %v: %v before, %v now", bits, f0, f1, fr, was, now)
		}
	}
	for v := int32(math.MinInt16); v <= math.MaxInt16; v++ {
		for range 4 {
			check(v, int32(int16(rng.Uint32())), rng.Float32(), 16)
		}
	}
	for range 1 << 18 {
		check(rng.Int32N(1<<24)-1<<23, rng.Int32N(1<<24)-1<<23, rng.Float32(), 24)
	}
	sf, err := ParseSoundFont("f24.sf2", withSM24(t, func(i int) byte { return byte(i*37 + 11) }))
	if err != nil {
		t.Fatal(err)
	}
	if hi, lo := int32(sf.Data[25]), int32(sf.Data24[25]); sf.Point(25) != float32(hi<<8|lo)/(1<<23) || sf.Point(25) == fixtureFont(t).Point(25) {
		t.Errorf("24-bit point 25: %v from %d and %d", sf.Point(25), hi, lo)
	}
}

// Loading a SoundFont takes memory in proportion to its file, about once:
// its points are kept as the file stores them (int16), in the bytes read,
// not expanded to float32 beside them (FluidR3_GM: 3.1 bytes allocated and
// 2.0 kept per byte of file before, 1.1 and 1.04 after). A synthetic bank
// of 16 MB of sample data is measured here.
func TestSoundFontMemoryPerByte(t *testing.T) {
	const points = 8 << 20
	data := rebuildSdta(t, fixtureSF2(), func(smpl []byte) [][]byte {
		big := make([]byte, 2*points)
		copy(big, smpl)
		return [][]byte{chunkBytes("smpl", big)}
	})
	path := filepath.Join(t.TempDir(), "big.sf2")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	size := float64(len(data))
	data = nil
	var before, loaded, kept runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sf, err := LoadSoundFont(path)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&loaded)
	runtime.GC()
	runtime.ReadMemStats(&kept)
	alloc := float64(loaded.TotalAlloc-before.TotalAlloc) / size
	held := (float64(kept.HeapAlloc) - float64(before.HeapAlloc)) / size
	t.Logf("%.0f MB file: %.2f bytes allocated, %.2f kept per byte", size/1e6, alloc, held)
	if held > 1.05 || alloc > 1.1 && !raceEnabled {
		t.Errorf("%.2f bytes allocated and %.2f kept per byte of SoundFont; want at most 1.1 and 1.05", alloc, held)
	}
	if len(sf.Data) != points || sf.Point(25) != fixtureFont(t).Point(25) {
		t.Errorf("%d points, point 25 = %v", len(sf.Data), sf.Point(25))
	}
	runtime.KeepAlive(sf)
}

// A process shares one loaded SoundFont between renders, and keeps only
// the last one loaded; a changed file is read again.
func TestSoundFontCacheSharesAndFollowsTheFile(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.sf2"), filepath.Join(dir, "b.sf2")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, fixtureSF2(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load := func(p string) *SoundFont {
		t.Helper()
		sf, err := LoadSoundFontCached(p)
		if err != nil {
			t.Fatal(err)
		}
		return sf
	}
	first := load(a)
	if load(a) != first {
		t.Error("a second load of the same file made a second copy")
	}
	load(b)
	if load(a) == first {
		t.Error("loading b kept a as well")
	}
	again := load(a)
	changed := rebuildSdta(t, fixtureSF2(), func(smpl []byte) [][]byte {
		smpl = bytes.Clone(smpl)
		binary.LittleEndian.PutUint16(smpl[50:], 1000)
		return [][]byte{chunkBytes("smpl", smpl)}
	})
	if err := os.WriteFile(a, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(a, later, later); err != nil {
		t.Fatal(err)
	}
	if sf := load(a); sf == again || sf.Data[25] != 1000 {
		t.Errorf("the changed file was not read again (point 25 = %d)", sf.Data[25])
	}
}
