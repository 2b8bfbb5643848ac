package synth

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/amtstudio/amt/engine/userfile"
)

// ErrNotSoundFont is returned (wrapped) for input that is not a RIFF sfbk
// file; ErrCorrupt for a SoundFont whose structure is broken.
var (
	ErrNotSoundFont = errors.New("not a SoundFont 2 file")
	ErrCorrupt      = errors.New("corrupt SoundFont")
)

// SoundFont is a parsed SoundFont 2 bank, ready to play. Its presets are
// flattened into regions (a preset zone combined with an instrument zone,
// generators already merged), so a note-on only scans key/velocity ranges.
type SoundFont struct {
	Name    string // INAM, or the file name
	Version [2]uint16
	// Data holds every sample point as the smpl chunk stores it (16-bit),
	// and Data24 the low bytes sm24 adds to them (nil without sm24): the
	// file's own bytes where the machine is little-endian, not copies
	// (expanding them to float32 took twice the file's size; FluidR3_GM's
	// 148 MB became 300 MB). Point reads one scaled to [-1, 1).
	Data    []int16
	Data24  []uint8
	Samples []SampleHeader
	Presets []Preset
	// Unplayable counts the sample headers whose points lie (partly)
	// outside the sample data; they are clamped and their notes are silent
	// or cut. Warning says so in words ("" when every header is fine).
	Unplayable int
	Warning    string
	byID       map[int]int // bank<<8 | program → index in Presets
}

// SampleHeader is one shdr record, with indices into SoundFont.Data.
type SampleHeader struct {
	Name               string
	Start, End         uint32
	LoopStart, LoopEnd uint32
	SampleRate         uint32
	OriginalPitch      uint8
	PitchCorrection    int8
	Link, Type         uint16
}

// Preset is one phdr record with its resolved regions.
type Preset struct {
	Name    string
	Bank    int
	Program int
	Regions []Region
}

// Region is what a note-on can trigger: ranges plus the summed generators
// (instrument values plus preset offsets) and the sample.
type Region struct {
	KeyLo, KeyHi uint8
	VelLo, VelHi uint8
	Sample       int // index into SoundFont.Samples
	Gen          [genCount]int32
}

// Generator operators of SoundFont 2.04 §8.1.2 that the synthesizer reads.
const (
	genStartAddrsOffset     = 0
	genEndAddrsOffset       = 1
	genStartloopAddrsOffset = 2
	genEndloopAddrsOffset   = 3
	genStartAddrsCoarse     = 4
	genModLfoToPitch        = 5
	genVibLfoToPitch        = 6
	genModEnvToPitch        = 7
	genInitialFilterFc      = 8
	genInitialFilterQ       = 9
	genModLfoToFilterFc     = 10
	genModEnvToFilterFc     = 11
	genEndAddrsCoarse       = 12
	genModLfoToVolume       = 13
	genChorusSend           = 15
	genReverbSend           = 16
	genPan                  = 17
	genDelayModLFO          = 21
	genFreqModLFO           = 22
	genDelayVibLFO          = 23
	genFreqVibLFO           = 24
	genDelayModEnv          = 25
	genAttackModEnv         = 26
	genHoldModEnv           = 27
	genDecayModEnv          = 28
	genSustainModEnv        = 29
	genReleaseModEnv        = 30
	genKeynumToModEnvHold   = 31
	genKeynumToModEnvDecay  = 32
	genDelayVolEnv          = 33
	genAttackVolEnv         = 34
	genHoldVolEnv           = 35
	genDecayVolEnv          = 36
	genSustainVolEnv        = 37
	genReleaseVolEnv        = 38
	genKeynumToVolEnvHold   = 39
	genKeynumToVolEnvDecay  = 40
	genInstrument           = 41
	genKeyRange             = 43
	genVelRange             = 44
	genStartloopAddrsCoarse = 45
	genKeynum               = 46
	genVelocity             = 47
	genInitialAttenuation   = 48
	genEndloopAddrsCoarse   = 50
	genCoarseTune           = 51
	genFineTune             = 52
	genSampleID             = 53
	genSampleModes          = 54
	genScaleTuning          = 56
	genExclusiveClass       = 57
	genOverridingRootKey    = 58
	genCount                = 61
	sampleTypeROM           = 0x8000
)

// defaultGens are the generator defaults of §8.1.3.
var defaultGens = func() (g [genCount]int32) {
	g[genInitialFilterFc] = 13500
	for _, i := range []int{genDelayModLFO, genDelayVibLFO, genDelayModEnv, genAttackModEnv, genHoldModEnv,
		genDecayModEnv, genReleaseModEnv, genDelayVolEnv, genAttackVolEnv, genHoldVolEnv, genDecayVolEnv,
		genReleaseVolEnv} {
		g[i] = -12000
	}
	g[genKeyRange] = 127 << 8
	g[genVelRange] = 127 << 8
	g[genKeynum] = -1
	g[genVelocity] = -1
	g[genScaleTuning] = 100
	g[genOverridingRootKey] = -1
	return g
}()

// notAtPresetLevel are generators a preset zone may not set (§8.1.2): they
// are ignored there rather than added.
var notAtPresetLevel = func() (m [genCount]bool) {
	for _, i := range []int{genStartAddrsOffset, genEndAddrsOffset, genStartloopAddrsOffset, genEndloopAddrsOffset,
		genStartAddrsCoarse, genEndAddrsCoarse, genStartloopAddrsCoarse, genKeynum, genVelocity,
		genEndloopAddrsCoarse, genSampleModes, genExclusiveClass, genOverridingRootKey} {
		m[i] = true
	}
	return m
}()

// MaxSoundFontFile bounds a SoundFont file (FluidR3_GM is 141 MB; the
// largest General MIDI banks are about 1 GB).
const MaxSoundFontFile = 2 << 30

// LoadSoundFont reads and parses a .sf2 file.
func LoadSoundFont(path string) (*SoundFont, error) {
	return LoadSoundFontContext(context.Background(), path)
}

// LoadSoundFontContext is LoadSoundFont stopped by ctx while it reads.
func LoadSoundFontContext(ctx context.Context, path string) (*SoundFont, error) {
	data, err := userfile.ReadRegular(ctx, path, MaxSoundFontFile) // a FIFO or a device is refused, never waited on
	if err != nil {
		return nil, fmt.Errorf("synth: soundfont %s: %w", path, err)
	}
	sf, err := ParseSoundFont(filepath.Base(path), data)
	if err != nil {
		return nil, err
	}
	return sf, nil
}

// chunk is a RIFF chunk inside the input buffer.
type chunk struct {
	id   string
	body []byte
}

// readChunks splits b into RIFF chunks. It never trusts a declared size
// beyond the bytes present.
func readChunks(b []byte) ([]chunk, error) {
	var out []chunk
	for len(b) >= 8 {
		id := string(b[:4])
		n := binary.LittleEndian.Uint32(b[4:8])
		b = b[8:]
		if uint64(n) > uint64(len(b)) {
			return out, fmt.Errorf("chunk %q declares %d bytes, only %d left: %w", id, n, len(b), ErrCorrupt)
		}
		out = append(out, chunk{id, b[:n]})
		b = b[n:]
		if n%2 == 1 && len(b) > 0 { // RIFF pads odd chunks
			b = b[1:]
		}
	}
	return out, nil
}

// ParseSoundFont parses the bytes of a SoundFont 2 file. name is used in
// errors. It never panics, and allocates only in proportion to len(data).
// The SoundFont keeps data's sample chunks as they are (Data, Data24), so
// data must not change afterwards.
func ParseSoundFont(name string, data []byte) (*SoundFont, error) {
	sf, err := parseSF2(name, data)
	if err != nil {
		return nil, fmt.Errorf("synth: soundfont %s: %w", name, err)
	}
	return sf, nil
}

func parseSF2(name string, data []byte) (*SoundFont, error) {
	if len(data) < 12 || string(data[:4]) != "RIFF" || string(data[8:12]) != "sfbk" {
		return nil, ErrNotSoundFont
	}
	n := binary.LittleEndian.Uint32(data[4:8])
	body := data[12:]
	if uint64(n) >= 4 && uint64(n)-4 < uint64(len(body)) {
		body = body[:n-4]
	}
	top, err := readChunks(body)
	if err != nil {
		return nil, err
	}
	sf := &SoundFont{Name: strings.TrimSuffix(name, filepath.Ext(name))}
	var smpl, sm24 []byte
	pdta := map[string][]byte{}
	for _, c := range top {
		if c.id != "LIST" || len(c.body) < 4 {
			continue
		}
		kind := string(c.body[:4])
		subs, err := readChunks(c.body[4:])
		if err != nil {
			return nil, fmt.Errorf("LIST %s: %w", kind, err)
		}
		for _, s := range subs {
			switch kind {
			case "INFO":
				switch s.id {
				case "ifil":
					if len(s.body) >= 4 {
						sf.Version = [2]uint16{binary.LittleEndian.Uint16(s.body), binary.LittleEndian.Uint16(s.body[2:])}
					}
				case "INAM":
					if t := cString(s.body); t != "" {
						sf.Name = t
					}
				}
			case "sdta":
				switch s.id {
				case "smpl":
					smpl = s.body
				case "sm24":
					sm24 = s.body
				}
			case "pdta":
				pdta[s.id] = s.body
			}
		}
	}
	if sf.Version[0] > 2 {
		return nil, fmt.Errorf("version %d.%d unsupported: %w", sf.Version[0], sf.Version[1], ErrNotSoundFont)
	}
	if smpl == nil {
		return nil, fmt.Errorf("no smpl chunk: %w", ErrCorrupt)
	}
	nPts := len(smpl) / 2
	sf.Data = int16s(smpl[:2*nPts])
	if len(sm24) >= nPts && nPts > 0 { // sm24 must cover every point, else it is ignored (§7.3)
		sf.Data24 = sm24[:nPts:nPts]
	}
	if err := sf.parsePdta(pdta, len(data)); err != nil {
		return nil, err
	}
	// A bank whose every region points at empty sample data would render
	// silence without a word: refuse it; report a partly broken one.
	regions, playable := 0, 0
	for _, p := range sf.Presets {
		for _, r := range p.Regions {
			regions++
			if h := sf.Samples[r.Sample]; h.End > h.Start {
				playable++
			}
		}
	}
	switch {
	case regions == 0:
		return nil, fmt.Errorf("no preset has an instrument zone with a sample: %w", ErrCorrupt)
	case playable == 0:
		return nil, fmt.Errorf("no playable sample: the %d sample headers point outside the %d sample points: %w", len(sf.Samples), len(sf.Data), ErrCorrupt)
	case sf.Unplayable > 0:
		sf.Warning = fmt.Sprintf("%d of %d sample headers point outside the %d sample points; notes using them are silent or cut", sf.Unplayable, len(sf.Samples), len(sf.Data))
	}
	return sf, nil
}

// Point is sample point i scaled to [-1, 1): a 16-bit point over 2^15,
// a 24-bit one (with sm24's low byte) over 2^23. Both are exact in
// float32, so a point reads as it did when the data was kept as float32.
func (sf *SoundFont) Point(i int) float32 { return point(sf.Data, sf.Data24, i) }

func point(hi []int16, lo []uint8, i int) float32 {
	if lo != nil {
		return float32(int32(hi[i])<<8|int32(lo[i])) / (1 << 23)
	}
	return float32(hi[i]) / (1 << 15)
}

// littleEndian: the machine stores an int16 as SoundFont files do.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// int16s is b's little-endian 16-bit values: b itself seen as []int16
// where the machine is little-endian and b is aligned (a RIFF chunk
// starts at an even offset), else a copy.
func int16s(b []byte) []int16 {
	n := len(b) / 2
	if n == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%2 == 0 {
		return unsafe.Slice((*int16)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]int16, n)
	for i := range out {
		out[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return out
}

func cString(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}

type bag struct{ gen, mod int }
type gen struct {
	op  uint16
	amt int32  // signed amount
	lo  uint8  // range low byte
	hi  uint8  // range high byte
	raw uint16 // unsigned amount
}

// records checks a pdta sub-chunk holds whole records of size sz and at
// least min of them.
func records(pdta map[string][]byte, id string, sz, min int) ([]byte, int, error) {
	b, ok := pdta[id]
	if !ok {
		return nil, 0, fmt.Errorf("pdta: missing %s: %w", id, ErrCorrupt)
	}
	if len(b)%sz != 0 || len(b)/sz < min {
		return nil, 0, fmt.Errorf("pdta: %s has %d bytes, not a whole number (≥ %d) of %d-byte records: %w", id, len(b), min, sz, ErrCorrupt)
	}
	return b, len(b) / sz, nil
}

func parseBags(b []byte, n, nGen, nMod int, id string) ([]bag, error) {
	out := make([]bag, n)
	for i := range out {
		out[i] = bag{int(binary.LittleEndian.Uint16(b[4*i:])), int(binary.LittleEndian.Uint16(b[4*i+2:]))}
		if out[i].gen > nGen || out[i].mod > nMod || (i > 0 && (out[i].gen < out[i-1].gen || out[i].mod < out[i-1].mod)) {
			return nil, fmt.Errorf("pdta: %s record %d: indices out of order or range: %w", id, i, ErrCorrupt)
		}
	}
	return out, nil
}

func parseGens(b []byte, n int) []gen {
	out := make([]gen, n)
	for i := range out {
		r := b[4*i:]
		out[i] = gen{op: binary.LittleEndian.Uint16(r), amt: int32(int16(binary.LittleEndian.Uint16(r[2:]))),
			lo: r[2], hi: r[3], raw: binary.LittleEndian.Uint16(r[2:])}
	}
	return out
}

// zone is one bag's generators, set[g] telling which were given.
type zone struct {
	gen  [genCount]int32
	set  [genCount]bool
	link int // instrument (preset zone) or sample (instrument zone) index, −1 for a global zone
}

// zones builds the zones of record [from, to) of a header list.
func zonesOf(bags []bag, gens []gen, from, to int, linkOp uint16) []zone {
	var out []zone
	for z := from; z < to && z+1 < len(bags); z++ {
		zn := zone{link: -1}
	gens:
		for gi := bags[z].gen; gi < bags[z+1].gen && gi < len(gens); gi++ {
			g := gens[gi]
			if int(g.op) >= genCount {
				continue
			}
			switch {
			case g.op == linkOp:
				zn.link = int(g.raw)
			case g.op == genKeyRange || g.op == genVelRange:
				zn.gen[g.op] = int32(g.lo) | int32(g.hi)<<8
			default:
				zn.gen[g.op] = g.amt
			}
			zn.set[g.op] = true
			if g.op == linkOp {
				break gens // generators after the link are ignored (§8.1.2)
			}
		}
		if zn.link < 0 && z != from {
			continue // only the first zone may be global; other link-less zones are ignored
		}
		out = append(out, zn)
	}
	return out
}

func rangeOf(v int32) (lo, hi uint8) {
	lo, hi = uint8(v&0xff), uint8(v>>8&0xff)
	if hi > 127 {
		hi = 127
	}
	return lo, hi
}

func (sf *SoundFont) parsePdta(pdta map[string][]byte, dataLen int) error {
	phdr, nPh, err := records(pdta, "phdr", 38, 2)
	if err != nil {
		return err
	}
	pbagB, nPb, err := records(pdta, "pbag", 4, 1)
	if err != nil {
		return err
	}
	_, nPm, err := records(pdta, "pmod", 10, 0)
	if err != nil {
		return err
	}
	pgenB, nPg, err := records(pdta, "pgen", 4, 0)
	if err != nil {
		return err
	}
	instB, nIn, err := records(pdta, "inst", 22, 2)
	if err != nil {
		return err
	}
	ibagB, nIb, err := records(pdta, "ibag", 4, 1)
	if err != nil {
		return err
	}
	_, nIm, err := records(pdta, "imod", 10, 0)
	if err != nil {
		return err
	}
	igenB, nIg, err := records(pdta, "igen", 4, 0)
	if err != nil {
		return err
	}
	shdr, nSh, err := records(pdta, "shdr", 46, 1)
	if err != nil {
		return err
	}
	pbags, err := parseBags(pbagB, nPb, nPg, nPm, "pbag")
	if err != nil {
		return err
	}
	ibags, err := parseBags(ibagB, nIb, nIg, nIm, "ibag")
	if err != nil {
		return err
	}
	pgens, igens := parseGens(pgenB, nPg), parseGens(igenB, nIg)

	// Samples (the last record is the EOS terminal).
	sf.Samples = make([]SampleHeader, nSh-1)
	nData := uint32(len(sf.Data))
	for i := range sf.Samples {
		r := shdr[46*i:]
		h := SampleHeader{
			Name:            cString(r[:20]),
			Start:           binary.LittleEndian.Uint32(r[20:]),
			End:             binary.LittleEndian.Uint32(r[24:]),
			LoopStart:       binary.LittleEndian.Uint32(r[28:]),
			LoopEnd:         binary.LittleEndian.Uint32(r[32:]),
			SampleRate:      binary.LittleEndian.Uint32(r[36:]),
			OriginalPitch:   r[40],
			PitchCorrection: int8(r[41]),
			Link:            binary.LittleEndian.Uint16(r[42:]),
			Type:            binary.LittleEndian.Uint16(r[44:]),
		}
		if h.End > nData || h.Start >= h.End {
			sf.Unplayable++
		}
		if h.End > nData {
			h.End = nData
		}
		if h.Start > h.End {
			h.Start = h.End
		}
		sf.Samples[i] = h
	}

	// Instruments: each a list of resolved zones (global merged into local).
	type instZone struct {
		gen    [genCount]int32
		sample int
	}
	insts := make([][]instZone, nIn-1)
	for i := range insts {
		from := int(binary.LittleEndian.Uint16(instB[22*i+20:]))
		to := int(binary.LittleEndian.Uint16(instB[22*(i+1)+20:]))
		if from > to || to >= nIb {
			return fmt.Errorf("pdta: inst %d: bag indices %d..%d out of range or order: %w", i, from, to, ErrCorrupt)
		}
		zs := zonesOf(ibags, igens, from, to, genSampleID)
		global := zone{gen: defaultGens}
		for zi, z := range zs {
			if z.link < 0 && zi == 0 {
				for g := range z.set {
					if z.set[g] {
						global.gen[g] = z.gen[g]
					}
				}
				continue
			}
			if z.link >= len(sf.Samples) || sf.Samples[z.link].Type&sampleTypeROM != 0 {
				continue
			}
			iz := instZone{gen: global.gen, sample: z.link}
			for g := range z.set {
				if z.set[g] {
					iz.gen[g] = z.gen[g]
				}
			}
			insts[i] = append(insts[i], iz)
		}
	}

	// Presets: combine each preset zone with each instrument zone.
	sf.Presets = make([]Preset, 0, nPh-1)
	sf.byID = map[int]int{}
	// Preset zones × instrument zones can multiply; keep the regions within
	// the input's size so a crafted file cannot blow up memory.
	budget := int(int64(dataLen)/int64(unsafe.Sizeof(Region{}))) + 64
	steps := dataLen/4 + 4096 // zone pairs examined
	for i := 0; i < nPh-1; i++ {
		r := phdr[38*i:]
		p := Preset{Name: cString(r[:20]), Program: int(binary.LittleEndian.Uint16(r[20:])), Bank: int(binary.LittleEndian.Uint16(r[22:]))}
		from := int(binary.LittleEndian.Uint16(r[24:]))
		to := int(binary.LittleEndian.Uint16(phdr[38*(i+1)+24:]))
		if from > to || to >= nPb {
			return fmt.Errorf("pdta: preset %q: bag indices %d..%d out of range or order: %w", p.Name, from, to, ErrCorrupt)
		}
		zs := zonesOf(pbags, pgens, from, to, genInstrument)
		var global zone
		global.gen[genKeyRange], global.gen[genVelRange] = 127<<8, 127<<8
		for zi, z := range zs {
			if z.link < 0 && zi == 0 {
				global = z
				if !z.set[genKeyRange] {
					global.gen[genKeyRange] = 127 << 8
				}
				if !z.set[genVelRange] {
					global.gen[genVelRange] = 127 << 8
				}
				continue
			}
			if z.link >= len(insts) {
				continue
			}
			pz := global.gen
			for g := range z.set {
				if z.set[g] {
					pz[g] = z.gen[g]
				}
			}
			pkLo, pkHi := rangeOf(pz[genKeyRange])
			pvLo, pvHi := rangeOf(pz[genVelRange])
			for izi := range insts[z.link] {
				iz := &insts[z.link][izi]
				if steps--; steps < 0 {
					return fmt.Errorf("pdta: too many preset × instrument zones for the file size: %w", ErrCorrupt)
				}
				ikLo, ikHi := rangeOf(iz.gen[genKeyRange])
				ivLo, ivHi := rangeOf(iz.gen[genVelRange])
				kLo, kHi, vLo, vHi := max(pkLo, ikLo), min(pkHi, ikHi), max(pvLo, ivLo), min(pvHi, ivHi)
				if kLo > kHi || vLo > vHi {
					continue
				}
				reg := Region{KeyLo: kLo, KeyHi: kHi, VelLo: vLo, VelHi: vHi, Sample: iz.sample, Gen: iz.gen}
				for g := 0; g < genCount; g++ {
					if g == genKeyRange || g == genVelRange || g == genInstrument || g == genSampleID || notAtPresetLevel[g] {
						continue
					}
					reg.Gen[g] += pz[g]
				}
				if budget--; budget < 0 {
					return fmt.Errorf("pdta: too many preset × instrument zones for the file size: %w", ErrCorrupt)
				}
				p.Regions = append(p.Regions, reg)
			}
		}
		id := p.Bank<<8 | p.Program&0xff
		if _, dup := sf.byID[id]; !dup {
			sf.byID[id] = len(sf.Presets)
		}
		sf.Presets = append(sf.Presets, p)
	}
	return nil
}

// Preset returns the preset for bank and program, falling back (as GM
// players do) to bank 0 for melodic banks, to bank 128 program 0 for drum
// kits, then to the first preset. It returns nil only for an empty bank.
func (sf *SoundFont) Preset(bank, program int) *Preset {
	if i, ok := sf.byID[bank<<8|program&0xff]; ok {
		return &sf.Presets[i]
	}
	if bank == 128 {
		if i, ok := sf.byID[128<<8]; ok {
			return &sf.Presets[i]
		}
	} else if i, ok := sf.byID[program&0xff]; ok {
		return &sf.Presets[i]
	}
	if len(sf.Presets) == 0 {
		return nil
	}
	return &sf.Presets[0]
}
