package token

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/amtstudio/amt/engine/midi"
)

// Layout of the packed sort key of a note: onset (27 bits) | program (8) |
// pitch (7) | note index (22).
const (
	keyIndexBits = 22
	keyPitchBits = 7
	keyProgBits  = 8
	maxNotes     = 1 << keyIndexBits
	maxOnset     = 1 << (64 - keyIndexBits - keyPitchBits - keyProgBits)
)

// encoder holds reusable scratch buffers, so encoding allocates nothing per
// note in the steady state.
type encoder struct {
	keys   []uint64
	tmp    []uint64 // merge scratch
	runs   []int    // start of each track's keys
	aux    []uint16 // per note: duration bin << 8 | velocity bin
	tempos []gridEvent
	meters []gridEvent
	body   []uint16
}

type gridEvent struct {
	g int64
	i int // tempo bin or body meter index
}

var encoders = sync.Pool{New: func() any { return new(encoder) }}

// bodyStats is what encoding the body learns about the score.
type bodyStats struct {
	bars       int
	units      int64 // grid units of the bars (their meters' lengths)
	notes      int
	tempoBin   int // initial
	meter      int // initial body meter
	meterNum   int // initial meter as written in the score
	meterDen   int
	programs   [DrumProgram + 1]bool
	maxEndGrid int64
}

// quantizer maps ticks to grid units, rounding half up.
type quantizer struct{ p, tpb int64 }

func (q quantizer) at(tick int64) int64 {
	if tick <= 0 {
		return 0
	}
	return (tick*q.p + q.tpb/2) / q.tpb
}

// Quantize returns a note's onset and duration in grid units as the
// encoding sees them (duration at least one unit, before duration binning).
func (v *Vocab) Quantize(ticksPerBeat int, tick, dur int64) (onset, units int64) {
	q := quantizer{int64(v.cfg.PositionsPerBeat), int64(ticksPerBeat)}
	onset = q.at(tick)
	units = q.at(dur)
	if units < 1 {
		units = 1
	}
	return onset, units
}

// sortKeys sorts the note keys. Each track's notes come sorted by tick, so
// each track's keys are nearly sorted (only chord pitches out of order):
// each run is insertion-sorted (or fully sorted when far from order), then
// the runs are merged pairwise. It returns the sorted slice, which may be
// e.tmp's storage (the buffers then swap).
func (e *encoder) sortKeys(keys []uint64) []uint64 {
	runs := e.runs
	for r := 0; r+1 < len(runs); r++ {
		run := keys[runs[r]:runs[r+1]]
		moves, limit := 0, 8*len(run)+64
		for i := 1; i < len(run) && moves <= limit; i++ {
			x := run[i]
			j := i
			for j > 0 && run[j-1] > x {
				run[j] = run[j-1]
				j--
			}
			run[j] = x
			moves += i - j
		}
		if moves > limit {
			slices.Sort(run)
		}
	}
	if cap(e.tmp) < len(keys) {
		e.tmp = make([]uint64, len(keys), cap(keys))
	}
	src, dst := keys, e.tmp[:len(keys)]
	bounds := runs // run boundaries, compacted in place after each pass
	for len(bounds) > 2 {
		w := 1
		r := 0
		for ; r+2 < len(bounds); r += 2 {
			a, b, c := bounds[r], bounds[r+1], bounds[r+2]
			mergeInto(dst[a:c], src[a:b], src[b:c])
			bounds[w] = c
			w++
		}
		if r+1 < len(bounds) { // odd run out: copy it
			a, b := bounds[r], bounds[r+1]
			copy(dst[a:b], src[a:b])
			bounds[w] = b
			w++
		}
		bounds = bounds[:w]
		src, dst = dst, src
	}
	e.keys, e.tmp = src[:0], dst[:0]
	return src
}

func mergeInto(dst, a, b []uint64) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			dst[k] = a[i]
			i++
		} else {
			dst[k] = b[j]
			j++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// encodeBody writes the body tokens (Bar … last Duration, no EOS) into
// e.body and returns what it measured.
func (v *Vocab) encodeBody(e *encoder, s *midi.Score) (bodyStats, error) {
	var st bodyStats
	if s == nil {
		return st, fmt.Errorf("token: encode: nil score")
	}
	if s.TicksPerBeat <= 0 {
		return st, fmt.Errorf("token: encode: ticks per beat %d", s.TicksPerBeat)
	}
	q := quantizer{int64(v.cfg.PositionsPerBeat), int64(s.TicksPerBeat)}

	// Notes → packed sort keys.
	n := s.NoteCount()
	if n >= maxNotes {
		return st, fmt.Errorf("token: encode: %d notes: %w", n, ErrTooLong)
	}
	st.notes = n
	keys := e.keys[:0]
	aux := e.aux[:0]
	runs := e.runs[:0]
	for ti := range s.Tracks {
		tr := &s.Tracks[ti]
		runs = append(runs, len(keys))
		prog := tr.Program
		if tr.IsDrum {
			prog = DrumProgram
		} else if prog < 0 || prog > 127 {
			prog = 0
		}
		if len(tr.Notes) > 0 {
			st.programs[prog] = true
		}
		hi := uint64(prog) << (keyIndexBits + keyPitchBits)
		for ni := range tr.Notes {
			nt := &tr.Notes[ni]
			on := q.at(nt.Tick)
			if on >= maxOnset {
				return st, fmt.Errorf("token: encode: note at tick %d: %w", nt.Tick, ErrTooLong)
			}
			units := q.at(nt.Dur)
			if units < 1 {
				units = 1
			}
			db := v.DurationBin(int(min(units, math.MaxInt32)))
			if end := on + int64(v.durUnits[db]); end > st.maxEndGrid {
				st.maxEndGrid = end
			}
			keys = append(keys, uint64(on)<<(keyIndexBits+keyPitchBits+keyProgBits)|hi|
				uint64(nt.Pitch&127)<<keyIndexBits|uint64(len(aux)))
			aux = append(aux, uint16(db)<<8|uint16(v.VelocityBin(int(nt.Velocity))))
		}
	}
	e.aux, e.runs = aux, append(runs, len(keys))
	keys = e.sortKeys(keys)

	// Tempo map on the grid: the last event wins on a grid point; repeats
	// of the same bin are dropped.
	tempos := e.tempos[:0]
	initial := v.TempoBin(60e6 / float64(midi.DefaultMicrosPerBeat))
	for _, t := range s.Tempos {
		if t.MicrosPerBeat <= 0 {
			continue
		}
		g := q.at(t.Tick)
		b := v.TempoBin(60e6 / float64(t.MicrosPerBeat))
		if g == 0 {
			initial = b
			continue
		}
		if len(tempos) > 0 && tempos[len(tempos)-1].g == g {
			tempos[len(tempos)-1].i = b
		} else {
			tempos = append(tempos, gridEvent{g, b})
		}
	}
	e.tempos = tempos
	st.tempoBin = initial

	// Meter map: changes take effect at the first bar line at or after them.
	meters := e.meters[:0]
	st.meterNum, st.meterDen = 4, 4
	cur := v.bodyMeterIndex(Meter{4, 4})
	for _, m := range s.Meters {
		if m.Num <= 0 || m.Den <= 0 {
			continue
		}
		g := q.at(m.Tick)
		bi := v.bodyMeterIndex(Meter{m.Num, m.Den})
		if g == 0 {
			cur = bi
			st.meterNum, st.meterDen = m.Num, m.Den
			continue
		}
		meters = append(meters, gridEvent{g, bi})
	}
	e.meters = meters
	st.meter = cur

	body := e.body[:0]
	barLen := int64(v.bodyBarLen[cur])
	barStart := int64(0)
	bars := 1
	units := barLen
	body = append(body, v.Bar, v.tok(KindTimeSig, cur), v.tok(KindTempo, initial))
	curTempo := initial
	pos := int64(-1)
	prog := -1
	mi, ti := 0, 0
	tooLong := false
	advance := func(g int64) {
		for g >= barStart+barLen {
			barStart += barLen
			bars++
			if bars > v.cfg.MaxBars {
				tooLong = true
				return
			}
			body = append(body, v.Bar)
			next := cur
			for mi < len(meters) && meters[mi].g <= barStart {
				next = meters[mi].i
				mi++
			}
			if next != cur {
				cur = next
				barLen = int64(v.bodyBarLen[cur])
				body = append(body, v.tok(KindTimeSig, cur))
			}
			units += barLen
			pos = -1
		}
	}
	const onShift = keyIndexBits + keyPitchBits + keyProgBits
	for _, k := range keys {
		g := int64(k >> onShift)
		for ti < len(tempos) && tempos[ti].g <= g {
			t := tempos[ti]
			ti++
			if t.i == curTempo {
				continue
			}
			curTempo = t.i
			advance(t.g)
			if tooLong {
				break
			}
			if p := t.g - barStart; p == 0 && pos < 0 {
				body = append(body, v.tok(KindTempo, t.i))
			} else {
				body = append(body, v.tok(KindPosition, int(p)), v.tok(KindTempo, t.i))
				pos, prog = p, -1
				// A Position Tempo pair must be followed by a Program even
				// when the note program is the same as before.
			}
		}
		advance(g)
		if tooLong {
			break
		}
		if p := g - barStart; p != pos {
			body = append(body, v.tok(KindPosition, int(p)))
			pos, prog = p, -1
		}
		np := int(k>>(keyIndexBits+keyPitchBits)) & (1<<keyProgBits - 1)
		if np != prog {
			body = append(body, v.tok(KindProgram, np))
			prog = np
		}
		a := aux[k&(1<<keyIndexBits-1)]
		body = append(body, v.tok(KindPitch, int(k>>keyIndexBits)&127),
			v.tok(KindVelocity, int(a&0xff)), v.tok(KindDuration, int(a>>8)))
	}
	// Bars while notes still sound.
	if !tooLong && st.maxEndGrid > barStart+barLen {
		advance(st.maxEndGrid - 1)
	}
	e.body = body
	if tooLong {
		return st, fmt.Errorf("token: encode: more than %d bars: %w", v.cfg.MaxBars, ErrTooLong)
	}
	st.bars = bars
	st.units = units
	return st, nil
}

// Measure returns the attributes of a score measured with the default
// vocabulary: every field set except Style (-1). See (*Vocab).Measure.
func Measure(s *midi.Score, m midi.Metadata) Attributes {
	return defaultVocab().Measure(s, m)
}

var defaultVocab = sync.OnceValue(DefaultVocab)

// Measure returns the attributes of a score, all set except Style (-1) and
// Genre (which the notes do not tell; the caller adds it from metadata):
// the initial tempo and meter as the body encodes them, the key from the
// metadata's EstimatedKey (Krumhansl–Schmuckler over the notes, not the
// declared signature, so the label is what the music sounds like), the programs and drums
// of the tracks that have notes, the number of bars of the body and the
// density bin (DensityBin's unit). These are exactly the labels Encode accepts
// for the score. A score that cannot be encoded yields what can be measured
// (Bars 0 and Density -1 then).
func (v *Vocab) Measure(s *midi.Score, m midi.Metadata) Attributes {
	e := encoders.Get().(*encoder)
	defer encoders.Put(e)
	st, err := v.encodeBody(e, s)
	return v.attributesOf(&st, err == nil, m)
}

func (v *Vocab) attributesOf(st *bodyStats, ok bool, m midi.Metadata) Attributes {
	a := Unspecified()
	a.TempoBPM = v.TempoBPM(st.tempoBin)
	if m.TempoBPM > 0 && v.TempoBin(m.TempoBPM) == st.tempoBin {
		a.TempoBPM = m.TempoBPM // the exact figure when it is the one encoded
	}
	a.KeyTonic = ((m.EstimatedKey.Tonic % 12) + 12) % 12
	a.KeyMinor = m.EstimatedKey.Minor
	a.MeterNum, a.MeterDen = st.meterNum, st.meterDen
	a.Programs = []int{}
	for p := 0; p < 128; p++ {
		if st.programs[p] {
			a.Programs = append(a.Programs, p)
		}
	}
	drums := st.programs[DrumProgram]
	a.Drums = &drums
	if ok {
		a.Bars = st.bars
		a.Density = v.DensityBin(v.density(st.notes, st.bars, st.units))
	}
	return a
}

// density is the vocabulary's density measure of notes over bars spanning
// units grid units: notes per quarter note (version 2) or per bar.
func (v *Vocab) density(notes, bars int, units int64) float64 {
	if v.cfg.DensityPerBeat {
		if units <= 0 {
			return 0
		}
		return float64(notes) * float64(v.cfg.PositionsPerBeat) / float64(units)
	}
	if bars <= 0 {
		return 0
	}
	return float64(notes) / float64(bars)
}

// Density returns the vocabulary's density measure (see DensityBin) of
// notes over bars spanning units grid units.
func (v *Vocab) Density(notes, bars int, units int64) float64 { return v.density(notes, bars, units) }

// Encode returns the token sequence of a score: the attribute prefix of a
// (as Prefix, except that the style slot is always present, STYLE_NONE
// while a.Style is -1, so StyleIndex can patch it after clustering), the
// body and EOS. Attributes that constrain the body (tempo, meter,
// instruments, length) must agree with the score, else the error wraps
// ErrMismatch; Measure gives attributes that do.
func (v *Vocab) Encode(s *midi.Score, a Attributes) ([]uint16, error) {
	return v.AppendEncode(nil, s, a)
}

// AppendEncode appends the encoding of s to dst and returns the extended
// slice (on error, dst unchanged). Reusing dst avoids all per-call
// allocation of the token buffer.
func (v *Vocab) AppendEncode(dst []uint16, s *midi.Score, a Attributes) ([]uint16, error) {
	e := encoders.Get().(*encoder)
	defer encoders.Put(e)
	st, err := v.encodeBody(e, s)
	if err != nil {
		return dst, err
	}
	if err := v.check(&st, a); err != nil {
		return dst, err
	}
	if a.Programs == nil && v.cfg.InstrumentsRequired {
		// The grammar wants the instruments listed: the score's own.
		m := v.attributesOf(&st, true, midi.Metadata{})
		a.Programs, a.Drums = m.Programs, m.Drums
		if len(a.Programs) == 0 && !*a.Drums {
			a.Programs = []int{0} // a score without notes lists piano
		}
	}
	return v.appendSequence(dst, e.body, a)
}

// AppendEncodeMeasured measures and encodes in one pass: it is Measure
// followed by AppendEncode at the cost of one encoding. The key comes from
// m; Style is -1 (STYLE_NONE in the sequence).
func (v *Vocab) AppendEncodeMeasured(dst []uint16, s *midi.Score, m midi.Metadata) ([]uint16, Attributes, error) {
	return v.AppendEncodeMeasuredGenre(dst, s, m, "")
}

// AppendEncodeMeasuredGenre is AppendEncodeMeasured with the piece's genre
// family (which the notes do not tell) in the prefix; a genre the
// vocabulary lacks is left out.
func (v *Vocab) AppendEncodeMeasuredGenre(dst []uint16, s *midi.Score, m midi.Metadata, genre string) ([]uint16, Attributes, error) {
	e := encoders.Get().(*encoder)
	defer encoders.Put(e)
	st, err := v.encodeBody(e, s)
	if err != nil {
		return dst, Unspecified(), err
	}
	a := v.attributesOf(&st, true, m)
	if v.GenreIndex(genre) >= 0 {
		a.Genre = genre
	}
	out, err := v.appendSequence(dst, e.body, a)
	return out, a, err
}

func (v *Vocab) appendSequence(dst, body []uint16, a Attributes) ([]uint16, error) {
	if a.Style >= v.cfg.Styles {
		return dst, fmt.Errorf("token: encode: style %d out of 0..%d", a.Style, v.cfg.Styles-1)
	}
	dst = v.appendPrefix(dst, a, true)
	dst = append(dst, body...)
	return append(dst, v.EOS), nil
}

// check verifies that the attributes agree with the encoded body.
func (v *Vocab) check(st *bodyStats, a Attributes) error {
	if a.TempoBPM > 0 {
		if b := v.TempoBin(a.TempoBPM); b != st.tempoBin {
			return fmt.Errorf("token: encode: tempo %.4g bpm (bin %s) but the score starts at bin %s: %w",
				a.TempoBPM, v.tempoLabel(b), v.tempoLabel(st.tempoBin), ErrMismatch)
		}
	}
	if a.MeterNum > 0 && a.MeterDen > 0 {
		mi := v.MeterIndex(a.MeterNum, a.MeterDen)
		if mi < len(v.meterBody) {
			if v.meterBody[mi] != st.meter {
				return fmt.Errorf("token: encode: meter %d/%d but the score starts in %s: %w",
					a.MeterNum, a.MeterDen, v.cfg.BodyMeters[st.meter], ErrMismatch)
			}
		}
	}
	if a.Programs != nil {
		var want [DrumProgram + 1]bool
		for _, p := range instrumentList(a.Programs, a.Drums != nil && *a.Drums) {
			want[p] = true
		}
		for p, used := range st.programs {
			if used && !want[p] {
				name := fmt.Sprint(p)
				if p == DrumProgram {
					name = "drums"
				}
				return fmt.Errorf("token: encode: the score plays program %s, not among the attributes' instruments: %w", name, ErrMismatch)
			}
		}
	}
	if a.Bars > 0 {
		lo, hi := v.LengthRange(v.LengthBin(a.Bars))
		if st.bars < lo || st.bars > hi {
			return fmt.Errorf("token: encode: length %d bars but the score has %d: %w", a.Bars, st.bars, ErrMismatch)
		}
	}
	return nil
}

// Prefix returns the attribute prefix BOS … SEP of a, in the fixed order
// TEMPO_BIN, KEY, METER, GENRE, INSTRUMENT…, DENSITY, LENGTH, STYLE (a genre
// the vocabulary does not have is left out). Unset
// attributes are omitted: the model, trained with attribute dropout, then
// chooses those aspects of the music itself (to have it state them
// explicitly, push only BOS and the forced tokens through a Grammar with
// Force and let the model sample the free slots). Instruments are listed
// only when Programs is non-nil (DRUMS last when *Drums); a Programs list
// also restricts the body's Program tokens to it.
func (v *Vocab) Prefix(a Attributes) []uint16 {
	return v.appendPrefix(make([]uint16, 0, 16), a, false)
}

func (v *Vocab) appendPrefix(dst []uint16, a Attributes, styleSlot bool) []uint16 {
	dst = append(dst, v.BOS)
	if a.TempoBPM > 0 {
		dst = append(dst, v.tok(KindTempoAttr, v.TempoBin(a.TempoBPM)))
	}
	if a.KeyTonic >= 0 {
		dst = append(dst, v.tok(KindKeyAttr, KeyIndex(a.KeyTonic, a.KeyMinor)))
	}
	if a.MeterNum > 0 && a.MeterDen > 0 {
		dst = append(dst, v.tok(KindMeterAttr, v.MeterIndex(a.MeterNum, a.MeterDen)))
	}
	if g := v.GenreIndex(a.Genre); g >= 0 {
		dst = append(dst, v.tok(KindGenreAttr, g))
	}
	if a.Programs != nil {
		for _, p := range instrumentList(a.Programs, a.Drums != nil && *a.Drums) {
			dst = append(dst, v.tok(KindInstrumentAttr, p))
		}
	}
	if a.Density >= 0 {
		dst = append(dst, v.tok(KindDensityAttr, min(a.Density, v.count[KindDensityAttr]-1)))
	}
	if a.Bars > 0 && a.Bars <= v.cfg.MaxBars {
		dst = append(dst, v.tok(KindLengthAttr, v.LengthBin(a.Bars)))
	}
	switch {
	case a.Style >= 0 && a.Style < v.cfg.Styles:
		dst = append(dst, v.tok(KindStyleAttr, a.Style))
	case styleSlot:
		dst = append(dst, v.StyleNone)
	}
	return append(dst, v.SEP)
}

// StyleIndex returns the position of the STYLE token in an encoded
// sequence (searched in the prefix, before SEP), or -1 when there is none.
func (v *Vocab) StyleIndex(toks []uint16) int {
	first, n := v.Range(KindStyleAttr)
	for i, t := range toks {
		if t == v.SEP {
			break
		}
		if t >= first && int(t-first) < n {
			return i
		}
	}
	return -1
}

// Style returns the STYLE_k token (STYLE_NONE for k < 0 or out of range).
func (v *Vocab) Style(k int) uint16 {
	if k < 0 || k >= v.cfg.Styles {
		return v.StyleNone
	}
	return v.tok(KindStyleAttr, k)
}
