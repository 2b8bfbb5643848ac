package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/storage"
)

// TestIngestReadsCorpusMetadata: a folder laid out as the lieder are (a
// metadata.csv whose instruments say "voice (program 68)") is ingested with
// the voice moved to the voice program in the tokens and the measured
// programs, the GENRE family from the genre column, the caption from the
// row; a Mutopia-like row with a style that names no family takes the
// run's default genre.
func TestIngestReadsCorpusMetadata(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	score := func(voiceProg int, voiceName string) *midi.Score {
		s := &midi.Score{Format: 1, TicksPerBeat: 480, Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}},
			Meters: []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}}}
		var voice, piano []midi.Note
		for b := int64(0); b < 16; b++ {
			voice = append(voice, midi.Note{Tick: b * 480, Dur: 400, Pitch: uint8(64 + b%5), Velocity: 80})
			piano = append(piano, midi.Note{Tick: b * 480, Dur: 400, Pitch: uint8(48 + b%3), Velocity: 80})
		}
		s.Tracks = []midi.Track{{Name: voiceName, Channel: 0, Program: voiceProg, Notes: voice},
			{Name: "Piano", Channel: 1, Program: 0, Notes: piano}}
		s.EndTick = 16 * 480
		return s
	}
	for name, s := range map[string]*midi.Score{"lc1.mid": score(68, "Singstimme"), "m1.mid": score(68, "Oboe")} {
		if err := midi.WriteFile(filepath.Join(root, name), s); err != nil {
			t.Fatal(err)
		}
	}
	csv := "file,title,composer,genre,style,instruments,composer_born,composer_died\n" +
		"lc1.mid,Erlkönig,Franz Schubert,art song (Lied),,\"voice (program 68), piano (program 0)\",1797,1828\n" +
		"m1.mid,Study,CzernyC,,Technique,Oboe and Piano,,\n"
	if err := os.WriteFile(filepath.Join(root, "metadata.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := Ingest(context.Background(), st, IngestOptions{Project: "m", Dir: root, Genre: "classical"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Failed != 0 || res.Report.OK != 2 {
		t.Fatalf("ok %d failed %d, want 2 and 0", res.Report.OK, res.Report.Failed)
	}
	items := map[string]storage.Item{}
	if err := st.View(func(tx *bolt.Tx) error {
		return storage.Items(tx, res.DatasetID, func(it *storage.Item) bool {
			items[filepath.Base(it.Path)] = *it
			return true
		})
	}); err != nil {
		t.Fatal(err)
	}
	lc, m1 := items["lc1.mid"], items["m1.mid"]
	if !slices.Equal(lc.Attrs.Programs, []int{0, 53}) || lc.Attrs.Genre != "classical" {
		t.Errorf("lieder item: programs %v genre %q, want [0 53] (voice, piano) and classical", lc.Attrs.Programs, lc.Attrs.Genre)
	}
	for _, p := range []string{`"Erlkönig" by Franz Schubert (1797–1828).`, "An art song (Lied).", "Romantic era.", "Instruments: voice, piano.", "voice oohs"} {
		if !strings.Contains(lc.Caption, p) {
			t.Errorf("lieder caption %q lacks %q", lc.Caption, p)
		}
	}
	if !slices.Equal(m1.Attrs.Programs, []int{0, 68}) || m1.Attrs.Genre != "classical" {
		t.Errorf("mutopia-like item: programs %v genre %q, want [0 68] (no voice program named) and classical", m1.Attrs.Programs, m1.Attrs.Genre)
	}
	if !strings.Contains(m1.Caption, "by C. Czerny.") || !strings.Contains(m1.Caption, "Style: Technique.") {
		t.Errorf("mutopia-like caption %q", m1.Caption)
	}
}
