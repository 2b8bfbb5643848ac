package synth

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/cmplx"
	"testing"
)

// A tiny SoundFont writer for test fixtures: one sine sample, a handful of
// presets exercising generator precedence.

// Fixture sample: a 440 Hz sine at 44,000 Hz (exactly 100 points a cycle),
// 2,000 points, loop [1000, 1900) (nine whole cycles), root key 69.
const (
	fixRate      = 44000
	fixLen       = 2000
	fixLoopStart = 1000
	fixLoopEnd   = 1900
	fixRelease   = 0.2 // seconds (volume envelope release of instrument 0)
)

func chunkBytes(id string, body []byte) []byte {
	var b bytes.Buffer
	b.WriteString(id)
	binary.Write(&b, binary.LittleEndian, uint32(len(body)))
	b.Write(body)
	if len(body)%2 == 1 {
		b.WriteByte(0)
	}
	return b.Bytes()
}

func listBytes(kind string, chunks ...[]byte) []byte {
	body := []byte(kind)
	for _, c := range chunks {
		body = append(body, c...)
	}
	return chunkBytes("LIST", body)
}

func name20(s string) []byte {
	b := make([]byte, 20)
	copy(b, s)
	return b
}

type fgen struct {
	op  uint16
	amt int16
}

func rangeGen(op uint16, lo, hi uint8) fgen { return fgen{op, int16(uint16(hi)<<8 | uint16(lo))} }

type fzone struct{ gens []fgen }

type fpreset struct {
	name          string
	program, bank uint16
	zones         []fzone
}

type finst struct {
	name  string
	zones []fzone
}

// secToTC converts seconds to timecents.
func secToTC(s float64) int16 { return int16(math.Round(1200 * math.Log2(s))) }

// fixtureSF2 builds the fixture bank:
//   - instrument 0 "SineInst": a global zone (coarse tune −12, release 0.2 s,
//     attack/decay minimal, sustain 0 dB) and a local zone that sets coarse
//     tune back to 0 (local replaces global) and loops the sample;
//   - instrument 1 "OneShot": the sample without a loop;
//   - preset 0:0 "Sine" → instrument 0;
//   - preset 0:1 "SineUp" → instrument 0 with coarse tune +12 at preset level
//     (preset generators add: A4 sounds at 880 Hz);
//   - preset 128:0 "Kit" → instrument 1, +7 semitones at preset level.
func fixtureSF2() []byte {
	var smpl bytes.Buffer
	for i := 0; i < fixLen+46; i++ { // 46 zero points follow every sample (§6.1)
		v := 0.0
		if i < fixLen {
			v = 0.5 * math.Sin(2*math.Pi*float64(i)/100)
		}
		binary.Write(&smpl, binary.LittleEndian, int16(math.Round(v*32767)))
	}
	insts := []finst{
		{"SineInst", []fzone{
			{[]fgen{{genCoarseTune, -12}, {genReleaseVolEnv, secToTC(fixRelease)}}},
			{[]fgen{rangeGen(genKeyRange, 0, 127), {genCoarseTune, 0}, {genSampleModes, 1}, {genSampleID, 0}}},
		}},
		{"OneShot", []fzone{{[]fgen{{genSampleID, 0}}}}},
	}
	presets := []fpreset{
		{"Sine", 0, 0, []fzone{{[]fgen{{genInstrument, 0}}}}},
		{"SineUp", 1, 0, []fzone{{[]fgen{{genCoarseTune, 12}, {genInstrument, 0}}}}},
		{"Kit", 0, 128, []fzone{{[]fgen{{genCoarseTune, 7}, {genInstrument, 1}}}}},
	}
	var phdr, pbag, pgen, inst, ibag, igen, shdr bytes.Buffer
	le := func(b *bytes.Buffer, vs ...any) {
		for _, v := range vs {
			binary.Write(b, binary.LittleEndian, v)
		}
	}
	nbag, ngen := 0, 0
	for _, p := range presets {
		phdr.Write(name20(p.name))
		le(&phdr, p.program, p.bank, uint16(nbag), uint32(0), uint32(0), uint32(0))
		for _, z := range p.zones {
			le(&pbag, uint16(ngen), uint16(0))
			nbag++
			for _, g := range z.gens {
				le(&pgen, g.op, g.amt)
				ngen++
			}
		}
	}
	phdr.Write(name20("EOP"))
	le(&phdr, uint16(0), uint16(0), uint16(nbag), uint32(0), uint32(0), uint32(0))
	le(&pbag, uint16(ngen), uint16(0))
	le(&pgen, uint16(0), int16(0))
	nbag, ngen = 0, 0
	for _, in := range insts {
		inst.Write(name20(in.name))
		le(&inst, uint16(nbag))
		for _, z := range in.zones {
			le(&ibag, uint16(ngen), uint16(0))
			nbag++
			for _, g := range z.gens {
				le(&igen, g.op, g.amt)
				ngen++
			}
		}
	}
	inst.Write(name20("EOI"))
	le(&inst, uint16(nbag))
	le(&ibag, uint16(ngen), uint16(0))
	le(&igen, uint16(0), int16(0))
	shdr.Write(name20("sine440"))
	le(&shdr, uint32(0), uint32(fixLen), uint32(fixLoopStart), uint32(fixLoopEnd), uint32(fixRate), uint8(69), int8(0), uint16(0), uint16(1))
	shdr.Write(name20("EOS"))
	le(&shdr, make([]byte, 26))

	mod := make([]byte, 10) // one terminal modulator record
	body := append([]byte("sfbk"), listBytes("INFO",
		chunkBytes("ifil", []byte{2, 0, 4, 0}),
		chunkBytes("INAM", []byte("Fixture Sine\x00")))...)
	body = append(body, listBytes("sdta", chunkBytes("smpl", smpl.Bytes()))...)
	body = append(body, listBytes("pdta",
		chunkBytes("phdr", phdr.Bytes()), chunkBytes("pbag", pbag.Bytes()), chunkBytes("pmod", mod),
		chunkBytes("pgen", pgen.Bytes()), chunkBytes("inst", inst.Bytes()), chunkBytes("ibag", ibag.Bytes()),
		chunkBytes("imod", mod), chunkBytes("igen", igen.Bytes()), chunkBytes("shdr", shdr.Bytes()))...)
	return chunkBytes("RIFF", body)
}

func fixtureFont(t testing.TB) *SoundFont {
	t.Helper()
	sf, err := ParseSoundFont("fixture.sf2", fixtureSF2())
	if err != nil {
		t.Fatal(err)
	}
	return sf
}

// spectrum returns the magnitude spectrum of the first 2^k left-channel
// samples of p starting at frame from (Hann window), and the bin width.
func spectrum(p *PCM, from, size int) ([]float64, float64) {
	x := make([]complex128, size)
	for i := range x {
		j := from + i
		if j >= p.Frames() {
			break
		}
		w := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(size))
		x[i] = complex(float64(p.Samples[2*j])*w, 0)
	}
	fft(x)
	mag := make([]float64, size/2)
	for i := range mag {
		mag[i] = cmplx.Abs(x[i])
	}
	return mag, float64(p.SampleRate) / float64(size)
}

// fft is an in-place radix-2 Cooley–Tukey transform (len(x) a power of 2).
func fft(x []complex128) {
	n := len(x)
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j ^= bit
		if i < j {
			x[i], x[j] = x[j], x[i]
		}
	}
	for l := 2; l <= n; l <<= 1 {
		w := cmplx.Exp(complex(0, -2*math.Pi/float64(l)))
		for i := 0; i < n; i += l {
			wk := complex(1, 0)
			for k := 0; k < l/2; k++ {
				a, b := x[i+k], x[i+k+l/2]*wk
				x[i+k], x[i+k+l/2] = a+b, a-b
				wk *= w
			}
		}
	}
}

// peakHz returns the frequency of the strongest bin between lo and hi Hz,
// refined by parabolic interpolation.
func peakHz(mag []float64, bin, lo, hi float64) float64 {
	best := -1
	for i := int(lo / bin); i <= int(hi/bin) && i < len(mag)-1; i++ {
		if i > 0 && (best < 0 || mag[i] > mag[best]) {
			best = i
		}
	}
	a, b, c := mag[best-1], mag[best], mag[best+1]
	d := 0.0
	if den := a - 2*b + c; den != 0 {
		d = 0.5 * (a - c) / den
	}
	return (float64(best) + d) * bin
}

// bandMax returns the largest magnitude within ±cents of f.
func bandMax(mag []float64, bin, f, cents float64) float64 {
	r := math.Exp2(cents / 1200)
	m := 0.0
	for i := int(f / r / bin); i <= int(f*r/bin)+1 && i < len(mag); i++ {
		m = max(m, mag[i])
	}
	return m
}

func rmsRange(p *PCM, fromSec, toSec float64) float64 {
	a, b := int(fromSec*float64(p.SampleRate)), min(int(toSec*float64(p.SampleRate)), p.Frames())
	if b <= a {
		return 0
	}
	s := 0.0
	for _, v := range p.Samples[2*a : 2*b] {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(2*(b-a)))
}
