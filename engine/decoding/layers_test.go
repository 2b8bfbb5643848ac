package decoding

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/internal/imports"
)

// Decoding and training keep apart (issue 36): no file of engine/train (its
// tests included) imports this package, and no file of this package
// imports engine/train; what both read of a token stream is
// engine/token's.
func TestDecodingAndTrainingApart(t *testing.T) {
	check := func(root, banned string) int {
		banned = imports.Module + banned
		return imports.Walk(t, root, nil, func(path string, _ bool, p string) {
			if p == banned || strings.HasPrefix(p, banned+"/") {
				t.Errorf("%s imports %s: decoding (engine/decoding) and training examples (engine/train) keep apart", path, p)
			}
		})
	}
	if n := check(filepath.Join("..", "train"), "engine/decoding"); n < 10 {
		t.Fatalf("parsed %d files of engine/train: the walk missed them", n)
	}
	if n := check(".", "engine/train"); n < 10 {
		t.Fatalf("parsed %d files of engine/decoding: the walk missed them", n)
	}
}
