// Command amt-examples is `amt examples --serve` without the window: the
// example source of a cluster run (docs/CLUSTER.md) for training machines
// that lack the desktop's libraries (OpenGL, X11, ALSA). Built by
// scripts/build_static.sh, it needs only libc.
//
//	amt-examples [examples] --shards DIR --serve [--context T] [--batch B] [--seed S] [--split-seed S]
//	             [--val-frac F] [--key-labels window|piece] [--key-frame tonic|absolute] [--start-prob P] [--workers N]
//
// Without --serve it prints the stream's header (pieces, tokens, the
// conditioning) as JSON. A leading "examples" is skipped, so cluster/train.py's
// --source takes "amt examples" and "amt-examples" alike. The options and
// the examples are engine/train/stream's, the same as `amt examples`
// (app/cli/examples.go defines the same flags: keep the two equal;
// TestFlagsMatchAmtExamples).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/amtstudio/amt/engine/train/stream"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 && args[0] == "examples" {
		args = args[1:]
	}
	spec := stream.DefaultSpec()
	fs := flag.NewFlagSet("amt-examples", flag.ContinueOnError)
	spec.DefineFlags(fs)
	serve := fs.Bool("serve", false, "answer example requests on stdin with rows on stdout (the protocol of engine/train/stream; cluster/train.py --shards starts this)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || spec.Shards == "" {
		fmt.Fprintln(os.Stderr, "amt-examples: --shards is required, no positional arguments")
		return 2
	}
	src, err := stream.Open(spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "amt-examples:", err)
		if errors.Is(err, stream.ErrRequest) {
			return 2
		}
		return 1
	}
	defer src.Close()
	if !*serve {
		h := src.Header()
		h.VocabJSON = ""
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(h)
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := src.Serve(ctx, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "amt-examples:", err)
		return 1
	}
	return 0
}
