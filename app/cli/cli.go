// Package cli is the command-line front end of AMT Studio (`amt COMMAND
// ...`): it registers the commands, parses and checks their flags, calls
// the use cases of package app, and prints the results as text or JSON.
// The window (package ui) is the other front end over the same app calls.
//
// cli holds no use case: what a command does beyond reading its flags and
// printing is an app function the window can call too. It imports only app
// and the value types of engine/midi and engine/token (TestCLIImportsOnlyApp)
// and opens no file itself (TestCLIFilesThroughApp): inputs, outputs and
// stopping are app's (app/input.go, app/output.go, app/stop.go). A command
// checks its outputs before any work (checkOutputs) and prints its report
// on stderr when an output is standard output. Nothing but main
// imports cli: app and ui must not (TestLayers), and the window's one
// command, amt snapshot, reaches ui through Env.Snapshot, which main sets.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"

	"github.com/amtstudio/amt/app"
)

// Command is one sub-command of the `amt` command line. Each lives in its own
// file (NAME.go) and registers itself in init.
type Command struct {
	Name    string
	Usage   string // e.g. "inspect FILE.mid [--json]"
	Summary string // one line for `amt help`
	// Run executes the command. args excludes the command name. It writes
	// results to env.Stdout and returns an error for a non-zero exit.
	Run func(ctx context.Context, env *Env, args []string) error
}

// Env is what a command runs with.
type Env struct {
	// Stdin is the input of commands that read one (amt examples --serve);
	// nil: none.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Snapshot renders a screen of the window as a PNG (amt snapshot):
	// main passes ui.SnapshotPNG, so that cli does not import the window
	// (whose tests run commands). nil: amt snapshot fails saying so.
	Snapshot func(screen, home string, width, height int, out string) error
}

var commands = map[string]*Command{}

// Register adds a command; it panics on a duplicate name (a programming error).
func Register(c *Command) {
	if _, dup := commands[c.Name]; dup {
		panic("app: duplicate command " + c.Name)
	}
	commands[c.Name] = c
}

// Commands returns the registered commands sorted by name.
func Commands() []*Command {
	out := make([]*Command, 0, len(commands))
	for _, c := range commands {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ErrUsage marks an error in the command line itself; Main prints the
// usage. It is app.ErrUsage, so the range checks of app (a --temperature
// out of range, a prompt asking 500 bars) are usage errors here too.
var ErrUsage = app.ErrUsage

// Main runs the command line: args[0] is the sub-command. It returns the
// process exit code: 0 on success, 1 on failure, 2 on a usage error.
func Main(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				fmt.Fprintf(env.Stdout, "usage: amt %s\n\n%s\n", c.Usage, c.Summary)
				return 0
			}
			fmt.Fprintf(env.Stderr, "amt: unknown command %q (see amt help)\n", Safe(args[1]))
			return 2
		}
		printHelp(env.Stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "amt: unknown command %q (see amt help)\n", Safe(args[0]))
		return 2
	}
	err := c.Run(ctx, env, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, context.Canceled) && ctx.Err() != nil && context.Cause(ctx) != context.Canceled:
		// Stopped (app.RunCommand: "stopped by SIGTERM"); what was
		// committed before is kept.
		fmt.Fprintf(env.Stderr, "amt %s: %s (%s)\n", c.Name, context.Cause(ctx), Safe(err.Error()))
		return 1
	case errors.Is(err, ErrUsage):
		fmt.Fprintf(env.Stderr, "amt %s: %s\nusage: amt %s\n", c.Name, Safe(err.Error()), c.Usage)
		return 2
	default:
		fmt.Fprintf(env.Stderr, "amt %s: %s\n", c.Name, Safe(err.Error())) // errors quote file names and contents
		return 1
	}
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "AMT Studio: text-to-music composition, datasets and training.")
	fmt.Fprintln(w, "\nusage: amt              open the window")
	fmt.Fprintln(w, "       amt COMMAND ...  run a command (amt COMMAND --help for its options)")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range Commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.Name, c.Summary)
	}
}

// NewFlags returns a FlagSet for a command that reports errors instead of
// exiting, prints its usage to env.Stderr on --help, and accepts flags after
// positional arguments (amt inspect song.mid --json).
func NewFlags(env *Env, c *Command) *flag.FlagSet {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "usage: amt %s\n\n%s\n\noptions:\n", c.Usage, c.Summary)
		fs.PrintDefaults()
	}
	return fs
}

// ParseInterleaved parses flags that may appear before, between or after
// positional arguments and returns the positionals. A parse error is wrapped
// in ErrUsage; --help returns flag.ErrHelp.
func ParseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// benches are the sub-commands of `amt bench NAME`, registered like commands.
var benches = map[string]*Command{}

// RegisterBench adds `amt bench NAME`.
func RegisterBench(c *Command) {
	if _, dup := benches[c.Name]; dup {
		panic("app: duplicate bench " + c.Name)
	}
	benches[c.Name] = c
}

func init() {
	Register(&Command{
		Name:    "bench",
		Usage:   "bench NAME [options] (amt bench lists the names)",
		Summary: "measure a part of the engine and print the figures as JSON",
		Run: func(ctx context.Context, env *Env, args []string) error {
			names := make([]string, 0, len(benches))
			for n := range benches {
				names = append(names, n)
			}
			sort.Strings(names)
			if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
				fmt.Fprintln(env.Stdout, "usage: amt bench NAME [options]\n\nbenchmarks:")
				for _, n := range names {
					fmt.Fprintf(env.Stdout, "  %-10s %s\n", n, benches[n].Summary)
				}
				return nil
			}
			b, ok := benches[args[0]]
			if !ok {
				return fmt.Errorf("%w: unknown benchmark %q (one of %v)", ErrUsage, args[0], names)
			}
			return b.Run(ctx, env, args[1:])
		},
	})
}

// deviceFlagHelp is the help of every --device flag.
// exactFlagHelp is --exact of generate and eval-model (app.Model.Exact).
const exactFlagHelp = "on the CPU, step in float32 instead of the compact decoding (int8 weights, half-precision cache: about 3× faster; docs/MODEL.md)"

const deviceFlagHelp = "compute device: cpu, cuda, or auto (CUDA when it opens, else the CPU); the GPU path is " + app.GPUVerification
