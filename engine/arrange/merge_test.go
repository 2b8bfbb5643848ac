package arrange

import (
	"slices"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

// fakeMMA is what MMA might write for handSource's 4 bars: 192 ticks per
// beat; a drum hit on every beat (16 beats, plus one past the end), a bass
// (FingeredBass, 33) on beats 1 and 3, piano chords (0) on every beat, a
// guitar (27) on every off-beat, an arpeggio (99) on beat 1 and a pad (48)
// once.
func fakeMMA() *midi.Score {
	sc := &midi.Score{TicksPerBeat: 192}
	drum := midi.Track{Name: "Drum", Channel: 9, IsDrum: true}
	bass := midi.Track{Name: "Bass", Channel: 15, Program: 33}
	piano := midi.Track{Name: "Chord-Piano", Channel: 14, Program: 0}
	gtr := midi.Track{Name: "Chord-Guitar", Channel: 13, Program: 27}
	arp := midi.Track{Name: "Arpeggio", Channel: 12, Program: 99}
	pad := midi.Track{Name: "Chord-Sus", Channel: 11, Program: 48}
	for beat := int64(0); beat < 17; beat++ {
		t := beat * 192
		drum.Notes = append(drum.Notes, midi.Note{Tick: t, Dur: 1, Pitch: 36, Velocity: 90})
		if beat < 16 {
			piano.Notes = append(piano.Notes, midi.Note{Tick: t, Dur: 96, Pitch: 60, Velocity: 70})
			gtr.Notes = append(gtr.Notes, midi.Note{Tick: t + 96, Dur: 48, Pitch: 64, Velocity: 70})
		}
		if beat%2 == 0 && beat < 16 {
			bass.Notes = append(bass.Notes, midi.Note{Tick: t, Dur: 384, Pitch: 36, Velocity: 90})
		}
		if beat%4 == 0 && beat < 16 {
			arp.Notes = append(arp.Notes, midi.Note{Tick: t, Dur: 96, Pitch: 72, Velocity: 60})
		}
	}
	pad.Notes = []midi.Note{{Tick: 768, Dur: 2000, Pitch: 55, Velocity: 50}}
	sc.Tracks = []midi.Track{drum, bass, piano, gtr, arp, pad}
	return sc
}

func TestMergeScalesOntoTheSourceGrid(t *testing.T) {
	s := handSource(t)
	v := Variant{Groove: grooveByTag(t, "bossanova", "4/4", 1), Seed: 1}
	out, info, err := Merge(fakeMMA(), s, v)
	if err != nil {
		t.Fatal(err)
	}
	if out.TicksPerBeat != 480 || out.EndTick != 4*1920 {
		t.Fatalf("ticks per beat %d, end %d", out.TicksPerBeat, out.EndTick)
	}
	if len(out.Meters) != 1 || out.Meters[0] != (midi.MeterChange{Tick: 0, Num: 4, Den: 4}) {
		t.Fatalf("meters %v", out.Meters)
	}
	if !slices.Equal(out.Tempos, s.Score.Tempos) {
		t.Fatalf("tempos %v, want %v", out.Tempos, s.Score.Tempos)
	}
	var drums *midi.Track
	progs := map[int]bool{}
	chans := map[int]int{}
	for i := range out.Tracks {
		tr := &out.Tracks[i]
		if tr.IsDrum {
			drums = tr
			if tr.Channel != 9 {
				t.Errorf("drums on channel %d", tr.Channel)
			}
			continue
		}
		progs[tr.Program] = true
		if p, dup := chans[tr.Channel]; dup && p != tr.Program {
			t.Errorf("channel %d holds programs %d and %d", tr.Channel, p, tr.Program)
		}
		chans[tr.Channel] = tr.Program
	}
	// 192 MMA ticks per beat → 480: MMA beat k lands on tick 480k; the hit
	// past the last bar is cut.
	if drums == nil || len(drums.Notes) != 16 {
		t.Fatalf("drums %v", drums)
	}
	for k, n := range drums.Notes {
		if n.Tick != int64(480*k) {
			t.Fatalf("drum %d at %d, want %d", k, n.Tick, 480*k)
		}
	}
	// The bass, then the busiest: piano (16 notes) and guitar (16); the
	// arpeggio (4) and the pad (1) go: three accompaniment programs.
	if !progs[33] || !progs[0] || !progs[27] || progs[99] || progs[48] {
		t.Fatalf("programs %v (kept %v, dropped %v)", progs, info.Kept, info.Dropped)
	}
	// The melody's lead comes from the latin list and avoids 0, 27, 33.
	if info.Lead == 0 || info.Lead == 27 || info.Lead == 33 || !slices.Contains(leads["latin"], info.Lead) {
		t.Fatalf("lead %d", info.Lead)
	}
	if info.Programs != 4 {
		t.Fatalf("%d pitched programs, want 4", info.Programs)
	}
	// The melody keeps its ticks.
	if out.Tracks[0].Name != "Melody" || out.Tracks[0].Notes[0].Tick != 1440 || out.Tracks[0].Program != info.Lead {
		t.Fatalf("melody %+v", out.Tracks[0])
	}
}

func TestMergeDoubleTimeAndPiano(t *testing.T) {
	s := handSource(t)
	s.Score.Tracks = append(s.Score.Tracks, midi.Track{Name: "Piano", Notes: []midi.Note{{Tick: 1920, Dur: 960, Pitch: 48, Velocity: 70}}})
	v := Variant{Groove: grooveByTag(t, "ska", "4/4", 2), Seed: 3, KeepPiano: true}
	out, info, err := Merge(fakeMMA(), s, v)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tr := range out.Tracks {
		names = append(names, tr.Name)
		if tr.IsDrum {
			// R = 2: an MMA beat is an eighth note, 240 ticks; the 17 hits
			// span 16 eighths, 2 bars: all inside the piece.
			if len(tr.Notes) != 17 || tr.Notes[1].Tick != 240 || tr.Notes[16].Tick != 3840 {
				t.Fatalf("double-time drums %v", tr.Notes)
			}
		}
		if tr.Name == "Piano" && (tr.Program != 0 || tr.Notes[0].Tick != 1920) {
			t.Fatalf("piano %+v", tr)
		}
	}
	// With the piano kept, the groove keeps only its bass and drums.
	if want := []string{"Melody", "Piano", "Bass", "Drums"}; !slices.Equal(names, want) {
		t.Fatalf("tracks %v, want %v (dropped %v)", names, want, info.Dropped)
	}
	if info.Lead == 0 || info.Lead == 33 {
		t.Fatalf("lead %d collides with the piano or bass", info.Lead)
	}
}

func TestCheckCountsBarsWithoutDrums(t *testing.T) {
	s := handSource(t)
	s.Score.ComputeSeconds()
	out, _, err := Merge(fakeMMA(), s, Variant{Groove: grooveByTag(t, "bossanova", "4/4", 1)})
	if err != nil {
		t.Fatal(err)
	}
	c := Check(out, s)
	if c.BarsWithoutDrums != 0 || !c.TempoSame || !c.MeterSame {
		t.Fatalf("check %+v", c)
	}
	// Remove the drums of bar 2 (ticks 3840–5759).
	for i := range out.Tracks {
		if out.Tracks[i].IsDrum {
			out.Tracks[i].Notes = slices.DeleteFunc(out.Tracks[i].Notes, func(n midi.Note) bool {
				return n.Tick >= 3840 && n.Tick < 5760
			})
		}
	}
	out.Tempos = []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}}
	c = Check(out, s)
	if c.BarsWithoutDrums != 1 || c.TempoSame {
		t.Fatalf("check after removing bar 2's drums and changing the tempo: %+v", c)
	}
}

func TestKeysClose(t *testing.T) {
	c, g, am, em, d := midi.Key{Tonic: 0}, midi.Key{Tonic: 7}, midi.Key{Tonic: 9, Minor: true},
		midi.Key{Tonic: 4, Minor: true}, midi.Key{Tonic: 2}
	for _, tc := range []struct {
		a, b midi.Key
		want bool
	}{{c, c, true}, {c, g, true}, {g, c, true}, {c, am, true}, {am, c, true}, {c, em, false}, {c, d, false}} {
		if got := keysClose(tc.a, tc.b); got != tc.want {
			t.Errorf("keysClose(%v, %v) = %v", tc.a, tc.b, got)
		}
	}
}
