package eval

import (
	"encoding/json"
	"math"
	"strconv"
)

// Num is a float64 that JSON writes as null when it is NaN or infinite
// (undefined metrics), since JSON has no NaN.
type Num float64

// MarshalJSON writes the number, or null when it is not finite.
func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number, or null as NaN.
func (n *Num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Num(math.NaN())
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*n = Num(f)
	return nil
}

// metricsJSON is the JSON form of Metrics.
type metricsJSON struct {
	Notes             int    `json:"notes"`
	PitchedNotes      int    `json:"pitched_notes"`
	DrumNotes         int    `json:"drum_notes"`
	PitchClassEntropy Num    `json:"pitch_class_entropy"`
	ScaleConsistency  Num    `json:"scale_consistency"`
	GrooveConsistency Num    `json:"groove_consistency"`
	Polyphony         Num    `json:"polyphony"`
	PolyphonyRate     Num    `json:"polyphony_rate"`
	EmptyBeatRate     Num    `json:"empty_beat_rate"`
	PitchRange        Num    `json:"pitch_range"`
	NotesPerSecond    Num    `json:"notes_per_second"`
	MeanIOI           Num    `json:"mean_ioi"`
	DrumPatternRate   Num    `json:"drum_pattern_rate"`
	TempoBPM          Num    `json:"tempo_bpm"`
	Key               string `json:"key"`
	KeyTonic          int    `json:"key_tonic"`
	KeyMinor          bool   `json:"key_minor"`
	KeyConfidence     Num    `json:"key_confidence"`
	Meter             string `json:"meter"`
	Bars              Num    `json:"bars"`
	DurationSeconds   Num    `json:"duration_seconds"`
	Programs          []int  `json:"programs"`
	HasDrums          bool   `json:"has_drums"`
	NotesPerBeat      Num    `json:"notes_per_beat"`
	OnsetsPerBeat     Num    `json:"onsets_per_beat"`
	DrumBarShare      Num    `json:"drum_bar_share"`
	BarRepetition     Num    `json:"bar_repetition"`
	RhythmRepetition  Num    `json:"rhythm_repetition"`
	LastBarRatio      Num    `json:"last_bar_ratio"`
	LastBarPileUp     bool   `json:"last_bar_pile_up"`
	ScaleShare        Num    `json:"scale_share"` // in the estimated key's scale
	MeasuredBars      int    `json:"measured_bars"`
}

// MarshalJSON writes the metrics with snake_case names (those of
// Metric.String for the numeric ones), undefined values as null.
func (m Metrics) MarshalJSON() ([]byte, error) {
	key := ""
	if m.Key.Tonic >= 0 {
		key = m.Key.String()
	}
	progs := m.Programs
	if progs == nil {
		progs = []int{}
	}
	return json.Marshal(metricsJSON{
		Notes: m.Notes, PitchedNotes: m.PitchedNotes, DrumNotes: m.DrumNotes,
		PitchClassEntropy: Num(m.PitchClassEntropy), ScaleConsistency: Num(m.ScaleConsistency),
		GrooveConsistency: Num(m.GrooveConsistency), Polyphony: Num(m.Polyphony),
		PolyphonyRate: Num(m.PolyphonyRate), EmptyBeatRate: Num(m.EmptyBeatRate),
		PitchRange: Num(m.PitchRange), NotesPerSecond: Num(m.NotesPerSecond),
		MeanIOI: Num(m.MeanIOI), DrumPatternRate: Num(m.DrumPatternRate), TempoBPM: Num(m.TempoBPM),
		Key: key, KeyTonic: m.Key.Tonic, KeyMinor: m.Key.Minor, KeyConfidence: Num(m.Key.Confidence),
		Meter: strconv.Itoa(m.MeterNum) + "/" + strconv.Itoa(m.MeterDen),
		Bars:  Num(m.Bars), DurationSeconds: Num(m.DurationSeconds), Programs: progs, HasDrums: m.HasDrums,
		NotesPerBeat: Num(m.NotesPerBeat), OnsetsPerBeat: Num(m.OnsetsPerBeat), DrumBarShare: Num(m.DrumBarShare),
		BarRepetition: Num(m.BarRepetition), RhythmRepetition: Num(m.RhythmRepetition),
		LastBarRatio: Num(m.LastBarRatio), LastBarPileUp: m.LastBarPileUp,
		ScaleShare: Num(m.ScaleShare(m.Key.Tonic, m.Key.Minor)), MeasuredBars: m.MeasuredBars,
	})
}
