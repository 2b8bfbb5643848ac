package arrange

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

// writeFakePOP909 makes a POP909-like song folder DIR/ID: 480 ticks per
// beat, 120 bpm until tick 4800 then 150 bpm; 20 beats from tick 240 on,
// the 4-beat downbeats (column 3) on beats 2, 6, 10, …; a melody pickup at
// tick 720, notes to tick 7500; chords C (from 0 s), G7 at tick 3120, no
// chord at 4560, Am at 5280.
func writeFakePOP909(t *testing.T, root, id string) {
	t.Helper()
	dir := filepath.Join(root, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sc := &midi.Score{TicksPerBeat: 480,
		// The last tempo change lies after the music (POP909 files have
		// such): it must not lengthen the piece.
		Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}, {Tick: 4800, MicrosPerBeat: 400000},
			{Tick: 20000, MicrosPerBeat: 450000}},
		Meters: []midi.MeterChange{{Tick: 0, Num: 1, Den: 4}}}
	mel := midi.Track{Name: "MELODY", Channel: 0}
	for _, tk := range []int64{720, 1200, 1680, 2160, 3120, 4080, 5040, 6000, 7000} {
		mel.Notes = append(mel.Notes, midi.Note{Tick: tk, Dur: 480, Pitch: uint8(60 + tk/480%12), Velocity: 100})
	}
	mel.Notes[len(mel.Notes)-1].Dur = 500
	pno := midi.Track{Name: "PIANO", Channel: 2, Notes: []midi.Note{{Tick: 1200, Dur: 1920, Pitch: 48, Velocity: 70}}}
	sc.Tracks = []midi.Track{mel, pno}
	if err := midi.WriteFile(filepath.Join(dir, id+".mid"), sc); err != nil {
		t.Fatal(err)
	}
	var beats strings.Builder
	for i := 0; i < 20; i++ {
		c2, c3 := 0.0, 0.0
		if i%2 == 0 {
			c2 = 1
		}
		if i%4 == 2 {
			c3 = 1
		}
		fmt.Fprintf(&beats, "%.9f %.1f %.1f\n", sc.TickToSeconds(int64(240+480*i)), c2, c3)
	}
	sec := sc.TickToSeconds
	chords := fmt.Sprintf("0.0\t%.6f\tC:maj\n%.6f\t%.6f\tG:7\n%.6f\t%.6f\tN\n%.6f\t%.6f\tA:min\n",
		sec(3120), sec(3120), sec(4560), sec(4560), sec(5280), sec(5280), sec(7500))
	for name, text := range map[string]string{"beat_midi.txt": beats.String(), "chord_midi.txt": chords} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadPOP909Grid(t *testing.T) {
	root := t.TempDir()
	writeFakePOP909(t, root, "001")
	s, err := LoadPOP909(filepath.Join(root, "001"), POP909Song{ID: "001", Name: "Fake", Artist: "Nobody", BeatsPerBar: 2, QuaversPerBeat: 2})
	if err != nil {
		t.Fatal(err)
	}
	// The first downbeat is tick 1200; the pickup note at 720 opens bar 0,
	// which starts one bar earlier (-720): every tick moves by +720.
	if s.Pickup != 1 || s.BarTicks != 1920 || s.Bars != 5 || s.Num != 4 || s.Den != 4 {
		t.Fatalf("pickup %d, bar %d ticks, %d bars, %d/%d", s.Pickup, s.BarTicks, s.Bars, s.Num, s.Den)
	}
	if want := []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}, {Tick: 5520, MicrosPerBeat: 400000}}; !slices.Equal(s.Score.Tempos, want) {
		t.Fatalf("tempos %v, want %v", s.Score.Tempos, want)
	}
	if s.Score.Tracks[0].Name != "Melody" || s.Score.Tracks[0].Notes[0].Tick != 1440 || s.Score.Tracks[0].Notes[1].Tick != 1920 {
		t.Fatalf("melody %v", s.Score.Tracks[0].Notes[:2])
	}
	if s.Score.Tracks[1].Name != "Piano" || s.Score.Tracks[1].Notes[0].Tick != 1920 {
		t.Fatalf("piano %+v", s.Score.Tracks[1])
	}
	var got []string
	for _, c := range s.Chords {
		n := c.Chord.String()
		if c.None {
			n = "N"
		}
		got = append(got, fmt.Sprintf("%d:%s", c.Tick, n))
	}
	if want := []string{"720:C:maj", "3840:G:7", "5280:N", "6000:A:min"}; !slices.Equal(got, want) {
		t.Fatalf("chords %v, want %v", got, want)
	}
	if bpm := s.BPM(); bpm != 150 {
		t.Fatalf("BPM %g, want 150 (in force over 4080 of the 7680 ticks after the pickup)", bpm)
	}
}

func TestLoadPOP909IrregularBeats(t *testing.T) {
	root := t.TempDir()
	writeFakePOP909(t, root, "002")
	p := filepath.Join(root, "002", "beat_midi.txt")
	b, _ := os.ReadFile(p)
	lines := strings.Split(string(b), "\n")
	lines[10] = "9.999 0.0 0.0"
	os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644)
	_, err := LoadPOP909(filepath.Join(root, "002"), POP909Song{ID: "002", BeatsPerBar: 2, QuaversPerBeat: 2})
	if err == nil || !strings.Contains(err.Error(), "grid") {
		t.Fatalf("irregular beats: %v", err)
	}
}

func TestReadPOP909IndexErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "index.csv")
	os.WriteFile(p, []byte("song_id,name,artist,modify_times,num_beats_per_measure,num_quavers_per_beat\n001,a,b,1,5,2\n"), 0o644)
	if _, err := ReadPOP909Index(p); err == nil || !strings.Contains(err.Error(), "row 2") {
		t.Fatalf("bad beats per measure: %v", err)
	}
}
