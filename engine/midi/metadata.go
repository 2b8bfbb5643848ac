package midi

import (
	"math"
	"slices"
	"strconv"
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
	// (time-weighted, in ticks; zero-length notes ignored); MaxPolyphony the
	// most at once (a note ending at a tick does not overlap one starting there).
	Polyphony      float64 `json:"polyphony"`
	MaxPolyphony   int     `json:"max_polyphony"`
	NotesPerSecond float64 `json:"notes_per_second"`
	Title          string  `json:"title"`
}

// Analyze measures a Score. Notes must be sorted by tick within each track
// (Parse returns them so) for the polyphony figures; seconds are taken from
// the tempo map, not from the notes' Start fields.
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

// polyphony sweeps the notes of all tracks in onset order (a k-way merge of
// the sorted tracks) with a min-heap of the end ticks of sounding notes.
func polyphony(s *Score) (mean float64, most int) {
	const done = math.MaxInt64
	k := len(s.Tracks)
	var hb [32]int
	var nb [32]int64
	heads, next := hb[:0], nb[:0]
	if k > len(hb) {
		heads, next = make([]int, 0, k), make([]int64, 0, k)
	}
	// next[t]: onset of track t's next note with a duration (done if none).
	advance := func(t int) {
		notes := s.Tracks[t].Notes
		i := heads[t]
		for i < len(notes) && notes[i].Dur <= 0 {
			i++
		}
		heads[t] = i
		if i < len(notes) {
			next[t] = notes[i].Tick
		} else {
			next[t] = done
		}
	}
	for t := 0; t < k; t++ {
		heads, next = append(heads, 0), append(next, 0)
		advance(t)
	}
	var hbuf [64]int64
	h := endHeap(hbuf[:0])
	var covered, sum, since int64
	for {
		bt, tick := -1, int64(done)
		for t, x := range next {
			if x < tick {
				bt, tick = t, x
			}
		}
		if bt < 0 {
			break
		}
		dur := s.Tracks[bt].Notes[heads[bt]].Dur
		heads[bt]++
		advance(bt)
		for len(h) > 0 && h[0] <= tick {
			e := h.pop()
			if len(h) == 0 {
				covered += e - since
			}
		}
		if len(h) == 0 {
			since = tick
		}
		h.push(tick + dur)
		sum += dur
		most = max(most, len(h))
	}
	for len(h) > 0 {
		e := h.pop()
		if len(h) == 0 {
			covered += e - since
		}
	}
	if covered > 0 {
		mean = float64(sum) / float64(covered)
	}
	return mean, most
}

// endHeap is a binary min-heap of ticks.
type endHeap []int64

func (h *endHeap) push(v int64) {
	*h = append(*h, v)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p] <= a[i] {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *endHeap) pop() int64 {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && a[r] < a[l] {
			c = r
		}
		if a[i] <= a[c] {
			break
		}
		a[i], a[c] = a[c], a[i]
		i = c
	}
	*h = a
	return top
}
