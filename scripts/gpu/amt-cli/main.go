// Command amt-cli is `amt` without the window, for a GPU machine that lacks
// the desktop's libraries (OpenGL, X11): every sub-command but snapshot,
// as cli.Main runs them. scripts/gpu/pack-model-data.sh builds it with
// OpenBLAS linked statically, so it needs libc and ALSA's libasound.so.2
// (carried beside it), to evaluate a model trained there (the two-sample
// test) on the machine's cores (docs/GPU.md, "Training the default model
// on a GPU").
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/app/cli"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "amt-cli: a sub-command, as amt's (amt-cli help); this build has no window")
		os.Exit(2)
	}
	os.Exit(app.RunCommand(os.Stderr, func(ctx context.Context) int {
		return cli.Main(ctx, &cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, os.Args[1:])
	}))
}
