package eval

import (
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

// note builds a note at tick t lasting d ticks.
func note(t, d int64, pitch uint8) midi.Note {
	return midi.Note{Tick: t, Dur: d, Pitch: pitch, Velocity: 80}
}

// score builds a Score; with tpb 12 one tick is one grid step.
func score(tpb int, tracks ...midi.Track) *midi.Score {
	s := &midi.Score{Format: 1, TicksPerBeat: tpb, Tracks: tracks}
	for _, t := range tracks {
		for _, n := range t.Notes {
			s.EndTick = max(s.EndTick, n.Tick+n.Dur)
		}
	}
	s.ComputeSeconds()
	return s
}

func piano(notes ...midi.Note) midi.Track {
	return midi.Track{Name: "piano", Channel: 0, Program: 0, Notes: notes}
}

func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.IsNaN(want) {
		if !math.IsNaN(got) {
			t.Errorf("%s = %v, want NaN (undefined)", name, got)
		}
		return
	}
	if math.IsNaN(got) || math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
		t.Errorf("%s = %.9g, want %.9g", name, got, want)
	}
}

func mustMeasure(t *testing.T, s *midi.Score) Metrics {
	t.Helper()
	m, err := Measure(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A C major scale C D E F G A B C', quarter notes, 4/4, 120 bpm, tpb 12.
func TestMetricsScale(t *testing.T) {
	var ns []midi.Note
	for i, p := range []uint8{60, 62, 64, 65, 67, 69, 71, 72} {
		ns = append(ns, note(int64(12*i), 12, p))
	}
	m := mustMeasure(t, score(12, piano(ns...)))
	if m.Notes != 8 || m.PitchedNotes != 8 || m.DrumNotes != 0 {
		t.Fatalf("counts %d/%d/%d, want 8/8/0", m.Notes, m.PitchedNotes, m.DrumNotes)
	}
	// Pitch classes: C twice, six others once: p = 2/8 and 6 × 1/8.
	// H = −(¼·log2 ¼ + 6·⅛·log2 ⅛) = 0.5 + 6·0.375 = 2.75 bits.
	near(t, "pitch_class_entropy", m.PitchClassEntropy, 2.75)
	near(t, "scale_consistency", m.ScaleConsistency, 1) // all in C major
	// Onsets 0,12,24,36 in bar 0 and again in bar 1: Hamming 0.
	near(t, "groove_consistency", m.GrooveConsistency, 1)
	// 96 steps each with one note sounding.
	near(t, "polyphony", m.Polyphony, 1)
	near(t, "polyphony_rate", m.PolyphonyRate, 0)
	near(t, "empty_beat_rate", m.EmptyBeatRate, 0)
	near(t, "pitch_range", m.PitchRange, 72-60)
	// 8 notes over 96 ticks = 8 beats = 4 s at 120 bpm.
	near(t, "notes_per_second", m.NotesPerSecond, 2)
	// 8 distinct onsets from 0 to 84 ticks = 7 beats = 3.5 s: 3.5/7.
	near(t, "mean_ioi", m.MeanIOI, 0.5)
	near(t, "drum_pattern_rate", m.DrumPatternRate, math.NaN())
	near(t, "tempo_bpm", m.TempoBPM, 120)
	if m.Key.Tonic != 0 || m.Key.Minor {
		t.Errorf("key %v, want C major", m.Key)
	}
	if m.MeterNum != 4 || m.MeterDen != 4 {
		t.Errorf("meter %d/%d, want 4/4 (default)", m.MeterNum, m.MeterDen)
	}
	near(t, "bars", m.Bars, 2)
	if len(m.Programs) != 1 || m.Programs[0] != 0 || m.HasDrums {
		t.Errorf("programs %v drums %v, want [0] false", m.Programs, m.HasDrums)
	}
}

// A chord, a held note, rests, two eighths and a last note (tpb 12, 4/4).
//
//	ticks  0–24  C4 E4 G4 (60 64 67); 12–24 C5 (72)
//	ticks 48–54  C4 (60); 54–60 D4 (62)
//	ticks 96–108 C#4 (61)
func TestMetricsTexture(t *testing.T) {
	m := mustMeasure(t, score(12, piano(
		note(0, 24, 60), note(0, 24, 64), note(0, 24, 67), note(12, 12, 72),
		note(48, 6, 60), note(54, 6, 62), note(96, 12, 61),
	)))
	// Pitch classes: C×3 (60, 72, 60), C#, D, E, G once: 7 notes.
	// H = 3/7·log2(7/3) + 4/7·log2(7) = 0.5238824 + 1.6042029 = 2.1280853.
	near(t, "pitch_class_entropy", m.PitchClassEntropy, 3.0/7*math.Log2(7.0/3)+4.0/7*math.Log2(7))
	// C major holds C×3, D, E, G = 6 of 7; no scale holds both C and C#
	// together with D and E.
	near(t, "scale_consistency", m.ScaleConsistency, 6.0/7)
	// Sounding counts per step: 0–11: 3, 12–23: 4, 24–47: 0, 48–59: 1,
	// 60–95: 0, 96–107: 1. Note-steps 3·24+12+6+6+12 = 108 over 48 active
	// steps; 24 steps with ≥ 2 of the 108 up to the last offset.
	near(t, "polyphony", m.Polyphony, 108.0/48)
	near(t, "polyphony_rate", m.PolyphonyRate, 24.0/108)
	// Beats 0–8 (last end 108 = 9 beats): 2, 3, 5, 6, 7 are silent.
	near(t, "empty_beat_rate", m.EmptyBeatRate, 5.0/9)
	near(t, "pitch_range", m.PitchRange, 12)
	// Bars of 48 steps: {0,12}, {0,6}, {0}: Hamming 2 then 1, over 48.
	// 1 − (2/48 + 1/48)/2 = 1 − 1.5/48.
	near(t, "groove_consistency", m.GrooveConsistency, 1-1.5/48)
	// 7 notes over 108 ticks = 9 beats = 4.5 s.
	near(t, "notes_per_second", m.NotesPerSecond, 7/4.5)
	// Distinct onsets 0, 12, 48, 54, 96: (96 ticks = 4 s) / 4 gaps.
	near(t, "mean_ioi", m.MeanIOI, 1)
}

// Drums in 3/4 at 100 bpm, tpb 480, with one piano note.
func TestMetricsDrums(t *testing.T) {
	var drums []midi.Note
	// On the sixteenth grid (k·120): 0, 120, 1440; on the triplet grid
	// (k·160): 160; 130 is 10 ticks = exactly 1/48 beat from 120 (the
	// tolerance, inclusive); 475 is 5 ticks before the next beat. Off:
	// 135 (15 ticks from 120, 25 from 160) and 200 (40 from 160, 40 from 240).
	for _, tk := range []int64{0, 120, 130, 135, 160, 200, 475, 1440} {
		drums = append(drums, note(tk, 60, 36))
	}
	s := score(480,
		piano(note(0, 1440, 60)),
		midi.Track{Name: "drums", Channel: 9, IsDrum: true, Notes: drums},
	)
	s.Tempos = []midi.TempoChange{{Tick: 0, MicrosPerBeat: 600000}}
	s.Meters = []midi.MeterChange{{Tick: 0, Num: 3, Den: 4}}
	s.ComputeSeconds()
	m := mustMeasure(t, s)
	near(t, "drum_pattern_rate", m.DrumPatternRate, 6.0/8)
	near(t, "tempo_bpm", m.TempoBPM, 100)
	if m.MeterNum != 3 || m.MeterDen != 4 || !m.HasDrums || m.DrumNotes != 8 {
		t.Errorf("meter %d/%d drums %v/%d, want 3/4 true/8", m.MeterNum, m.MeterDen, m.HasDrums, m.DrumNotes)
	}
	// Grid steps round(tick·12/480): 0→0, 120/130/135→3, 160→4, 200→5,
	// 475→12 (11.875), 1440→36. Bars are 36 steps: bar 0 {0,3,4,5,12},
	// bar 1 {0}: Hamming 4 of 36.
	near(t, "groove_consistency", m.GrooveConsistency, 1-4.0/36)
	// 9 notes; the last ends at 1500 ticks = 3.125 beats · 0.6 s = 1.875 s.
	near(t, "notes_per_second", m.NotesPerSecond, 9/1.875)
	// 6 distinct onset steps (0,3,4,5,12,36), first 0 last 1440 ticks
	// = 3 beats = 1.8 s: 1.8/5.
	near(t, "mean_ioi", m.MeanIOI, 0.36)
	// Beats 0–3 (end 1500): the piano sounds in 0–2, the drum at 1440 in 3.
	near(t, "empty_beat_rate", m.EmptyBeatRate, 0)
	// One pitched note: polyphony 1, never two at once.
	near(t, "polyphony", m.Polyphony, 1)
	near(t, "polyphony_rate", m.PolyphonyRate, 0)
	near(t, "pitch_range", m.PitchRange, 0)
	near(t, "pitch_class_entropy", m.PitchClassEntropy, 0)
}

// A 4/4 bar then a 3/4 bar: bars of 48 and 36 steps compared over 48.
func TestMetricsMeterChange(t *testing.T) {
	s := score(12, piano(
		note(0, 12, 60), note(12, 12, 62), note(24, 12, 64), note(36, 12, 65),
		note(48, 12, 67), note(60, 12, 69), note(72, 12, 71),
	))
	s.Meters = []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}, {Tick: 48, Num: 3, Den: 4}}
	m := mustMeasure(t, s)
	// {0,12,24,36} vs {0,12,24}: Hamming 1 over max(48, 36).
	near(t, "groove_consistency", m.GrooveConsistency, 1-1.0/48)
	// 7 pitch classes once each, all in C major: log2 7.
	near(t, "pitch_class_entropy", m.PitchClassEntropy, math.Log2(7))
	near(t, "scale_consistency", m.ScaleConsistency, 1)
}

// Twelve pitch classes once each: entropy log2 12; any scale holds 7.
// An A natural-minor line is fully in scale (the minor scales count).
func TestMetricsChromaticAndMinor(t *testing.T) {
	var ns []midi.Note
	for i := 0; i < 12; i++ {
		ns = append(ns, note(int64(12*i), 12, uint8(60+i)))
	}
	m := mustMeasure(t, score(12, piano(ns...)))
	near(t, "pitch_class_entropy", m.PitchClassEntropy, math.Log2(12))
	near(t, "scale_consistency", m.ScaleConsistency, 7.0/12)
	if got := scaleMasks[12+9]; got != scaleMasks[0] {
		t.Errorf("A minor mask %012b, want C major's %012b", got, scaleMasks[0])
	}
	if got := scaleMasks[12+0]; got != 1<<0|1<<2|1<<3|1<<5|1<<7|1<<8|1<<10 {
		t.Errorf("C minor mask %012b, want C D Eb F G Ab Bb", got)
	}
}

func TestMetricsUndefinedAndErrors(t *testing.T) {
	if _, err := Measure(nil); !errors.Is(err, ErrNoScore) {
		t.Errorf("nil score: err %v, want ErrNoScore", err)
	}
	if _, err := Measure(&midi.Score{}); !errors.Is(err, ErrBadScore) {
		t.Errorf("no time division: err %v, want ErrBadScore", err)
	}
	bad := score(12, piano(note(-5, 1, 60)))
	if _, err := Measure(bad); !errors.Is(err, ErrBadScore) {
		t.Errorf("negative tick: err %v, want ErrBadScore", err)
	}
	long := score(12, piano(note(MaxSteps, 1, 60)))
	if _, err := Measure(long); !errors.Is(err, ErrTooLong) {
		t.Errorf("huge tick: err %v, want ErrTooLong", err)
	}
	m := mustMeasure(t, score(480))
	for k := Metric(0); int(k) < NumMetrics; k++ {
		if k != TempoBPM && !math.IsNaN(m.Value(k)) {
			t.Errorf("empty score: %v = %v, want NaN", k, m.Value(k))
		}
	}
	if m.Key.Tonic != -1 {
		t.Errorf("empty score key tonic %d, want -1", m.Key.Tonic)
	}
	// One note in one bar: groove and IOI undefined, the rest defined.
	m = mustMeasure(t, score(12, piano(note(0, 12, 60))))
	near(t, "groove", m.GrooveConsistency, math.NaN())
	near(t, "ioi", m.MeanIOI, math.NaN())
	near(t, "entropy", m.PitchClassEntropy, 0)
	near(t, "scale", m.ScaleConsistency, 1)
}

// The Evaluator reuses its buffers: measuring a long piece then a short one
// must give the short one's answers (no stale counts).
func TestEvaluatorReuse(t *testing.T) {
	var e Evaluator
	var ns []midi.Note
	for i := 0; i < 400; i++ {
		ns = append(ns, note(int64(6*i), 24, uint8(40+i%30)))
	}
	if _, err := e.Measure(score(12, piano(ns...))); err != nil {
		t.Fatal(err)
	}
	m, err := e.Measure(score(12, piano(note(0, 12, 60), note(48, 12, 60))))
	if err != nil {
		t.Fatal(err)
	}
	// Two bars {0} and {0}: groove 1; one note at a time; beats 1–3 empty.
	near(t, "groove", m.GrooveConsistency, 1)
	near(t, "polyphony", m.Polyphony, 1)
	near(t, "empty_beat_rate", m.EmptyBeatRate, 3.0/5)
	near(t, "mean_ioi", m.MeanIOI, 2) // 48 ticks = 4 beats = 2 s
}

func TestMetricNames(t *testing.T) {
	seen := map[string]bool{}
	for k := Metric(0); int(k) < NumMetrics; k++ {
		n := k.String()
		if n == "" || seen[n] {
			t.Errorf("metric %d: name %q empty or duplicate", k, n)
		}
		seen[n] = true
	}
}

// Random scores (odd resolutions, meter changes off the bar lines, zero
// and long notes, drums) never panic and stay in range; polyphony equals a
// brute-force count over the grid.
func TestMetricsRandomScores(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for it := 0; it < 300; it++ {
		tpb := []int{1, 7, 12, 96, 480, 1000}[r.IntN(6)]
		var tracks []midi.Track
		for k := r.IntN(4); k >= 0; k-- {
			tr := midi.Track{Program: r.IntN(128), IsDrum: r.IntN(4) == 0}
			for n := r.IntN(40); n > 0; n-- {
				tr.Notes = append(tr.Notes, note(int64(r.IntN(tpb*32)), int64(r.IntN(tpb*4)), uint8(r.IntN(128))))
			}
			tracks = append(tracks, tr)
		}
		s := score(tpb, tracks...)
		for k := r.IntN(3); k > 0; k-- {
			s.Meters = append(s.Meters, midi.MeterChange{Tick: int64(r.IntN(tpb * 32)), Num: 1 + r.IntN(12), Den: 1 << r.IntN(5)})
		}
		sort.Slice(s.Meters, func(i, j int) bool { return s.Meters[i].Tick < s.Meters[j].Tick })
		m, err := Measure(s)
		if err != nil {
			t.Fatal(err)
		}
		checkRanges(t, "random", &m)
		// Brute force: per grid step, count pitched notes sounding.
		if m.PitchedNotes > 0 {
			cnt := map[int64]int{}
			var end int64
			for _, tr := range s.Tracks {
				if tr.IsDrum {
					continue
				}
				for _, n := range tr.Notes {
					on := step(n.Tick, int64(tpb))
					off := max(step(n.Tick+n.Dur, int64(tpb)), on+1)
					for x := on; x < off; x++ {
						cnt[x]++
					}
					end = max(end, off)
				}
			}
			sum, multi := 0, 0
			for _, c := range cnt {
				sum += c
				if c > 1 {
					multi++
				}
			}
			near(t, "polyphony", m.Polyphony, float64(sum)/float64(len(cnt)))
			near(t, "polyphony_rate", m.PolyphonyRate, float64(multi)/float64(end))
		}
	}
}
