package token

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/midi"
)

// TestCorpusRoundTrip encodes and decodes every file of the real corpora:
// ≥ 99% of notes must come back with the same grid onset, duration bin,
// pitch, program and velocity bin. It also checks, on a sample of files,
// that the decoded score writes a MIDI file that parses back, and that
// re-encoding the decoded score gives the same tokens.
func TestCorpusRoundTrip(t *testing.T) {
	v := DefaultVocab()
	for _, name := range []string{corpus.POP909, corpus.Nottingham, corpus.OpenMSX} {
		t.Run(name, func(t *testing.T) {
			files := corpus.MIDIFiles(t, name)
			if testing.Short() && len(files) > 100 {
				files = files[:100]
			}
			var total RoundTrip
			parseErrs := 0
			worst, worstRate := "", 2.0
			for i, f := range files {
				s, err := midi.ReadFile(f)
				if err != nil {
					parseErrs++
					t.Logf("skip (parse): %v", err)
					continue
				}
				a := v.Measure(s, midi.Analyze(s))
				r, toks, err := v.CheckRoundTrip(s, a)
				if err != nil {
					t.Errorf("%s: %v", f, err)
					continue
				}
				total.Add(r)
				if r.Rate() < worstRate {
					worst, worstRate = f, r.Rate()
				}
				if i%20 == 0 {
					checkDecodedFile(t, v, f, toks)
				}
			}
			if parseErrs*100 > len(files) {
				t.Errorf("%d of %d files failed to parse", parseErrs, len(files))
			}
			t.Logf("%s: %d files, %d notes, round-trip match %.4f%% (duration exact to the grid %.4f%%), %.0f tokens/file; worst %s %.2f%%",
				name, len(files)-parseErrs, total.Notes, 100*total.Rate(), 100*float64(total.Exact)/float64(max(total.Notes, 1)),
				float64(total.Tokens)/float64(max(len(files)-parseErrs, 1)), worst, 100*worstRate)
			if total.Rate() < 0.99 {
				t.Errorf("round-trip note match %.4f%% below 99%%", 100*total.Rate())
			}
			if total.Exact*100 < total.Notes*99 {
				t.Errorf("round-trip with exact durations %d of %d notes, below 99%%", total.Exact, total.Notes)
			}
		})
	}
}

// checkDecodedFile writes the decoded score as MIDI, parses it back, and
// re-encodes: the notes and tokens must survive.
func checkDecodedFile(t *testing.T, v *Vocab, name string, toks []uint16) {
	t.Helper()
	d, a, err := v.Decode(toks)
	if err != nil {
		t.Errorf("%s: decode: %v", name, err)
		return
	}
	again, err := v.Encode(d, a)
	if err != nil {
		t.Errorf("%s: re-encode: %v", name, err)
		return
	}
	if !reflect.DeepEqual(again, toks) {
		t.Errorf("%s: re-encoding the decoded score gives other tokens (%d vs %d)", name, len(again), len(toks))
	}
	var buf bytes.Buffer
	if err := d.Write(&buf); err != nil {
		t.Errorf("%s: write decoded: %v", name, err)
		return
	}
	p, err := midi.Parse(name+" (decoded)", buf.Bytes())
	if err != nil {
		t.Errorf("%s: parse decoded: %v", name, err)
		return
	}
	if p.NoteCount() != d.NoteCount() {
		// Overlapping notes of one pitch on one channel may pair differently;
		// they are rare enough that the counts still agree on the corpora.
		t.Errorf("%s: decoded %d notes, the written file has %d", name, d.NoteCount(), p.NoteCount())
	}
}

func TestCorpusErrorsAreClean(t *testing.T) {
	// A score that the encoder refuses reports a sentinel, never panics.
	v := DefaultVocab()
	s := &midi.Score{TicksPerBeat: 480, Tracks: []midi.Track{{Notes: make([]midi.Note, 0)}}}
	if _, err := v.Encode(s, Attributes{Bars: 64, KeyTonic: -1, Density: -1, Style: -1}); !errors.Is(err, ErrMismatch) {
		t.Fatalf("err = %v", err)
	}
}
