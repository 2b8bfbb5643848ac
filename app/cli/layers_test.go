package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/internal/imports"
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
	cliDir := filepath.Join("..", "cli")
	apps := imports.Walk(t, "..", func(dir string) bool { return dir == cliDir }, func(path string, test bool, imp string) {
		switch {
		case imp == cliPath:
			t.Errorf("%s imports %s: app is the layer under both front ends", path, imp)
		case imp == "flag" && !test:
			t.Errorf(`%s imports "flag": commands and their flags belong in app/cli, the use cases they call in app`, path)
		}
	})
	uis := imports.Walk(t, filepath.Join("..", "..", "ui"), nil, func(path string, test bool, imp string) {
		if imp == cliPath && !test {
			t.Errorf("%s imports %s: the window calls app, not the command line", path, imp)
		}
	})
	if apps < 20 || uis < 10 {
		t.Fatalf("parsed %d files of app and %d of ui: the walk missed them", apps, uis)
	}
}

const module = imports.Module

// cliMayImport are the packages of this module a non-test file of cli may
// import: app, and the value types of the scores and attributes it prints
// (as for ui/, see ui/layers_test.go).
var cliMayImport = map[string]bool{module + "app": true, module + "engine/midi": true, module + "engine/token": true}

// TestCLIImportsOnlyApp parses every non-test Go file of cli and fails on
// an import of this module other than app, engine/midi and engine/token,
// and on any import from outside the standard library (bbolt, a
// synthesizer, …): the command line reaches the engine and the store only
// through app, the layer the window calls, so the two front ends cannot
// act differently on the same input. Tests may import more (engine/corpus
// to find the real corpora, storage or engine/audio to check what a
// command wrote, independently of the app code that wrote it).
func TestCLIImportsOnlyApp(t *testing.T) {
	// cli has no subpackage; testdata holds no Go.
	files := imports.Walk(t, ".", func(string) bool { return true }, func(path string, test bool, p string) {
		if test {
			return
		}
		first, _, _ := strings.Cut(p, "/")
		switch {
		case strings.HasPrefix(p, module):
			if !cliMayImport[p] {
				t.Errorf("app/cli/%s imports %s: the command line reaches the engine and the store through app only (add an app call or an alias in app/frontend_cli.go)", path, p)
			}
		case strings.Contains(first, "."):
			t.Errorf("app/cli/%s imports %s: a package from outside the standard library belongs below app", path, p)
		}
	})
	if files < 20 {
		t.Fatalf("parsed %d files: the walk missed app/cli", files)
	}
}

// cliMayNotCall are the functions that open, read or write a user's file
// directly: a command reaches files through app (app.ReadMIDI,
// app.ReadInput, app.WriteOutput, app.WriteMIDI…), where the input checks
// (no FIFO waited on, bounded reads), the output rules (atomic files,
// streams, refused folders and devices) and stopping live once for both
// front ends.
var cliMayNotCall = map[string]bool{
	"os.Open": true, "os.OpenFile": true, "os.Create": true, "os.ReadFile": true, "os.WriteFile": true,
	"os.CreateTemp": true, "os.MkdirTemp": true, "os.Rename": true,
	"midi.ReadFile": true, "midi.ReadFileContext": true, "midi.WriteFile": true, "token.LoadVocab": true,
}

// TestCLIFilesThroughApp parses every non-test file of cli and fails on a
// call of cliMayNotCall.
func TestCLIFilesThroughApp(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) < 20 {
		t.Fatalf("%d files, %v", len(files), err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && cliMayNotCall[id.Name+"."+sel.Sel.Name] {
				t.Errorf("app/cli/%s uses %s.%s: read and write a user's files through app (app/input.go, app/output.go)", path, id.Name, sel.Sel.Name)
			}
			return true
		})
	}
}
