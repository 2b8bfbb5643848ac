package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/storage"
)

func TestSafe(t *testing.T) {
	for in, want := range map[string]string{
		"Piano":                    "Piano",
		"Flûte à bec ♪":            "Flûte à bec ♪",
		"\x1b]0;pwned\x07\x1b[2Jx": `\x1b]0;pwned\x07\x1b[2Jx`,
		"a\tb\nc\r":                `a\x09b\x0ac\x0d`,
		"\u009b31m":                `\u009b31m`,
		"bad \xff\xfe utf8 \x7f":   `bad \xff\xfe utf8 \x7f`,
		"":                         "",
	} {
		if got := Safe(in); got != want {
			t.Errorf("Safe(%q) = %q, want %q", in, got, want)
		}
	}
}

// hasEscape reports a raw ESC, BEL or CSI in terminal output.
func hasEscape(s string) bool { return strings.ContainsAny(s, "\x1b\x07\u009b") }

// TestNoEscapesReachTheTerminal: a track name and a title carrying
// ESC ] 0 ; … BEL and ESC [ 2 J are printed escaped by inspect (they were
// printed raw, retitling the terminal and clearing it), and a project and
// dataset named so are printed escaped by datasets.
func TestNoEscapesReachTheTerminal(t *testing.T) {
	evil := "\x1b]0;pwned\x07\x1b[2J"
	s := &midi.Score{Format: 1, TicksPerBeat: 480, EndTick: 480, Title: evil + "title",
		Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}},
		Tracks: []midi.Track{{Name: evil + "track", Notes: []midi.Note{{Tick: 0, Dur: 480, Pitch: 60, Velocity: 90}}}}}
	p := testfiles.Score(t, "evil.mid", s)
	code, out, stderr := runCLI("inspect", p)
	if code != 0 || hasEscape(out) || !strings.Contains(out, `\x1b]0;pwned\x07\x1b[2Jtrack`) {
		t.Errorf("inspect: exit %d, %q %s", code, out, stderr)
	}
	home := t.TempDir()
	st, err := storage.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	st.Update(func(tx *bolt.Tx) error {
		pr, err := storage.EnsureProject(tx, evil)
		if err != nil {
			return err
		}
		return storage.PutDataset(tx, &storage.Dataset{ProjectID: pr.ID, Name: evil + "ds", Root: "/x\x1b[2J"})
	})
	st.Close()
	code, out, stderr = runCLI("datasets", "--project", evil, "--home", home)
	if code != 0 || hasEscape(out) || !strings.Contains(out, `\x1b]0;pwned\x07\x1b[2Jds`) {
		t.Errorf("datasets: exit %d, %q %s", code, out, stderr)
	}
	// Errors quoting a name are escaped too.
	code, _, stderr = runCLI("datasets", "--project", evil+"missing", "--home", home)
	if code != 1 || hasEscape(stderr) {
		t.Errorf("datasets error: exit %d, %q", code, stderr)
	}
	var buf bytes.Buffer
	Main(context.Background(), &Env{Stdout: &buf, Stderr: &buf}, []string{"\x1b[2Jnope"})
	if hasEscape(buf.String()) {
		t.Errorf("unknown command echoed raw: %q", buf.String())
	}
}
