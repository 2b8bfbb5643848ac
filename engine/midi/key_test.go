package midi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
)

// melody builds a one-track score of equal quarter notes.
func melody(pitches ...uint8) *Score {
	s := &Score{TicksPerBeat: 480}
	var notes []Note
	for i, p := range pitches {
		notes = append(notes, Note{Tick: int64(i) * 480, Dur: 480, Pitch: p, Velocity: 80})
	}
	s.Tracks = []Track{{Notes: notes}}
	s.EndTick = int64(len(pitches)) * 480
	s.ComputeSeconds()
	return s
}

func TestEstimateKeyHandBuilt(t *testing.T) {
	cases := []struct {
		name    string
		pitches []uint8
		want    string
	}{
		{"C major scale", []uint8{60, 62, 64, 65, 67, 69, 71, 72}, "C major"},
		{"A harmonic minor", []uint8{57, 59, 60, 62, 64, 65, 68, 69}, "A minor"},
		{"G major scale", []uint8{67, 69, 71, 72, 74, 76, 78, 79}, "G major"},
		{"E harmonic minor", []uint8{64, 66, 67, 69, 71, 72, 75, 76}, "E minor"},
	}
	for _, c := range cases {
		k := EstimateKey(melody(c.pitches...))
		if k.String() != c.want || k.Confidence <= 0.5 || k.Confidence > 1 {
			t.Errorf("%s: %v (r=%.3f), want %s", c.name, k, k.Confidence, c.want)
		}
	}
	// Drums do not count: a C major scale plus loud drum hits on F#.
	s := melody(60, 62, 64, 65, 67, 69, 71, 72)
	drums := Track{Channel: 9, IsDrum: true}
	for i := 0; i < 32; i++ {
		drums.Notes = append(drums.Notes, Note{Tick: int64(i) * 120, Dur: 480, Pitch: 42, Velocity: 127})
	}
	s.Tracks = append(s.Tracks, drums)
	s.ComputeSeconds()
	if k := EstimateKey(s); k.String() != "C major" {
		t.Errorf("with drums: %v", k)
	}
	if k := EstimateKey(&Score{TicksPerBeat: 480}); k.Confidence != 0 || k.String() != "C major" {
		t.Errorf("empty: %+v", k)
	}
}

func TestParseKey(t *testing.T) {
	cases := map[string]string{
		"Gb:maj": "F# major", "F#:maj": "F# major", "Db:min": "C# minor", "A:min": "A minor",
		"D minor": "D minor", "Eb major": "Eb major", "bb minor": "Bb minor", "Am": "A minor", "C": "C major",
		"F sharp minor": "F# minor", "B flat major": "Bb major", "E♭ major": "Eb major", "Cb major": "B major",
	}
	for in, want := range cases {
		k, err := ParseKey(in)
		if err != nil || k.String() != want {
			t.Errorf("ParseKey(%q) = %v, %v; want %s", in, k, err, want)
		}
	}
	for _, bad := range []string{"", "H major", "C dorianish", "X"} {
		if _, err := ParseKey(bad); err == nil {
			t.Errorf("ParseKey(%q) gave no error", bad)
		}
	}
	// Every name String writes parses back to the same key.
	for tonic := 0; tonic < 12; tonic++ {
		for _, minor := range []bool{false, true} {
			k := Key{Tonic: tonic, Minor: minor}
			if back, err := ParseKey(k.String()); err != nil || !back.Same(k) {
				t.Errorf("%v → %v, %v", k, back, err)
			}
		}
	}
}

// TestEstimateKeyPOP909 compares the estimate with the first key of each
// song's key_audio.txt (annotated from the audio): tonic and mode must
// agree, enharmonic spellings being equal.
func TestEstimateKeyPOP909(t *testing.T) {
	dir := corpus.Path(t, corpus.POP909)
	files := corpus.MIDIFiles(t, corpus.POP909)
	agree, total := 0, 0
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(filepath.Dir(f), "key_audio.txt"))
		if err != nil {
			continue
		}
		line, _, _ := strings.Cut(strings.TrimSpace(string(raw)), "\n")
		fields := strings.Fields(line)
		if len(fields) < 3 {
			continue
		}
		want, err := ParseKey(fields[2])
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		s, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		total++
		if EstimateKey(s).Same(want) {
			agree++
		}
	}
	if total < 800 {
		t.Fatalf("only %d songs with key_audio.txt under %s", total, dir)
	}
	rate := float64(agree) / float64(total)
	t.Logf("key estimate agrees with POP909 key_audio.txt on %d of %d songs (%.1f%%)", agree, total, 100*rate)
	if rate < 0.70 {
		t.Errorf("agreement %.1f%% below the 70%% floor", 100*rate)
	}
}
