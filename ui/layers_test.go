package ui

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/amtstudio/amt/"

// allowedBelow are the packages under engine/ that ui may import: the
// value types it draws (scores, attributes). Everything else the window
// does goes through app, the layer the command line also calls.
var allowedBelow = map[string]bool{module + "engine/midi": true, module + "engine/token": true}

// testOnly may be imported by _test.go files: engine/corpus finds the
// shared corpora (and skips without them), the project's one way for a
// test to read real data.
var testOnly = map[string]bool{module + "engine/corpus": true}

// TestUIImportsOnlyApp parses every Go file under ui/ and fails on an
// import of storage or of an engine package other than midi and token, so
// each window action stays the app call the command line makes.
func TestUIImportsOnlyApp(t *testing.T) {
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			below := strings.HasPrefix(p, module+"engine/") || p == module+"storage" || strings.HasPrefix(p, module+"storage/")
			if !below || allowedBelow[p] || (testOnly[p] && strings.HasSuffix(path, "_test.go")) {
				continue
			}
			t.Errorf("ui/%s imports %s: the window reaches the engine and the store through app only (add an app call or an alias in app/frontend.go)", path, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("parsed %d files: the walk missed ui/", files)
	}
}
