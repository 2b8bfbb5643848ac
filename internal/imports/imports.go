// Package imports reads which packages the project's Go files import, for
// the tests that keep its layers apart (app/cli's TestLayers and
// TestCLIImportsOnlyApp, ui's TestUIImportsOnlyApp, engine/decoding's
// TestDecodingAndTrainingApart). It parses import blocks only and imports
// nothing of the project.
package imports

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Module is the project's module path with its trailing slash.
const Module = "github.com/amtstudio/amt/"

// Walk parses every Go file under root and calls visit for each of its
// imports, with the file's path and whether it is a test file. Folders
// named testdata or starting with a dot are passed over, and so is any
// folder for which skip (may be nil) is true. It returns the number of
// files parsed; a walk or parse error fails tb.
func Walk(tb testing.TB, root string, skip func(dir string) bool, visit func(path string, test bool, imp string)) int {
	tb.Helper()
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || skip != nil && skip(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		n++
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			visit(path, strings.HasSuffix(path, "_test.go"), p)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}
