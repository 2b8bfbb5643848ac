// Command amt is AMT Studio: with no argument it opens the window; with a
// sub-command it runs the command line (amt help lists them).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"

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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, &cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Snapshot: ui.SnapshotPNG}, os.Args[1:])
	stop()
	os.Exit(code)
}
