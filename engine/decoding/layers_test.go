package decoding

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Decoding and training keep apart (issue 36): no file of engine/train (its
// tests included) imports this package, and no file of this package
// imports engine/train; what both read of a token stream is
// engine/token's.
func TestDecodingAndTrainingApart(t *testing.T) {
	const module = "github.com/amtstudio/amt/"
	check := func(root, banned string) int {
		n := 0
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
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
				if p == module+banned || strings.HasPrefix(p, module+banned+"/") {
					t.Errorf("%s imports %s: decoding (engine/decoding) and training examples (engine/train) keep apart", path, p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := check(filepath.Join("..", "train"), "engine/decoding"); n < 10 {
		t.Fatalf("parsed %d files of engine/train: the walk missed them", n)
	}
	if n := check(".", "engine/train"); n < 10 {
		t.Fatalf("parsed %d files of engine/decoding: the walk missed them", n)
	}
}
