package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadCommandsRefuseEmptyHome: a command that only reads refuses a
// data directory that holds no store, naming it, and creates nothing
// there: `amt datasets --home TYPO` made a whole store (folders and
// amt.db) at the mistyped path and listed nothing. The same holds for the
// default directory AMT_HOME names.
func TestReadCommandsRefuseEmptyHome(t *testing.T) {
	typo := filepath.Join(t.TempDir(), "typo")
	exp := filepath.Join(t.TempDir(), "exp")
	for _, args := range [][]string{
		{"datasets", "--project", "p", "--home", typo},
		{"datasets", "--project", "p", "--home", typo, "--export", exp, "--dataset", "d"},
		{"report", "--project", "p", "--home", typo},
		{"report", "--project", "p", "--home", typo, "--run", "1"},
	} {
		code, _, se := runCLI(args...)
		if code != 1 || !strings.Contains(se, "no AMT Studio data at "+typo) {
			t.Errorf("%v: exit %d, %q; want exit 1 naming %s", args, code, se, typo)
		}
		if _, err := os.Stat(typo); !os.IsNotExist(err) {
			t.Fatalf("%v: %s was created (%v)", args, typo, err)
		}
	}
	t.Setenv("AMT_HOME", typo)
	if code, _, se := runCLI("report", "--project", "p"); code != 1 || !strings.Contains(se, "no AMT Studio data at "+typo) {
		t.Errorf("AMT_HOME: exit %d, %q", code, se)
	}
	// An existing folder without a store is refused too, and left empty.
	if err := os.Mkdir(typo, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, se := runCLI("datasets", "--project", "p"); code != 1 || !strings.Contains(se, "no AMT Studio data at "+typo) {
		t.Errorf("empty folder: exit %d, %q", code, se)
	}
	if ents, _ := os.ReadDir(typo); len(ents) != 0 {
		t.Errorf("the empty folder now holds %d entries", len(ents))
	}
}
