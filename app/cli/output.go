package cli

import (
	"fmt"

	"github.com/amtstudio/amt/app"
)

// checkOutputs checks the outputs a command was given (app.CheckOutput:
// a folder, a block device, a dangling symlink or a missing folder fails
// here, before any work; "" is no output) and returns the Env to print
// the command's report with: standard error as its Stdout when one output
// is standard output ("-", /dev/stdout), so that stream stays a whole
// MIDI, WAV or PNG file.
func checkOutputs(env *Env, paths ...string) (*Env, error) {
	out, stdout := env, ""
	for _, p := range paths {
		if p == "" {
			continue
		}
		if err := app.CheckOutput(p); err != nil {
			return env, err
		}
		if !app.OutputIsStdout(p) {
			continue
		}
		if stdout != "" {
			return env, fmt.Errorf("%w: %s and %s both write to standard output", ErrUsage, stdout, p)
		}
		stdout = p
		e := *env
		e.Stdout = env.Stderr
		out = &e
	}
	return out, nil
}
