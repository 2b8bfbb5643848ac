package text

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/midi"
)

// TestMetadataColumns reads tables shaped like the seven corpora's
// metadata.csv into every field, the genre family and the caption.
func TestMetadataColumns(t *testing.T) {
	root := writeTree(t, map[string]string{
		"lieder/metadata.csv": "file,title,composer,genre,instruments,licence,source_path,set,composer_gender,composer_born,composer_died\n" +
			"lc1.mid,Erlkönig,Franz Schubert,art song (Lied),\"voice (program 68), piano (program 0)\",CC0-1.0,x,\"Op.1\",Male,1797,1828\n" +
			"lc2.mid,The Family Quarrel,\"Arne, Thomas\",art song (Lied),\"voice (program 68), piano (program 0)\",CC0-1.0,x,,Male,1710,1778\n",
		"lieder/lc1.mid": "", "lieder/lc2.mid": "",
		"mutopia/metadata.csv": "file,title,composer,style,instruments,licence,source_path,mutopia_id,mutopia_composer,opus,maintainer,date\n" +
			"m1.mid,An die Musik,SchubertF,Romantic,Voice and Piano,Public Domain,x,1001,SchubertF,D.547,someone,1817\n" +
			"m2.mid,Air,Johann Sebastian Bach (1685-1750),Technique,Organ,CC BY-SA 3.0,x,2,BachJS,,someone,1720\n",
		"mutopia/m1.mid": "", "mutopia/m2.mid": "",
		"groove/metadata.csv": "file,title,artist,style,instruments,licence,source_path,bpm,beat_type,time_signature\n" +
			"d1.mid,drummer1/session1/1,drummer1,funk/purdieshuffle,\"drum kit (channel 10)\",CC-BY-4.0,x,130,fill,6-8\n" +
			"d2.mid,drummer1/session1/2,drummer1,afrocuban/bembe,drum kit,CC-BY-4.0,x,120,beat,4-4\n",
		"groove/d1.mid": "", "groove/d2.mid": "",
		"ewld/metadata.csv": "file,title,composer,genre,style,instruments,licence,source_path,mxl,year\n" +
			"e1.mid,Tangerine,Victor Schertzinger,\"Funk / Soul\",Soul-Jazz,melody only (one voice line),MIT,x,y,1942-01-24\n" +
			"e2.mid,Sweet Sixteen,James Thornton,\"Folk, World, & Country\",,melody only,MIT,x,y,\n",
		"ewld/e1.mid": "", "ewld/e2.mid": "",
		"irish/metadata.csv": "file,title,composer,genre,tune_type,instruments,licence\n" +
			"i1.mid,The Achonry Lasses,traditional (Irish),Irish traditional dance music,reel,melody only (monophonic),CC-BY-4.0\n" +
			"i2.mid,A Trip To Galway,traditional (Irish),Irish traditional dance music,,melody only (monophonic),CC-BY-4.0\n",
		"irish/i1.mid": "", "irish/i2.mid": "",
	})
	c, err := NewCollector(root, CollectorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Notes(); len(n) > 0 {
		t.Fatalf("notes: %v", n)
	}
	type fields struct {
		composer, years, style, era, tune, instruments, meter, year, collection string
		family                                                                  string
	}
	type want struct {
		fields
		caption []string // phrases the caption holds
	}
	for _, tc := range []struct {
		file string
		want want
	}{
		{"lieder/lc1.mid", want{fields: fields{composer: "Franz Schubert", years: "1797–1828", era: "Romantic", family: "classical",
			instruments: "voice (program 68), piano (program 0)", collection: "Op.1"}, caption: []string{`"Erlkönig" by Franz Schubert (1797–1828).`, "An art song (Lied).", "Romantic era.", "Instruments: voice, piano.", "From Op.1."}}},
		{"lieder/lc2.mid", want{fields: fields{composer: "Thomas Arne", years: "1710–1778", era: "Baroque", family: "classical",
			instruments: "voice (program 68), piano (program 0)"}, caption: []string{"by Thomas Arne (1710–1778).", "Baroque era."}}},
		{"mutopia/m1.mid", want{fields: fields{composer: "F. Schubert", style: "Romantic", family: "classical", year: "1817",
			instruments: "Voice and Piano"}, caption: []string{"by F. Schubert (1817).", "Style: Romantic.", "Instruments: Voice and Piano."}}},
		{"mutopia/m2.mid", want{fields: fields{composer: "Johann Sebastian Bach", years: "1685–1750", style: "Technique", year: "1720",
			family: "classical", instruments: "Organ"}, caption: []string{"by Johann Sebastian Bach (1685–1750), 1720."}}},
		{"groove/d1.mid", want{fields: fields{style: "funk/purdieshuffle", tune: "fill", family: "funk", meter: "6/8",
			instruments: "drum kit (channel 10)"}, caption: []string{"A drum fill.", "Style: funk/purdieshuffle.", "Instruments: drum kit."}}},
		{"groove/d2.mid", want{fields: fields{style: "afrocuban/bembe", tune: "beat", family: "latin", meter: "4/4", instruments: "drum kit"}, caption: []string{"A drum beat."}}},
		{"ewld/e1.mid", want{fields: fields{composer: "Victor Schertzinger", style: "Soul-Jazz", family: "jazz", year: "1942",
			instruments: "melody only (one voice line)"}, caption: []string{"(1942).", "A Funk / Soul.", "Style: Soul-Jazz.", "Instruments: melody only."}}},
		{"ewld/e2.mid", want{fields: fields{composer: "James Thornton", family: "folk", instruments: "melody only"}}},
		{"irish/i1.mid", want{fields: fields{composer: "traditional (Irish)", tune: "reel", family: "folk", instruments: "melody only (monophonic)"}, caption: []string{"A reel."}}},
		{"irish/i2.mid", want{fields: fields{composer: "traditional (Irish)", family: "folk", instruments: "melody only (monophonic)"}}},
	} {
		info := c.Info(context.Background(), filepath.Join(root, tc.file), nil)
		got := fields{info.Composer, info.ComposerYears, info.Style, info.Era, info.TuneType, info.Instruments, info.Meter,
			info.Year, info.Collection, info.Family()}
		if got != tc.want.fields {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.file, got, tc.want.fields)
		}
		cap := Caption(info, midi.Metadata{})
		for _, p := range tc.want.caption {
			if !strings.Contains(cap, p) {
				t.Errorf("%s: caption %q lacks %q", tc.file, cap, p)
			}
		}
	}
}

// TestFamilyOrder: the kind of piece names the family before the style,
// the style before the genre; words that name none are passed over.
func TestFamilyOrder(t *testing.T) {
	for _, c := range []struct {
		info PieceInfo
		want string
	}{
		{PieceInfo{TuneType: "polka", Genre: "Irish traditional dance music"}, "polka"},
		{PieceInfo{TuneType: "beat", Style: "rock/halftime"}, "rock"},
		{PieceInfo{Style: "Vocal", Genre: "Jazz"}, "pop"}, // "vocal": Discogs' vocal pop
		{PieceInfo{Style: "Easy Listening", Genre: "Jazz"}, "pop"},
		{PieceInfo{Style: "Big Band", Genre: "Pop"}, "jazz"},
		{PieceInfo{Style: "Soundtrack", Genre: "Stage & Screen"}, ""},
		{PieceInfo{Style: "Rhythm & Blues", Genre: "Funk / Soul"}, "funk"},
		{PieceInfo{Genre: "string quartet (classical/romantic chamber music)"}, "classical"},
		{PieceInfo{Genre: "pop"}, "pop"},
		{PieceInfo{Tags: []string{"sad", "waltz"}}, "waltz"},
		{PieceInfo{}, ""},
	} {
		if got := c.info.Family(); got != c.want {
			t.Errorf("%+v: family %q, want %q", c.info, got, c.want)
		}
	}
}

func TestEraOf(t *testing.T) {
	for _, c := range []struct {
		born, died int
		want       string
	}{
		{1685, 1750, "Baroque"},      // mid 1717 (35 years in)
		{1756, 1791, "Classical"},    // halfway, 1773, comes first
		{1770, 1827, "Classical"},    // 1805
		{1797, 1828, "Romantic"},     // halfway 1812
		{1862, 1918, "Romantic"},     // halfway (1890) comes before 35 years in (1897)
		{1881, 1945, "20th century"}, // 1913
		{1540, 1600, "Renaissance"},  // 1570
		{1900, 0, "20th century"},
		{0, 1800, ""},
	} {
		if got := EraOf(c.born, c.died); got != c.want {
			t.Errorf("EraOf(%d, %d) = %q, want %q", c.born, c.died, got, c.want)
		}
	}
}

func TestComposerName(t *testing.T) {
	for _, c := range []struct{ in, name, years string }{
		{"BachJS", "J. S. Bach", ""},
		{"SchubertF", "F. Schubert", ""},
		{"TelemannGP", "G. P. Telemann", ""},
		{"W. A. Mozart (1756-1791)", "W. A. Mozart", "1756–1791"},
		{"Arne, Thomas", "Thomas Arne", ""},
		{"Arr. Y. Nagai, K. Obata", "Arr. Y. Nagai, K. Obata", ""},
		{"traditional (Irish)", "traditional (Irish)", ""},
		{"Chopin", "Chopin", ""},
	} {
		if n, y := composerName(c.in); n != c.name || y != c.years {
			t.Errorf("composerName(%q) = %q, %q; want %q, %q", c.in, n, y, c.name, c.years)
		}
	}
}

// TestRevoice: the parts the lieder export on program 68 (and by range on
// 69–74, 56–58) move to the voice program; obbligato instruments, the
// piano, choirs and files whose metadata names no voice program keep theirs.
func TestRevoice(t *testing.T) {
	note := []midi.Note{{Tick: 0, Dur: 10, Pitch: 60, Velocity: 80}}
	score := func() *midi.Score {
		return &midi.Score{TicksPerBeat: 480, Tracks: []midi.Track{
			{Name: "Singstimme (Voice)", Program: 68, Notes: note},
			{Name: "", Program: 68, Notes: note},
			{Name: "Baritone", Program: 70, Notes: note},
			{Name: "Flute", Program: 73, Notes: note},
			{Name: "Bratsche (Viola)", Program: 41, Notes: note},
			{Name: "Piano", Program: 0, Notes: note},
			{Name: "Soprano", Program: 52, Notes: note},
			{Name: "", Program: 71, Notes: note}, // unnamed, not the voice program
			{Name: "Voice", Program: 68},         // no notes
		}}
	}
	s := score()
	info := PieceInfo{Instruments: "voice (program 68), piano (program 0)"}
	if n := info.Revoice(s); n != 3 {
		t.Errorf("moved %d tracks, want 3", n)
	}
	want := []int{53, 53, 53, 73, 41, 0, 52, 71, 68}
	for i, tr := range s.Tracks {
		if tr.Program != want[i] {
			t.Errorf("track %d %q: program %d, want %d", i, tr.Name, tr.Program, want[i])
		}
	}
	s = score()
	if n := (PieceInfo{Instruments: "Voice and Piano"}).Revoice(s); n != 0 || s.Tracks[0].Program != 68 {
		t.Errorf("no voice program named: moved %d, first track on %d", n, s.Tracks[0].Program)
	}
	if got := VoicePrograms("Voices (program 68), vocal (program 70), piano (program 0)"); len(got) != 2 || got[0] != 68 || got[1] != 70 {
		t.Errorf("VoicePrograms: %v, want [68 70]", got)
	}
}

// TestNewCorporaMetadata reads the seven corpora of issue 35 as ingestion
// does: every MIDI file finds its metadata.csv row, the genre family is
// the one the metadata implies, and after Revoice no lieder part named as
// a voice is left on a wind program.
func TestNewCorporaMetadata(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		families map[string]float64 // family → least share of the files
		named    float64            // least share with an era or style
	}{
		{corpus.Lieder, map[string]float64{"classical": 1}, 0.9}, // 103 composers without dates
		{corpus.Quartets, map[string]float64{"classical": 1}, 0.95},
		{corpus.Mutopia, map[string]float64{"classical": 0.8}, 0.95},
		{corpus.PianoMIDI, map[string]float64{"classical": 0.98}, 0},
		{corpus.Groove, map[string]float64{"rock": 0.3, "funk": 0.2}, 1},
		{corpus.EWLD, map[string]float64{"pop": 0.2, "jazz": 0.2}, 0.9},
		{corpus.Irish, map[string]float64{"folk": 0.9}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := corpus.Path(t, c.name)
			files := corpus.MIDIFiles(t, c.name)
			col, err := NewCollector(dir, CollectorOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rows := countRows(t, filepath.Join(dir, "metadata.csv"))
			fam := map[string]int{}
			withTable, named, revoiced, leftOnWind := 0, 0, 0, 0
			for _, f := range files {
				s, err := midi.ReadFile(f)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				info := col.Info(ctx, f, s)
				if len(info.Sources) > 0 && info.Sources[0] == "metadata.csv" && info.TitleSource == "table" {
					withTable++
				}
				if info.Style != "" || info.Era != "" || info.TuneType != "" {
					named++
				}
				fam[info.Family()]++
				if info.Revoice(s) > 0 {
					revoiced++
				}
				for _, tr := range s.Tracks {
					if !tr.IsDrum && tr.Program >= 56 && tr.Program <= 79 && namesAny(tr.Name, voiceWords) {
						leftOnWind++
					}
				}
			}
			t.Logf("%s: %d files, %d metadata rows, %d with their row; families %v; era/style/kind named in %d; voices moved in %d files",
				c.name, len(files), rows, withTable, fam, named, revoiced)
			if withTable != len(files) {
				t.Errorf("%d of %d files found their metadata.csv row", withTable, len(files))
			}
			for f, share := range c.families {
				if float64(fam[f]) < share*float64(len(files)) {
					t.Errorf("family %s in %d of %d files, want at least %.0f%%", f, fam[f], len(files), 100*share)
				}
			}
			if float64(named) < c.named*float64(len(files)) {
				t.Errorf("era, style or kind in %d of %d files, want %.0f%%", named, len(files), 100*c.named)
			}
			if c.name == corpus.Lieder && leftOnWind > 0 { // the only metadata naming the voices' program
				t.Errorf("%d parts named as voices left on wind programs", leftOnWind)
			}
			if c.name == corpus.Lieder && revoiced < len(files)*9/10 {
				t.Errorf("voices moved in %d of %d lieder, want 90%%", revoiced, len(files))
			}
		})
	}
}

// countRows counts a CSV's data rows, read on its own.
func countRows(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return len(recs) - 1
}
