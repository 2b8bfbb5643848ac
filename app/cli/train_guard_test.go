package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amtstudio/amt/app/internal/testfiles"
)

// tinyTrain is `amt train` of the tiny preset on dir's shard into out: steps
// steps of batch 2 × context 32, no validation, a checkpoint at the end;
// extra flags come last and so override these.
func tinyTrain(data, out, steps string, extra ...string) []string {
	return append([]string{"train", "--data", data, "--out", out, "--preset", "tiny", "--steps", steps,
		"--batch", "2", "--context", "32", "--val-every", "0", "--checkpoint-every", "0"}, extra...)
}

// TestTrainKnobsBounded: every size knob of `amt train` and `amt bench
// train` is a usage error (exit 2) naming the flag, the value and the
// limit, before anything is written. --prefetch 1000000000 once took 9 GB
// and no step in 100 s; -1 was taken as the default.
func TestTrainKnobsBounded(t *testing.T) {
	data := t.TempDir()
	testfiles.Shard(t, data)
	out := filepath.Join(t.TempDir(), "model")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{tinyTrain(data, out, "2", "--prefetch", "-1"), []string{"--prefetch -1", "allowed 0 to 64"}},
		{tinyTrain(data, out, "2", "--prefetch", "100000"), []string{"--prefetch 100000", "allowed 0 to 64"}},
		{tinyTrain(data, out, "2", "--loader-workers", "-1"), []string{"--loader-workers -1", "allowed 0 to 64"}},
		{tinyTrain(data, out, "2", "--loader-workers", "65"), []string{"--loader-workers 65", "allowed 0 to 64"}},
		{tinyTrain(data, out, "2", "--log-every", "-1"), []string{"--log-every -1"}},
		{tinyTrain(data, out, "2", "--warmup", "-1"), []string{"--warmup -1"}},
		{tinyTrain(data, out, "2", "--context", "200"), []string{"--context 200", "tiny", "128"}},
		{tinyTrain(data, out, "2", "--accum", "0"), []string{"--accum 0", "allowed 1 to 4096"}},
		{[]string{"bench", "train", "--data", data, "--preset", "tiny", "--context", "32", "--steps", "1", "--warmup", "0", "prefetch=100000"},
			[]string{"prefetch=", "100000", "64"}},
		{[]string{"bench", "train", "--data", data, "--preset", "tiny", "--context", "32", "--steps", "1", "--warmup", "0", "loaders=65"},
			[]string{"loaders=", "65", "64"}},
		{[]string{"bench", "train", "--data", data, "--preset", "tiny", "--context", "32", "--steps", "1", "--warmup", "0", "threads=5000"},
			[]string{"threads=", "5000", "1024"}},
		{[]string{"bench", "train", "--data", data, "--preset", "tiny", "--context", "32", "--steps", "1", "--warmup", "0", "batch=5000"},
			[]string{"batch=", "5000", "4096"}},
		{[]string{"bench", "train", "--data", data, "--preset", "tiny", "--context", "32", "--steps", "1", "--warmup", "0", "--rounds", "-1"},
			[]string{"--rounds -1", "allowed 1 to 100"}},
		{[]string{"bench", "train", "--data", data, "--preset", "tiny", "--steps", "1", "--warmup", "0", "--context", "200"},
			[]string{"--context 200", "128"}},
		{[]string{"bench", "train", "--data", data, "--preset", "tiny", "--context", "32", "--warmup", "0", "--steps", "1000000"},
			[]string{"--steps 1000000", "allowed 1 to 10000"}},
		{[]string{"bench", "engine", "--repeat", "-1"}, []string{"--repeat -1"}},
	} {
		code, so, se := runCLI(c.args...)
		ok := code == 2
		for _, w := range c.want {
			ok = ok && strings.Contains(se, w)
		}
		if !ok {
			t.Errorf("amt %s: exit %d, stdout %q, stderr %q; want exit 2 naming %q", strings.Join(c.args, " "), code, so, se, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("amt %s created %s (%v)", strings.Join(c.args, " "), out, err)
		}
	}
}

// TestTrainTinyDefaultContext: the default --context follows the preset:
// tiny has 128 positions, so `amt train --preset tiny` trains at 128 (it
// failed: "context 256 exceeds the model's 128 positions").
func TestTrainTinyDefaultContext(t *testing.T) {
	data, out := t.TempDir(), t.TempDir()
	testfiles.Shard(t, data)
	code, so, se := runCLI("train", "--data", data, "--out", out, "--preset", "tiny", "--steps", "1", "--batch", "1", "--val-every", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, so, se)
	}
	cfg, err := os.ReadFile(filepath.Join(out, "config.json"))
	if err != nil || !strings.Contains(string(cfg), `"amt_train_context": 128`) && !strings.Contains(string(cfg), `"amt_train_context":128`) {
		t.Errorf("config.json %s (%v): want a train context of 128", cfg, err)
	}
}

// TestTrainRefusesFreshRunOverCheckpoint: a run without --resume into a
// folder holding a checkpoint is refused (exit 2, naming the step and
// both ways on), and the checkpoint stays as it was; --overwrite starts
// again. It silently replaced the checkpoint.
func TestTrainRefusesFreshRunOverCheckpoint(t *testing.T) {
	data, out := t.TempDir(), t.TempDir()
	testfiles.Shard(t, data)
	if code, _, se := runCLI(tinyTrain(data, out, "3")...); code != 0 {
		t.Fatalf("first run: exit %d %s", code, se)
	}
	ck := filepath.Join(out, "checkpoint.safetensors")
	before, err := os.ReadFile(ck)
	if err != nil {
		t.Fatal(err)
	}
	code, so, se := runCLI(tinyTrain(data, out, "2", "--seed", "9")...)
	if code != 2 || !strings.Contains(se, "step 3") || !strings.Contains(se, "--resume") || !strings.Contains(se, "--overwrite") || strings.Contains(so, "loss") {
		t.Errorf("fresh run over a checkpoint: exit %d, stdout %q, stderr %q", code, so, se)
	}
	if after, _ := os.ReadFile(ck); !bytes.Equal(after, before) {
		t.Fatal("the refused run changed the checkpoint")
	}
	if code, _, se := runCLI(tinyTrain(data, out, "4", "--resume")...); code != 0 {
		t.Fatalf("resume after the refusal: exit %d %s", code, se)
	}
	if code, so, se := runCLI(tinyTrain(data, out, "2", "--seed", "9", "--overwrite")...); code != 0 || !strings.Contains(so, "done: 2 steps") {
		t.Fatalf("--overwrite: exit %d %s %s", code, so, se)
	}
	if after, _ := os.ReadFile(ck); bytes.Equal(after, before) {
		t.Error("--overwrite left the old checkpoint")
	}
}

// TestTrainResumeAtOrBelowCheckpoint: --resume with --steps at or below the
// checkpoint's step says where the checkpoint is and what to pass (exit 2)
// instead of "done … train loss 0.0000".
func TestTrainResumeAtOrBelowCheckpoint(t *testing.T) {
	data, out := t.TempDir(), t.TempDir()
	testfiles.Shard(t, data)
	if code, _, se := runCLI(tinyTrain(data, out, "3")...); code != 0 {
		t.Fatalf("first run: exit %d %s", code, se)
	}
	for _, steps := range []string{"3", "2"} {
		code, so, se := runCLI(tinyTrain(data, out, steps, "--resume")...)
		if code != 2 || !strings.Contains(se, "step 3") || !strings.Contains(se, "--steps "+steps) || strings.Contains(so, "loss") {
			t.Errorf("--resume --steps %s: exit %d, stdout %q, stderr %q", steps, code, so, se)
		}
	}
}

// syncWriter signals the first time a line holding want is written.
type syncWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// TestTrainOneRunPerFolder: a second `amt train` into the folder of a
// running one fails at once naming the folder and the holder, and the
// first run's checkpoint still resumes. Both ran, and the second's
// checkpoint (another batch size) broke the first's --resume.
func TestTrainOneRunPerFolder(t *testing.T) {
	data, out := t.TempDir(), t.TempDir()
	testfiles.Shard(t, data)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &syncWriter{want: "step 1/", seen: make(chan struct{})}
	done := make(chan int)
	go func() {
		done <- Main(ctx, &Env{Stdout: w, Stderr: &bytes.Buffer{}}, tinyTrain(data, out, "100000000", "--log-every", "1"))
	}()
	select {
	case <-w.seen:
	case code := <-done:
		t.Fatalf("the first run ended (exit %d) before its first step", code)
	case <-time.After(2 * time.Minute):
		t.Fatal("no first step in 2 minutes")
	}
	code, so, se := runCLI(tinyTrain(data, out, "2", "--batch", "1")...)
	if code != 1 || !strings.Contains(se, out) || !strings.Contains(se, "in use") || !strings.Contains(se, "PID") || strings.Contains(so, "loss") {
		t.Errorf("second run into a running one's folder: exit %d, stdout %q, stderr %q", code, so, se)
	}
	cancel() // the first run writes its checkpoint as it stops
	<-done
	w.mu.Lock()
	printed := w.buf.String()
	w.mu.Unlock()
	var at int
	if i := strings.LastIndex(printed, "stopped at step "); i < 0 {
		t.Fatalf("the first run did not stop with a checkpoint:\n%s", printed)
	} else if _, err := fmt.Sscanf(printed[i:], "stopped at step %d", &at); err != nil || at < 1 {
		t.Fatalf("stopped at %q: %v", printed[i:], err)
	}
	next := strconv.Itoa(at + 1)
	if code, so, se := runCLI(tinyTrain(data, out, next, "--resume")...); code != 0 || !strings.Contains(so, "done: "+next+" steps") {
		t.Fatalf("the first run's --resume to step %s: exit %d %s %s", next, code, so, se)
	}
}

// TestUnknownDeviceIsUsageError: an unknown --device is a usage error (exit
// 2, naming the value and the choices) in every command that takes one; it
// exited 1 as if the machine had failed.
func TestUnknownDeviceIsUsageError(t *testing.T) {
	data, dir := t.TempDir(), t.TempDir()
	testfiles.Shard(t, data)
	out := filepath.Join(dir, "model")
	for _, args := range [][]string{
		tinyTrain(data, out, "2", "--device", "tpu"),
		{"bench", "train", "--data", data, "--preset", "tiny", "--context", "32", "--steps", "1", "--warmup", "0", "device=tpu"},
		{"bench", "engine", "--device", "tpu", "--repeat", "1", "--steps", "1"},
		{"generate", "a waltz", "--bars", "1", "-o", filepath.Join(dir, "x.mid"), "--device", "tpu"},
	} {
		code, _, se := runCLI(args...)
		if code != 2 || !strings.Contains(se, `"tpu"`) || !strings.Contains(se, "cuda") {
			t.Errorf("amt %s: exit %d, stderr %q; want exit 2 naming the device and the choices", strings.Join(args, " "), code, se)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("train with an unknown device created %s", out)
	}
}
