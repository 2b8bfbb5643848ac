package eval

import (
	"bytes"
	"math"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

// handPiece is four 4/4 bars at 480 ticks a beat (40 ticks = one grid step,
// a bar 48 steps), written to a MIDI file and read back:
//
//	piano ch 0 (melody)  bar 1: 72 74 76 at steps 0 12 24 (lengths 12 12 24), velocity 100
//	                     bar 2: 77 at 48 (21 steps), 76 at 69 (3), 74 at 72 (12)
//	piano ch 1 (chords)  bar 1: 60 64 67 72 whole note (72 doubles the melody's), velocity 80
//	                     bar 2: 59 62 67 at 48 for 24 steps
//	bass (program 33)    bar 1: 48 at 0, 43 at 24 (24 steps each); bar 2: 43 at 48 (24), 47 at 72 (12); velocity 90
//	bar 3 = bar 1 exactly; bar 4 = bar 1 a tone higher (every pitched note +2)
//	drums                kick at steps 0 24 48 72 96 120 144 168, hi-hat at 6
//
// 35 pitched notes: 9 in bars 1, 3 and 4, 8 in bar 2.
func handPiece(t *testing.T) *midi.Score {
	t.Helper()
	const st = 40 // ticks a step
	n := func(step, steps int64, pitch uint8, vel uint8) midi.Note {
		return midi.Note{Tick: step * st, Dur: steps * st, Pitch: pitch, Velocity: vel}
	}
	var mel, chords, bass, drums []midi.Note
	bar1 := func(off int64, up uint8) {
		mel = append(mel, n(off, 12, 72+up, 100), n(off+12, 12, 74+up, 100), n(off+24, 24, 76+up, 100))
		for _, p := range []uint8{60, 64, 67, 72} {
			chords = append(chords, n(off, 48, p+up, 80))
		}
		bass = append(bass, n(off, 24, 48+up, 90), n(off+24, 24, 43+up, 90))
	}
	bar1(0, 0)
	mel = append(mel, n(48, 21, 77, 100), n(69, 3, 76, 100), n(72, 12, 74, 100))
	for _, p := range []uint8{59, 62, 67} {
		chords = append(chords, n(48, 24, p, 80))
	}
	bass = append(bass, n(48, 24, 43, 90), n(72, 12, 47, 90))
	bar1(96, 0)
	bar1(144, 2)
	for _, s := range []int64{0, 24, 48, 72, 96, 120, 144, 168} {
		drums = append(drums, n(s, 1, 36, 100))
	}
	drums = append(drums, n(6, 1, 42, 70))
	s := &midi.Score{Format: 1, TicksPerBeat: 480, Tracks: []midi.Track{
		{Name: "melody", Channel: 0, Program: 0, Notes: mel},
		{Name: "chords", Channel: 1, Program: 0, Notes: chords},
		{Name: "bass", Channel: 2, Program: 33, Notes: bass},
		{Name: "drums", Channel: 9, IsDrum: true, Notes: drums},
	}, Meters: []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}}}
	var buf bytes.Buffer
	if err := s.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := midi.Parse("hand.mid", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return back
}

func TestPieceFeaturesByHand(t *testing.T) {
	f, err := PieceFeatures(handPiece(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]float64{
		// 72 twice at steps 0, 96 and (74) 144 in program 0 (two channels
		// merged): 3 of 35.
		FDupShare: 3.0 / 35,
		// Chords of one program at one onset: 60 64 67 72 (+ the double):
		// 4 distinct. 5 groups a bar (piano and bass at 0 and 24, piano at
		// 12; bar 2: piano and bass at 48 and 72, piano at 69) holding 4+1+1+1+1
		// distinct pitches: 32 over 20.
		FMaxChord:  4,
		FMeanChord: 32.0 / 20,
		// Top line 72 74 76 | 77 76 74 | 72 74 76 | 74 76 78 (the chord's
		// 72 held through bar 3 is not above bar 4's 74): 11 intervals,
		// all of 1–2 semitones, |·| summing to 20.
		FTopSteps: 1, FTopLeaps: 0, FTopRepeats: 0, FTopInterval: 20.0 / 11,
		// Directions + + + − − − + + − + +: 4 turns over 10 moves.
		FTopZigzag: 0.4,
		// Held to the next top onset except bar 2's 74 (ends at 84, next at
		// 96): 10 of 11.
		FTopLegato: 10.0 / 11,
		// 64 sixteenths; nothing sounds at 84 87 90 93 (bar 2's end; the
		// kick at 72 lasts to 75).
		FSilent16: 4.0 / 64,
		// Bars 1, 3, 4: 6 sounding at each of 16 points; bar 2: 5 at 8
		// points (48–69), 2 at 4 (72–81), none at 4: (3·96 + 48) / 60.
		FPolyphony: 5.6,
		// Lengths in beats: a bar-1 bar sums 1+1+2 + 4·4 + 2+2 = 24 (9
		// notes), bar 2 1.75+0.25+1 + 3·2 + 2+1 = 12 (8): 84 / 35.
		FLogNoteLen: math.Log(84.0 / 35),
		// Distinct onsets: pitched 0 12 24 48 69 72 96 108 120 144 156 168
		// plus the hi-hat at 6: 13 over 16 beats.
		FOnsetsPerBeat: 13.0 / 16,
		FNotesPerBeat:  35.0 / 16,
		FDrumOnsets:    9.0 / 16,
		// 12 pitched onsets: 69 (bar 2, position 21) is off the beat and
		// an off-eighth 16th.
		FOnBeat: 11.0 / 12, FOffEighth: 1.0 / 12, FOffSixteenth: 0,
		// Rhythms {0,12,24} {0,21,24} {0,12,24} {0,12,24}: bars 3 and 4
		// repeat; only bar 3 exactly (bar 4 is a tone higher).
		FRhythmRepeat: 2.0 / 3, FExactRepeat: 1.0 / 3,
		// Onset sets with drums: {0,6,12,24} {0,21,24} {0,12,24} {0,12,24}:
		// Jaccard 2/5, 2/4, 1.
		FGroove: (0.4 + 0.5 + 1) / 3,
		// Velocities: 12 at 100, 15 at 80 (+ 3 at 80 in bar 2: 15), 8 at 90.
		FVelMean: (12*100 + 15*80 + 8*90) / 35.0,
		// 43 … 78.
		FPitchRange: 35,
		// Bottom line 48 43 | 43 47 | 48 43 | 50 45: median 46, |moves|
		// 5 0 4 1 5 7 5 = 27 over 7.
		FBassMedian: 46, FBassMotion: 27.0 / 7,
		FPhraseEnd: math.Log((24.0 / 9) / (60.0 / 26)),
	}
	for i, w := range want {
		near(t, Features[i].Name, f[i], w)
	}
	// The rest against an independent recount (a script following the
	// definitions on the note list above).
	near(t, "note_len_spread", f[FNoteLenSpread], 0.6311445459755173)
	near(t, "vel_spread", f[FVelSpread], 8.741176309016248)
	near(t, "pc_entropy", f[FPCEntropy], 2.700153016697713)
	// G major holds all but bar 2's F (77); C major misses bar 4's two F♯.
	near(t, "scale_fit", f[FScaleFit], 34.0/35)
	near(t, "ioi_entropy", f[FIOIEntropy], 1.6171895725927152)
	near(t, "voice_leading", f[FVoiceLeading], 3.0689655172413794)
	near(t, "chord_vocab", f[FChordVocab], 0.42857142857142855)
	near(t, "chord_change", f[FChordChange], 0.7692307692307693)
	// Notes per bar 9 8 9 9: mean 8.75, sample standard deviation 0.5.
	near(t, "density_spread", f[FDensitySpread], 0.5/8.75)
}

// Two 6/8 bars at tpb 12 (a bar 36 steps, the beat a dotted quarter of 18):
// notes at 0 (18 steps), 6 (6), 18 (100: cut at the end, step 72), 36 (18),
// 54 (18) and one at 72, after the second bar, left out.
func TestPieceFeaturesCompoundMeterAndEnd(t *testing.T) {
	s := score(12, piano(note(0, 18, 60), note(6, 6, 62), note(18, 100, 64), note(36, 18, 65), note(54, 18, 67), note(72, 12, 69)))
	s.Meters = []midi.MeterChange{{Tick: 0, Num: 6, Den: 8}}
	f, err := PieceFeatures(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	// On the dotted-quarter beat: 0, 18, 36, 54 of 0 6 18 36 54.
	near(t, "on_beat", f[FOnBeat], 4.0/5)
	// 6 is an eighth in 6/8 (a 16th grid point on the 8th grid).
	near(t, "off_eighth", f[FOffEighth], 0)
	// Lengths 1.5 0.5 4.5 (cut) 1.5 1.5 beats: mean 1.9.
	near(t, "log_note_len", f[FLogNoteLen], math.Log(1.9))
	// 5 notes over two bars of three quarter notes.
	near(t, "notes_per_beat", f[FNotesPerBeat], 5.0/6)
	// 69 is left out: range 60–67.
	near(t, "pitch_range", f[FPitchRange], 7)
	if _, err := PieceFeatures(score(12, drumTrack(0, 12)), 1); err == nil {
		t.Error("a piece without pitched notes measured")
	}
}
