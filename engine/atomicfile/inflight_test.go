package atomicfile

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAbandon runs in a child process (Abandon is for good): a write
// stopped half-way and a tracked scratch folder are removed by Abandon,
// the target of the write keeps its old content, and later writes fail
// with ErrAbandoned without leaving a file.
func TestAbandon(t *testing.T) {
	if dir := os.Getenv("AMT_TEST_ABANDON_DIR"); dir != "" {
		abandonChild(dir)
		return
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "song.mid")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAbandon$")
	cmd.Env = append(os.Environ(), "AMT_TEST_ABANDON_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "abandoned 2") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	got, _ := os.ReadFile(target)
	if string(got) != "old" {
		t.Errorf("target holds %q, want its old content", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("left in the folder: %v, want song.mid alone", names)
	}
}

func abandonChild(dir string) {
	scratch := filepath.Join(dir, ".scratch")
	os.Mkdir(scratch, 0o755)
	os.WriteFile(filepath.Join(scratch, "x"), []byte("x"), 0o644)
	if _, err := Track(scratch); err != nil {
		panic(err)
	}
	started := make(chan struct{})
	release := make(chan struct{})
	go Write(filepath.Join(dir, "song.mid"), func(f *os.File) error {
		f.Write([]byte("new, half"))
		close(started)
		<-release // the writer never finishes
		return nil
	})
	<-started
	n := len(Abandon())
	if err := WriteFile(filepath.Join(dir, "other.mid"), []byte("x")); !errors.Is(err, ErrAbandoned) {
		panic("write after Abandon: " + errString(err))
	}
	if _, err := Track(filepath.Join(dir, "late")); !errors.Is(err, ErrAbandoned) {
		panic("Track after Abandon: " + errString(err))
	}
	os.Stdout.WriteString("abandoned " + string(rune('0'+n)) + "\n")
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
