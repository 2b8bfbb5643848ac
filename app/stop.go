package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/amtstudio/amt/engine/atomicfile"
)

// Stopping: how long work ends, once, for both front ends.
//
// Every long use case (Ingest, TrainModel, GenerateFromPrompt, RenderScore,
// EvalSuite, the benchmarks, the exports) takes a context and returns soon
// after it ends, leaving what it committed (bbolt transactions, files
// renamed into place whole) and removing its temporary files. The command
// line's context ends on SIGINT or SIGTERM (RunCommand); the window's jobs
// end on Cancel and when the window closes (ui: each job's cancel, then
// FinishWithin). Reads and writes with no context of their own (ReadMIDI,
// WriteMIDI) use Stopping's.
//
// A stop that outlives StopGrace (a step of a large model, a read the
// operating system will not interrupt) is not waited for: the temporary
// files and folders still in flight are removed (atomicfile.Abandon) and
// the process exits, so a stop takes at most about StopGrace whatever runs.

// StopGrace is how long stopping work may take before it is abandoned.
const StopGrace = 750 * time.Millisecond

// CloseGrace is how long the window waits for its jobs when it closes: a
// training run pauses by writing its checkpoint, which a large model
// takes seconds to write.
const CloseGrace = 10 * time.Second

var stopping struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func init() { stopping.ctx, stopping.cancel = context.WithCancelCause(context.Background()) }

// Stopping returns a context that ends when the process is asked to stop
// (a signal RunCommand caught, or Stop); its cause says why.
func Stopping() context.Context { return stopping.ctx }

// Stop ends Stopping's context with cause (nil: context.Canceled).
func Stop(cause error) { stopping.cancel(cause) }

// SignalStatus is the conventional exit status of a process stopped by
// sig: 128 + its number (130 for SIGINT, 143 for SIGTERM).
func SignalStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// RunCommand runs one command line. run's context ends at the first
// SIGINT or SIGTERM (and on Stop). RunCommand returns run's exit code, or,
// after a signal, that signal's status (SignalStatus): as soon as run
// returns, or after StopGrace, or at a second signal, whichever comes
// first. In the last two cases what run still had in flight is abandoned
// (FinishWithin) and a line on stderr says so; the caller exits at once.
func RunCommand(stderr io.Writer, run func(ctx context.Context) int) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(Stopping())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- run(ctx) }()
	var sig os.Signal
	select {
	case code := <-done:
		return code
	case sig = <-sigs:
	}
	Stop(fmt.Errorf("stopped by %s", signalName(sig)))
	cancel()
	code := SignalStatus(sig)
	if n, ok := finish(StopGrace, func() { <-done }, sigs); !ok {
		fmt.Fprintf(stderr, "amt: stopped by %s; the work still running after %v was abandoned (%d temporary files removed)\n", signalName(sig), StopGrace, n)
	}
	return code
}

// FinishWithin runs wait (which returns once the work it waits for has
// stopped) for at most grace. It reports whether wait returned; if not,
// the temporary files and folders still in flight are removed and later
// ones refused (atomicfile.Abandon): the process must exit next. The
// window calls it when it closes, around its jobs' cancel and wait.
func FinishWithin(grace time.Duration, wait func()) bool {
	_, ok := finish(grace, wait, nil)
	return ok
}

func finish(grace time.Duration, wait func(), sigs <-chan os.Signal) (int, bool) {
	done := make(chan struct{})
	go func() {
		wait()
		close(done)
	}()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
		return 0, true
	case <-t.C:
	case <-sigs: // a second signal: at once
	}
	return len(atomicfile.Abandon()), false
}
