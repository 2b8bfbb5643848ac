package train

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestClaimOneRunPerFolder: while a run holds a folder, a second claim and
// a second Run into it fail with ErrInUse naming the holder's PID, and the
// second Run writes nothing; once released, the folder is free again and
// no lock file is left.
func TestClaimOneRunPerFolder(t *testing.T) {
	dir := t.TempDir()
	c, err := ClaimDir(dir, 5, false, false)
	if err != nil {
		t.Fatal(err)
	}
	pid := "PID " + strconv.Itoa(os.Getpid())
	if _, err := ClaimDir(dir, 5, false, false); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), pid) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second claim: %v, want ErrInUse naming %s and %s", err, dir, pid)
	}
	o := baseOpts(dir)
	if _, err := Run(context.Background(), tiny(t, 24), NewDataset(patterned(20, 40, 24)), o); !errors.Is(err, ErrInUse) {
		t.Fatalf("run into a held folder: %v", err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 1 || files[0].Name() != LockFile {
		t.Fatalf("the refused run left %v", files)
	}
	c.Release()
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !os.IsNotExist(err) {
		t.Fatalf("lock file after release: %v", err)
	}
	if _, err := Run(context.Background(), tiny(t, 24), NewDataset(patterned(20, 40, 24)), o); err != nil {
		t.Fatalf("run after release: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !os.IsNotExist(err) {
		t.Fatalf("lock file after the run: %v", err)
	}
}

// TestClaimHolder is the other process of TestClaimIgnoresKilledHolder: it
// claims the folder named in its environment, says so, and waits.
func TestClaimHolder(t *testing.T) {
	dir := os.Getenv("AMT_TEST_CLAIM_DIR")
	if dir == "" {
		t.Skip("the helper process of TestClaimIgnoresKilledHolder")
	}
	if _, err := ClaimDir(dir, 5, false, false); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("claimed\n")
	time.Sleep(time.Minute)
}

// TestClaimIgnoresKilledHolder: a run killed outright (SIGKILL) leaves its
// lock file, naming its PID, but not its lock: the next run takes the
// folder at once.
func TestClaimIgnoresKilledHolder(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestClaimHolder$", "-test.count=1")
	cmd.Env = append(os.Environ(), "AMT_TEST_CLAIM_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "claimed\n" {
		cmd.Process.Kill()
		t.Fatalf("holder said %q, %v", line, err)
	}
	held := "PID " + strconv.Itoa(cmd.Process.Pid)
	if _, err := ClaimDir(dir, 5, false, false); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), held) {
		t.Fatalf("claim while the other process holds it: %v, want ErrInUse naming %s", err, held)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if b, err := os.ReadFile(filepath.Join(dir, LockFile)); err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(cmd.Process.Pid) {
		t.Fatalf("the killed run's lock file: %q, %v", b, err)
	}
	c, err := ClaimDir(dir, 5, false, false)
	if err != nil {
		t.Fatalf("claim after the holder was killed: %v", err)
	}
	c.Release()
}

// TestFreshRunOverCheckpoint: a run without Resume into a folder holding a
// checkpoint is refused, naming the checkpoint's step, and leaves it as it
// was; Overwrite lets it start again.
func TestFreshRunOverCheckpoint(t *testing.T) {
	ds := NewDataset(patterned(20, 40, 24))
	o := baseOpts(t.TempDir())
	o.Steps = 2
	if _, err := Run(context.Background(), tiny(t, 24), ds, o); err != nil {
		t.Fatal(err)
	}
	ck := filepath.Join(o.OutDir, CheckpointFile)
	before, err := os.ReadFile(ck)
	if err != nil {
		t.Fatal(err)
	}
	o.Seed = 12
	res, err := Run(context.Background(), tiny(t, 24), ds, o)
	if !errors.Is(err, ErrCheckpointExists) || !strings.Contains(err.Error(), "step 2") || res.Steps != 0 {
		t.Fatalf("fresh run over a checkpoint: %d steps, %v", res.Steps, err)
	}
	if after, _ := os.ReadFile(ck); !bytes.Equal(after, before) {
		t.Fatal("the refused run changed the checkpoint")
	}
	o.Overwrite = true
	if _, err := Run(context.Background(), tiny(t, 24), ds, o); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	if after, _ := os.ReadFile(ck); bytes.Equal(after, before) {
		t.Fatal("Overwrite kept the old checkpoint")
	}
}

// TestResumeWithNoStepsLeft: resuming with Steps at or below the
// checkpoint's step is ErrNoStepsLeft naming the step (it "ran" 0 steps
// and reported a loss of 0); a missing checkpoint is an error before any
// work.
func TestResumeWithNoStepsLeft(t *testing.T) {
	ds := NewDataset(patterned(20, 40, 24))
	o := baseOpts(t.TempDir())
	o.Steps = 3
	if _, err := Run(context.Background(), tiny(t, 24), ds, o); err != nil {
		t.Fatal(err)
	}
	o.Resume = true
	for _, steps := range []int{3, 1} {
		o.Steps = steps
		res, err := Run(context.Background(), tiny(t, 24), ds, o)
		if !errors.Is(err, ErrNoStepsLeft) || !strings.Contains(err.Error(), "step 3") || res.Steps != 0 {
			t.Errorf("resume to %d: %d steps, %v", steps, res.Steps, err)
		}
	}
	o = baseOpts(t.TempDir())
	o.Resume = true
	if _, err := Run(context.Background(), tiny(t, 24), ds, o); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("resume without a checkpoint: %v", err)
	}
}
