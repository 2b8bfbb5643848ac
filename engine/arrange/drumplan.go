package arrange

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/amtstudio/amt/engine/midi"
)

// Tempo stretch limits: a performance plays under a piece whose tempo (in
// the performance's beats) is between MinStretch and MaxStretch times its
// own. Fills, one bar long, stretch further.
const (
	MinStretch     = 0.8
	MaxStretch     = 1.25
	MinFillStretch = 2.0 / 3
	MaxFillStretch = 1.5
	// MinDrumChoices: the style tiers of a groove are taken together until
	// this many performances fit the piece, so one performance does not
	// drum under every piece of a style.
	MinDrumChoices = 3
	// SectionBars is the phrase length assumed where a source marks no
	// sections (POP909): a fill every 8 bars from the first downbeat.
	SectionBars = 8
)

// drumTiers lists, per groove tag, the Groove MIDI styles that may drum
// under the groove, best first; a style without "/" takes its sub-styles
// too. Tags not listed take their family's tiers (familyDrums). An empty
// list keeps MMA's drums (no drummer of the dataset plays a polka or a
// tango).
var tagDrums = map[string][][]string{
	"bossanova":         {{"latin/brazilian-bossa"}, {"latin/brazilian", "latin/brazilian-baiao"}},
	"samba":             {{"latin/brazilian-samba", "latin/samba"}, {"latin/brazilian-sambareggae"}},
	"merengue":          {{"latin/merengue", "latin/dominican-merengue"}, {"latin"}},
	"chacha":            {{"neworleans/chacha"}, {"afrocuban", "latin"}},
	"rhumba":            {{"afrocuban/rhumba"}, {"afrocuban", "latin"}},
	"jazzrhumba":        {{"afrocuban/rhumba"}, {"afrocuban", "latin"}},
	"calypso":           {{"afrocuban/calypso"}, {"afrocuban", "latin"}},
	"tango":             {},
	"lighttango":        {},
	"ska":               {{"reggae"}, {"latin/brazilian-sambareggae", "latin/reggaeton"}},
	"dixie":             {{"neworleans"}, {"jazz"}},
	"march":             {{"neworleans/secondline", "jazz/march"}},
	"dixiemarch":        {{"neworleans/secondline", "jazz/march"}},
	"bwmarch":           {{"neworleans/secondline", "jazz/march"}},
	"jazzrock":          {{"jazz/fusion", "jazz/funk"}, {"funk"}},
	"folkrock":          {{"rock/folk"}, {"rock"}},
	"twist":             {{"rock/rockabilly"}, {"rock"}},
	"50srock":           {{"rock/rockabilly"}, {"rock"}},
	"latinwaltz":        {{"latin"}, {"jazz"}},
	"lfusion":           {{"funk/latin", "latin"}},
	"casio-latinfusion": {{"funk/latin", "latin"}},
	"casio-triphop":     {{"hiphop"}},
}

// familyDrums lists the styles per groove family.
var familyDrums = map[string][][]string{
	"pop":        {{"pop", "soul"}, {"rock"}},
	"rock":       {{"rock", "punk"}, {"pop"}},
	"ballad":     {{"pop/soft", "soul"}, {"pop", "rock"}},
	"jazz":       {{"jazz"}, {"neworleans"}},
	"blues":      {{"blues", "rock/shuffle", "neworleans/shuffle", "funk/purdieshuffle"}, {"jazz"}},
	"latin":      {{"latin", "afrocuban"}},
	"funk":       {{"funk", "soul", "neworleans/funk"}, {"hiphop"}},
	"reggae":     {{"reggae"}, {"latin/brazilian-sambareggae", "latin/reggaeton"}},
	"country":    {{"country", "rock/rockabilly", "rock/folk"}, {"rock"}},
	"folk":       {{"country", "rock/folk"}, {"rock"}},
	"waltz":      {{"jazz", "rock"}},
	"march":      {{"neworleans/secondline", "jazz/march"}},
	"polka":      {},
	"gospel":     {{"gospel", "soul"}, {"funk"}},
	"electronic": {{"dance"}, {"hiphop"}},
}

// styleTiers returns the drum styles for a groove, best first.
func styleTiers(g Groove) [][]string {
	if t, ok := tagDrums[g.Tag]; ok {
		return t
	}
	return familyDrums[g.Family]
}

// styleMatches reports whether a performance's style is key or, for a key
// without "/", one of its sub-styles.
func styleMatches(p *Performance, key string) bool {
	return p.Style == key || (!strings.Contains(key, "/") && p.MainStyle() == key)
}

// DrumPlan is the human drumming chosen for one arranged piece: a beat
// performance looped from the first downbeat, and a fill in the last slot
// before each section change.
type DrumPlan struct {
	Beat *Performance
	// Fills holds one fill per section change (Sections order); nil where
	// none fits or the slot does not end on the section's bar line.
	Fills    []*Performance
	Sections []int // bars where a section starts
	// K is performance beats per quarter note of the source: 2 under a
	// double-time groove, 2/3 for a swung 4/4 under a 6/8 piece, else 1.
	K float64
	// Stretch is the piece's tempo over the performance's, in performance
	// beats (above 1: played faster than recorded).
	Stretch float64
	// Offset is the beat's bar that the first downbeat plays (a multiple
	// of 4 by the source's hash), so the pieces sharing a performance do
	// not all open with its first bars.
	Offset int
}

// Describe names the plan for the sidecar.
func (d *DrumPlan) Describe() string {
	fills := 0
	for _, f := range d.Fills {
		if f != nil {
			fills++
		}
	}
	return fmt.Sprintf("Groove MIDI Dataset %s (%s, %s at %.0f bpm, played ×%.2f), %d fills", d.Beat.File,
		d.Beat.Drummer, d.Beat.Style, d.Beat.BPM, d.Stretch, fills)
}

// Plan chooses the human drumming for a variant of a source: a beat that
// can play in the source's meter class (K), whose style is one of the
// groove's tiers and whose tempo the piece's is within
// MinStretch–MaxStretch of; among those, the one laid under the fewest
// pieces so far (uses, counted here; nil: no counting), then by a hash of
// the source, the groove and the file. It returns nil and the reason when
// none fits (the piece keeps MMA's drums).
func (lib *DrumLibrary) Plan(s *Source, v Variant, uses map[string]int) (*DrumPlan, string) {
	g := v.Groove
	tiers := styleTiers(g)
	if len(tiers) == 0 {
		return nil, fmt.Sprintf("no drummer plays a %s groove (%s)", g.Family, g.Tag)
	}
	class := s.Class()
	pick := func(pool []*Performance, k, lo, hi float64, salt string, prefer func(*Performance) bool) *Performance {
		var cands []*Performance
		for _, tier := range tiers {
			for _, p := range pool {
				if kFor(p, s, g) != k {
					continue
				}
				if r := s.BPM() * k / p.BPM; r < lo || r > hi {
					continue
				}
				ok := false
				for _, key := range tier {
					ok = ok || styleMatches(p, key)
				}
				if ok && !slices.Contains(cands, p) && (prefer == nil || prefer(p)) {
					cands = append(cands, p)
				}
			}
			if len(cands) >= MinDrumChoices {
				break
			}
		}
		var best *Performance
		var bestKey uint64
		for _, p := range cands {
			h := hash64(s.ID, g.Tag, salt, p.File)
			if best == nil || uses[p.File] < uses[best.File] || (uses[p.File] == uses[best.File] && h < bestKey) {
				best, bestKey = p, h
			}
		}
		if best != nil && uses != nil {
			uses[best.File]++
		}
		return best
	}
	// A 6/8 piece takes a 6/8 performance bar for bar, else a swung 4/4
	// one whose beats are its dotted quarters (two bars a performance
	// bar); others take their own class, at twice the tempo under a
	// double-time groove.
	ks := []float64{1}
	switch {
	case class == "6/8":
		ks = []float64{1, 2.0 / 3}
	case g.R == 2:
		ks = []float64{2}
	}
	var beat *Performance
	k := 0.0
	for _, k = range ks {
		if beat = pick(lib.Beats, k, MinStretch, MaxStretch, "beat", nil); beat != nil {
			break
		}
	}
	if beat == nil {
		return nil, fmt.Sprintf("no %s drummer in %s at %.0f bpm", strings.Join(tiers[0], "/"), class, s.BPM()*ks[0])
	}
	d := &DrumPlan{Beat: beat, K: k, Stretch: s.BPM() * k / beat.BPM, Sections: s.SectionStarts()}
	if loop := beat.loop(); loop >= 8 {
		d.Offset = int(hash64(s.ID, g.Tag, "offset")%uint64(loop/4)) * 4
	}
	for i := range d.Sections {
		salt := fmt.Sprintf("fill%d", i)
		// The beat's drummer first, then any drummer of the styles.
		f := pick(lib.Fills, k, MinFillStretch, MaxFillStretch, salt, func(p *Performance) bool { return p.Drummer == beat.Drummer })
		if f == nil {
			f = pick(lib.Fills, k, MinFillStretch, MaxFillStretch, salt, nil)
		}
		d.Fills = append(d.Fills, f)
	}
	return d, ""
}

// kFor returns how many of a performance's beats make a quarter note of
// the source under groove g (0: it cannot play under it): 1 for the
// source's own meter class, 2 under a double-time groove, 2/3 for a swung
// 4/4 performance under a 6/8 piece; the performance's bar must span ½,
// 1 or 2 of the source's bars.
func kFor(p *Performance, s *Source, g Groove) float64 {
	class, pc := s.Class(), p.Class()
	k := 0.0
	switch {
	case class == "6/8" && pc == "12/8":
		k = 2.0 / 3
	case class != pc:
		return 0
	case class != "6/8" && g.R == 2:
		k = 2
	default:
		k = 1
	}
	ratio := p.BarBeats() / k / s.BarQuarters()
	for _, r := range []float64{0.5, 1, 2} {
		if math.Abs(ratio-r) < 1e-9 {
			return k
		}
	}
	return 0
}

// loop returns how many of a beat's bars Lay cycles through: the largest
// multiple of 4 it holds (all of them when fewer than 4).
func (p *Performance) loop() int {
	n := len(p.Bars)
	if n >= 4 {
		n -= n % 4
	}
	return n
}

// SectionStarts returns the bars where a section starts after the first
// downbeat: the source's own (Sections), else every SectionBars bars.
func (s *Source) SectionStarts() []int {
	if s.Sections != nil {
		return s.Sections
	}
	var out []int
	for b := s.Pickup + SectionBars; b < s.Bars; b += SectionBars {
		out = append(out, b)
	}
	return out
}

// Lay writes the plan's drumming under the source, in the source's ticks:
// slots of one performance bar (BarBeats/K quarter notes) from the first
// downbeat to the end, slot i playing the beat's bar Offset+i (looped over
// the largest multiple of 4 bars it holds), except the slot that ends on a
// section's bar line, which plays the fill (after the beat's hits before
// a short fill comes in) and its landing on the next downbeat, in place
// of the beat's hits on the same drums there. A hit
// keeps its offset from the bar line and its velocity; times scale by
// 1/K. Hits before tick 0 or at or after the end are dropped. It returns
// the notes and the fills laid.
func (d *DrumPlan) Lay(s *Source) ([]midi.Note, int) {
	ppq := float64(s.Score.TicksPerBeat)
	slotQ := d.Beat.BarBeats() / d.K
	start := float64(int64(s.Pickup) * s.BarTicks)
	end := s.EndTick()
	slots := int(math.Ceil((float64(end)-start)/(slotQ*ppq) - 1e-9))
	fillAt := map[int]*Performance{} // slot → fill
	for i, b := range d.Sections {
		if i >= len(d.Fills) || d.Fills[i] == nil {
			continue
		}
		q := float64(int64(b)*s.BarTicks) - start
		n := q / (slotQ * ppq)
		if r := math.Round(n); math.Abs(n-r) < 1e-9 && r >= 1 {
			fillAt[int(r)-1] = d.Fills[i]
		}
	}
	loop := d.Beat.loop()
	var out []midi.Note
	put := func(slot int, hits []Hit) {
		base := start + float64(slot)*slotQ*ppq
		for _, h := range hits {
			t := int64(math.Round(base + h.At/d.K*ppq))
			if t < 0 || t >= end {
				continue
			}
			dur := max(1, int64(math.Round(h.Dur/d.K*ppq)))
			out = append(out, midi.Note{Tick: t, Dur: min(dur, end-t), Pitch: h.Pitch, Velocity: max(1, h.Vel)})
		}
	}
	var landing []Hit
	fills := 0
	for i := 0; i < slots; i++ {
		if f := fillAt[i]; f != nil {
			// The beat plays up to where a short fill comes in.
			var before []Hit
			for _, h := range d.Beat.Bars[(i+d.Offset)%loop] {
				if h.At < f.Start-1.0/8 {
					before = append(before, h)
				}
			}
			put(i, append(before, f.Bars[0]...))
			fills++
			landing = f.Landing
			continue
		}
		hits := d.Beat.Bars[(i+d.Offset)%loop]
		if len(landing) > 0 {
			kept := make([]Hit, 0, len(hits))
			for _, h := range hits {
				clash := false
				for _, l := range landing {
					clash = clash || (l.Pitch == h.Pitch && math.Abs(l.At-h.At) < 1.0/8)
				}
				if !clash {
					kept = append(kept, h)
				}
			}
			hits = append(kept, landing...)
			landing = nil
		}
		put(i, hits)
	}
	sortNotes(out)
	return out, fills
}
