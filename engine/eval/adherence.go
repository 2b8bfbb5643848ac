package eval

import (
	"math"

	"github.com/amtstudio/amt/engine/midi"

	"github.com/amtstudio/amt/engine/token"
)

// TempoEdges are the MidiCaps tempo-bin edges in bpm. They cut the tempo
// axis into nine bins: below 40 is bin 0, [40, 60) bin 1, …, 210 and above
// bin 8; a tempo on an edge belongs to the bin above it (numpy.digitize).
var TempoEdges = [...]float64{40, 60, 70, 90, 110, 140, 160, 210}

// TempoBinNames names the nine bins of TempoEdges.
var TempoBinNames = [...]string{"Grave", "Largo", "Adagio", "Andante", "Moderato", "Allegro", "Vivace", "Presto", "Prestissimo"}

// TempoBin returns the MidiCaps bin (0–8) of a tempo in bpm.
func TempoBin(bpm float64) int {
	b := 0
	for _, e := range TempoEdges {
		if bpm >= e {
			b++
		}
	}
	return b
}

// DrumBarFloor is the share of bars that must hold drums for a piece to
// meet a request for drums (Adhere): the floor of issue 13, "drums in
// ≥ 90% of bars when asked", applied to each piece, so a suite whose every
// piece meets it also meets the floor on the mean share.
const DrumBarFloor = 0.9

// DrumFamily is the family index given to drums beside the 16 General MIDI
// program families (program/8).
const DrumFamily = 16

// FamilyName names a family index: 0–15 the General MIDI families of
// programs 8f … 8f+7, DrumFamily "Drums".
func FamilyName(f int) string {
	switch {
	case f == DrumFamily:
		return "Drums"
	case f >= 0 && f < DrumFamily:
		return midi.GMFamily(8 * f)
	}
	return "?"
}

// InstrumentScore compares the requested and measured instrument families.
// Precision is the share of measured families that were requested, Recall
// the share of requested families present, F1 their harmonic mean (each 0
// where its denominator is).
type InstrumentScore struct {
	Requested []string `json:"requested"`
	Measured  []string `json:"measured"`
	Precision float64  `json:"precision"`
	Recall    float64  `json:"recall"`
	F1        float64  `json:"f1"`
}

// Adherence is how far one piece meets the requested attributes. A check
// whose attribute was not requested is nil (omitted from JSON) and does not
// count toward ASA.
type Adherence struct {
	// TB: the measured tempo is in the requested tempo's MidiCaps bin;
	// TBT: in that bin or an adjacent one. The measured tempo is the
	// initial tempo.
	TB  *bool `json:"tb,omitempty"`
	TBT *bool `json:"tbt,omitempty"`
	// CK: the key estimated from the notes equals the requested key (tonic
	// pitch class and mode; pitch classes make enharmonic spellings equal).
	// CKD also accepts the relative key (C major ↔ A minor).
	CK  *bool `json:"ck,omitempty"`
	CKD *bool `json:"ckd,omitempty"`
	// Scale is the share of pitched notes in the requested key's scale
	// (Metrics.ScaleShare: major, or natural plus harmonic minor), set when
	// a key was requested; it does not count toward ASA.
	Scale *Num `json:"scale,omitempty"`
	// Meter: the initial time signature equals the requested one exactly.
	Meter *bool `json:"meter,omitempty"`
	// Instruments compares GM families when programs were requested; the
	// requested set includes drums when Drums is requested true. A family
	// is present when it plays a part: one of its programs plays in
	// PartBarFloor of the bars (or the share the request asks of it), drums
	// in PartBarFloor of the bars (issue 33). InstrumentsAny is the same
	// comparison with a family present as soon as it plays one note (the
	// definition before issue 33, kept beside it).
	Instruments    *InstrumentScore `json:"instruments,omitempty"`
	InstrumentsAny *InstrumentScore `json:"instruments_any,omitempty"`
	// Parts: when pitched programs were requested, how each plays (its
	// share of bars, notes a bar, share of the top line) and how many have
	// a real part (parts.go); met when all do.
	Parts *PartScore `json:"parts,omitempty"`
	// Drums: when drums were requested, drums play in at least
	// DrumBarFloor of the piece's bars (Metrics.DrumBarShare; one forced hit
	// no longer passes); when they were requested off, the piece has none.
	// DrumBars is the share of bars with drums (0 without drums), set
	// when drums were requested.
	Drums    *bool `json:"drums,omitempty"`
	DrumBars *Num  `json:"drum_bars,omitempty"`
	// Length: the measured bars are within 10% of the requested bars.
	Length *bool `json:"length,omitempty"`

	// ASA is the share of requested attributes met (Met / Checked), NaN
	// when none was requested. The attributes are tempo (TB), key (CK),
	// meter, instruments (met when every requested family is present:
	// recall 1), parts (every requested pitched program plays a real
	// part), drums and length; density and style are not checked.
	Checked int `json:"checked"`
	Met     int `json:"met"`
	ASA     Num `json:"asa"`
}

// Adhere scores a piece's metrics against the requested attributes (only
// the attributes that are set count; see token.Unspecified), every
// requested part asked PartBarFloor of the bars.
func Adhere(req token.Attributes, m *Metrics) Adherence {
	return AdhereWith(req, m, AdhereOptions{})
}

// AdhereWith is Adhere with what the request implies beyond its
// attributes (the share of bars asked of a part).
func AdhereWith(req token.Attributes, m *Metrics, o AdhereOptions) Adherence {
	var a Adherence
	count := func(ok bool) *bool {
		a.Checked++
		if ok {
			a.Met++
		}
		return &ok
	}
	if req.TempoBPM > 0 {
		hit, near := false, false
		if !math.IsNaN(m.TempoBPM) && m.TempoBPM > 0 {
			d := TempoBin(m.TempoBPM) - TempoBin(req.TempoBPM)
			hit, near = d == 0, d >= -1 && d <= 1
		}
		a.TB = count(hit)
		a.TBT = &near
	}
	if req.KeyTonic >= 0 && req.KeyTonic < 12 {
		exact, equiv := false, false
		if k := m.Key; k.Tonic >= 0 {
			exact = k.Tonic == req.KeyTonic && k.Minor == req.KeyMinor
			equiv = exact || relativeKey(req.KeyTonic, req.KeyMinor) == k.Tonic && k.Minor != req.KeyMinor
		}
		a.CK = count(exact)
		a.CKD = &equiv
		sc := Num(m.ScaleShare(req.KeyTonic, req.KeyMinor))
		a.Scale = &sc
	}
	if req.MeterNum > 0 && req.MeterDen > 0 {
		a.Meter = count(m.MeterNum == req.MeterNum && m.MeterDen == req.MeterDen)
	}
	if len(req.Programs) > 0 {
		var want, any, real uint32
		for _, p := range req.Programs {
			if p >= 0 && p < 128 {
				want |= 1 << (p / 8)
			}
		}
		if req.Drums != nil && *req.Drums {
			want |= 1 << DrumFamily
		}
		for _, p := range m.Programs {
			if p >= 0 && p < 128 {
				any |= 1 << (p / 8)
			}
		}
		// A family plays a part at the least share the request asks of
		// its programs (PartBarFloor when it names none of them).
		need := [DrumFamily]float64{}
		for f := range need {
			need[f] = PartBarFloor
		}
		for p, s := range o.PartShare {
			if p >= 0 && p < 128 && s >= 0 && want&(1<<(p/8)) != 0 {
				need[p/8] = min(need[p/8], s)
			}
		}
		if nb := float64(m.MeasuredBars); nb > 0 {
			for _, pt := range m.Parts {
				if f := pt.Program / 8; float64(pt.Bars)/nb >= need[f] {
					real |= 1 << f
				}
			}
		}
		if m.HasDrums {
			any |= 1 << DrumFamily
			if m.DrumBarShare >= PartBarFloor {
				real |= 1 << DrumFamily
			}
		}
		a.Instruments = scoreFamilies(want, real)
		a.InstrumentsAny = scoreFamilies(want, any)
		a.Checked++
		if want != 0 && want&real == want {
			a.Met++
		}
		if a.Parts = scoreParts(req.Programs, m, o); a.Parts != nil {
			count(a.Parts.Real == a.Parts.Requested)
		}
	}
	if req.Drums != nil {
		share := 0.0
		if m.HasDrums && !math.IsNaN(m.DrumBarShare) {
			share = m.DrumBarShare
		}
		if *req.Drums {
			a.Drums = count(share >= DrumBarFloor)
			a.DrumBars = (*Num)(&share)
		} else {
			a.Drums = count(!m.HasDrums)
		}
	}
	if req.Bars > 0 {
		want := float64(req.Bars)
		a.Length = count(!math.IsNaN(m.Bars) && math.Abs(m.Bars-want) <= 0.1*want)
	}
	a.ASA = Num(math.NaN())
	if a.Checked > 0 {
		a.ASA = Num(float64(a.Met) / float64(a.Checked))
	}
	return a
}

// scoreFamilies compares requested and measured family sets.
func scoreFamilies(want, got uint32) *InstrumentScore {
	sc := &InstrumentScore{Requested: families(want), Measured: families(got)}
	both := float64(popcount(want & got))
	if got != 0 {
		sc.Precision = both / float64(popcount(got))
	}
	if want != 0 {
		sc.Recall = both / float64(popcount(want))
	}
	if sc.Precision+sc.Recall > 0 {
		sc.F1 = 2 * sc.Precision * sc.Recall / (sc.Precision + sc.Recall)
	}
	return sc
}

// relativeKey returns the tonic of the relative key of the other mode: the
// relative minor of a major key is 9 semitones up (3 down), the relative
// major of a minor key 3 up.
func relativeKey(tonic int, minor bool) int {
	if minor {
		return (tonic + 3) % 12
	}
	return (tonic + 9) % 12
}

func families(set uint32) []string {
	out := []string{}
	for f := 0; f <= DrumFamily; f++ {
		if set&(1<<f) != 0 {
			out = append(out, FamilyName(f))
		}
	}
	return out
}

func popcount(x uint32) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// Rate is a share of pieces meeting a check, over the pieces where it was
// requested (N); Rate is NaN when N is 0.
type Rate struct {
	N    int `json:"n"`
	Rate Num `json:"rate"`
}

// AdherenceSummary averages the adherence of a set of pieces.
type AdherenceSummary struct {
	Pieces int  `json:"pieces"`
	TB     Rate `json:"tb"`
	TBT    Rate `json:"tbt"`
	CK     Rate `json:"ck"`
	CKD    Rate `json:"ckd"`
	Meter  Rate `json:"meter"`
	Drums  Rate `json:"drums"`
	Length Rate `json:"length"`
	// Scale is the mean share of notes in the requested scale over the
	// pieces that requested a key and have pitched notes.
	Scale Num `json:"scale"`
	// DrumBars is the mean share of bars with drums over the pieces that
	// requested drums (DrumBarPieces); NaN when none did.
	DrumBarPieces int `json:"drum_bar_pieces"`
	DrumBars      Num `json:"drum_bars"`
	// Instrument precision, recall and F1 averaged over the pieces where
	// programs were requested (InstrumentPieces), a family present when it
	// plays a part; F1Any with a family present at its first note (the
	// definition before issue 33).
	InstrumentPieces int `json:"instrument_pieces"`
	Precision        Num `json:"precision"`
	Recall           Num `json:"recall"`
	F1               Num `json:"f1"`
	F1Any            Num `json:"f1_any"`
	// Parts: the share of pieces whose every requested pitched program
	// plays a real part (PartsAll), and over all pieces the requested
	// pitched programs (PartsRequested), those with a real part
	// (PartsReal; PartShare = PartsReal / PartsRequested) and the cameos
	// (below PartNoteFloor notes a bar).
	PartsAll       Rate `json:"parts_all"`
	PartsRequested int  `json:"parts_requested"`
	PartsReal      int  `json:"parts_real"`
	PartShare      Num  `json:"part_share"`
	PartCameos     int  `json:"part_cameos"`
	// ASA is the mean of the pieces' ASA (pieces with no request skipped).
	ASA Num `json:"asa"`
}

// SummarizeAdherence averages adherence over pieces.
func SummarizeAdherence(as []Adherence) AdherenceSummary {
	type acc struct{ n, k int }
	var tb, tbt, ck, ckd, meter, drums, length, parts acc
	add := func(c *acc, b *bool) {
		if b != nil {
			c.n++
			if *b {
				c.k++
			}
		}
	}
	s := AdherenceSummary{Pieces: len(as)}
	var p, r, f, fAny, asa, drumBars, scale float64
	nasa, nscale := 0, 0
	for i := range as {
		a := &as[i]
		add(&tb, a.TB)
		add(&tbt, a.TBT)
		add(&ck, a.CK)
		add(&ckd, a.CKD)
		add(&meter, a.Meter)
		add(&drums, a.Drums)
		if a.Scale != nil && !math.IsNaN(float64(*a.Scale)) {
			nscale++
			scale += float64(*a.Scale)
		}
		if a.DrumBars != nil {
			s.DrumBarPieces++
			drumBars += float64(*a.DrumBars)
		}
		add(&length, a.Length)
		if a.Instruments != nil {
			s.InstrumentPieces++
			p += a.Instruments.Precision
			r += a.Instruments.Recall
			f += a.Instruments.F1
			if a.InstrumentsAny != nil {
				fAny += a.InstrumentsAny.F1
			}
		}
		if ps := a.Parts; ps != nil {
			all := ps.Real == ps.Requested
			add(&parts, &all)
			s.PartsRequested += ps.Requested
			s.PartsReal += ps.Real
			s.PartCameos += ps.Cameos
		}
		if a.Checked > 0 {
			asa += float64(a.ASA)
			nasa++
		}
	}
	rate := func(c acc) Rate {
		if c.n == 0 {
			return Rate{Rate: Num(math.NaN())}
		}
		return Rate{N: c.n, Rate: Num(float64(c.k) / float64(c.n))}
	}
	s.TB, s.TBT, s.CK, s.CKD = rate(tb), rate(tbt), rate(ck), rate(ckd)
	s.Meter, s.Drums, s.Length, s.PartsAll = rate(meter), rate(drums), rate(length), rate(parts)
	nan := Num(math.NaN())
	s.Precision, s.Recall, s.F1, s.F1Any, s.ASA, s.DrumBars = nan, nan, nan, nan, nan, nan
	s.Scale, s.PartShare = nan, nan
	if s.PartsRequested > 0 {
		s.PartShare = Num(float64(s.PartsReal) / float64(s.PartsRequested))
	}
	if nscale > 0 {
		s.Scale = Num(scale / float64(nscale))
	}
	if s.DrumBarPieces > 0 {
		s.DrumBars = Num(drumBars / float64(s.DrumBarPieces))
	}
	if n := float64(s.InstrumentPieces); n > 0 {
		s.Precision, s.Recall, s.F1, s.F1Any = Num(p/n), Num(r/n), Num(f/n), Num(fAny/n)
	}
	if nasa > 0 {
		s.ASA = Num(asa / float64(nasa))
	}
	return s
}
