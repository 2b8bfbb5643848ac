//go:build unix

package app

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/amtstudio/amt/engine/atomicfile"
)

// stopChildEnv makes the test binary a child running RunCommand over
// work of the named kind in the folder given.
const stopChildEnv = "AMT_TEST_STOP_CHILD"

func stopChild(kind, dir string) {
	os.Exit(RunCommand(os.Stderr, func(ctx context.Context) int {
		started := make(chan struct{})
		go atomicfile.Write(filepath.Join(dir, "out.wav"), func(f *os.File) error {
			f.Write([]byte("RIFF, half"))
			close(started)
			if kind == "stubborn" {
				select {} // ignores the stop: a step no one can interrupt
			}
			<-ctx.Done()
			return ctx.Err()
		})
		<-started
		os.Stdout.WriteString("started\n")
		if kind == "stubborn" {
			select {}
		}
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // the writer removes its temporary file
		return 1
	}))
}

// TestRunCommandStops runs RunCommand in a child process over work that
// has a temporary file in flight, and sends SIGTERM (SIGINT): work that
// stops on its context ends at once; work that ignores it is abandoned
// after StopGrace, its temporary file removed. Both end with 143 (130)
// within 2 s, the target file never created.
func TestRunCommandStops(t *testing.T) {
	if k := os.Getenv(stopChildEnv); k != "" {
		kind, dir, _ := strings.Cut(k, ":")
		stopChild(kind, dir)
		return
	}
	for _, c := range []struct {
		kind      string
		sig       syscall.Signal
		code      int
		abandoned bool
	}{{"obedient", syscall.SIGTERM, 143, false}, {"stubborn", syscall.SIGTERM, 143, true}, {"stubborn", syscall.SIGINT, 130, true}} {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestRunCommandStops$")
		cmd.Env = append(os.Environ(), stopChildEnv+"="+c.kind+":"+dir)
		var se bytes.Buffer
		cmd.Stderr = &se
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(out).ReadString('\n'); line != "started\n" {
			t.Fatalf("%s: the child said %q, %v", c.kind, line, err)
		}
		sent := time.Now()
		cmd.Process.Signal(c.sig)
		err = cmd.Wait()
		took := time.Since(sent)
		code := -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err == nil {
			code = 0
		}
		if code != c.code || took > 2*time.Second {
			t.Errorf("%s, %v: exit %d after %v, want %d within 2 s (%s)", c.kind, c.sig, code, took, c.code, se.String())
		}
		if got := strings.Contains(se.String(), "abandoned"); got != c.abandoned {
			t.Errorf("%s: stderr %q: abandoned %v, want %v", c.kind, se.String(), got, c.abandoned)
		}
		if c.abandoned && took < StopGrace {
			t.Errorf("%s: ended after %v, before the grace of %v", c.kind, took, StopGrace)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 0 {
			t.Errorf("%s: left %v", c.kind, ents[0].Name())
		}
	}
}
