package midi

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestAnalyzeHandBuilt(t *testing.T) {
	s, err := Parse("song.mid", handSong(t))
	if err != nil {
		t.Fatal(err)
	}
	m := Analyze(s)
	// Worked out by hand from handSong's events (see its comment).
	checks := []struct {
		name      string
		got, want float64
	}{
		{"duration", m.DurationSeconds, 4.5},    // 0.5 s + 384 ticks at 96 ticks/s
		{"bars", m.Bars, 480.0 / (96 * 3)},      // 3/4: 288 ticks a bar
		{"tempo", m.TempoBPM, 120},              // 500000 µs
		{"median tempo", m.MedianTempoBPM, 60},  // 0.5 s at 120, 4 s at 60
		{"polyphony", m.Polyphony, 432.0 / 336}, // durations 96+96+48+192 over union 96+48+192
		{"notes/s", m.NotesPerSecond, 4 / 4.5},  //
		{"key confidence", m.KeyConfidence, m.EstimatedKey.Confidence},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if m.Format != 0 || m.Tracks != 2 || m.SMFTracks != 1 || m.TicksPerBeat != 96 || m.TempoChanges != 1 ||
		m.TimeSignature != "3/4" || m.MeterNum != 3 || m.MeterDen != 4 || m.Notes != 4 ||
		m.PitchMin != 60 || m.PitchMax != 67 || m.MaxPolyphony != 2 || !m.HasDrums || m.Title != "Song" {
		t.Errorf("metadata %+v", m)
	}
	if m.Key.String() != "D minor" || m.DeclaredKey == nil || m.DeclaredKey.String() != "D minor" {
		t.Errorf("key %v declared %v", m.Key, m.DeclaredKey)
	}
	if !reflect.DeepEqual(m.Programs, []int{5}) || !reflect.DeepEqual(m.Families, []string{"Piano"}) {
		t.Errorf("programs %v families %v", m.Programs, m.Families)
	}

	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"format", "tracks", "ticks_per_beat", "duration_seconds", "bars", "tempo_bpm",
		"median_tempo_bpm", "tempo_changes", "time_signature", "key", "declared_key", "estimated_key",
		"key_confidence", "programs", "families", "has_drums", "notes", "pitch_min", "pitch_max", "polyphony",
		"max_polyphony", "notes_per_second", "title"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	if obj["key"] != "D minor" || obj["time_signature"] != "3/4" {
		t.Errorf("JSON key %v meter %v", obj["key"], obj["time_signature"])
	}
	var back Metadata
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !back.Key.Same(m.Key) || back.DeclaredKey == nil || !back.DeclaredKey.Same(*m.DeclaredKey) || back.Bars != m.Bars {
		t.Errorf("JSON round trip: %+v", back)
	}
}

func TestAnalyzeEmptyAndBarsThroughMeters(t *testing.T) {
	m := Analyze(&Score{TicksPerBeat: 480})
	if m.Notes != 0 || m.Bars != 0 || m.TempoBPM != 120 || m.TimeSignature != "4/4" || m.Polyphony != 0 ||
		m.Programs == nil || m.Families == nil {
		t.Errorf("empty: %+v", m)
	}
	// Two bars of 4/4 (3840 ticks), then 6/8 (1440 ticks a bar) for 2880
	// ticks = 2 bars, then 2/2 at 6720 (1920 a bar) for 960 ticks = half a bar.
	s := &Score{TicksPerBeat: 480, EndTick: 7680, Meters: []MeterChange{{3840, 6, 8}, {6720, 2, 2}}}
	if b := Analyze(s).Bars; !near(b, 4.5) {
		t.Errorf("bars %v, want 4.5", b)
	}
}

func TestGM(t *testing.T) {
	cases := []struct {
		prog      int
		name, fam string
	}{
		{0, "Acoustic Grand Piano", "Piano"},
		{24, "Acoustic Guitar (nylon)", "Guitar"},
		{40, "Violin", "Strings"},
		{48, "String Ensemble 1", "Ensemble"},
		{73, "Flute", "Pipe"},
		{127, "Gunshot", "Sound Effects"},
		{128, "", ""},
		{-1, "", ""},
	}
	for _, c := range cases {
		if ProgramName(c.prog) != c.name || GMFamily(c.prog) != c.fam {
			t.Errorf("%d: %q %q", c.prog, ProgramName(c.prog), GMFamily(c.prog))
		}
	}
	for p := 0; p < 128; p++ {
		if ProgramName(p) == "" {
			t.Errorf("program %d has no name", p)
		}
	}
}

// TestPolyphonyBruteForce checks the sweep against counting sounding notes
// at every tick of small random scores.
func TestPolyphonyBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		s := &Score{TicksPerBeat: 4}
		for range 1 + rng.IntN(4) {
			var tr Track
			for range rng.IntN(12) {
				tr.Notes = append(tr.Notes, Note{Tick: int64(rng.IntN(60)), Dur: int64(rng.IntN(15)), Pitch: 60, Velocity: 1})
			}
			s.Tracks = append(s.Tracks, tr)
		}
		sounding, most, sum := 0, 0, 0
		for tick := int64(0); tick < 80; tick++ {
			c := 0
			for _, tr := range s.Tracks {
				for _, n := range tr.Notes {
					if n.Tick <= tick && tick < n.Tick+n.Dur {
						c++
					}
				}
			}
			if c > 0 {
				sounding++
			}
			sum += c
			most = max(most, c)
		}
		mean, gotMost := polyphony(s)
		want := 0.0
		if sounding > 0 {
			want = float64(sum) / float64(sounding)
		}
		if !near(mean, want) || gotMost != most {
			t.Fatalf("trial %d: polyphony %v max %d, brute force %v max %d", trial, mean, gotMost, want, most)
		}
	}
}
