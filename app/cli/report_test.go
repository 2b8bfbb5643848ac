package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/storage"
)

// TestReportFailedAndInterruptedRuns: a failed run's report says it failed
// (not "none: no new or changed files"), and a run whose process was
// killed counts what it committed (it showed 0 files).
func TestReportFailedAndInterruptedRuns(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	testfiles.Corpus(t, root, 4)
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb}
	run := func(want int, args ...string) string {
		t.Helper()
		out.Reset()
		errb.Reset()
		if code := Main(context.Background(), env, append(args, "--home", home)); code != want {
			t.Fatalf("%v: exit %d, want %d: %s", args, code, want, errb.String())
		}
		return out.String()
	}
	run(0, "ingest", root, "--project", "p")        // run 1: done
	run(1, "ingest", t.TempDir(), "--project", "p") // run 2: no MIDI files, failed
	// Run 3: killed after committing three files of root's dataset (as a
	// SIGKILL leaves it: "running", no counts, its items in the store).
	st, err := storage.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	err = st.Update(func(tx *bolt.Tx) error {
		r := &storage.IngestRun{ProjectID: 1, DatasetID: 1, Status: storage.RunRunning, Mode: "stream", Started: time.Now().UTC()}
		if err := storage.PutIngestRun(tx, r); err != nil {
			return err
		}
		for i, status := range []string{storage.ItemOK, storage.ItemOK, storage.ItemFailed} {
			if err := storage.PutItem(tx, &storage.Item{DatasetID: 1, Path: fmt.Sprintf("new%d.mid", i), Status: status, RunID: r.ID}); err != nil {
				return err
			}
		}
		if r.ID != 3 {
			return fmt.Errorf("run id %d, want 3", r.ID)
		}
		return nil
	})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}

	list := run(0, "report", "--project", "p")
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 4 {
		t.Fatalf("list:\n%s", list)
	}
	for i, want := range [][]string{{"failed", "not judged: the run failed"}, {"interrupted", " ? ", " 3 ", " 2 ", " 1 ", "not judged: the run interrupted"}} {
		for _, w := range want {
			if !strings.Contains(lines[2+i], w) {
				t.Errorf("run %d's line lacks %q:\n%s", 2+i, w, list)
			}
		}
	}
	if strings.Contains(list, "no new or changed files") {
		t.Errorf("a run called 'no new or changed files':\n%s", list)
	}
	two := run(0, "report", "--project", "p", "--run", "2")
	for _, w := range []string{"run 2 (failed", "error: ", "no MIDI files", "bottleneck: not judged: the run failed"} {
		if !strings.Contains(two, w) {
			t.Errorf("run 2's report lacks %q:\n%s", w, two)
		}
	}
	three := run(0, "report", "--project", "p", "--run", "3")
	for _, w := range []string{"run 3 (interrupted", "3 files committed (2 ok, 1 failed) are kept", "bottleneck: not judged: the run interrupted"} {
		if !strings.Contains(three, w) {
			t.Errorf("run 3's report lacks %q:\n%s", w, three)
		}
	}
}
