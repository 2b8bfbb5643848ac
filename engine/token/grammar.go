package token

import (
	"fmt"
	"sort"
)

// Prefix slots, in their fixed order.
const (
	slotTempo = iota
	slotKey
	slotMeter
	slotGenre
	slotInstrument
	slotDensity
	slotLength
	slotStyle
	numSlots
)

var slotKinds = [numSlots]Kind{KindTempoAttr, KindKeyAttr, KindMeterAttr, KindGenreAttr, KindInstrumentAttr,
	KindDensityAttr, KindLengthAttr, KindStyleAttr}

type phase uint8

const (
	phStart  phase = iota // expecting BOS
	phPrefix              // attribute tokens or SEP
	phBody
	phDone // after EOS
)

type bodyState uint8

const (
	bsStart        bodyState = iota // after SEP: Bar
	bsFirstBar                      // after the first Bar: TimeSig
	bsFirstMeter                    // after the first TimeSig: Tempo
	bsBarHead                       // after a later Bar: TimeSig, Tempo, Position, Bar, EOS
	bsAfterTimeSig                  // after a later TimeSig: Tempo, Position, Bar, EOS
	bsAfterTempo                    // after a bar-head Tempo: Position, Bar, EOS
	bsPos                           // after Position: Tempo, Program
	bsPosTempo                      // after Position Tempo: Program, later Position, Bar, EOS
	bsProgram                       // after Program: Pitch
	bsPitch                         // after Pitch: Velocity
	bsVelocity                      // after Velocity: Duration
	bsNote                          // after Duration: Pitch, Program, later Position, Bar, EOS
)

var bodyStateNames = [...]string{"after SEP", "after the first Bar", "after the first TimeSig",
	"after Bar", "after TimeSig", "after Tempo", "after Position", "after Position Tempo",
	"after Program", "after Pitch", "after Velocity", "after Duration"}

// Grammar is the incremental state machine of valid token sequences:
//
//	BOS [TEMPO_BIN] [KEY] [METER] [GENRE] [INSTRUMENT…ascending] [DENSITY] [LENGTH] [STYLE] SEP
//	Bar TimeSig Tempo (first bar header: meter and tempo always stated)
//	( Bar [TimeSig] [Tempo]
//	| Position [Tempo] (Program Pitch Velocity Duration (Pitch Velocity Duration)*)*
//	)* EOS
//
// Positions rise strictly within a bar and are below the bar's length
// (positions per bar follow the current TimeSig). The attribute prefix also
// constrains the body: the first Tempo is the TEMPO_BIN, the first TimeSig
// is the METER, Program tokens are among the INSTRUMENT tokens (when any are
// given), and the number of bars lies in the LENGTH bin. With a vocabulary
// whose Config.InstrumentsRequired is set, at least one INSTRUMENT must come
// before SEP. Every sequence it allows, stopped anywhere, decodes to a valid
// Score.
//
// A Grammar is not safe for concurrent use; make one per sequence.
type Grammar struct {
	v  *Vocab
	ph phase

	// Prefix.
	slot      int // next slot allowed
	lastInstr int // last INSTRUMENT index pushed, -1 none
	tempoAttr int // constraints taken from the prefix; -1 none
	meterAttr int
	lengthBin int
	hasInstr  bool
	instr     [DrumProgram + 1]bool

	// Forced attributes (Force); -1 unforced.
	forced      bool
	fTempo      int
	fKey        int
	fMeter      int
	fGenre      int
	fDensity    int
	fLength     int
	fStyle      int
	fInstr      []int // required instruments, ascending
	fExclusive  bool  // only fInstr allowed
	fNoDrums    bool
	minBars     int
	maxBars     int
	bodyState   bodyState
	bars        int
	barLen      int
	pos         int
	numPushed   int
	lastProgram int

	// Canonical onsets (Canonical): the open onset's current program group
	// (program, last pitch, pitches so far; -1 none) and the chord cap.
	canon    bool
	maxChord int
	grpProg  int
	grpPitch int
	grpCount int
}

// NewGrammar returns a grammar at the start of a sequence (expecting BOS).
func (v *Vocab) NewGrammar() *Grammar {
	g := &Grammar{v: v}
	g.Reset()
	return g
}

// Reset returns the grammar to the start of a sequence and clears Force.
func (g *Grammar) Reset() {
	*g = Grammar{v: g.v, lastInstr: -1, tempoAttr: -1, meterAttr: -1, lengthBin: -1,
		fTempo: -1, fKey: -1, fMeter: -1, fGenre: -1, fDensity: -1, fLength: -1, fStyle: -1,
		maxBars: g.v.cfg.MaxBars, pos: -1, lastProgram: -1, fInstr: g.fInstr[:0], grpProg: -1, grpPitch: -1}
}

// Canonical makes the notes of one onset follow the encoder's order from
// here on (Reset clears it): each program once, in ascending order (drums
// last), its pitches strictly ascending, so one program never strikes the
// same pitch twice at one instant, and at most maxChord pitches for a
// pitched program (0: no cap; drums have none). Every encoding of a score
// without same-pitch doubles and with chords within the cap is accepted
// (TestGrammarCanonical). Why (issue 24): the shipped model struck the same
// pitch twice at one onset for 17% of its notes and stacked chords of 11–12
// notes in one program, where the corpora hold 0–3% doubles and chords of
// at most 6 notes in 99% of onsets.
func (g *Grammar) Canonical(maxChord int) {
	g.canon, g.maxChord = true, max(maxChord, 0)
}

// Force makes the attributes that a sets mandatory in the prefix while the
// unset ones stay free for the model to sample (in prefix order): a set
// attribute's slot allows only its token and cannot be skipped. Programs,
// when non-nil, is the exact instrument list (plus DRUMS when *Drums); with
// Programs nil, Drums true requires the DRUMS token and Drums false forbids
// it. Call it before pushing the first attribute token.
func (g *Grammar) Force(a Attributes) {
	v := g.v
	g.forced = true
	if a.TempoBPM > 0 {
		g.fTempo = v.TempoBin(a.TempoBPM)
	}
	if a.KeyTonic >= 0 {
		g.fKey = KeyIndex(a.KeyTonic, a.KeyMinor)
	}
	if a.MeterNum > 0 && a.MeterDen > 0 {
		g.fMeter = v.MeterIndex(a.MeterNum, a.MeterDen)
	}
	g.fGenre = v.GenreIndex(a.Genre)
	if a.Density >= 0 {
		g.fDensity = min(a.Density, v.count[KindDensityAttr]-1)
	}
	if a.Bars > 0 {
		g.fLength = v.LengthBin(a.Bars)
	}
	if a.Style >= 0 && a.Style < v.cfg.Styles {
		g.fStyle = a.Style
	}
	g.fInstr = g.fInstr[:0]
	if a.Programs != nil {
		g.fExclusive = true
		g.fInstr = append(g.fInstr, instrumentList(a.Programs, false)...)
	}
	if a.Drums != nil {
		if *a.Drums {
			g.fInstr = append(g.fInstr, DrumProgram)
		} else {
			g.fNoDrums = true
		}
	}
}

// instrumentList returns the sorted unique programs in 0..127, plus
// DrumProgram when drums.
func instrumentList(programs []int, drums bool) []int {
	out := make([]int, 0, len(programs)+1)
	for _, p := range programs {
		if p >= 0 && p < 128 {
			out = append(out, p)
		}
	}
	sort.Ints(out)
	j := 0
	for i, p := range out {
		if i == 0 || p != out[j-1] {
			out[j] = p
			j++
		}
	}
	out = out[:j]
	if drums {
		out = append(out, DrumProgram)
	}
	return out
}

// Done reports whether the sequence has ended (EOS pushed).
func (g *Grammar) Done() bool { return g.ph == phDone }

// Bars returns the number of Bar tokens pushed so far.
func (g *Grammar) Bars() int { return g.bars }

// Position returns the open bar's last Position (−1 before the first) and
// its length in positions (0 before its TimeSig).
func (g *Grammar) Position() (pos, barLen int) { return g.pos, g.barLen }

// Only returns the kind of the next token when the grammar allows one kind
// only inside a note (Pitch after Program, Velocity after Pitch, Duration
// after Velocity); ok is false elsewhere.
func (g *Grammar) Only() (k Kind, ok bool) {
	if g.ph != phBody {
		return 0, false
	}
	switch g.bodyState {
	case bsProgram:
		return KindPitch, true
	case bsPitch:
		return KindVelocity, true
	case bsVelocity:
		return KindDuration, true
	}
	return 0, false
}

// AfterNote reports whether the last token ended a note (a Duration): the
// next decides what follows it (another pitch, another program, a later
// onset, the bar line or the end).
func (g *Grammar) AfterNote() bool { return g.ph == phBody && g.bodyState == bsNote }

// InBody reports whether SEP has been pushed.
func (g *Grammar) InBody() bool { return g.ph >= phBody }

// Allow sets mask[i] to whether token i is allowed next, for every i <
// len(mask) (len(mask) should be Size()). It does not allocate.
func (g *Grammar) Allow(mask []bool) {
	clear(mask)
	g.each(func(lo, hi uint16) {
		for t := int(lo); t <= int(hi) && t < len(mask); t++ {
			mask[t] = true
		}
	})
}

// Allowed reports whether tok is allowed next.
func (g *Grammar) Allowed(tok uint16) bool {
	ok := false
	g.each(func(lo, hi uint16) {
		if tok >= lo && tok <= hi {
			ok = true
		}
	})
	return ok
}

// each calls fn with every allowed id range [lo, hi].
func (g *Grammar) each(fn func(lo, hi uint16)) {
	v := g.v
	one := func(t uint16) { fn(t, t) }
	all := func(k Kind) { fn(v.base[k], v.base[k]+uint16(v.count[k]-1)) }
	switch g.ph {
	case phStart:
		one(v.BOS)
	case phPrefix:
		g.eachPrefix(fn)
	case phBody:
		switch g.bodyState {
		case bsStart:
			one(v.Bar)
		case bsFirstBar:
			switch {
			case g.meterAttr >= 0 && g.meterAttr < len(v.meterBody):
				one(v.tok(KindTimeSig, v.meterBody[g.meterAttr]))
			default:
				all(KindTimeSig)
			}
		case bsFirstMeter:
			if g.tempoAttr >= 0 {
				one(v.tok(KindTempo, g.tempoAttr))
			} else {
				all(KindTempo)
			}
		case bsBarHead, bsAfterTimeSig, bsAfterTempo, bsPosTempo, bsNote:
			st := g.bodyState
			if st == bsBarHead {
				all(KindTimeSig)
			}
			if st == bsBarHead || st == bsAfterTimeSig {
				all(KindTempo)
			}
			if st == bsPosTempo || st == bsNote {
				g.eachProgram(fn)
			}
			if st == bsNote {
				g.eachPitch(fn)
			}
			if g.pos+1 < g.barLen {
				fn(v.tok(KindPosition, g.pos+1), v.tok(KindPosition, g.barLen-1))
			}
			if g.bars < g.maxBars {
				one(v.Bar)
			}
			if g.bars >= g.minBars {
				one(v.EOS)
			}
		case bsPos:
			all(KindTempo)
			g.eachProgram(fn)
		case bsProgram:
			all(KindPitch)
		case bsPitch:
			all(KindVelocity)
		case bsVelocity:
			all(KindDuration)
		}
	case phDone:
		// nothing
	}
}

func (g *Grammar) eachProgram(fn func(lo, hi uint16)) {
	v := g.v
	lo := 0
	if g.canon {
		lo = g.grpProg + 1 // the programs after the open group's
	}
	if lo > DrumProgram {
		return
	}
	if !g.hasInstr {
		fn(v.base[KindProgram]+uint16(lo), v.base[KindProgram]+DrumProgram)
		return
	}
	for p, ok := range g.instr[lo:] {
		p += lo
		if ok {
			t := v.tok(KindProgram, p)
			fn(t, t)
		}
	}
}

func (g *Grammar) eachPrefix(fn func(lo, hi uint16)) {
	v := g.v
	forcedAt := func(s int) int {
		switch s {
		case slotTempo:
			return g.fTempo
		case slotKey:
			return g.fKey
		case slotMeter:
			return g.fMeter
		case slotGenre:
			return g.fGenre
		case slotDensity:
			return g.fDensity
		case slotLength:
			return g.fLength
		case slotStyle:
			return g.fStyle
		}
		return -1
	}
	for s := g.slot; s < numSlots; s++ {
		k := slotKinds[s]
		first, n := v.base[k], v.count[k]
		if n == 0 {
			continue // a kind this vocabulary lacks (GENRE in version 1)
		}
		if s == slotInstrument {
			// With InstrumentsRequired the slot cannot be passed before one
			// instrument is listed.
			must := v.cfg.InstrumentsRequired && !g.hasInstr
			lo, hi := g.lastInstr+1, DrumProgram
			if g.forced && g.fNoDrums {
				hi = DrumProgram - 1
			}
			if g.forced {
				next := -1
				for _, p := range g.fInstr {
					if p > g.lastInstr {
						next = p
						break
					}
				}
				if next >= 0 {
					if g.fExclusive {
						lo = next
					}
					fn(first+uint16(lo), first+uint16(next))
					return // the required instrument cannot be skipped
				}
				if g.fExclusive {
					continue
				}
			}
			if lo <= hi {
				fn(first+uint16(lo), first+uint16(hi))
			}
			if must {
				return
			}
			continue
		}
		if g.forced {
			if f := forcedAt(s); f >= 0 {
				fn(first+uint16(f), first+uint16(f))
				return
			}
		}
		fn(first, first+uint16(n-1))
	}
	fn(v.SEP, v.SEP)
}

// eachPitch gives the pitches allowed after a note of the open group.
func (g *Grammar) eachPitch(fn func(lo, hi uint16)) {
	v := g.v
	if !g.canon {
		fn(v.base[KindPitch], v.base[KindPitch]+uint16(v.count[KindPitch]-1))
		return
	}
	if g.maxChord > 0 && g.grpProg != DrumProgram && g.grpCount >= g.maxChord {
		return
	}
	if lo := g.grpPitch + 1; lo < v.count[KindPitch] {
		fn(v.base[KindPitch]+uint16(lo), v.base[KindPitch]+uint16(v.count[KindPitch]-1))
	}
}

// Push advances the grammar by one token, or returns an error wrapping
// ErrNotAllowed (the grammar is then unchanged).
func (g *Grammar) Push(tok uint16) error {
	if !g.Allowed(tok) {
		return fmt.Errorf("token: %s (id %d) at index %d %s: %w", g.v.Name(tok), tok, g.numPushed, g.where(), ErrNotAllowed)
	}
	g.numPushed++
	v := g.v
	k, i := v.Kind(tok)
	switch g.ph {
	case phStart:
		g.ph = phPrefix
		return nil
	case phPrefix:
		if tok == v.SEP {
			g.ph = phBody
			g.bodyState = bsStart
			if g.lengthBin >= 0 {
				g.minBars, g.maxBars = v.LengthRange(g.lengthBin)
			} else {
				g.minBars, g.maxBars = 1, v.cfg.MaxBars
			}
			g.minBars = max(g.minBars, 1)
			return nil
		}
		for s := range slotKinds {
			if slotKinds[s] == k {
				g.slot = s + 1
				switch k {
				case KindTempoAttr:
					g.tempoAttr = i
				case KindMeterAttr:
					g.meterAttr = i
				case KindLengthAttr:
					g.lengthBin = i
				case KindInstrumentAttr:
					g.slot = s // more instruments may follow
					g.lastInstr = i
					g.hasInstr = true
					g.instr[i] = true
				}
			}
		}
		return nil
	case phBody:
	default:
		return nil
	}
	switch k {
	case KindSpecial: // EOS
		g.ph = phDone
	case KindBar:
		g.bars++
		g.pos = -1
		g.grpProg, g.grpPitch, g.grpCount = -1, -1, 0
		if g.bodyState == bsStart {
			g.bodyState = bsFirstBar
		} else {
			g.bodyState = bsBarHead
		}
	case KindTimeSig:
		g.barLen = v.bodyBarLen[i]
		if g.bodyState == bsFirstBar {
			g.bodyState = bsFirstMeter
		} else {
			g.bodyState = bsAfterTimeSig
		}
	case KindTempo:
		if g.bodyState == bsPos {
			g.bodyState = bsPosTempo
		} else {
			g.bodyState = bsAfterTempo
		}
	case KindPosition:
		g.pos = i
		g.bodyState = bsPos
		g.grpProg, g.grpPitch, g.grpCount = -1, -1, 0
	case KindProgram:
		g.lastProgram = i
		g.bodyState = bsProgram
		g.grpProg, g.grpPitch, g.grpCount = i, -1, 0
	case KindPitch:
		g.bodyState = bsPitch
		g.grpPitch = i
		g.grpCount++
	case KindVelocity:
		g.bodyState = bsVelocity
	case KindDuration:
		g.bodyState = bsNote
	}
	return nil
}

// where describes the grammar state for error messages.
func (g *Grammar) where() string {
	switch g.ph {
	case phStart:
		return "at the start (want BOS)"
	case phPrefix:
		return "in the attribute prefix"
	case phDone:
		return "after EOS"
	}
	return fmt.Sprintf("in bar %d %s", g.bars, bodyStateNames[g.bodyState])
}

// complete reports whether the sequence so far ends at a boundary where
// stopping loses nothing (not inside a note).
func (g *Grammar) complete() bool {
	if g.ph != phBody {
		return true
	}
	switch g.bodyState {
	case bsProgram, bsPitch, bsVelocity:
		return false
	}
	return true
}
