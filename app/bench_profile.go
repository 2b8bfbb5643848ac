package app

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"

	"github.com/amtstudio/amt/engine/userfile"
)

// StartProfile starts a CPU profile and an execution trace of the
// process into dir (cpu.pprof, trace.out; `amt train --profile DIR`); the
// returned function stops them and closes the files.
func StartProfile(dir string) (func(), error) {
	if err := CheckOutputDir(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, n := range []string{"cpu.pprof", "trace.out"} {
		// Written while the run goes on, so not through WriteOutput; a
		// special file in their place is refused, not opened (a FIFO
		// would wait for a reader).
		p := filepath.Join(dir, n)
		if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("profile: %s is a %s, not a file", p, userfile.Kind(fi.Mode()))
		}
	}
	cf, err := os.Create(filepath.Join(dir, "cpu.pprof"))
	if err != nil {
		return nil, err
	}
	tf, err := os.Create(filepath.Join(dir, "trace.out"))
	if err != nil {
		cf.Close()
		return nil, err
	}
	if err := pprof.StartCPUProfile(cf); err != nil {
		cf.Close()
		tf.Close()
		return nil, err
	}
	if err := trace.Start(tf); err != nil {
		pprof.StopCPUProfile()
		cf.Close()
		tf.Close()
		return nil, err
	}
	return func() {
		trace.Stop()
		pprof.StopCPUProfile()
		tf.Close()
		cf.Close()
	}, nil
}
