package text

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/internal/fuzzbudget"
)

// FuzzParsePrompt: any text parses without panicking, within the time
// budget, into attributes that are unset or within the prompt limits (an
// out-of-range number is a Problem, never an attribute).
func FuzzParsePrompt(f *testing.F) {
	for _, s := range []string{"a slow waltz in D minor for piano and strings, 32 bars",
		"90 bpm hip hop beat with drums, no piano", "piano in 13/7 at 0 bpm, 100000 bars",
		"an hour of ambient synth pads", "F# minor jig on fiddle, 2 minutes", "Am Bb C# in E flat", "not too fast, a doleful half-time lullaby without drums, très vif", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fuzzbudget.Check(t, len(s), func() {
			p := ParsePrompt(s)
			a := p.Attrs
			if a.TempoBPM != 0 && (a.TempoBPM < PromptMinBPM || a.TempoBPM > PromptMaxBPM) {
				t.Fatalf("tempo %v outside the limits", a.TempoBPM)
			}
			if a.MeterNum != 0 && !knownMeter(token.Meter{Num: a.MeterNum, Den: a.MeterDen}) {
				t.Fatalf("meter %d/%d unknown", a.MeterNum, a.MeterDen)
			}
			if a.Bars < 0 || a.Bars > PromptMaxBars {
				t.Fatalf("bars %d", a.Bars)
			}
			if a.KeyTonic < -1 || a.KeyTonic > 11 {
				t.Fatalf("key tonic %d", a.KeyTonic)
			}
			for _, pr := range a.Programs {
				if pr < 0 || pr > 127 {
					t.Fatalf("program %d", pr)
				}
			}
			// What the words imply stays within the same limits.
			r := p.Resolve(uint64(len(s)), Choices{})
			if t2 := r.Attrs.TempoBPM; t2 != 0 && (t2 < PromptMinBPM || t2 > PromptMaxBPM) {
				t.Fatalf("implied tempo %v", t2)
			}
			if r.Attrs.KeyTonic < -1 || r.Attrs.KeyTonic > 11 || r.Velocity < 0 || r.Velocity > 127 {
				t.Fatalf("implied key %d, velocity %v", r.Attrs.KeyTonic, r.Velocity)
			}
			for _, pr := range r.Attrs.Programs {
				if pr < 0 || pr > 127 {
					t.Fatalf("implied program %d", pr)
				}
			}
		})
	})
}

// FuzzABC: any bytes as an ABC tune book parse within the budget and fill
// a PieceInfo without panicking.
func FuzzABC(f *testing.F) {
	f.Add([]byte("X:1\nT:The Kesh\nT:Kesh Jig\nR:jig\nM:6/8\nK:G\nC:Trad.\nS:O'Neill\nN:a note\n|:GAG GAB|\n\nX:2\nT:Second\nK:Dm\n"))
	f.Add([]byte("% reels collection\nX:12\nT:\\'Eire\nK:Amix\n"))
	f.Add([]byte("X:\nX:X:\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Check(t, len(data), func() {
			for _, tune := range parseABC("reelsa-c.abc", data) {
				var info PieceInfo
				tune.fill(&info)
				_ = abcKeyName(tune.key)
			}
		})
	})
}

// fuzzTree writes one metadata file (name → data) beside two MIDI files and
// returns the Info of each, as an import would collect them.
func fuzzTree(t *testing.T, name string, data []byte) {
	root := t.TempDir()
	for _, n := range []string{"tune001.mid", "sub/song_2.mid"} {
		p := filepath.Join(root, filepath.FromSlash(n))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), data, 0o644); err != nil {
		t.Fatal(err)
	}
	fuzzbudget.Check(t, len(data), func() {
		c, err := NewCollector(root, CollectorOptions{})
		if err != nil {
			return
		}
		for _, n := range []string{"tune001.mid", "sub/song_2.mid"} {
			info := c.Info(context.Background(), filepath.Join(root, filepath.FromSlash(n)), nil)
			_ = Caption(info, midiMetadataZero())
		}
	})
}

// FuzzTable: any bytes as a discovered index.csv.
func FuzzTable(f *testing.F) {
	f.Add([]byte("file,title,genre\ntune001.mid,Tune One,reel\nsong_2.mid,\"Song, Two\",waltz\n"))
	f.Add([]byte("\xef\xbb\xbfid;name;artist\ntune001;A;B\n"))
	f.Add([]byte("a\tb\tc\n1\t2\n\"unterminated\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzTree(t, "index.csv", data) })
}

// FuzzOBM: any bytes as an OpenTTD music-set (.obm) file.
func FuzzOBM(f *testing.F) {
	f.Add([]byte("[metadata]\nname = OpenMSX\n[names]\ntune001.mid = The First Tune\nsub/song_2.mid = Second\n"))
	f.Add([]byte("[names]\n=\n[\n]\n;x\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzTree(t, "set.obm", data) })
}

// FuzzSidecar: any bytes as a .json and as a .txt sidecar.
func FuzzSidecar(f *testing.F) {
	f.Add([]byte(`{"title":"Tune One","artist":"Me","tags":["calm","slow"],"year":1999,"description":"x"}`))
	f.Add([]byte("Title: Tune One\nGenre: reel\nA free line of description.\n"))
	f.Add([]byte(`{"tags":[1,{"a":[]}],"title":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzTree(t, "tune001.json", data)
		fuzzTree(t, "sub/song_2.txt", data)
	})
}
