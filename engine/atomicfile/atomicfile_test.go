package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
