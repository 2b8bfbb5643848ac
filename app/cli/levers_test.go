package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/amtstudio/amt/app"
)

// amt generate decodes with the default levers of issue 24
// (app.DefaultLevers: docs/MODEL.md, "The two-sample test") unless
// --levers says otherwise, and its JSON names the levers in force.
func TestGenerateUsesDefaultLevers(t *testing.T) {
	for _, c := range []struct{ flag, want string }{
		{"", app.DefaultLevers.String()},
		{"none", "none"},
		{"canonical,strains", "canonical,strains"},
	} {
		args := []string{"generate", "a jig in D major for piano", "--bars", "4", "--seed", "5", "--json", "-o", filepath.Join(t.TempDir(), "g.mid")}
		if c.flag != "" {
			args = append(args, "--levers", c.flag)
		}
		var stdout, stderr bytes.Buffer
		if code := Main(context.Background(), &Env{Stdout: &stdout, Stderr: &stderr}, args); code != 0 {
			t.Fatalf("amt generate --levers %q: exit %d: %s", c.flag, code, stderr.String())
		}
		var res PromptGenerateJSON
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("--levers %q: %v: %s", c.flag, err, stdout.String())
		}
		if res.Levers != c.want {
			t.Errorf("--levers %q: JSON levers %q, want %q", c.flag, res.Levers, c.want)
		}
	}
	if app.DefaultLevers.String() == "none" {
		t.Error("no lever is on by default")
	}
}
