package text

import (
	"fmt"
	"slices"
	"testing"
)

// keyName writes a parsed key for comparison: "A minor", "" when unset.
func keyName(tonic int, minor bool) string {
	if tonic < 0 {
		return ""
	}
	names := [12]string{"C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"}
	if minor {
		return names[tonic] + " minor"
	}
	return names[tonic] + " major"
}

// TestParsePrompt is a table of varied prompts with the attributes each
// asks for, worked out by hand. Fields left empty must stay unspecified;
// moods and genres list words that must be among those found.
func TestParsePrompt(t *testing.T) {
	type want struct {
		bpm    float64
		key    string // "" unspecified
		mode   string
		meter  string // "" unspecified
		progs  []int  // nil unspecified
		drums  string // "", "yes", "no"
		bars   int
		secs   float64
		moods  []string
		genres []string
		dens   string
	}
	cases := []struct {
		prompt string
		want   want
	}{
		{"a slow waltz", want{bpm: 70, meter: "3/4", genres: []string{"waltz"}}},
		{"fast jig in D major", want{bpm: 140, key: "D major", meter: "6/8", genres: []string{"jig"}}},
		{"Irish reel on fiddle", want{meter: "4/4", progs: []int{40}, genres: []string{"irish", "reel"}}},
		{"sad piano ballad in A minor", want{key: "A minor", mode: "minor", progs: []int{0}, moods: []string{"sad"}, genres: []string{"ballad"}}},
		{"90 bpm hip hop beat", want{bpm: 90, drums: "yes", genres: []string{"hip hop"}}},
		{"allegro string quartet in F# minor", want{bpm: 140, key: "F# minor", progs: []int{40, 41, 42}}},
		{"adagio for strings", want{bpm: 70, progs: []int{48}}},
		{"Bb major jazz tune with saxophone and drums", want{key: "Bb major", progs: []int{65}, drums: "yes", genres: []string{"jazz"}}},
		{"something in E flat", want{key: "Eb major", mode: "major"}},
		{"E flat minor nocturne for piano", want{key: "Eb minor", progs: []int{0}, genres: []string{"nocturne"}}},
		{"a happy tune in 6/8", want{meter: "6/8", moods: []string{"happy"}}},
		{"32 bars of cheerful folk music", want{bars: 32, moods: []string{"cheerful"}, genres: []string{"folk"}}},
		{"thirty-two bar reel", want{bars: 32, meter: "4/4"}},
		{"a 90 second lullaby", want{secs: 90, bars: 45, genres: []string{"lullaby"}}},
		{"two minutes of ambient synth pads, no drums", want{secs: 120, bars: 60, progs: []int{89}, drums: "no", genres: []string{"ambient"}}},
		{"epic orchestral music at 120 bpm", want{bpm: 120, moods: []string{"epic"}, genres: []string{"orchestral"}}},
		// A named ensemble is its first set in the lexicon: strings, horn,
		// flute and timpani (ten programs could not all be heard in 16 bars).
		{"full orchestra, triumphant, in C major", want{key: "C major", progs: []int{47, 48, 60, 73}, moods: []string{"triumphant"}}},
		{"rock song with distorted guitar, bass and drums", want{progs: []int{30, 33}, drums: "yes", genres: []string{"rock"}}},
		{"solo cello in D minor, very slow", want{bpm: 50, key: "D minor", progs: []int{42}}},
		{"presto in G", want{bpm: 184, key: "G major"}},
		{"a gentle minuet for harpsichord", want{meter: "3/4", progs: []int{6}, moods: []string{"gentle"}, genres: []string{"minuet"}}},
		{"slip jig on tin whistle", want{meter: "9/8", progs: []int{78}, genres: []string{"slip jig"}}},
		{"march in 2/4 for brass band", want{meter: "2/4", progs: []int{56, 57, 58, 60}, genres: []string{"march"}}},
		{"polka with accordion", want{meter: "2/4", progs: []int{21}, genres: []string{"polka"}}},
		{"hornpipe in A", want{key: "A major", meter: "4/4", genres: []string{"hornpipe"}}},
		{"Am pop song at 100 bpm", want{bpm: 100, key: "A minor", genres: []string{"pop"}}},
		{"F#m chill lofi beat", want{key: "F# minor", drums: "yes", moods: []string{"chill"}, genres: []string{"lofi"}}},
		{"C# minor, 5/4, mysterious", want{key: "C# minor", meter: "5/4", moods: []string{"mysterious"}}},
		{"in 7/8 with marimba and vibraphone", want{meter: "7/8", progs: []int{11, 12}}},
		{"something in a minor key, melancholic", want{mode: "minor", moods: []string{"melancholic"}}},
		{"a major hit with electric guitar", want{progs: []int{27}}},
		{"moderato, three-four time, flute and oboe", want{bpm: 114, meter: "3/4", progs: []int{68, 73}}},
		{"andante in B flat major for clarinet", want{bpm: 92, key: "Bb major", progs: []int{71}}},
		{"quick 64 bar tune for banjo", want{bpm: 140, bars: 64, progs: []int{105}}},
		{"bossa nova with nylon guitar and upright bass", want{progs: []int{24, 32}, genres: []string{"bossa nova"}}},
		{"chiptune at 150 bpm, square wave lead", want{bpm: 150, progs: []int{80}, genres: []string{"chiptune"}}},
		{"tense film score with timpani and french horn", want{progs: []int{47, 60}, moods: []string{"tense"}, genres: []string{"film score"}}},
		{"a cappella choir hymn", want{progs: []int{52}, drums: "no", genres: []string{"hymn"}}},
		{"dark techno, 128 bpm, drum machine and synth bass", want{bpm: 128, progs: []int{38}, drums: "yes", moods: []string{"dark"}, genres: []string{"techno"}}},
		{"playful pizzicato strings in G major, 16 bars", want{key: "G major", progs: []int{45}, bars: 16, moods: []string{"playful"}}},
		{"church organ prelude in D dorian", want{key: "D minor", progs: []int{19}, genres: []string{"prelude"}}},
		{"G mixolydian fiddle tune", want{key: "G major", progs: []int{40}}},
		{"an uplifting anthem, 4/4, brass and strings", want{meter: "4/4", progs: []int{48, 61}, moods: []string{"uplifting"}, genres: []string{"anthem"}}},
		{"jazz trio ballad, slow", want{bpm: 70, progs: []int{0, 32}, drums: "yes", genres: []string{"jazz", "ballad"}}},
		{"cut time reel for bagpipes", want{meter: "2/2", progs: []int{109}}},
		{"tempo 72, romantic piano in Db major", want{bpm: 72, key: "C# major", progs: []int{0}, moods: []string{"romantic"}}},
		{"Christmas carol with bells and choir", want{progs: []int{14, 52}, genres: []string{"christmas", "carol"}}},
		{"one minute long happy ukulele song", want{secs: 60, bars: 30, progs: []int{24}, moods: []string{"happy"}}},
		{"1:30 of calm music for harp", want{secs: 90, bars: 45, progs: []int{46}, moods: []string{"calm"}}},
		{"two and a half minutes of relaxing piano at 60 bpm", want{bpm: 60, secs: 150, bars: 38, progs: []int{0}, moods: []string{"relaxing"}}},
		{"waltz of 48 bars in E minor for violin and piano", want{meter: "3/4", bars: 48, key: "E minor", progs: []int{0, 40}}},
		{"vivace in A major", want{bpm: 160, key: "A major"}},
		{"Largo, C minor, cello and double bass", want{bpm: 50, key: "C minor", progs: []int{32, 42}}},
		{"a spooky tune on music box", want{progs: []int{10}, moods: []string{"spooky"}}},
		{"energetic electronic dance track with heavy drums and synth lead", want{progs: []int{80}, drums: "yes", moods: []string{"energetic", "heavy"}, genres: []string{"electronic", "dance"}}},
		{"reggae groove with organ and bass", want{progs: []int{16, 33}, drums: "yes", genres: []string{"reggae"}}},
		{"sparse minimalist piano", want{progs: []int{0}, dens: "sparse"}},
		{"dense virtuosic violin étude in E", want{key: "E major", progs: []int{40}, dens: "dense", genres: []string{"etude"}}},
		{"Chinese pop ballad with erhu and guzheng", want{progs: []int{107, 110}, genres: []string{"pop", "ballad"}}},
		{"blues in E with harmonica", want{key: "E major", progs: []int{22}, genres: []string{"blues"}}},
		{"a piece in F sharp major", want{key: "F# major"}},
		{"Eb major, 3/4, 24 bars, piano", want{key: "Eb major", meter: "3/4", bars: 24, progs: []int{0}}},
		{"ragtime piano, 8 bars", want{progs: []int{0}, bars: 8, genres: []string{"ragtime"}}},
		{"piano trio in C major, no drums", want{key: "C major", progs: []int{0, 40, 42}, drums: "no"}},
		{"a nostalgic tune for honky-tonk piano", want{progs: []int{3}, moods: []string{"nostalgic"}}},
		{"acoustic grand piano and string ensemble 2", want{progs: []int{0, 49}}},
		{"heroic video game theme at 140 bpm with trumpets and timpani", want{bpm: 140, progs: []int{47, 56}, moods: []string{"heroic"}, genres: []string{"video game"}}},
		{"", want{}},
		{"hello world", want{}},
		{"a tune that is not too fast", want{}},
		{"sixty four bars in 6/8 at a hundred and twenty bpm", want{bpm: 120, bars: 64, meter: "6/8"}},
		{"90s pop", want{genres: []string{"pop"}}},
		{"A♭ major hymn for organ", want{key: "Ab major", progs: []int{16}, genres: []string{"hymn"}}},
		{"fast reel, 2/2, 32 bars, fiddle and bodhran percussion", want{bpm: 140, meter: "2/2", bars: 32, progs: []int{40}, drums: "yes"}},
	}
	if len(cases) < 60 {
		t.Fatalf("only %d cases; the table must have at least 60", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.prompt, func(t *testing.T) {
			p := ParsePrompt(tc.prompt)
			a := p.Attrs
			w := tc.want
			if a.TempoBPM != w.bpm {
				t.Errorf("tempo %v, want %v", a.TempoBPM, w.bpm)
			}
			if got := keyName(a.KeyTonic, a.KeyMinor); got != w.key {
				t.Errorf("key %q, want %q", got, w.key)
			}
			wantMode := w.mode
			if wantMode == "" && w.key != "" {
				wantMode = "major"
				if a.KeyMinor {
					wantMode = "minor"
				}
			}
			if p.Mode != wantMode {
				t.Errorf("mode %q, want %q", p.Mode, wantMode)
			}
			meter := ""
			if a.MeterNum > 0 {
				meter = fmt.Sprintf("%d/%d", a.MeterNum, a.MeterDen)
			}
			if meter != w.meter {
				t.Errorf("meter %q, want %q", meter, w.meter)
			}
			if !slices.Equal(a.Programs, w.progs) {
				t.Errorf("programs %v, want %v (phrases %v)", a.Programs, w.progs, p.Instruments)
			}
			drums := ""
			if a.Drums != nil {
				drums = map[bool]string{true: "yes", false: "no"}[*a.Drums]
			}
			if drums != w.drums {
				t.Errorf("drums %q, want %q", drums, w.drums)
			}
			if a.Bars != w.bars {
				t.Errorf("bars %d, want %d", a.Bars, w.bars)
			}
			if p.Seconds != w.secs {
				t.Errorf("seconds %v, want %v", p.Seconds, w.secs)
			}
			for _, m := range w.moods {
				if !slices.Contains(p.Moods, m) {
					t.Errorf("mood %q missing from %v", m, p.Moods)
				}
			}
			for _, g := range w.genres {
				if !slices.Contains(p.Genres, g) {
					t.Errorf("genre %q missing from %v", g, p.Genres)
				}
			}
			if p.Density != w.dens {
				t.Errorf("density %q, want %q", p.Density, w.dens)
			}
			if a.Density != -1 || a.Style != -1 {
				t.Errorf("density bin %d / style %d set; the parser leaves them to the caller", a.Density, a.Style)
			}
		})
	}
}

// TestTempoWordsRoundTrip checks that every tempo word ParsePrompt knows
// lands in the TempoWord range of the same name, so captions and prompts
// speak the same language.
func TestTempoWordsRoundTrip(t *testing.T) {
	for _, tw := range tempoWords {
		p := ParsePrompt(tw.mark)
		if got := TempoWord(p.Attrs.TempoBPM); got != tw.plain+" ("+tw.mark+")" {
			t.Errorf("%s → %v bpm → %q", tw.mark, p.Attrs.TempoBPM, got)
		}
	}
}

// Every program's prompt name reads back as that program alone, in a
// sentence a user would write.
func TestInstrumentNameParsesBack(t *testing.T) {
	for p := 0; p < 128; p++ {
		name := InstrumentName(p)
		got := ParsePrompt("A tune in C major for " + name + ", 4/4, 100 bpm").Attrs.Programs
		if len(got) != 1 || got[0] != p {
			t.Errorf("program %d: %q parses as %v", p, name, got)
		}
	}
	if InstrumentName(0) != "piano" || InstrumentName(40) != "violin" || InstrumentName(128) != "" {
		t.Errorf("names %q %q %q", InstrumentName(0), InstrumentName(40), InstrumentName(128))
	}
}

// A comma ends an item of a list: an instrument name never runs across it
// ("synth, bass" is two instruments, "synth bass" one), and a number
// written across a comma leaves the breaks unknown rather than wrong.
func TestInstrumentsNeverSpanAComma(t *testing.T) {
	for _, c := range []struct {
		prompt string
		want   []int
	}{
		{"a tune for synth, bass and drums", []int{33, 80}},
		{"a tune for synth bass and drums", []int{38}},
		{"synth lead, synth bass", []int{38, 80}},
		{"a tune for electric; piano", []int{0}},
		{"a tune for electric piano", []int{4}},
		// The two-sample prompt of a Freedoom piece (synth bass 2, lead 1,
		// lead 8 (bass + lead), FX 1 rain), which read "synth, bass" as
		// synth bass 1 and lost lead 8.
		{"A video game tune in D minor, 4/4, 145 bpm, for synth bass 2, synth, bass lead lead 8, fx 1 rain and drums", []int{39, 80, 87, 96}},
	} {
		got := ParsePrompt(c.prompt).Attrs.Programs
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: programs %v, want %v", c.prompt, got, c.want)
		}
	}
	if b := listBreaks("for synth, bass; piano", 4); !slices.Equal(b, []bool{false, false, true, true}) {
		t.Errorf("breaks %v", b)
	}
	if b := listBreaks("one hundred, twenty", 3); b != nil {
		t.Errorf("segments that do not add up: %v, want nil", b)
	}
}
