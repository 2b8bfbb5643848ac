package ui

import (
	"strings"
	"testing"

	"github.com/amtstudio/amt/internal/imports"
)

const module = imports.Module

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
	files := imports.Walk(t, ".", nil, func(path string, test bool, p string) {
		below := strings.HasPrefix(p, module+"engine/") || p == module+"storage" || strings.HasPrefix(p, module+"storage/")
		if !below || allowedBelow[p] || (testOnly[p] && test) {
			return
		}
		t.Errorf("ui/%s imports %s: the window reaches the engine and the store through app only (add an app call or an alias in app/frontend.go)", path, p)
	})
	if files < 10 {
		t.Fatalf("parsed %d files: the walk missed ui/", files)
	}
}
