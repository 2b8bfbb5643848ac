package midi

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/amtstudio/amt/internal/fuzzbudget"
)

var updateTestdata = flag.Bool("update-testdata", false, "rewrite engine/midi/testdata/*.mid from the hand-built and writer-built sources")

// testdataFiles are the seed files of FuzzParse: hand-assembled bytes and
// writer output. TestTestdata keeps them in step with their sources.
func testdataFiles(t testing.TB) map[string][]byte {
	var rich bytes.Buffer
	if err := richScore().Write(&rich); err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"hand.mid": handSong(t),
		"fifo.mid": smf(0, 96, hx(t, `00 90 3C 40 30 90 3C 50 30 80 3C 00 30 80 3C 00 00 F0 03 7E 09 F7 00 FF 2F 00`)),
		"programs.mid": smf(1, 96, hx(t, `00 FF 03 02 "Hi" 00 C1 28 00 FF 2F 00`),
			hx(t, `00 FF 03 04 "Keys" 00 90 3C 40 00 91 48 40 60 80 3C 00 00 C0 0A 00 90 3E 40 60 80 3E 00 00 81 48 00 00 FF 2F 00`)),
		"rich.mid": rich.Bytes(),
	}
}

func TestTestdata(t *testing.T) {
	for name, want := range testdataFiles(t) {
		p := filepath.Join("testdata", name)
		if *updateTestdata {
			if err := os.WriteFile(p, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%v (run go test ./engine/midi -run TestTestdata -args -update-testdata)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date (run go test ./engine/midi -run TestTestdata -args -update-testdata)", p)
		}
		if _, err := ReadFile(p); err != nil {
			t.Errorf("%v", err)
		}
	}
}

// FuzzParse feeds arbitrary bytes to Parse. It must never panic; an error
// must be an *Error naming the file; a parsed score must satisfy the Score
// invariants, survive Analyze, and come back identical from Write + Parse.
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.mid"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)*2/3]) // truncated
	}
	f.Add([]byte{})
	f.Add([]byte("MThd\x00\x00\x00\x06\x00\x01\x00\x01\x00\x60MTrk\x00\x00\x00\x04\x00\xFF\x2F\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Check(t, len(data), func() { fuzzParse(t, data) })
	})
}

// fuzzParse is one input of FuzzParse.
func fuzzParse(t *testing.T, data []byte) {
	// Work linear in the input: the parser's search steps and moved
	// elements stay under a constant per byte (a note takes ≥ 3 bytes).
	if p := new(parser); true {
		p.parse("fuzz.mid", data)
		if p.probes > len(data)+64 {
			t.Fatalf("%d search steps for %d bytes: not linear", p.probes, len(data))
		}
	}
	s, err := Parse("fuzz.mid", data)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e.File != "fuzz.mid" || !strings.HasPrefix(err.Error(), "midi: read fuzz.mid: ") {
			t.Fatalf("error %q (%T) does not name the file", err, err)
		}
		if e.Offset > int64(len(data)) {
			t.Fatalf("offset %d beyond the file (%d bytes): %v", e.Offset, len(data), err)
		}
		return
	}
	for ti, tr := range s.Tracks {
		if len(tr.Notes) == 0 || tr.IsDrum != (tr.Channel == 9) || tr.Program < 0 || tr.Program > 127 {
			t.Fatalf("track %d: %+v", ti, tr)
		}
		for i, n := range tr.Notes {
			if n.Dur < 0 || n.Pitch > 127 || n.Velocity < 1 || n.Velocity > 127 || n.Tick+n.Dur > s.EndTick ||
				(i > 0 && n.Tick < tr.Notes[i-1].Tick) {
				t.Fatalf("track %d note %d: %+v (end %d)", ti, i, n, s.EndTick)
			}
		}
	}
	m := Analyze(s)
	if m.Notes != s.NoteCount() || m.Polyphony < 0 || (m.Notes > 0 && m.MaxPolyphony < 0) {
		t.Fatalf("metadata %+v", m)
	}
	var buf bytes.Buffer
	if err := s.Write(&buf); err != nil {
		if !errors.Is(err, ErrInvalidScore) {
			t.Fatalf("write: %v", err)
		}
		return
	}
	back, err := Parse("fuzz.mid", buf.Bytes())
	if err != nil {
		t.Fatalf("re-read of written score: %v", err)
	}
	if want := expectAfterWrite(s); !reflect.DeepEqual(back, want) {
		t.Fatalf("round trip differs\n got %+v\nwant %+v", back, want)
	}
}
