package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSnapshotSizeChecked: `amt snapshot` refuses a size outside 1–8192
// pixels with the flag, the value and the range (--width 100000 --height
// 100000 died out of memory; --width -1 said only "usage") before it asks
// the window for anything; a size in range reaches the window's renderer
// as given.
func TestSnapshotSizeChecked(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.png")
	var got []string
	snap := func(screen, home string, w, h int, out string) error {
		got = append(got, strings.Join([]string{screen, home, strconv.Itoa(w), strconv.Itoa(h), filepath.Base(out)}, " "))
		return nil
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"snapshot", "-o", out, "--width", "100000", "--height", "100000"}, "--width 100000: allowed 1 to 8192"},
		{[]string{"snapshot", "-o", out, "--width", "-1"}, "--width -1: allowed 1 to 8192"},
		{[]string{"snapshot", "-o", out, "--height", "0"}, "--height 0: allowed 1 to 8192"},
	} {
		var so, se strings.Builder
		code := Main(context.Background(), &Env{Stdout: &so, Stderr: &se, Snapshot: snap}, c.args)
		if code != 2 || !strings.Contains(se.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 naming %q", c.args, code, se.String(), c.want)
		}
	}
	if _, err := os.Stat(out); err == nil || len(got) != 0 {
		t.Errorf("a PNG was written or asked for: %v", got)
	}
	var se strings.Builder
	code := Main(context.Background(), &Env{Stdout: &se, Stderr: &se, Snapshot: snap}, []string{"snapshot", "--screen", "training", "-o", out, "--height", "8192", "--home", "h"})
	if code != 0 || len(got) != 1 || got[0] != "training h 1100 8192 x.png" {
		t.Errorf("exit %d (%s), renderer asked %q", code, se.String(), got)
	}
	// Without the window (a program built without ui), a clear error.
	se.Reset()
	if code := Main(context.Background(), &Env{Stdout: &se, Stderr: &se}, []string{"snapshot", "-o", out}); code != 1 || !strings.Contains(se.String(), "without the window") {
		t.Errorf("no window: exit %d, %q", code, se.String())
	}
}
