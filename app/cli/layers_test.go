package cli

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const cliPath = "github.com/amtstudio/amt/app/cli"

// TestLayers: the command line is a front end over app, beside the
// window. It parses every Go file of app (and its subpackages but cli) and
// of ui, and fails where
//   - app imports app/cli, or a non-test file of app imports "flag": the
//     commands and their flags live in cli, the use cases in app;
//   - a non-test file of ui imports app/cli: the window calls app itself
//     (main hands it amt snapshot through Env.Snapshot).
func TestLayers(t *testing.T) {
	walk := func(root string, skip string, check func(path string, test bool, imp string)) int {
		n := 0
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (path == skip || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			n++
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				check(path, strings.HasSuffix(path, "_test.go"), p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	apps := walk("..", filepath.Join("..", "cli"), func(path string, test bool, imp string) {
		switch {
		case imp == cliPath:
			t.Errorf("%s imports %s: app is the layer under both front ends", path, imp)
		case imp == "flag" && !test:
			t.Errorf(`%s imports "flag": commands and their flags belong in app/cli, the use cases they call in app`, path)
		}
	})
	uis := walk(filepath.Join("..", "..", "ui"), "", func(path string, test bool, imp string) {
		if imp == cliPath && !test {
			t.Errorf("%s imports %s: the window calls app, not the command line", path, imp)
		}
	})
	if apps < 20 || uis < 10 {
		t.Fatalf("parsed %d files of app and %d of ui: the walk missed them", apps, uis)
	}
}
