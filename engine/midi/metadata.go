package midi

import (
	"slices"
	"strconv"
	"sync"
)

// Metadata is what Analyze measures from a Score. Its JSON form is what
// `amt inspect --json` prints.
type Metadata struct {
	Format          int     `json:"format"`
	Tracks          int     `json:"tracks"`     // Score tracks (one instrument each)
	SMFTracks       int     `json:"smf_tracks"` // MTrk chunks in the file
	TicksPerBeat    int     `json:"ticks_per_beat"`
	DurationSeconds float64 `json:"duration_seconds"` // to EndTick
	Bars            float64 `json:"bars"`             // to EndTick, through the meter map
	TempoBPM        float64 `json:"tempo_bpm"`        // in force at tick 0
	MedianTempoBPM  float64 `json:"median_tempo_bpm"` // weighted by seconds at each tempo
	// TempoChanges counts tempo events after tick 0 that change the tempo.
	TempoChanges  int    `json:"tempo_changes"`
	TimeSignature string `json:"time_signature"` // in force at tick 0, "4/4" by default
	MeterNum      int    `json:"meter_num"`
	MeterDen      int    `json:"meter_den"`
	// Meter inference, filled by Prepare (empty from Analyze alone): the
	// declared meter at tick 0 as the file has it ("" when it has no time
	// signature), the meter inferred from the notes with its confidence and
	// irregular (short) bars, whether the score was re-barred to it (then
	// TimeSignature is the inferred meter) and by how many ticks its events
	// moved, and why.
	DeclaredMeter   string  `json:"declared_meter"`
	InferredMeter   string  `json:"inferred_meter"`
	MeterConfidence float64 `json:"meter_confidence"`
	IrregularBars   int     `json:"irregular_bars"`
	Rebarred        bool    `json:"rebarred"`
	RebarShift      int64   `json:"rebar_shift,omitempty"`
	MeterReason     string  `json:"meter_reason"`
	// Key is the declared key when the file has a key signature, else the
	// estimate.
	Key           Key      `json:"key"`
	DeclaredKey   *Key     `json:"declared_key"` // first key signature; nil if none
	EstimatedKey  Key      `json:"estimated_key"`
	KeyConfidence float64  `json:"key_confidence"` // of the estimate
	Programs      []int    `json:"programs"`       // sorted distinct programs of pitched tracks
	Families      []string `json:"families"`       // their GM families, in family order
	HasDrums      bool     `json:"has_drums"`
	Notes         int      `json:"notes"`
	PitchMin      int      `json:"pitch_min"` // of pitched notes; 0 when there are none
	PitchMax      int      `json:"pitch_max"`
	// Polyphony is the mean number of sounding notes while any sounds
	// (time-weighted, in ticks; zero-length notes and notes at negative
	// ticks ignored); MaxPolyphony the most at once (a note ending at a tick
	// does not overlap one starting there).
	Polyphony      float64 `json:"polyphony"`
	MaxPolyphony   int     `json:"max_polyphony"`
	NotesPerSecond float64 `json:"notes_per_second"`
	Title          string  `json:"title"`
}

// PrepareVersion names the rules of Prepare (meter inference and
// re-barring); caches of prepared scores' tokens key on it, so a change of
// the rules that changes bar lines must change it.
const PrepareVersion = "meter3" // meter2: a declared meter stays after a dropped pickup (keepDeclared); meter3: pieces without chords need a clear loss (contradictLoss)

// Prepare is what every path from a MIDI file to tokens does: it infers the
// meter of s (InferMeter), re-bars s in place when the declared meter gives
// way (Rebar), and measures the result (Analyze), recording the declared
// and the inferred meter in the metadata.
func Prepare(s *Score) Metadata {
	g := InferMeter(s)
	shift := Rebar(s, g)
	m := Analyze(s)
	m.DeclaredMeter = g.Declared
	m.InferredMeter = g.String()
	m.MeterConfidence = g.Confidence
	m.IrregularBars = g.Irregular
	m.Rebarred = g.Replace
	m.RebarShift = shift
	m.MeterReason = g.Reason
	return m
}

// Analyze measures a Score (notes in any order). Seconds are taken from the
// tempo map, not from the notes' Start fields.
func Analyze(s *Score) Metadata {
	m := Metadata{
		Format:          s.Format,
		Tracks:          len(s.Tracks),
		SMFTracks:       s.SMFTracks,
		TicksPerBeat:    s.TicksPerBeat,
		DurationSeconds: s.Seconds(),
		Title:           s.Title,
		MeterNum:        4,
		MeterDen:        4,
	}
	m.Bars = bars(s)
	m.TempoBPM, m.MedianTempoBPM, m.TempoChanges = tempoStats(s)
	for _, mc := range s.Meters {
		if mc.Tick > 0 {
			break
		}
		m.MeterNum, m.MeterDen = mc.Num, mc.Den
	}
	m.TimeSignature = strconv.Itoa(m.MeterNum) + "/" + strconv.Itoa(m.MeterDen)

	m.EstimatedKey = EstimateKey(s)
	m.KeyConfidence = m.EstimatedKey.Confidence
	m.Key = m.EstimatedKey
	if len(s.Keys) > 0 {
		k := KeyOf(s.Keys[0])
		m.DeclaredKey = &k
		m.Key = k
	}

	var progs [128]bool
	pmin, pmax := 128, -1
	for ti := range s.Tracks {
		t := &s.Tracks[ti]
		m.Notes += len(t.Notes)
		if t.IsDrum {
			if len(t.Notes) > 0 {
				m.HasDrums = true
			}
			continue
		}
		if t.Program >= 0 && t.Program < 128 {
			progs[t.Program] = true
		}
		for i := range t.Notes {
			p := int(t.Notes[i].Pitch)
			pmin, pmax = min(pmin, p), max(pmax, p)
		}
	}
	if pmax >= 0 {
		m.PitchMin, m.PitchMax = pmin, pmax
	}
	m.Programs = []int{}
	m.Families = []string{}
	var fams [16]bool
	for p, ok := range progs {
		if ok {
			m.Programs = append(m.Programs, p)
			fams[p/8] = true
		}
	}
	for f, ok := range fams {
		if ok {
			m.Families = append(m.Families, gmFamilies[f])
		}
	}
	if m.DurationSeconds > 0 {
		m.NotesPerSecond = float64(m.Notes) / m.DurationSeconds
	}
	m.Polyphony, m.MaxPolyphony = polyphony(s)
	return m
}

// bars returns the length to EndTick in bars through the meter map (4/4
// before the first meter).
func bars(s *Score) float64 {
	if s.TicksPerBeat <= 0 || s.EndTick <= 0 {
		return 0
	}
	tpb := float64(s.TicksPerBeat)
	num, den := 4, 4
	var last int64
	b := 0.0
	for _, mc := range s.Meters {
		t := min(max(mc.Tick, 0), s.EndTick)
		b += float64(t-last) / (tpb * 4 * float64(num) / float64(den))
		last = t
		if mc.Num > 0 && mc.Den > 0 {
			num, den = mc.Num, mc.Den
		}
	}
	return b + float64(s.EndTick-last)/(tpb*4*float64(num)/float64(den))
}

// tempoStats returns the initial tempo, the median tempo weighted by the
// seconds spent at each tempo up to EndTick, and the number of changes.
func tempoStats(s *Score) (initial, median float64, changes int) {
	initial = 60e6 / float64(s.TempoAt(0))
	prev := s.TempoAt(0)
	for _, t := range s.Tempos {
		if t.Tick > 0 {
			if t.MicrosPerBeat != prev {
				changes++
			}
			prev = t.MicrosPerBeat
		}
	}
	if s.TicksPerBeat <= 0 || s.EndTick <= 0 || len(s.Tempos) == 0 {
		return initial, initial, changes
	}
	type span struct{ bpm, sec float64 }
	segs := s.tempoSegments()
	spans := make([]span, 0, len(segs))
	total := 0.0
	for i, sg := range segs {
		if sg.tick >= s.EndTick {
			break
		}
		end := s.EndTick
		if i+1 < len(segs) && segs[i+1].tick < end {
			end = segs[i+1].tick
		}
		sec := float64(end-sg.tick) * sg.spt
		spans = append(spans, span{60 / (sg.spt * float64(s.TicksPerBeat)), sec})
		total += sec
	}
	if total <= 0 {
		return initial, initial, changes
	}
	slices.SortFunc(spans, func(a, b span) int {
		switch {
		case a.bpm < b.bpm:
			return -1
		case a.bpm > b.bpm:
			return 1
		}
		return 0
	})
	acc := 0.0
	for _, sp := range spans {
		acc += sp.sec
		if acc >= total/2 {
			return initial, sp.bpm, changes
		}
	}
	return initial, spans[len(spans)-1].bpm, changes
}

// polyphony sorts the onsets and releases of all notes with a duration
// (radix sort on the tick, releases before onsets at one tick) and sweeps
// them once, counting sounding notes.
func polyphony(s *Score) (mean float64, most int) {
	n := 0
	for ti := range s.Tracks {
		n += len(s.Tracks[ti].Notes)
	}
	if n == 0 {
		return 0, 0
	}
	buf := eventPool.Get().(*[]uint64)
	defer eventPool.Put(buf)
	if cap(*buf) < 4*n {
		*buf = make([]uint64, 4*n)
	}
	ev, tmp := (*buf)[:0:2*n], (*buf)[2*n:4*n]
	var top uint64
	var sum int64
	for ti := range s.Tracks {
		for _, nt := range s.Tracks[ti].Notes {
			if nt.Dur <= 0 || nt.Tick < 0 || nt.Tick+nt.Dur > 1<<60 {
				continue
			}
			end := uint64(nt.Tick+nt.Dur) << 1
			ev = append(ev, uint64(nt.Tick)<<1|1, end)
			top = max(top, end)
			sum += nt.Dur
		}
	}
	ev = radixSort(ev, tmp[:len(ev)], top)
	var covered, since int64
	active := 0
	for _, e := range ev {
		t := int64(e >> 1)
		if e&1 == 1 {
			if active == 0 {
				since = t
			}
			active++
			most = max(most, active)
		} else {
			active--
			if active == 0 {
				covered += t - since
			}
		}
	}
	if covered > 0 {
		mean = float64(sum) / float64(covered)
	}
	return mean, most
}

var eventPool = sync.Pool{New: func() any { return new([]uint64) }}

// radixSort sorts a (keys ≤ top) by 11-bit digits, least significant first,
// using tmp (same length) as scratch; it returns whichever holds the result.
func radixSort(a, tmp []uint64, top uint64) []uint64 {
	const bits = 11
	var count [1 << bits]int
	for shift := uint(0); shift < 64 && top>>shift > 0; shift += bits {
		clear(count[:])
		for _, v := range a {
			count[(v>>shift)&(1<<bits-1)]++
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, v := range a {
			d := (v >> shift) & (1<<bits - 1)
			tmp[count[d]] = v
			count[d]++
		}
		a, tmp = tmp, a
	}
	return a
}
