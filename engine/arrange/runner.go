package arrange

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/amtstudio/amt/engine/midi"
)

// ErrNoMMA is returned when the mma program cannot be found.
var ErrNoMMA = errors.New("arrange: mma not found (Debian/Ubuntu: apt-get install mma)")

// LookMMA returns the path of the mma program (bin, or "mma" on PATH).
func LookMMA(bin string) (string, error) {
	if bin == "" {
		bin = "mma"
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoMMA, err)
	}
	return p, nil
}

// maxMMAOutput bounds what is kept of mma's console output for an error.
const maxMMAOutput = 2000

// RunMMA writes text to dir/name.mma, runs mma on it (Python's hash seed
// fixed, so nothing in MMA depends on the process) and returns the MIDI file
// it wrote, parsed. The .mma and .mid files stay in dir for inspection.
func RunMMA(ctx context.Context, bin, dir, name, text string) (*midi.Score, error) {
	src := filepath.Join(dir, name+".mma")
	out := filepath.Join(dir, name+".mid")
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		return nil, fmt.Errorf("arrange: mma %s: %w", name, err)
	}
	_ = os.Remove(out)
	// -m: MMA stops at 500 bars by default; -w: no warnings (a slash bass
	// outside the chord's scale is one).
	cmd := exec.CommandContext(ctx, bin, "-w", "-m", "10000", "-f", out, src)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONHASHSEED=0", "PYTHONDONTWRITEBYTECODE=1")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("arrange: mma %s: %w: %s", name, err, tail(buf.String()))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("arrange: mma %s wrote no MIDI file: %s", name, tail(buf.String()))
	}
	sc, err := midi.Parse(out, data)
	if err != nil {
		return nil, fmt.Errorf("arrange: mma %s: %w", name, err)
	}
	return sc, nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxMMAOutput {
		s = "…" + s[len(s)-maxMMAOutput:]
	}
	return strings.ReplaceAll(s, "\n", " | ")
}

// execOutput runs a program and returns its combined output.
func execOutput(ctx context.Context, bin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "PYTHONHASHSEED=0", "PYTHONDONTWRITEBYTECODE=1")
	b, err := cmd.CombinedOutput()
	return string(b), err
}
