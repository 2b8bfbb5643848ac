package cli

import (
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/app/internal/testfiles"
)

// eval-model on two prompts of the suite with the embedded model: the JSON
// holds the adherence, the model-alone pass, the references, the
// musicality rows, every floor, each piece's musicality; --rolls writes the
// MIDI files and one PNG.
func TestEvalModelCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("generates with the embedded model")
	}
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite.txt")
	// The second names nothing but key and length (since issue 25 "a pop
	// song" implies drums and a band, and would be set against the drum
	// corpora).
	if err := os.WriteFile(suite, []byte("# two prompts\nA rock song in E major with drums, bass and guitar\nA piece in A major, 8 bars\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rolls := filepath.Join(dir, "rolls")
	code, out, errOut := runCLI("eval-model", "--suite", suite, "--json", "--pieces", "--rolls", rolls, "--corpus", "stored")
	if code != 0 {
		t.Fatalf("code %d, stderr %s", code, errOut)
	}
	var rep struct {
		Prompts    int
		ModelAlone *struct{ CK struct{ N int } } `json:"model_alone"`
		Source     string                        `json:"reference_source"`
		References map[string]struct{ Pieces int }
		Musicality []struct{ Corpus, Metric string }
		Floors     []struct {
			Name string
			N    int
		}
		Pieces []struct {
			Corpus           string
			NamedInstruments bool `json:"named_instruments"`
			Bars             int
			Musicality       struct {
				NotesPerBeat *float64 `json:"notes_per_beat"`
				Programs     int
				Ratio        *float64 `json:"notes_per_beat_ratio"`
			}
			Adherence struct {
				DrumBars *float64 `json:"drum_bars"`
			}
			CKAlone *bool `json:"ck_model_alone"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Prompts != 2 || len(rep.Pieces) != 2 || rep.ModelAlone == nil || rep.ModelAlone.CK.N != 2 {
		t.Fatalf("prompts %d, pieces %d, model alone %+v", rep.Prompts, len(rep.Pieces), rep.ModelAlone)
	}
	// No corpora under the folder given: the stored references.
	if rep.Source != "stored" || rep.References[app.RefPOP909].Pieces != 909 || rep.References[app.RefDrums].Pieces != 97 {
		t.Errorf("references %s %+v", rep.Source, rep.References)
	}
	rock, pop := rep.Pieces[0], rep.Pieces[1]
	if rock.Corpus != app.RefDrums || !rock.NamedInstruments || rock.Adherence.DrumBars == nil || rock.CKAlone == nil {
		t.Errorf("rock piece %+v", rock)
	}
	if pop.Corpus != app.RefPOP909 || pop.NamedInstruments || pop.Bars != 8 || pop.Adherence.DrumBars != nil {
		t.Errorf("pop piece %+v", pop)
	}
	for _, p := range rep.Pieces {
		if p.Musicality.NotesPerBeat == nil || *p.Musicality.NotesPerBeat <= 0 || p.Musicality.Ratio == nil {
			t.Errorf("piece musicality %+v", p.Musicality)
		}
	}
	names := map[string]bool{}
	for _, f := range rep.Floors {
		names[f.Name] = true
	}
	for _, n := range []string{"tb", "tbt", "ck", "ck_model_alone", "meter", "instrument_f1", "drums_in_bars", "pitched_in_bars", "programs_unnamed",
		"notes_per_beat", "rhythm_repetition", "bar_repetition", "last_bar_pile_up", "seconds_16_bars"} {
		if !names[n] {
			t.Errorf("floor %s missing", n)
		}
	}
	rows := map[string]bool{}
	for _, r := range rep.Musicality {
		rows[r.Corpus+"/"+r.Metric] = true
	}
	if !rows["drums/drum_bar_share"] || !rows["pop909/notes_per_beat"] || rows["pop909/drum_bar_share"] {
		t.Errorf("musicality rows %v", rows)
	}
	for _, f := range []string{"suite-001.mid", "suite-002.mid", "rolls.png"} {
		if _, err := os.Stat(filepath.Join(rolls, f)); err != nil {
			t.Error(err)
		}
	}
	f, err := os.Open(filepath.Join(rolls, "rolls.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	// No real corpus: one column of two panels, each 16 bars wide.
	if err != nil || cfg.Width < 16*2*12 || cfg.Height < 2*150 {
		t.Errorf("rolls.png %dx%d, %v", cfg.Width, cfg.Height, err)
	}

	// The text report names the floors; bad flags are usage errors.
	code, out, errOut = runCLI("eval-model", "--suite", suite, "--limit", "1", "--model-alone=false", "--corpus", "stored")
	if code != 0 || !strings.Contains(out, "drums_in_bars") || !strings.Contains(out, "musicality vs the matched real corpus") || strings.Contains(out, "ck_model_alone") {
		t.Errorf("text: code %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := runCLI("eval-model", "--suite", suite, "--match", "nope", "--corpus", "stored"); code != 2 || !strings.Contains(errOut, `"nope"`) {
		t.Errorf("--match nope: code %d, %s", code, errOut)
	}
	if code, _, errOut := runCLI("eval-model", "--suite", suite, "--reference", "x"); code != 2 || !strings.Contains(errOut, "NAME=DIR") {
		t.Errorf("--reference x: code %d, %s", code, errOut)
	}
	if code, _, errOut := runCLI("eval-model", "--suite", suite, "--corpus", dir); code != 1 || !strings.Contains(errOut, "has no pop909 folder") {
		t.Errorf("--corpus without corpora: code %d, %s", code, errOut)
	}
}

func TestRollCommand(t *testing.T) {
	dir := t.TempDir()
	testfiles.Scale(t, filepath.Join(dir, "c.mid"), 500000, 60)
	testfiles.Scale(t, filepath.Join(dir, "g.mid"), 600000, 67)
	out := filepath.Join(dir, "r.png")
	code, stdout, errOut := runCLI("roll", filepath.Join(dir, "c.mid"), filepath.Join(dir, "g.mid"), "-o", out, "--bars", "2", "--cols", "2", "--px-per-beat", "10")
	if code != 0 || !strings.Contains(stdout, "2 piano rolls") {
		t.Fatalf("code %d, %s %s", code, stdout, errOut)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	// Two panels of 2 bars × 4 beats × 10 px + 1 = 81, but the caption
	// "<dir>/c.mid" or the legend may be wider; two columns and gaps of 6.
	if err != nil || cfg.Width < 2*81+3*6 || cfg.Height != 150+24+2*11+2*6 {
		t.Errorf("png %dx%d, %v", cfg.Width, cfg.Height, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"roll", "-o", out}, "at least one MIDI file"},
		{[]string{"roll", filepath.Join(dir, "c.mid")}, "-o OUT.png"},
		{[]string{"roll", filepath.Join(dir, "c.mid"), "-o", filepath.Join(dir, "x.jpg")}, ".png"},
		{[]string{"roll", filepath.Join(dir, "c.mid"), "-o", out, "--bars", "0"}, "--bars 0"},
		{[]string{"roll", filepath.Join(dir, "c.mid"), "-o", out, "--cols", "99"}, "--cols 99"},
	} {
		if code, _, errOut := runCLI(c.args...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stderr %q", c.args, code, errOut)
		}
	}
	if code, _, errOut := runCLI("roll", filepath.Join(dir, "missing.mid"), "-o", out); code != 1 || !strings.Contains(errOut, "missing.mid") {
		t.Errorf("missing file: code %d, %q", code, errOut)
	}
}

func TestParseNamedDir(t *testing.T) {
	nd, err := parseNamedDir("mma=/data/arranged")
	if err != nil || nd.Name != "mma" || nd.Dir != "/data/arranged" {
		t.Errorf("%+v %v", nd, err)
	}
	for _, bad := range []string{"mma", "=dir", "mma=", ""} {
		if _, err := parseNamedDir(bad); !errors.Is(err, ErrUsage) {
			t.Errorf("%q: err %v, want a usage error", bad, err)
		}
	}
}
