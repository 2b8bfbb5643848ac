package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/engine/token"
)

// TestTrainTokenizerRebars: the MIDI-folder tokenizer of `amt train
// --data` encodes a waltz declared in 1/4 re-barred in 3/4, as ingestion
// does.
func TestTrainTokenizerRebars(t *testing.T) {
	dir := t.TempDir()
	testfiles.MeterPieces(t, dir)
	v := token.DefaultVocab()
	toks, err := midiTokenizer(v)(filepath.Join(dir, "waltz.mid"))
	if err != nil {
		t.Fatal(err)
	}
	if names := strings.Join(v.Names(toks[:12]), " "); !strings.Contains(names, "METER_3/4") {
		t.Errorf("train tokenizer prefix %s has no METER_3/4", names)
	}
}
