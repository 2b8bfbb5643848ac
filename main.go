// Command amt is AMT Studio: with no argument it opens the window; with a
// sub-command it runs the command line (amt help lists them).
package main

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/app/cli"
	"github.com/amtstudio/amt/ui"
)

func main() {
	if len(os.Args) < 2 {
		if err := ui.CheckDisplay(runtime.GOOS, os.Getenv); err != nil {
			fmt.Fprintln(os.Stderr, "amt:", err)
			os.Exit(1)
		}
		ui.Run()
		return
	}
	// SIGINT and SIGTERM stop the command: 130 or 143, within
	// app.StopGrace, leaving no temporary file (app/stop.go).
	os.Exit(app.RunCommand(os.Stderr, func(ctx context.Context) int {
		return cli.Main(ctx, &cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Snapshot: ui.SnapshotPNG}, os.Args[1:])
	}))
}
