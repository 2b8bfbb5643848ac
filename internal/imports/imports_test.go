package imports

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Walk sees every import of every Go file, tells test files apart, and
// passes over testdata, dot folders and the folders skip names.
func TestWalk(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package a\n\nimport (\n\t\"fmt\"\n\tx \"os\"\n)\n")
	write("a_test.go", "package a\n\nimport \"testing\"\n")
	write("sub/b.go", "package b\n\nimport \"strings\"\n")
	write("testdata/c.go", "package c\n\nimport \"net\"\n")
	write(".hidden/d.go", "package d\n\nimport \"net\"\n")
	write("skipped/e.go", "package e\n\nimport \"net\"\n")
	write("notes.txt", "import \"net\"\n")
	var got []string
	n := Walk(t, root, func(dir string) bool { return filepath.Base(dir) == "skipped" }, func(path string, test bool, imp string) {
		rel, _ := filepath.Rel(root, path)
		tag := ""
		if test {
			tag = " (test)"
		}
		got = append(got, rel+" "+imp+tag)
	})
	want := []string{"a.go fmt", "a.go os", "a_test.go testing (test)", "sub/b.go strings"}
	slices.Sort(got)
	if n != 3 || !slices.Equal(got, want) {
		t.Errorf("parsed %d files, imports %q; want 3, %q", n, got, want)
	}
}
