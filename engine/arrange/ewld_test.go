package arrange

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

// fakeLeadSheetXML is a 4/4 lead sheet (2 divisions a quarter): a
// quarter-note pickup G, then |: m1 (C, G7 at beat 3) m2 (Am7) |1. m3
// (D7 with a flat ninth) :|2. m4 (F/A) ||.
const fakeLeadSheetXML = `<?xml version="1.0" encoding="UTF-8"?>
<score-partwise version="3.0"><part-list><score-part id="P1"><part-name>Voice</part-name></score-part></part-list>
<part id="P1">
<measure number="0" implicit="yes"><attributes><divisions>2</divisions><key><fifths>0</fifths><mode>major</mode></key>
<time><beats>4</beats><beat-type>4</beat-type></time></attributes>
<direction><direction-type><words>Moderato</words></direction-type><sound tempo="96"/></direction>
<note><pitch><step>G</step><octave>4</octave></pitch><duration>2</duration></note></measure>
<measure number="1"><barline location="left"><repeat direction="forward"/></barline>
<harmony><root><root-step>C</root-step></root><kind>major</kind></harmony>
<note><pitch><step>C</step><octave>5</octave></pitch><duration>4</duration></note>
<harmony><root><root-step>G</root-step></root><kind text="7">dominant</kind></harmony>
<note><pitch><step>E</step><octave>5</octave></pitch><duration>4</duration></note></measure>
<measure number="2"><direction><direction-type><rehearsal>B</rehearsal></direction-type></direction>
<harmony><root><root-step>A</root-step></root><kind text="m7">minor-seventh</kind></harmony>
<note><pitch><step>A</step><octave>4</octave></pitch><duration>8</duration></note></measure>
<measure number="3"><barline location="left"><ending number="1" type="start"/></barline>
<harmony><root><root-step>D</root-step></root><kind>dominant</kind><degree><degree-value>9</degree-value><degree-alter>-1</degree-alter><degree-type>add</degree-type></degree></harmony>
<note><pitch><step>D</step><octave>5</octave></pitch><duration>8</duration></note>
<barline location="right"><ending number="1" type="stop"/><repeat direction="backward"/></barline></measure>
<measure number="4"><barline location="left"><ending number="2" type="start"/></barline>
<harmony><root><root-step>F</root-step></root><kind>major</kind><bass><bass-step>A</bass-step></bass></harmony>
<note><pitch><step>C</step><octave>5</octave></pitch><duration>8</duration></note>
<barline location="right"><bar-style>light-heavy</bar-style><ending number="2" type="discontinue"/></barline></measure>
</part></score-partwise>`

// mxl zips a score the way OpenEWLD does, the container naming it inside
// single quotes (so a name with an apostrophe breaks the container).
func mxl(t *testing.T, name, score string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range []struct{ name, body string }{
		{"META-INF/container.xml", "<?xml version='1.0' encoding='UTF-8'?><container><rootfiles><rootfile full-path='" + name + "'/></rootfiles></container>"},
		{name, score},
	} {
		w, err := zw.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f.body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadMXL(t *testing.T) {
	for _, name := range []string{"Plain.xml", "Don't Stop.xml"} {
		ls, err := ReadMXL("test.mxl", mxl(t, name, fakeLeadSheetXML))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ls.Num != 4 || ls.Den != 4 || ls.Tempo != 96 || len(ls.Measures) != 5 || ls.Measures[0].Len != 1 {
			t.Fatalf("%s: %+v", name, ls)
		}
		m3, m4 := ls.Measures[3], ls.Measures[4]
		if !ls.Measures[1].RepeatStart || !m3.RepeatEnd || m3.Ending != 1 || m4.Ending != 2 || !m4.SectionEnd ||
			ls.Measures[2].Part != "B" || m4.Part != "B" || ls.Measures[1].Part != "" {
			t.Fatalf("%s: marks %+v", name, ls.Measures)
		}
		h := ls.Measures[1].Harmony
		if len(h) != 2 || h[1].At != 2 || h[1].Chord.MMA() != "G7" || m3.Harmony[0].Chord.MMA() != "D7b9" ||
			m4.Harmony[0].Chord.MMA() != "F/A" || ls.Measures[2].Harmony[0].Chord.MMA() != "Am7" {
			t.Fatalf("%s: chords %+v %+v %+v", name, h, m3.Harmony, m4.Harmony)
		}
	}
	if _, err := ReadMXL("x.mxl", []byte("not a zip")); err == nil || !strings.Contains(err.Error(), "x.mxl") {
		t.Fatalf("a file that is not a zip: %v", err)
	}
	bad := strings.Replace(fakeLeadSheetXML, "<kind>major</kind><bass>", "<kind>bogus</kind><bass>", 1)
	if _, err := ReadMXL("y.mxl", mxl(t, "Y.xml", bad)); err == nil || !strings.Contains(err.Error(), `unknown kind "bogus"`) ||
		!strings.Contains(err.Error(), "measure 4") {
		t.Fatalf("an unknown chord kind: %v", err)
	}
}

// TestMusicXMLTransposeAndKinds: a part written a major sixth above its
// sound (chromatic -9) sounds its notes and chords lower; a suspended
// fourth with text "7sus" is a seventh sus4; "none" is no chord.
func TestMusicXMLTransposeAndKinds(t *testing.T) {
	doc := `<score-partwise><part id="P1"><measure number="1"><attributes><divisions>1</divisions>
<time><beats>3</beats><beat-type>4</beat-type></time><transpose><diatonic>-5</diatonic><chromatic>-9</chromatic></transpose></attributes>
<harmony><root><root-step>G</root-step></root><kind>major</kind></harmony>
<note><pitch><step>G</step><octave>4</octave></pitch><duration>1</duration></note>
<harmony><root><root-step>C</root-step></root><kind text="7sus">suspended-fourth</kind></harmony>
<note><pitch><step>B</step><alter>-1</alter><octave>4</octave></pitch><duration>1</duration><tie type="start"/></note>
<harmony><kind>none</kind></harmony>
<note><pitch><step>B</step><alter>-1</alter><octave>4</octave></pitch><duration>1</duration><tie type="stop"/></note>
</measure></part></score-partwise>`
	ls, err := ParseMusicXML([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	m := ls.Measures[0]
	if ls.Num != 3 || m.Len != 3 || len(m.Notes) != 3 || m.Notes[0].Pitch != 58 || m.Notes[1].Pitch != 61 || !m.Notes[2].Tied {
		t.Fatalf("notes %+v", m)
	}
	if m.Harmony[0].Chord.MMA() != "Bb" || m.Harmony[1].Chord.MMA() != "Eb7sus" || !m.Harmony[2].None {
		t.Fatalf("chords %+v", m.Harmony)
	}
}

// writeFakeEWLD writes an EWLD-like folder: metadata.csv, the lead sheet
// as mxl/0001_Fake_Song.mxl, and 0001_Fake_Song.mid as EWLD renders it:
// 96 ticks a quarter, 120 bpm, the repeats played through, the pickup at
// tick 0 (not padded to a bar).
func writeFakeEWLD(t *testing.T, root string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, "mxl"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "mxl", "0001_Fake_Song.mxl"), mxl(t, "Fake Song.xml", fakeLeadSheetXML), 0o644); err != nil {
		t.Fatal(err)
	}
	meta := "file,title,composer,genre,style,instruments,licence,source_path,mxl,year,language,composer_birth,composer_death,nationality,metric,tonality,incipit_type,has_triplets\n" +
		"0001_Fake_Song.mid,Fake Song,Some Body,Rock,Pop Rock,melody only,MIT,x,mxl/0001_Fake_Song.mxl,,English,,,,4/4,C major,anacrusi,0\n"
	if err := os.WriteFile(filepath.Join(root, "metadata.csv"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	// G | C E | A | D :| C E | A | C: onsets in quarters.
	type n struct {
		at, dur float64
		p       uint8
	}
	ns := []n{{0, 1, 67}, {1, 2, 72}, {3, 2, 76}, {5, 4, 69}, {9, 4, 74}, {13, 2, 72}, {15, 2, 76}, {17, 4, 69}, {21, 4, 72}}
	var tr midi.Track
	for _, x := range ns {
		tr.Notes = append(tr.Notes, midi.Note{Tick: int64(x.at * 96), Dur: int64(x.dur * 96), Pitch: x.p, Velocity: 90})
	}
	sc := &midi.Score{TicksPerBeat: 96, Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}},
		Meters: []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}}, Tracks: []midi.Track{tr}}
	if err := midi.WriteFile(filepath.Join(root, "0001_Fake_Song.mid"), sc); err != nil {
		t.Fatal(err)
	}
}

func TestLoadEWLDFake(t *testing.T) {
	root := t.TempDir()
	writeFakeEWLD(t, root)
	songs, err := ReadEWLDIndex(filepath.Join(root, "metadata.csv"))
	if err != nil || len(songs) != 1 {
		t.Fatalf("index: %v %v", songs, err)
	}
	s, c, err := LoadEWLD(root, songs[0])
	if err != nil {
		t.Fatal(err)
	}
	// All 9 notes match the score played through its repeats, which the
	// MIDI starts at tick 0: the loader moves everything 3 quarters later
	// so bar 0 (384 ticks) ends with the pickup.
	if c.Matched != 9 || c.MIDI != 9 || !c.Expanded || c.Shift != 0 {
		t.Fatalf("check %+v", c)
	}
	if s.Pickup != 1 || s.Bars != 7 || s.BarTicks != 384 || s.Score.Tracks[0].Notes[0].Tick != 288 || s.Class() != "4/4" {
		t.Fatalf("source %+v, first note %d", s, s.Score.Tracks[0].Notes[0].Tick)
	}
	var got []string
	for _, ch := range s.Chords {
		got = append(got, ch.Chord.MMA()+"@"+strconv.FormatInt(ch.Tick, 10))
	}
	want := []string{"C@384", "G7@576", "Am7@768", "D7b9@1152", "C@1536", "G7@1728", "Am7@1920", "F/A@2304"}
	if !slices.Equal(got, want) {
		t.Fatalf("chords %v\nwant %v", got, want)
	}
	// Sections: rehearsal mark B (bar 2, and bar 5 on the repeat), the
	// repeat (bar 4) and the second ending (bar 6); the repeat sign before
	// bar 1 is the first downbeat itself.
	if !slices.Equal(s.Sections, []int{2, 4, 5, 6}) {
		t.Fatalf("sections %v", s.Sections)
	}
	// On-beat notes under a chord: 8 (the pickup has none); the E over G7
	// twice is not a chord tone.
	if c.BeatNotes != 8 || c.ChordTones != 6 {
		t.Fatalf("chord tones %d of %d, want 6 of 8", c.ChordTones, c.BeatNotes)
	}
	if !slices.Equal(s.Families, []string{"rock", "pop", "ballad"}) || !slices.Contains(s.Tags, "pop rock") {
		t.Fatalf("families %v tags %v", s.Families, s.Tags)
	}

	// A MIDI melody that departs from the score is skipped, naming why.
	sc, _ := midi.ReadFile(filepath.Join(root, "0001_Fake_Song.mid"))
	for i := range sc.Tracks[0].Notes[3:] {
		sc.Tracks[0].Notes[3+i].Pitch++
	}
	midi.WriteFile(filepath.Join(root, "0001_Fake_Song.mid"), sc)
	if _, _, err := LoadEWLD(root, songs[0]); !errors.Is(err, ErrSkip) || !strings.Contains(err.Error(), "3 of 9 MIDI notes line up") {
		t.Fatalf("departing melody: %v", err)
	}
}
