package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSnapshotRefusesMistypedHome: `amt snapshot --home DIR` only shows a
// data directory's state, so a DIR that holds no store is refused by name
// and nothing is created there (it made a whole store at a typo).
func TestSnapshotRefusesMistypedHome(t *testing.T) {
	typo := filepath.Join(t.TempDir(), "typo")
	out := filepath.Join(t.TempDir(), "x.png")
	err := SnapshotPNG("compose", typo, 400, 300, out)
	if err == nil || !strings.Contains(err.Error(), "no AMT Studio data at "+typo) {
		t.Errorf("err %v; want it to name %s", err, typo)
	}
	for _, p := range []string{typo, out} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists (%v)", p, err)
		}
	}
}
