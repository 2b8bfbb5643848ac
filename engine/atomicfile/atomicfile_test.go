package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteFileCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "sub", "a.bin"), nil); err == nil {
		t.Fatal("write into a missing folder succeeded")
	}
	p := filepath.Join(dir, "a.bin")
	if err := WriteFile(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "two" {
		t.Fatalf("content %q, %v; want two", got, err)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	assertNoTemps(t, filepath.Dir(p))
}

func TestFailedWriteKeepsOldContent(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := WriteFile(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, func(f *os.File) error {
		f.Write([]byte("half of the new"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "old" {
		t.Fatalf("content %q after a failed write, want old", got)
	}
	assertNoTemps(t, dir)
}

func TestTwoPhaseCommit(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "x.bin"), filepath.Join(dir, "x.idx")
	ta, err := WriteTemp(a, func(f *os.File) error { _, err := f.Write([]byte("A")); return err })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(ta, TempSuffix) || !strings.HasPrefix(filepath.Base(ta), ".x.bin.") {
		t.Errorf("temp name %q does not follow .BASE.*%s", ta, TempSuffix)
	}
	if _, err := os.Stat(a); !os.IsNotExist(err) {
		t.Fatalf("target exists before Commit: %v", err)
	}
	tb, err := WriteTemp(b, func(f *os.File) error { _, err := f.Write([]byte("B")); return err })
	if err != nil {
		t.Fatal(err)
	}
	if err := Commit(ta, a); err != nil {
		t.Fatal(err)
	}
	if err := Commit(tb, b); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{a: "A", b: "B"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	assertNoTemps(t, dir)
	// Commit into a folder that does not exist fails and removes the temp.
	tc, err := WriteTemp(a, func(f *os.File) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := Commit(tc, filepath.Join(dir, "missing", "x")); err == nil {
		t.Error("commit into a missing folder succeeded")
	}
	if _, err := os.Stat(tc); !os.IsNotExist(err) {
		t.Errorf("temp %s left after a failed commit", tc)
	}
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), TempSuffix) {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestCleanStale: temporary files of a process that is gone are removed
// (kill -9 left a 44 MB checkpoint temp and a 464 MB WAV temp that nothing
// ever removed); those of running processes, recent ones named without a
// PID, and other files are kept.
func TestCleanStale(t *testing.T) {
	dir := t.TempDir()
	// A PID that is certainly not running: a child that has exited.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid
	names := map[string]bool{ // name → removed
		fmt.Sprintf(".checkpoint.safetensors.%d-12345%s", dead, TempSuffix): true,
		fmt.Sprintf(".x.wav.%d-999%s", dead, TempSuffix):                    true,
		fmt.Sprintf(".x.wav.%d-999%s", os.Getpid(), TempSuffix):             false, // ours: being written
		fmt.Sprintf(".x.wav.%d-5%s", 1, TempSuffix):                         false, // init runs
		".old.bin.123456" + TempSuffix:                                      true,  // no PID, old
		".new.bin.654321" + TempSuffix:                                      false, // no PID, recent
		"x.wav":                                                             false,
		fmt.Sprintf("notemp.%d-1%s", dead, TempSuffix):                      false, // not hidden: not ours
	}
	for n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * LegacyAge)
	os.Chtimes(filepath.Join(dir, ".old.bin.123456"+TempSuffix), old, old)
	removed := CleanStale(dir)
	for n, want := range names {
		_, err := os.Stat(filepath.Join(dir, n))
		if gone := os.IsNotExist(err); gone != want {
			t.Errorf("%s removed=%v, want %v", n, gone, want)
		}
	}
	if len(removed) != 3 {
		t.Errorf("removed %v", removed)
	}
	// WriteTemp names carry our PID and survive a clean while written.
	tmp, err := WriteTemp(filepath.Join(dir, "y.bin"), func(f *os.File) error {
		if got := CleanStale(dir); len(got) != 0 {
			t.Errorf("cleaned %v during a write", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(filepath.Base(tmp), fmt.Sprintf(".%d-", os.Getpid())) {
		t.Errorf("temp name %s lacks the PID", tmp)
	}
	os.Remove(tmp)
}
